/**
 * The input fuzzer: requests derived from the service's own /openapi.json and from its route
 * table (routes the description leaves out, e.g. the pages for people and the /0.1 copies),
 * sent as raw bytes over loopback sockets with every kind of key and every family of
 * malformation. fast-check draws the values from a fixed seed, so a failure is reproduced by
 * running the same seed again (each finding names its seed and cell).
 *
 * The verdict of one answer: never a 5xx, never a connection dropped or left hanging without an
 * answer, and every non-2xx JSON answer is the documented error body { statusCode, error,
 * message } with `error` a code of the catalogue (core/errors.ts) and `statusCode` the status.
 *
 * The `oversized` family sends on purpose what the others hit only by chance: an oversized request
 * line and an oversized header, each with and without a multipart body (oversized.ts), every route
 * getting all four (in turn over the key kinds), by a client that keeps sending while the answer
 * comes. Its verdict: the whole 414 (request line) or 431 (header) read, and no reset.
 */
import fc from 'fast-check';
import type { RouteTableEntry } from '../../api/context.js';
import { ErrorCodes } from '../../core/errors.js';
import { OVERSIZED, OVERSIZED_CASES, OVERSIZED_STATUS, multipartBody, oversizedVerdict, sendKeepSending, type OversizedCase } from './oversized.js';
import { rawRequest, type RawOutcome } from './raw-http.js';

/**
 * The kinds of caller the fuzzer plays: no key, api-keys of every kind, and `session`, a
 * signed-in portal user (session cookie, and the form's CSRF token in every portal POST) who
 * sends no api-key.
 */
export const KEY_KINDS = ['none', 'invalid', 'revoked', 'other-site', 'standard', 'agency', 'admin', 'session'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** The families of malformation; `valid` is a well-formed request (it reaches the routes' logic). */
export const FAMILIES = ['valid', 'path', 'query', 'header', 'body', 'content-type', 'bytes', 'oversized'] as const;
export type Family = (typeof FAMILIES)[number];

/** One route to fuzz. */
export interface FuzzTarget {
  method: string;
  /** Path with `{name}` parameters (a wildcard `*` is a parameter named `*`). */
  path: string;
  params: { name: string; in: 'path' | 'query' | 'header'; type: string }[];
  /** Body content types and the JSON body's properties, when the route takes a body. */
  body: { contentTypes: string[]; properties: Record<string, { type?: string }> } | null;
  /** In /openapi.json (else only in the route table). */
  documented: boolean;
}

/** What the fuzzer knows of the seeded world. */
export interface FuzzWorld {
  port: number;
  /** The key sent for each kind (null: none). `invalid` draws among several. */
  keys: Record<Exclude<KeyKind, 'none' | 'invalid' | 'session'>, string>;
  /** A site every valid key but `other-site` reaches. */
  siteId: number;
  /** Its address (https://fuzz.test/): the valid value of every `url` and `urls`. */
  siteUrl: string;
  /** A site only the other-site, agency and admin keys reach. */
  otherSiteId: number;
  /** A test type id that exists. */
  testTypeId: number;
  /** The signed-in portal user's session (an agency user reaching `siteId`). */
  session: {
    /** The Cookie header value. */
    cookie: string;
    /** A CSRF token of that session. */
    csrf: string;
    /** The Cookie header value of another session of the same user with the same CSRF secret, each only once: for requests that end their session (sign-out). */
    spareCookie(): string;
  };
}

/** A form of the portal: every one carries the CSRF token (_csrf). */
const isPortalPost = (method: string, path: string) => method === 'POST' && path.startsWith('/portal/');

/** Routes whose request ends the caller's session: the `session` caller sends them with a spare one. */
const ENDS_SESSION = new Set(['POST /portal/sign-out']);

interface OpenApiParameter { name: string; in: string; schema?: { type?: string } }
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> };
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'];

/**
 * The routes to fuzz: every operation of the description, and every route of the route table
 * that the description does not hold (with its parameters taken from its path).
 */
export function fuzzTargets(openapi: { paths: Record<string, Record<string, OpenApiOperation>> }, routeTable: RouteTableEntry[]): FuzzTarget[] {
  const targets: FuzzTarget[] = [];
  const seen = new Set<string>();
  for (const [path, ops] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!METHODS.includes(method)) continue;
      const params = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
        .map((p) => ({ name: p.name, in: p.in as 'path' | 'query' | 'header', type: p.schema?.type ?? 'string' }));
      const content = op.requestBody?.content;
      const body = content
        ? { contentTypes: Object.keys(content), properties: Object.values(content).find((c) => c.schema?.properties)?.schema?.properties ?? {} }
        : null;
      targets.push({ method: method.toUpperCase(), path, params, body, documented: true });
      seen.add(`${method.toUpperCase()} ${path}`);
    }
  }
  for (const route of routeTable) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');
    if (seen.has(`${route.method} ${path}`)) continue;
    seen.add(`${route.method} ${path}`);
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path' as const, type: 'string' }));
    // A body as a browser's form sends it: for routes whose schema names its fields, and for every
    // POST of the portal (its forms all carry _csrf, which the session caller adds).
    const fields = (route.bodyFields ?? []).filter((f) => f !== '_csrf');
    const takesForm = route.bodyFields !== undefined || isPortalPost(route.method, path);
    const body = takesForm ? { contentTypes: ['application/x-www-form-urlencoded'], properties: Object.fromEntries(fields.map((f) => [f, {}])) } : null;
    targets.push({ method: route.method, path, params, body, documented: false });
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// Values

/** Text that has broken parsers, databases and number handling before. */
const NASTY_TEXT: string[] = [
  '', ' ', '-1', '+1', '-0', '0', '00', '01', '1e309', '-1e309', '1e3', '1.5', '1,5', '99999999999999999999999999999999',
  '2147483648', '-2147483649', '9007199254740993', '18446744073709551616', 'NaN', 'Infinity', '-Infinity', '0x10', '0b1', ' 1', '1 ', '１',
  'null', 'undefined', 'true', 'false', '[]', '{}', '[object Object]', '__proto__', 'constructor',
  '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\ufeff', '\u202e', '𝕏😀', 'åäöÅÄÖ', 'ﬀ',
  '<script>alert(1)</script>', "' or '1'='1", '"; drop table sites; --', '../../../etc/passwd', '..%2f..%2f', '%', '%zz', '%00', '%ff', '\\', '"', '\t', '\u000b',
  'https://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:22/', 'http://0x7f000001/', 'http://2130706433/', 'http://0177.0.0.1/',
  'javascript:alert(1)', 'file:///etc/passwd', 'gopher://127.0.0.1:25/', 'http://', 'https://127.0.0.1/' + 'a'.repeat(3000),
  'sv', 'en', 'xx', 'csv', 'audit_v2', ',', '1,2,,3', '1,-2', '1,1e309', '1;2', 'sv,en',
];

/** Byte sequences that are not UTF-8 (or not allowed where they are put). */
const NASTY_BYTES: Buffer[] = [
  Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xed, 0xbf, 0xbf]),
  Buffer.from([0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0x01]), Buffer.from([0x7f]),
  Buffer.from([0x00]), Buffer.from([0x1b, 0x5b, 0x33, 0x31, 0x6d]), Buffer.from('å', 'latin1'),
];

const BIG = 100_000;

/** A nasty text: the list, a huge value, or anything fast-check invents. */
const nastyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(BIG), '9'.repeat(BIG), '😀'.repeat(BIG / 4), '\ud800'.repeat(1000)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.oneof(fc.bigInt().map(String), fc.double().map(String), fc.integer().map(String)) },
);

const nastyBytes: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_BYTES) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 16 }).map((a) => Buffer.from(a)) },
);

/** Each byte as pct writes it: unreserved ones as they are, every other one as %XX. */
const PCT_BYTES = Array.from({ length: 256 }, (_, b) => {
  const c = String.fromCharCode(b);
  return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
});

/** Percent-encodes every byte but the unreserved ones (lone surrogates become their CESU-8 bytes). */
export function pct(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? wtf8(value) : value;
  const out = new Array<string>(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = PCT_BYTES[bytes[i]];
  return out.join('');
}

/** A UTF-16 code unit of a surrogate without its other half. */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** UTF-8, except that a lone surrogate is written as its own three bytes (as a broken client would). */
export function wtf8(text: string): Buffer {
  if (text.search(LONE_SURROGATES) < 0) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let at = 0;
  for (const m of text.matchAll(LONE_SURROGATES)) {
    const c = m[0].charCodeAt(0);
    parts.push(Buffer.from(text.slice(at, m.index), 'utf8'), Buffer.from([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]));
    at = m.index + 1;
  }
  parts.push(Buffer.from(text.slice(at), 'utf8'));
  return Buffer.concat(parts);
}

/** Header values cannot hold CR or LF without becoming other headers: those bytes become spaces. */
function headerBytes(value: string | Buffer): Buffer {
  const bytes = Buffer.from(typeof value === 'string' ? wtf8(value) : value);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0d || bytes[i] === 0x0a) bytes[i] = 0x20;
  return bytes;
}

/** A valid value for a parameter or body field, by its name. */
function validValue(name: string, world: FuzzWorld): string {
  switch (name.toLowerCase()) {
    case 'id': case 'siteid': case 'site-id': return String(world.siteId);
    case 'testid': case 'test_id': return String(world.testTypeId);
    case 'lang': return 'en';
    case 'active': return 'true';
    case 'testnums': return String(world.testTypeId);
    case 'pages': return '1';
    case 'format': return 'csv';
    case 'folder': return 'audit_20260101T000000Z';
    case 'file': return 'audit.csv';
    case 'content': return 'Det här är en kort text. Den har två meningar.';
    case 'urls': case 'url': return world.siteUrl;
    case 'threshold': return '2';
    case 'kind': return 'retest';
    case 'label': return 'fuzz key';
    case '*': return 'index.html';
    default: return 'x';
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

/** One request, as the parts it is built from. */
interface RequestParts {
  method: string;
  /** The request target, already encoded (may hold raw bytes). */
  target: Buffer;
  headers: [string, Buffer][];
  body: Buffer | null;
  /** The `oversized` family's case: sent by a client that keeps sending, judged by its status. */
  oversized?: OversizedCase;
}

function serialise(parts: RequestParts, port: number): Buffer {
  const head: Buffer[] = [Buffer.from(`${parts.method} `), parts.target, Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n`)];
  for (const [name, value] of parts.headers) head.push(Buffer.from(`${name}: `), value, Buffer.from('\r\n'));
  if (parts.body !== null) head.push(Buffer.from(`Content-Length: ${parts.body.length}\r\n`));
  head.push(Buffer.from('\r\n'));
  if (parts.body !== null) head.push(parts.body);
  return Buffer.concat(head);
}

/** The request target of `target` with each path parameter given (encoded) and a query string. */
function buildTarget(target: FuzzTarget, pathValues: Record<string, Buffer>, query: Buffer | null): Buffer {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const m of target.path.matchAll(/\{([^}]+)\}/g)) {
    pieces.push(Buffer.from(target.path.slice(at, m.index)), pathValues[m[1]] ?? Buffer.from('x'));
    at = (m.index ?? 0) + m[0].length;
  }
  pieces.push(Buffer.from(target.path.slice(at)));
  if (query !== null && query.length > 0) pieces.push(Buffer.from('?'), query);
  return Buffer.concat(pieces);
}

const INVALID_KEYS: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('x', 'wpk_', 'wpk_000000000000_' + 'A'.repeat(43), 'wpk_zzzzzzzzzzzz_' + 'A'.repeat(43), 'Bearer abc', 'null', 'k'.repeat(BIG), '\u00e5\u00e4\u00f6'),
  fc.string({ minLength: 1, maxLength: 60 }),
);

/** The api-key header value of a key kind, or null. */
function keyArb(kind: KeyKind, world: FuzzWorld): fc.Arbitrary<string | null> {
  if (kind === 'none' || kind === 'session') return fc.constant(null);
  if (kind === 'invalid') return INVALID_KEYS;
  return fc.constant(world.keys[kind]);
}

function multipart(fields: Record<string, string>, boundary: string, file?: { name: string; content: string }): Buffer {
  let text = '';
  for (const [name, value] of Object.entries(fields)) text += `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  if (file) text += `--${boundary}\r\ncontent-disposition: form-data; name="${file.name}"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\n${file.content}\r\n`;
  text += `--${boundary}--\r\n`;
  return wtf8(text);
}

function validFields(target: FuzzTarget, world: FuzzWorld, kind: KeyKind): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(target.body?.properties ?? {})) out[name] = validValue(name, world);
  if (kind === 'session' && isPortalPost(target.method, target.path)) out._csrf = world.session.csrf;
  return out;
}

/** A body in one of the route's declared types, with the given fields. */
function encodeBody(contentType: string, fields: Record<string, unknown>): [string, Buffer] {
  if (contentType === 'application/x-www-form-urlencoded') {
    return [contentType, Buffer.from(Object.entries(fields).map(([k, v]) => `${pct(k)}=${pct(String(v))}`).join('&'))];
  }
  if (contentType === 'multipart/form-data') {
    const boundary = 'fuzzboundary7MA4YWxkTrZu0gW';
    return [`multipart/form-data; boundary=${boundary}`, multipart(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])), boundary)];
  }
  return [contentType, wtf8(JSON.stringify(fields))];
}

/** JSON texts that JSON.stringify cannot write. */
const RAW_JSON: fc.Arbitrary<string> = fc.constantFrom(
  '', ' ', 'null', '[]', '"text"', '1e309', '{', '{"content":', '{"content":"\\ud800"}', '{"content":"\\u0000"}', '{"url":"\\udfff"}',
  '{"content":1e309}', '{"url":-0}', '{"threshold":1e309}', '{"threshold":-1e309}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}',
  '[' .repeat(5000) + ']'.repeat(5000), '['.repeat(100_000), '{"a":' + '{"a":'.repeat(3000) + '1' + '}'.repeat(3001),
  '{"content":"a","content":"b"}', '\ufeff{"content":"a"}', '{"urls":["a","b"]}', '{"pages":{"$gt":0}}',
);

/** The arbitrary of one request of a family, for one route and key kind. */
export function requestArb(target: FuzzTarget, kind: KeyKind, family: Family, world: FuzzWorld): fc.Arbitrary<RequestParts> {
  const pathParams = target.params.filter((p) => p.in === 'path');
  const queryParams = target.params.filter((p) => p.in === 'query');
  const headerParams = target.params.filter((p) => p.in === 'header');
  const validPath = () => Object.fromEntries(pathParams.map((p) => [p.name, Buffer.from(pct(validValue(p.name, world)))]));
  const validQuery = () => queryParams.map((p) => `${p.name}=${pct(validValue(p.name, world))}`).join('&');
  const validHeaders = (): [string, Buffer][] => headerParams.map((p) => [p.name, Buffer.from(validValue(p.name, world))]);
  const validBody = (): { headers: [string, Buffer][]; body: Buffer | null } => {
    if (!target.body) return { headers: [], body: null };
    const [ct, body] = encodeBody(target.body.contentTypes[0], validFields(target, world, kind));
    return { headers: [['content-type', Buffer.from(ct)]], body };
  };

  return fc.tuple(keyArb(kind, world), fc.boolean(), familyArb()).map(([key, keyInQuery, make]) => {
    const parts = make();
    if (kind === 'session') {
      const cookie = ENDS_SESSION.has(`${target.method} ${target.path}`) ? world.session.spareCookie() : world.session.cookie;
      parts.headers.unshift(['cookie', Buffer.from(cookie)]);
    }
    if (key !== null) {
      // A well-formed request sends its key where every route reads it (the header); the draw is
      // still made, so that the other families' values stay those of their seeds.
      if (keyInQuery && family !== 'valid') {
        const sep = parts.target.includes('?') ? '&' : '?';
        parts.target = Buffer.concat([parts.target, Buffer.from(`${sep}api-key=${pct(key)}`)]);
      } else {
        parts.headers.unshift(['api-key', headerBytes(key)]);
      }
    }
    return parts;
  });

  /** An arbitrary of a function building the family's request (the key is added afterwards). */
  function familyArb(): fc.Arbitrary<() => RequestParts> {
    const base = (over: Partial<{ path: Record<string, Buffer>; query: string | Buffer; headers: [string, Buffer][]; body: { headers: [string, Buffer][]; body: Buffer | null } }>): RequestParts => {
      const body = over.body ?? validBody();
      const query = over.query ?? validQuery();
      return {
        method: target.method,
        target: buildTarget(target, { ...validPath(), ...over.path }, Buffer.isBuffer(query) ? query : Buffer.from(query)),
        headers: [...(over.headers ?? validHeaders()), ...body.headers],
        body: body.body,
      };
    };
    switch (family) {
      case 'valid':
        return fc.constant(() => base({}));
      case 'path': {
        if (pathParams.length === 0) {
          // No parameter: odd forms of the path itself.
          return fc.constantFrom('//', '/./', '/../', '/%2e%2e/', '%', '%zz', '/x'.repeat(2000), ';x=1', '/%00', '%2F').map((suffix) => () => {
            const parts = base({});
            const q = parts.target.indexOf('?');
            const [p, rest] = q < 0 ? [parts.target, Buffer.alloc(0)] : [parts.target.subarray(0, q), parts.target.subarray(q)];
            parts.target = Buffer.concat([p, Buffer.from(suffix), rest]);
            return parts;
          });
        }
        return fc.tuple(fc.constantFrom(...pathParams.map((p) => p.name)), nastyText).map(([name, value]) => () => base({ path: { [name]: Buffer.from(pct(value)) } }));
      }
      case 'query': {
        const names = [...queryParams.map((p) => p.name), 'lang', 'api-key', 'x', '__proto__', 'constructor[prototype][x]'];
        return fc.tuple(fc.constantFrom(...names), nastyText, fc.integer({ min: 1, max: 3 })).map(([name, value, times]) => () => {
          const extra = Array.from({ length: times }, () => `${pct(name)}=${pct(value)}`).join('&');
          const valid = validQuery();
          return base({ query: valid ? `${valid}&${extra}` : extra });
        });
      }
      case 'header': {
        const names = [...headerParams.map((p) => p.name), 'site-id', 'testnums', 'pages', 'format', 'accept', 'accept-language', 'if-none-match', 'content-length-x', 'x-forwarded-for', 'expect', 'cookie'];
        return fc.tuple(fc.constantFrom(...names), nastyText, fc.boolean()).map(([name, value, twice]) => () => {
          const headers = validHeaders().filter(([n]) => n !== name);
          headers.push([name, headerBytes(value)]);
          if (twice) headers.push([name, headerBytes(value)]);
          return base({ headers });
        });
      }
      case 'body': {
        const fieldNames = [...Object.keys(target.body?.properties ?? {}), 'content', 'urls', 'url', 'pages', 'x', '_csrf'];
        const value: fc.Arbitrary<unknown> = fc.oneof(nastyText, fc.constantFrom(1e308, -1, 0, 1.5, Number.MAX_SAFE_INTEGER + 2, true, null, [], {}, ['a', 'b'], { a: 1 }));
        const contentType = fc.constantFrom(...(target.body?.contentTypes ?? ['application/json']));
        return fc.oneof(
          fc.tuple(contentType, fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 3 })).map(([ct, fields]) => () => {
            const [type, body] = encodeBody(ct, { ...validFields(target, world, kind), ...fields });
            return base({ body: { headers: [['content-type', Buffer.from(type)]], body } });
          }),
          RAW_JSON.map((text) => () => base({ body: { headers: [['content-type', Buffer.from('application/json')]], body: wtf8(text) } })),
        );
      }
      case 'content-type': {
        const fields = () => validFields(target, world, kind);
        const boundary = 'fuzzB0undary';
        const cases: (() => { headers: [string, Buffer][]; body: Buffer | null })[] = [
          () => ({ headers: [['content-type', Buffer.from('application/x-www-form-urlencoded')]], body: wtf8(JSON.stringify(fields())) }),
          () => ({ headers: [['content-type', Buffer.from('application/json')]], body: Buffer.from(new URLSearchParams(fields()).toString()) }),
          () => ({ headers: [['content-type', Buffer.from('text/plain')]], body: Buffer.from('content=hello') }),
          () => ({ headers: [['content-type', Buffer.from('application/xml')]], body: Buffer.from('<a>1</a>') }),
          () => ({ headers: [], body: Buffer.from('{"content":"a"}') }),
          () => ({ headers: [['content-type', Buffer.from('multipart/form-data')]], body: multipart(fields(), boundary) }),
          () => ({ headers: [['content-type', Buffer.from(`multipart/form-data; boundary=${boundary}`)]], body: multipart(fields(), boundary).subarray(0, 30) }),
          () => {
            const whole = multipart({ ...fields(), content: 'x'.repeat(5000) }, boundary);
            return { headers: [['content-type', Buffer.from(`multipart/form-data; boundary=${boundary}`)]], body: whole.subarray(0, whole.length - 10) };
          },
          () => ({ headers: [['content-type', Buffer.from(`multipart/form-data; boundary=${boundary}`)]], body: multipart(fields(), boundary, { name: 'content', content: 'file body' }) }),
          () => ({ headers: [['content-type', Buffer.from(`multipart/form-data; boundary=${boundary}`)]], body: multipart(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'v'])), boundary) }),
          () => ({ headers: [['content-type', Buffer.from(`multipart/form-data; boundary=${boundary}`)]], body: multipart({ content: 'y'.repeat(BIG) }, boundary) }),
          () => ({ headers: [['content-type', Buffer.from('application/json; charset=utf-16')]], body: Buffer.from(JSON.stringify(fields()), 'utf16le') }),
          () => ({ headers: [['content-type', Buffer.from('application/json')]], body: Buffer.alloc(0) }),
          () => ({ headers: [['content-type', Buffer.from('application/x-www-form-urlencoded')]], body: Buffer.from('content=%E0%A4%A&urls=%') }),
          () => ({ headers: [['content-type', Buffer.from('application/x-www-form-urlencoded')]], body: Buffer.from(`content=${'z'.repeat(BIG)}`) }),
          () => ({ headers: [['content-type', Buffer.from('application/json')], ['content-encoding', Buffer.from('gzip')]], body: Buffer.from('{"content":"a"}') }),
          () => ({ headers: [['content-type', Buffer.from(';;;')]], body: Buffer.from('a') }),
          () => ({ headers: [['content-type', Buffer.from('x'.repeat(BIG))]], body: Buffer.from('a') }),
        ];
        return fc.constantFrom(...cases).map((make) => () => base({ body: make() }));
      }
      case 'oversized': {
        // Each route gets every case, in turn over the key kinds (the request never reaches them).
        const oversized = OVERSIZED_CASES[KEY_KINDS.indexOf(kind) % OVERSIZED_CASES.length];
        return fc.constant(() => {
          const form = multipartBody(OVERSIZED.bodyBytes);
          const withBody = oversized.endsWith('+body');
          const parts = base({ body: withBody ? { headers: [['content-type', Buffer.from(form.contentType)]], body: form.body } : { headers: [], body: null } });
          if (oversized.startsWith('line')) {
            parts.target = Buffer.concat([parts.target, Buffer.from(`${parts.target.includes('?') ? '&' : '?'}pad=${'a'.repeat(OVERSIZED.queryBytes)}`)]);
          } else {
            parts.headers.push(['accept-language', Buffer.from('sv,'.repeat(OVERSIZED.headerBytes / 2).slice(0, OVERSIZED.headerBytes))]);
          }
          parts.oversized = oversized;
          return parts;
        });
      }
      case 'bytes': {
        const where = fc.constantFrom('path', 'query', 'header', 'body', 'method', 'version');
        return fc.tuple(where, nastyBytes).map(([spot, bytes]) => () => {
          if (spot === 'path') {
            const name = pathParams[0]?.name;
            if (name) return base({ path: { [name]: bytes } });
            const parts = base({});
            parts.target = Buffer.concat([parts.target.subarray(0, 1), bytes, parts.target.subarray(1)]);
            return parts;
          }
          if (spot === 'query') return base({ query: Buffer.concat([Buffer.from('lang='), bytes, Buffer.from('&content='), bytes]) });
          if (spot === 'header') return base({ headers: [...validHeaders(), ['site-id', bytes], ['x-fuzz', bytes]] });
          if (spot === 'body') return base({ body: { headers: [['content-type', Buffer.from('application/json')]], body: Buffer.concat([Buffer.from('{"content":"'), bytes, Buffer.from('","urls":"'), bytes, Buffer.from('"}')]) } });
          const parts = base({});
          if (spot === 'method') parts.method = `${target.method}${bytes.toString('latin1')}`;
          else parts.target = Buffer.concat([parts.target, Buffer.from(' HTTP/9.9')]);
          return parts;
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Running and judging

/** A request that broke a rule, with what is needed to send it again. */
export interface Finding {
  /** `wrong status`: an oversized request answered other than 414 or 431 as its case asks. */
  rule: '5xx' | 'dropped' | 'hang' | 'error body' | 'wrong status';
  route: string;
  key: KeyKind;
  family: Family;
  seed: number;
  detail: string;
  /** The first bytes of the request, latin1. */
  request: string;
}

export interface FuzzReport {
  requests: number;
  /** Answers per status code. */
  statuses: Record<number, number>;
  findings: Finding[];
  /** Findings per rule (every one, also those not kept in `findings`). */
  broken: Record<Finding['rule'], number>;
  /** The slowest requests (ms, route, key kind, family, status). */
  slowest: { ms: number; route: string; key: KeyKind; family: Family; status: number | string }[];
  /** The answer (status, or how it failed) to the first well-formed request of each cell, by `${kind} ${method} ${path}`. */
  validAnswers: Record<string, number | string>;
  /** The `oversized` family: requests sent, those whose whole answer (of the case's status) was read without a socket error, answers per case and status. */
  oversized: { sent: number; answered: number; statuses: Partial<Record<OversizedCase, Record<string, number>>> };
  /** Cells (route × key kind × family) sent at least once. */
  cells: number;
  routes: number;
  ms: number;
}

const KNOWN_CODES = new Set(Object.keys(ErrorCodes));

/** How the `oversized` family's client sends: 16 kB pieces 2 ms apart, so that it is still sending when the answer comes. */
const OVERSIZED_SENDING = { pieceBytes: 16 * 1024, pauseMs: 2 };

/** The rule an outcome breaks, or null. */
export function judge(outcome: RawOutcome): { rule: Finding['rule']; detail: string } | null {
  if (outcome.kind === 'hang') return { rule: 'hang', detail: 'no answer in time' };
  if (outcome.kind === 'dropped') return { rule: 'dropped', detail: outcome.detail };
  const { status, headers, body } = outcome.response;
  if (status >= 500) return { rule: '5xx', detail: `${status} ${body.toString('utf8').slice(0, 200)}` };
  if (status < 400 || !/^application\/json/i.test(headers['content-type'] ?? '') || body.length === 0) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { rule: 'error body', detail: `${status} not JSON: ${body.toString('utf8').slice(0, 200)}` };
  }
  const b = parsed as { statusCode?: unknown; error?: unknown; message?: unknown };
  const keys = Object.keys(b ?? {}).sort().join(',');
  if (b === null || typeof b !== 'object' || b.statusCode !== status || typeof b.error !== 'string' || !KNOWN_CODES.has(b.error) || typeof b.message !== 'string' || keys !== 'error,message,statusCode') {
    return { rule: 'error body', detail: `${status} ${body.toString('utf8').slice(0, 200)}` };
  }
  return null;
}

/**
 * Sends `perCell` requests for every route × key kind × family (values drawn from `seed`), at
 * most `concurrency` at a time, each on its own connection, and judges every answer.
 */
export async function runFuzz(options: {
  world: FuzzWorld;
  targets: FuzzTarget[];
  perCell: number;
  seed: number;
  concurrency?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  keepFindings?: number;
  /** Only these families (default: all). */
  families?: readonly Family[];
  /**
   * Another round over the same targets adds to this report (runs, counts, findings, time, the
   * slowest requests); `cells` is this run's. Default: a new one.
   */
  report?: FuzzReport;
}): Promise<FuzzReport> {
  const { world, targets, perCell, seed } = options;
  const started = Date.now();
  const report: FuzzReport = options.report ?? {
    requests: 0, statuses: {}, findings: [], broken: { '5xx': 0, dropped: 0, hang: 0, 'error body': 0, 'wrong status': 0 }, slowest: [], validAnswers: {},
    oversized: { sent: 0, answered: 0, statuses: {} }, cells: 0, routes: targets.length, ms: 0,
  };
  report.cells = 0;
  type Job = { target: FuzzTarget; kind: KeyKind; family: Family; seed: number; parts: RequestParts };
  // Drawn lazily, cell by cell, so that 100 kB values are not all held at once.
  function* jobs(): Generator<Job> {
    let cell = 0;
    for (const target of targets) {
      for (const kind of KEY_KINDS) {
        for (const family of options.families ?? FAMILIES) {
          const cellSeed = seed + cell;
          // The oversized family's requests are fixed (by the key kind; the parser refuses them before
          // the key is read): it takes no cell number of its own, so every other cell keeps the seed
          // it had before the family came, and earlier findings still reproduce from theirs.
          if (family !== 'oversized') cell++;
          const drawn = fc.sample(requestArb(target, kind, family, world), { seed: cellSeed, numRuns: perCell });
          report.cells++;
          for (const make of drawn) yield { target, kind, family, seed: cellSeed, parts: make };
        }
      }
    }
  }
  const queue = jobs();
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return;
      const next = queue.next();
      if (next.done) return;
      const job = next.value;
      const bytes = serialise(job.parts, world.port);
      const t0 = Date.now();
      const oversized = job.parts.oversized;
      let outcome: RawOutcome;
      let broken: { rule: Finding['rule']; detail: string } | null;
      if (oversized) {
        const sent = await sendKeepSending(world.port, { method: job.parts.method, head: bytes, body: Buffer.alloc(0) }, { ...OVERSIZED_SENDING, timeoutMs: options.timeoutMs ?? 30_000 });
        outcome = sent.response ? { kind: 'answer', response: sent.response } : sent.closedByServer || sent.error ? { kind: 'dropped', detail: sent.error ?? 'closed' } : { kind: 'hang' };
        const wrong = oversizedVerdict(sent, OVERSIZED_STATUS[oversized]);
        broken = sent.error ? { rule: 'dropped', detail: `${oversized}: ${wrong}` } : judge(outcome) ?? (wrong ? { rule: 'wrong status', detail: `${oversized}: ${wrong}` } : null);
        report.oversized.sent++;
        if (wrong === null) report.oversized.answered++;
        const byStatus = (report.oversized.statuses[oversized] ??= {});
        const shown = sent.error ?? (sent.response ? String(sent.response.status) : 'no answer');
        byStatus[shown] = (byStatus[shown] ?? 0) + 1;
      } else {
        outcome = await rawRequest(world.port, job.parts.method, bytes, options.timeoutMs ?? 30_000);
        broken = judge(outcome);
      }
      const ms = Date.now() - t0;
      report.requests++;
      if (report.slowest.length < 5 || ms > report.slowest[report.slowest.length - 1].ms) {
        report.slowest.push({ ms, route: `${job.target.method} ${job.target.path}`, key: job.kind, family: job.family, status: outcome.kind === 'answer' ? outcome.response.status : outcome.kind });
        report.slowest.sort((a, b) => b.ms - a.ms).splice(5);
      }
      if (outcome.kind === 'answer') report.statuses[outcome.response.status] = (report.statuses[outcome.response.status] ?? 0) + 1;
      const cellName = `${job.kind} ${job.target.method} ${job.target.path}`;
      if (job.family === 'valid' && !(cellName in report.validAnswers)) report.validAnswers[cellName] = outcome.kind === 'answer' ? outcome.response.status : outcome.kind;
      if (broken) {
        report.broken[broken.rule]++;
        if (report.findings.length < (options.keepFindings ?? 30)) {
          report.findings.push({
            ...broken, route: `${job.target.method} ${job.target.path}`, key: job.kind, family: job.family, seed: job.seed,
            request: bytes.subarray(0, 300).toString('latin1'),
          });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 12 }, worker));
  report.ms += Date.now() - started;
  return report;
}
