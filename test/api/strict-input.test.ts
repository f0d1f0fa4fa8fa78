/**
 * Bad input never reaches the database: every integer of a path, header or query of every route
 * (open and premium, with and without /0.1) is parsed strictly and refused with the documented
 * 400 body; a body that is too large gets its 413 answer over a real socket while the client is
 * still sending (no reset).
 */
import net from 'node:net';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

/** Every form of a bad integer (some are in range for a route whose minimum is 0). */
const BAD = ['', '1e309', '-1', '0', '01', '2147483648', '1.5', '+1', ' 1', '0x10', '1e3', '١', '１', '9'.repeat(40)];
const INT4_MAX = 2147483647;

interface World {
  app: FastifyInstance;
  siteId: number;
  key: string;
  adminKey: string;
  lixMaxBytes: number;
}

async function arrange(tt: { teardown(fn: () => unknown): void }): Promise<World> {
  const lixMaxBytes = 1000;
  const { app, db } = await buildTestApi(tt, { rateLimitPerMinute: 100_000, lixMaxBytes });
  const siteId = await createSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/', monthlyQuota: 100 });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;
  const adminKey = (await createKey(db, { kind: 'admin', siteIds: [] })).key;
  return { app, siteId, key, adminKey, lixMaxBytes };
}

const pathError = (name: string, value: string, min: number, max: number) => ({
  statusCode: 400,
  error: 'VALIDATION',
  message: `The path parameter ${name} must be an integer from ${min} to ${max} (digits only), got "${value}"`,
});

t.test('path integers: every bad form is a 400 with the documented body, on every route', async (t) => {
  const w = await arrange(t);
  // `found`: status of an id in range (the ids used do not exist, except test type 0).
  const routes: { path: (v: string) => string; name: string; min: number; max: number; premium: boolean; found?: (v: string) => number; emptyIsList?: boolean }[] = [
    { path: (v) => `/item/${v}`, name: 'id', min: 1, max: INT4_MAX, premium: false },
    { path: (v) => `/v1/tests/${v}`, name: 'test_id', min: 0, max: INT4_MAX, premium: false, found: (v) => (v === '0' ? 200 : 404) },
    // `/stats/` with an empty id is another route: the list of sites.
    { path: (v) => `/stats/${v}`, name: 'siteId', min: 1, max: INT4_MAX, premium: true, emptyIsList: true },
    { path: (v) => `/stats_per_month/${v}`, name: 'siteId', min: 1, max: INT4_MAX, premium: true },
    { path: (v) => `/private_stats/${v}`, name: 'siteId', min: 1, max: INT4_MAX, premium: true },
    { path: (v) => `/private_stats/${v}/1`, name: 'siteId', min: 1, max: INT4_MAX, premium: true },
    { path: (v) => `/private_stats/${w.siteId}/${v}`, name: 'testId', min: 1, max: Number.MAX_SAFE_INTEGER, premium: true },
  ];
  for (const route of routes) {
    for (const prefix of route.premium ? ['', '/0.1'] : ['']) {
      for (const bad of BAD) {
        if (bad === '' && route.emptyIsList) continue;
        const accepted = /^(0|[1-9][0-9]*)$/.test(bad) && Number(bad) >= route.min && Number(bad) <= route.max;
        const url = prefix + route.path(encodeURIComponent(bad));
        const res = await w.app.inject({ url, headers: { 'api-key': w.adminKey } });
        if (accepted) {
          t.equal(res.statusCode, route.found?.(bad) ?? 404, `${url}: ${JSON.stringify(bad)} is in range, so it is looked up`);
        } else {
          t.strictSame([res.statusCode, res.json()], [400, pathError(route.name, bad, route.min, route.max)], `${url}: ${JSON.stringify(bad)}`);
        }
      }
      // The largest value in range is read, not refused.
      const top = await w.app.inject({ url: prefix + route.path(String(route.max)), headers: { 'api-key': w.adminKey } });
      t.equal(top.statusCode, 404, `${prefix + route.path(String(route.max))}: the top of the range is valid`);
    }
  }
  const ok = await w.app.inject({ url: `/item/${w.siteId}`, headers: { 'api-key': w.key } });
  t.equal(ok.statusCode, 200, 'a plain id still works');
});

t.test('the key is checked before a bad path id on premium routes', async (t) => {
  const w = await arrange(t);
  const res = await w.app.inject({ url: '/stats/1e309' });
  t.strictSame(res.json(), { statusCode: 401, error: 'KEY_MISSING', message: 'An api-key is required' });
});

t.test('the site-id header: every bad form is 400 SITE_ID_INVALID on every route that reads it', async (t) => {
  const w = await arrange(t);
  const calls: { label: string; call: (siteId: string | undefined) => Promise<{ statusCode: number; json(): unknown }>; required: boolean }[] = [];
  for (const prefix of ['', '/0.1']) {
    const headers = (siteId: string | undefined) => ({ 'api-key': w.key, ...(siteId === undefined ? {} : { 'site-id': siteId }) });
    calls.push(
      { label: `GET ${prefix}/quota/`, required: true, call: (s) => w.app.inject({ url: `${prefix}/quota/`, headers: headers(s) }) },
      { label: `POST ${prefix}/retest/`, required: true, call: (s) => w.app.inject({ method: 'POST', url: `${prefix}/retest/`, headers: { ...headers(s), testnums: '[999]' } }) },
      { label: `POST ${prefix}/test_once/`, required: true, call: (s) => w.app.inject({ method: 'POST', url: `${prefix}/test_once/`, headers: headers(s), payload: { urls: 'https://www.exempel.se/a' } }) },
      { label: `GET ${prefix}/tools/lix/`, required: true, call: (s) => w.app.inject({ url: `${prefix}/tools/lix/?content=Hej.`, headers: headers(s) }) },
      { label: `POST ${prefix}/tools/lix/`, required: true, call: (s) => w.app.inject({ method: 'POST', url: `${prefix}/tools/lix/`, headers: headers(s), payload: { content: 'Hej.' } }) },
      { label: `GET ${prefix}/private_stats/{id}`, required: false, call: (s) => w.app.inject({ url: `${prefix}/private_stats/${w.siteId}`, headers: headers(s) }) },
      { label: `GET ${prefix}/private_stats/{id}/{testId}`, required: false, call: (s) => w.app.inject({ url: `${prefix}/private_stats/${w.siteId}/1`, headers: headers(s) }) },
    );
  }
  // Non-ASCII digits cannot be sent in a header by Node's client; U+00B2 (superscript two) can.
  for (const bad of ['1e309', '-1', '0', '01', '2147483648', '1.5', '+1', ' 1x', '0x10', '1e3', '²', '9'.repeat(40)]) {
    for (const c of calls) {
      const res = await c.call(bad);
      t.strictSame([res.statusCode, res.json()], [400, { statusCode: 400, error: 'SITE_ID_INVALID', message: `The site-id header must be a positive integer, got "${bad}"` }], `${c.label}: site-id ${JSON.stringify(bad)}`);
    }
  }
  for (const c of calls) {
    const res = await c.call(undefined);
    if (c.required) t.strictSame([res.statusCode, res.json()], [400, { statusCode: 400, error: 'SITE_ID_MISSING', message: 'The site-id header is required' }], `${c.label}: no site-id`);
    else t.not(res.statusCode, 400, `${c.label}: site-id is optional here`);
    const empty = await c.call('');
    if (c.required) t.strictSame([empty.statusCode, empty.json()], [400, { statusCode: 400, error: 'SITE_ID_MISSING', message: 'The site-id header is required' }], `${c.label}: empty site-id counts as missing`);
    else t.not(empty.statusCode, 400, `${c.label}: an empty optional site-id is no site-id`);
  }
  // The site exists and the key reaches it: a valid header passes the checks.
  const quota = await w.app.inject({ url: '/quota/', headers: { 'api-key': w.key, 'site-id': String(w.siteId) } });
  t.equal(quota.statusCode, 200);
});

t.test('the testnums header: integers parsed strictly', async (t) => {
  const w = await arrange(t);
  for (const bad of ['1e309', '-1', '01', '1.5', '+1', '0x10', '١', '2147483648']) {
    const res = await w.app.inject({ method: 'POST', url: '/retest/', headers: { 'api-key': w.key, 'site-id': String(w.siteId), testnums: `[${bad}]` } });
    const body = res.json() as { statusCode: number; error: string; message: string };
    t.strictSame([res.statusCode, body.statusCode, body.error], [400, 400, 'TESTNUMS_INVALID'], `testnums [${bad}]: ${body.message}`);
    t.match(body.message, /^(The testnums header "\[.*\]" is not valid \(".*" is not a test number\)|Test type 2147483648 is not run by this service)/, `testnums [${bad}]: the message names the bad value`);
  }
});

t.test('lang is validated by the schema: 400 UNSUPPORTED_LANG on every route that takes it', async (t) => {
  const w = await arrange(t);
  const headers = { 'api-key': w.key, 'site-id': String(w.siteId) };
  for (const prefix of ['', '/0.1']) {
    for (const url of [`/stats/${w.siteId}?lang=de`, `/private_stats/${w.siteId}/1?lang=de`, '/tools/lix/?content=Hej.&lang=de']) {
      const res = await w.app.inject({ url: prefix + url, headers });
      t.strictSame([res.statusCode, res.json()], [400, { statusCode: 400, error: 'UNSUPPORTED_LANG', message: 'Unsupported lang "de": use one of sv, en, da, no, fi, is' }], prefix + url);
    }
  }
});

/**
 * One request over a real TCP socket. `waitForAnswer`: the head and the first 256 KiB of the
 * body, then (once the server has answered) the rest, as a client streaming its upload while it
 * reads does; otherwise the whole body is sent without looking at the answer (for a refusal that
 * can only come once the body has been parsed). Resolves with what came back and any socket
 * error, once the connection is closed.
 */
function rawRequest(port: number, head: string, body: Buffer, waitForAnswer: boolean): Promise<{ response: string; error: string | null }> {
  const CHUNK = 64 * 1024;
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let error: string | null = null;
    const answered = new Promise((r) => socket.once('data', r));
    socket.on('data', (d) => received.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    // A safety net only: a hung exchange fails the test instead of hanging it.
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')));
    socket.on('close', () => resolve({ response: Buffer.concat(received).toString('latin1'), error }));
    socket.on('connect', async () => {
      socket.write(head);
      const first = waitForAnswer ? 4 * CHUNK : 0;
      socket.write(body.subarray(0, first));
      if (waitForAnswer) await answered;
      for (let i = first; i < body.length && !socket.destroyed; i += CHUNK) {
        if (!socket.write(body.subarray(i, i + CHUNK))) await new Promise((r) => socket.once('drain', r));
      }
      // Half-close: the server then closes its side.
      if (!socket.destroyed) socket.end();
    });
  });
}

t.test('a body no route reads (a GET sent with one): the client still sending gets the whole answer, not a reset', async (t) => {
  const w = await arrange(t);
  await w.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (w.app.server.address() as net.AddressInfo).port;
  const big = Buffer.alloc(3 * 1024 * 1024, 'a');
  for (const connection of ['close', 'keep-alive']) {
    const got = await rawRequest(port, `GET /v1/tests HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: ${connection}\r\ncontent-type: text/plain\r\ncontent-length: ${big.length}\r\n\r\n`, big, true);
    t.equal(got.error, null, `connection: ${connection}: no socket error`);
    t.match(got.response, /^HTTP\/1\.1 200 /, `connection: ${connection}: 200`);
    const [head, body] = got.response.split('\r\n\r\n', 2);
    t.equal(Buffer.byteLength(body ?? '', 'latin1'), Number(/content-length: (\d+)/i.exec(head)?.[1]), `connection: ${connection}: the whole answer arrived`);
  }
});

t.test('413 over a real socket: the client still sending gets the answer, not a reset', async (t) => {
  const w = await arrange(t);
  await w.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (w.app.server.address() as net.AddressInfo).port;
  const auth = `api-key: ${w.key}\r\nsite-id: ${w.siteId}\r\n`;
  const big = Buffer.alloc(3 * 1024 * 1024, 'a');

  const declared = await rawRequest(port, `POST /test_once/ HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: application/x-www-form-urlencoded\r\ncontent-length: ${big.length}\r\n\r\n`, big, true);
  t.equal(declared.error, null, 'declared length over the limit: no socket error');
  t.match(declared.response, /^HTTP\/1\.1 413 /, 'declared length over the limit: 413');
  t.match(declared.response, /\{"statusCode":413,"error":"REQUEST_TOO_LARGE","message":"The request body is larger than 65536 bytes"\}$/);

  // Chunked: no length is declared, so the limit is found while reading.
  const chunked = Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]);
  const streamed = await rawRequest(port, `POST /0.1/test_once/ HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`, chunked, true);
  t.equal(streamed.error, null, 'chunked body over the limit: no socket error');
  t.match(streamed.response, /^HTTP\/1\.1 413 /);
  t.match(streamed.response, /"error":"REQUEST_TOO_LARGE"/);

  // Multipart LIX text over the limit, length declared.
  const boundary = 'webperf-boundary';
  const form = Buffer.concat([Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="content"\r\n\r\n`), big, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const lix = await rawRequest(port, `POST /tools/lix/ HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${form.length}\r\n\r\n`, form, true);
  t.equal(lix.error, null, 'multipart over the limit: no socket error');
  t.match(lix.response, /^HTTP\/1\.1 413 /);
  t.match(lix.response, /\{"statusCode":413,"error":"TEXT_TOO_LARGE","message":"The text is larger than the limit of 1000 bytes \(UTF-8\)"\}$/);

  // Multipart without a declared length: the field is cut by the parser, the rest is read and dropped.
  const chunkedForm = Buffer.concat([Buffer.from(`${form.length.toString(16)}\r\n`), form, Buffer.from('\r\n0\r\n\r\n')]);
  const lixStreamed = await rawRequest(port, `POST /tools/lix/ HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: multipart/form-data; boundary=${boundary}\r\ntransfer-encoding: chunked\r\n\r\n`, chunkedForm, false);
  t.equal(lixStreamed.error, null, 'chunked multipart over the limit: no socket error');
  t.match(lixStreamed.response, /^HTTP\/1\.1 413 /);
  t.match(lixStreamed.response, /"error":"TEXT_TOO_LARGE"/);

  // A route without a form: Fastify's own limit (1 MiB) refuses a declared length at once and
  // closes the connection; the answer waits until the body has been read, so the close is clean.
  const retest = await rawRequest(port, `POST /retest/ HTTP/1.1\r\nhost: 127.0.0.1\r\n${auth}content-type: application/json\r\ncontent-length: ${big.length}\r\n\r\n`, big, true);
  t.equal(retest.error, null, 'over the default body limit: no socket error');
  t.match(retest.response, /^HTTP\/1\.1 413 /);
  t.match(retest.response, /\{"statusCode":413,"error":"REQUEST_TOO_LARGE","message":"The request body is too large"\}$/);

  // A refusal before the body (no key) is answered the same way.
  const noKey = await rawRequest(port, `POST /test_once/ HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${big.length}\r\n\r\n`, big, true);
  t.equal(noKey.error, null, 'refused before the body: no socket error');
  t.match(noKey.response, /^HTTP\/1\.1 401 /);
});
