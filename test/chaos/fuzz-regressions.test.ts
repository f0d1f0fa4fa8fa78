/**
 * What the input fuzzer (chaos/bad-input/fuzz.ts) found, each kept fixed: real HTTP over a loopback
 * socket, byte for byte, against the real API and PostgreSQL. And the rate limit, which the fuzz
 * run raises, holding under a burst of parallel connections.
 */
import t from 'tap';
import { pct, wtf8 } from '../../chaos/bad-input/fuzz.js';
import { rawRequest, type RawOutcome } from '../../chaos/bad-input/raw-http.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

async function arrange(t: { teardown(fn: () => unknown): void }, rateLimitPerMinute = 0) {
  const api = await buildTestApi(t, { rateLimitPerMinute });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (api.app.server.address() as { port: number }).port;
  const siteId = await createSite(api.db, { title: 'Site', url: 'https://kommun.test/', monthlyQuota: 100 });
  const key = (await createKey(api.db, { kind: 'standard', siteIds: [siteId] })).key;
  const send = (head: string, body: Buffer | string = '') => {
    const b = Buffer.from(body);
    const method = head.split(' ')[0];
    const bytes = Buffer.concat([Buffer.from(head.replace('\n\n', `\ncontent-length: ${b.length}\n\n`).replace(/\n/g, '\r\n').replace('HOST', `127.0.0.1:${port}`)), b]);
    return rawRequest(port, method, bytes, 20_000);
  };
  return { ...api, port, siteId, key, send };
}

t.test('the fuzzer writes what a broken client would: lone surrogates as their own three bytes, every reserved byte percent-encoded', async (t) => {
  t.equal(wtf8('aå😀').toString('hex'), '61c3a5f09f9880', 'well-formed text is UTF-8');
  t.equal(wtf8('\ud800').toString('hex'), 'eda080', 'a lone high surrogate');
  t.equal(wtf8('x\udfffy\ud83d\ude00\ud83d').toString('hex'), '78edbfbf79f09f9880eda0bd', 'lone halves beside a pair');
  t.equal(pct('a b/~'), 'a%20b%2F~');
  t.equal(pct('\ud800'), '%ED%A0%80');
  t.equal(pct(Buffer.from([0, 0x7f, 0xff, 0x2d])), '%00%7F%FF-');
});

function answer(outcome: RawOutcome) {
  if (outcome.kind !== 'answer') return { kind: outcome.kind };
  return { status: outcome.response.status, body: JSON.parse(outcome.response.body.toString()) as unknown };
}

t.test('malformed requests get the documented error body with a catalogue code', async (t) => {
  const w = await arrange(t);
  const lixHead = `POST /tools/lix/ HTTP/1.1\nHost: HOST\nconnection: close\napi-key: ${w.key}\nsite-id: ${w.siteId}\n`;

  // Was 500: busboy's "Boundary not found" has no status.
  t.same(answer(await w.send(`${lixHead}content-type: multipart/form-data\n\n`, 'content=Solen skiner.')),
    { status: 400, body: { statusCode: 400, error: 'VALIDATION', message: 'The multipart body is malformed: Multipart: Boundary not found' } }, 'multipart without a boundary: 400');
  // Was 400 with Fastify's own codes (FST_ERR_CTP_*), not in the catalogue.
  t.same(answer(await w.send(`${lixHead}content-type: application/json\n\n`, '{"content":')),
    { status: 400, body: { statusCode: 400, error: 'VALIDATION', message: "Body is not valid JSON but content-type is set to 'application/json'" } }, 'truncated JSON: 400 VALIDATION');
  t.same(answer(await w.send(`${lixHead}content-type: application/json\n\n`)),
    { status: 400, body: { statusCode: 400, error: 'VALIDATION', message: "Body cannot be empty when content-type is set to 'application/json'" } }, 'empty JSON body: 400 VALIDATION');
  t.same(answer(await w.send('GET /info%zz HTTP/1.1\nHost: HOST\nconnection: close\n\n')),
    { status: 400, body: { statusCode: 400, error: 'MALFORMED_REQUEST', message: "'/info%zz' is not a valid url component" } }, 'a broken percent-escape: 400 MALFORMED_REQUEST (was FST_ERR_BAD_URL)');
  t.same(answer(await w.send(`GET /item/${'9'.repeat(3000)} HTTP/1.1\nHost: HOST\nconnection: close\n\n`)),
    { status: 414, body: { statusCode: 414, error: 'URI_TOO_LONG', message: `'/item/${'9'.repeat(3000)}' is exceeding the max param length` } }, 'a path parameter over the router\'s limit: 414 URI_TOO_LONG (was FST_ERR_MAX_PARAM_LENGTH)');
  t.same(answer(await w.send('GET /docs/static/index.html/../ HTTP/1.1\nHost: HOST\nconnection: close\n\n')),
    { status: 403, body: { statusCode: 403, error: 'FORBIDDEN', message: 'Forbidden' } }, 'a path out of the docs folder: 403 FORBIDDEN (was FST_STATIC_FORBIDDEN_PATH)');

  // Refused by Node's HTTP parser before any route: was Fastify's `{"error":"Bad Request"}`.
  const malformed = { statusCode: 400, error: 'MALFORMED_REQUEST', message: 'The request is not valid HTTP' };
  t.same(answer(await w.send('GET /health HTTP/1.1\nHost: HOST\nx-bad: a\u0001b\n\n')), { status: 400, body: malformed }, 'a control byte in a header: 400 MALFORMED_REQUEST');
  t.same(answer(await w.send('GET /health HTTP/9.9\nHost: HOST\n\n')), { status: 400, body: malformed }, 'an unknown HTTP version: 400 MALFORMED_REQUEST');
  t.same(answer(await w.send(`GET /health HTTP/1.1\nHost: HOST\nx-big: ${'a'.repeat(100_000)}\n\n`)),
    { status: 431, body: { statusCode: 431, error: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' } }, '100 kB of headers: 431 HEADERS_TOO_LARGE');
});

t.test('the rate limit holds under a burst of parallel connections: 429 with the documented body and headers', async (t) => {
  const w = await arrange(t, 20);
  const head = `GET /quota/ HTTP/1.1\nHost: HOST\nconnection: close\napi-key: ${w.key}\nsite-id: ${w.siteId}\n\n`;
  const outcomes = await Promise.all(Array.from({ length: 60 }, () => w.send(head)));
  const answers = outcomes.map((o) => (o.kind === 'answer' ? o.response : null));
  t.equal(answers.filter((a) => a === null).length, 0, 'every connection answered');
  t.equal(answers.filter((a) => a?.status === 200).length, 20, 'exactly the limit is let through');
  const refused = answers.filter((a) => a?.status === 429);
  t.equal(refused.length, 40, 'the rest is refused');
  for (const a of refused.slice(0, 3)) {
    const body = JSON.parse(a!.body.toString()) as { statusCode: number; error: string; message: string };
    t.same(Object.keys(body).sort(), ['error', 'message', 'statusCode'], 'the documented body');
    t.equal(body.statusCode, 429);
    t.equal(body.error, 'RATE_LIMITED');
    t.match(body.message, /^Rate limit exceeded: at most 20 requests per minute per api-key; retry in \d+ (second|minute)s?$/);
    t.equal(a!.headers['x-ratelimit-limit'], '20');
    t.equal(a!.headers['x-ratelimit-remaining'], '0');
    const retryAfter = Number(a!.headers['retry-after']);
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${a!.headers['retry-after']}: seconds left in the one-minute window`);
    t.equal(a!.headers['retry-after'], a!.headers['x-ratelimit-reset']);
  }
});
