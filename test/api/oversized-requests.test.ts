/**
 * Oversized requests get an answer the client reads, never a reset or a silent close: over real
 * loopback sockets, clients that keep sending their whole request (an oversized request line or
 * header, with and without a multipart body, in pieces) read the whole 414 or 431 in the documented
 * body and see no ECONNRESET or EPIPE, alone and 50 at once (api/client-errors.ts,
 * core/net/lingering-close.ts).
 */
import net from 'node:net';
import t from 'tap';
import { LINGER, MAX_HEADER_BYTES, lineEndJudge, overflowRefusal } from '../../core/net/lingering-close.js';
import {
  OVERSIZED_CASES, OVERSIZED_STATUS, oversizedRequest, oversizedVerdict, sendKeepSending, type KeepSendingOutcome, type OversizedCase, type WireRequest,
} from '../../chaos/bad-input/oversized.js';
import { rawRequest } from '../../chaos/bad-input/raw-http.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

const TOO_LONG = { statusCode: 414, error: 'URI_TOO_LONG', message: `The request address is too long (the request line and the headers may hold ${MAX_HEADER_BYTES} bytes together)` };
const TOO_LARGE = { statusCode: 431, error: 'HEADERS_TOO_LARGE', message: 'The request headers are too large' };
const BODY: Record<number, object> = { 414: TOO_LONG, 431: TOO_LARGE };

/** Pieces of 16 kB 2 ms apart: a client still sending when the server has answered (Fastify's own handler reset 9 of 48 such clients). */
const KEEP_SENDING = { pieceBytes: 16 * 1024, pauseMs: 2, timeoutMs: 30_000 };

async function arrange(tt: { teardown(fn: () => unknown): void }) {
  const api = await buildTestApi(tt);
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (api.app.server.address() as net.AddressInfo).port;
  const siteId = await createSite(api.db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/', monthlyQuota: 100 });
  const key = (await createKey(api.db, { kind: 'standard', siteIds: [siteId] })).key;
  const host = `127.0.0.1:${port}`;
  const request = (method: string, target: string, oversized: OversizedCase, bodyBytes?: number) =>
    oversizedRequest(method, target, oversized, { host, headers: [['api-key', key], ['site-id', String(siteId)]], ...(bodyBytes ? { bodyBytes } : {}) });
  const connections = () => new Promise<number>((resolve, reject) => api.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  return { ...api, port, host, request, connections };
}

/** What a test compares: the answer as read and whether the socket saw an error. */
function seen(o: KeepSendingOutcome) {
  if (!o.response) return { answer: null, error: o.error, closedByServer: o.closedByServer };
  const { status, headers, body } = o.response;
  return {
    status,
    connection: headers.connection,
    contentType: headers['content-type'],
    body: body.length > 0 ? (JSON.parse(body.toString()) as unknown) : null,
    error: o.error,
    closedByServer: o.closedByServer,
  };
}

const expected = (status: number, head = false) => ({
  status,
  connection: 'close',
  contentType: 'application/json; charset=utf-8',
  body: head ? null : BODY[status],
  error: null,
  closedByServer: true,
});

const waitFor = async (check: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
};

t.test('where the line the limit is crossed in is seen, it tells a request line from a header line', async (t) => {
  const bytes = (s: string) => Buffer.from(s, 'latin1');
  const big = 'a'.repeat(100);
  t.equal(overflowRefusal(bytes(`GET /${big}`), 104, true)?.code, 'URI_TOO_LONG', 'the first read of a connection: the request line');
  t.equal(overflowRefusal(bytes(`HEAD /portal?${big}`), 113, true)?.head, true, 'a HEAD is answered without a body');
  t.equal(overflowRefusal(bytes(`GET / HTTP/1.1\r\nhost: x\r\naccept-language: ${big}`), 125, true)?.code, 'HEADERS_TOO_LARGE', 'a header line');
  t.equal(overflowRefusal(bytes(`x: 1\r\n\r\nGET /${big}`), 109, false)?.code, 'URI_TOO_LONG', 'a request pipelined after another: its line starts after a line end');
  t.equal(overflowRefusal(bytes(big), 100, false), null, 'a read in the middle of a line: not known yet');
  const judge = lineEndJudge();
  t.equal(judge.feed(bytes(big)), null, 'the line goes on');
  t.equal(judge.feed(bytes(`${big} HTT`)), null);
  t.equal(judge.feed(bytes('P/1.1\r\nhost: x\r\n\r\n'))?.code, 'URI_TOO_LONG', 'it ends in HTTP/1.1: the request line');
  t.equal(lineEndJudge().feed(bytes(`${big}\r\nhost: x\r\n`))?.code, 'HEADERS_TOO_LARGE', 'it ends otherwise: a header line');
});

t.test('every server the API runs has the one header limit: under it answered, over it 431', async (t) => {
  const w = await arrange(t);
  t.equal((w.app.server as { maxHeaderSize?: number }).maxHeaderSize, MAX_HEADER_BYTES, `maxHeaderSize ${MAX_HEADER_BYTES}`);
  const send = (pad: number) => rawRequest(w.port, 'GET', Buffer.from(`GET /health HTTP/1.1\r\nhost: ${w.host}\r\nconnection: close\r\nx-pad: ${'p'.repeat(pad)}\r\n\r\n`), 20_000);
  const under = await send(MAX_HEADER_BYTES - 1_000);
  t.equal(under.kind === 'answer' && under.response.status, 200, 'headers just under the limit: answered');
  const over = await send(MAX_HEADER_BYTES);
  t.equal(over.kind === 'answer' && over.response.status, 431, 'headers over it: 431');
});

t.test('the requests the fuzz found reset: each gets its whole answer while the client keeps sending', async (t) => {
  const w = await arrange(t);
  const cases: [string, string, OversizedCase][] = [
    ['POST', '/retest/', 'header+body'],
    ['POST', '/test_once/', 'header+body'],
    ['POST', '/audits/', 'header+body'],
    ['POST', '/webhook/test', 'header+body'],
    ['POST', '/webhook/rotate-secret', 'header+body'],
    ['POST', '/retest/', 'header'],
    ['GET', '/health', 'header'],
    ['HEAD', '/portal', 'line'],
    ['GET', '/item/1', 'line'],
    ['POST', '/retest/', 'line+body'],
    ['GET', '/portal/', 'line+body'],
  ];
  for (const [method, target, oversized] of cases) {
    const o = await sendKeepSending(w.port, w.request(method, target, oversized), KEEP_SENDING);
    t.same(seen(o), expected(OVERSIZED_STATUS[oversized], method === 'HEAD'), `${method} ${target}, ${oversized}: ${OVERSIZED_STATUS[oversized]} read whole, no reset (${o.sent} bytes sent)`);
  }
  // A HEAD answer says how long the body would be.
  const head = await sendKeepSending(w.port, w.request('HEAD', '/portal', 'line'), KEEP_SENDING);
  t.equal(head.response?.headers['content-length'], String(Buffer.byteLength(JSON.stringify(TOO_LONG))), 'HEAD: content-length of the body it leaves out');
});

t.test('a request line or header that arrives in small pieces: the status still follows the line the limit was crossed in', async (t) => {
  const w = await arrange(t);
  for (const oversized of OVERSIZED_CASES) {
    const o = await sendKeepSending(w.port, w.request('POST', '/retest/', oversized, 64 * 1024), { pieceBytes: 1000, pauseMs: 1, timeoutMs: 30_000 });
    t.same(seen(o), expected(OVERSIZED_STATUS[oversized]), `${oversized} in 1,000-byte pieces: ${OVERSIZED_STATUS[oversized]}`);
  }
});

t.test('50 oversized requests at once: every one answered and read, none reset; the server goes on', async (t) => {
  const w = await arrange(t);
  const jobs = Array.from({ length: 50 }, (_, i) => OVERSIZED_CASES[i % OVERSIZED_CASES.length]);
  const outcomes = await Promise.all(jobs.map((oversized, i) => {
    const request: WireRequest = i % 2 === 0 ? w.request('POST', '/retest/', oversized) : w.request('HEAD', '/portal', oversized);
    return sendKeepSending(w.port, request, KEEP_SENDING).then((o) => ({ oversized, head: i % 2 === 1, o }));
  }));
  const failures = outcomes.map(({ oversized, o }) => oversizedVerdict(o, OVERSIZED_STATUS[oversized])).filter((v) => v !== null);
  t.same(failures, [], 'all 50 read their 414 or 431, no socket error');
  t.same(outcomes.map(({ oversized, head, o }) => seen(o).body ?? (head ? 'HEAD' : null)), outcomes.map(({ oversized, head }) => (head ? 'HEAD' : BODY[OVERSIZED_STATUS[oversized]])), 'each in the documented body (none for HEAD)');
  const health = await rawRequest(w.port, 'GET', Buffer.from(`GET /health HTTP/1.1\r\nhost: ${w.host}\r\nconnection: close\r\n\r\n`), 20_000);
  t.equal(health.kind === 'answer' && health.response.status, 200, '/health answers afterwards');
  t.ok(await waitFor(async () => (await w.connections()) === 0, 10_000), 'every connection closed after');
});

t.test('other parse errors, body still arriving: 400 in the documented body, read whole', async (t) => {
  const w = await arrange(t);
  const malformed = { statusCode: 400, error: 'MALFORMED_REQUEST', message: 'The request is not valid HTTP' };
  const body = Buffer.alloc(256 * 1024, 'z');
  for (const [name, head] of [
    ['an unknown HTTP version', `POST /retest/ HTTP/9.9\r\nhost: ${w.host}\r\ncontent-length: ${body.length}\r\n\r\n`],
    ['a control byte in a header', `POST /retest/ HTTP/1.1\r\nhost: ${w.host}\r\nx-bad: a\u0001b\r\ncontent-length: ${body.length}\r\n\r\n`],
  ] as const) {
    const o = await sendKeepSending(w.port, { method: 'POST', head: Buffer.from(head, 'latin1'), body }, KEEP_SENDING);
    t.same(seen(o), { ...expected(400), body: malformed }, `${name}: 400 read whole, no reset`);
  }
});

t.test('the linger is bounded: a client that sends on past it has its answer, then the server closes', async (t) => {
  const w = await arrange(t);
  // Declares 64 MB and sends as fast as the socket takes it.
  const request = w.request('POST', '/retest/', 'header+body', 64 * 1024 * 1024);
  const o = await sendKeepSending(w.port, request, { pieceBytes: 256 * 1024, timeoutMs: 60_000 });
  t.equal(o.response?.status, 431, 'the 431 was read before the close');
  t.same(o.response && JSON.parse(o.response.body.toString()), TOO_LARGE, 'in the documented body');
  t.ok(o.sent < request.head.length + request.body.length, `the server stopped reading before the end (${o.sent} of ${request.head.length + request.body.length} bytes sent; limit ${LINGER.bytes} after the answer)`);
  t.ok(await waitFor(async () => (await w.connections()) === 0, 10_000), 'the connection is closed');
});

t.test('a client that neither sends nor closes after its answer is closed after the idle bound; one already gone costs nothing', async (t) => {
  const w = await arrange(t);
  // Half-open allowed: it does not answer the server's FIN with its own.
  const silent = net.connect({ host: '127.0.0.1', port: w.port, allowHalfOpen: true });
  const got: Buffer[] = [];
  silent.on('data', (c: Buffer) => got.push(c));
  silent.on('error', () => {});
  const ended = new Promise<number>((resolve) => silent.once('end', () => resolve(Date.now())));
  const started = Date.now();
  silent.write(w.request('GET', '/health', 'header').head);
  await ended;
  t.match(Buffer.concat(got).toString(), /^HTTP\/1\.1 431 /, 'the answer, then our end closed (FIN)');
  t.ok(await waitFor(async () => (await w.connections()) === 0, LINGER.idleMs + 5_000), 'the server closes the connection');
  const ms = Date.now() - started;
  t.ok(ms >= LINGER.idleMs - 500, `after the idle bound (${ms} ms; bound ${LINGER.idleMs} ms)`);
  silent.destroy();

  // 20 clients that send an oversized header and reset at once.
  await Promise.all(Array.from({ length: 20 }, () => new Promise<void>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: w.port }, () => {
      s.write(w.request('POST', '/retest/', 'header+body').head);
      s.resetAndDestroy();
      resolve();
    });
    s.on('error', () => resolve());
  })));
  t.ok(await waitFor(async () => (await w.connections()) === 0, 3_000), 'connections of clients already gone are not held');
  const health = await rawRequest(w.port, 'GET', Buffer.from(`GET /health HTTP/1.1\r\nhost: ${w.host}\r\nconnection: close\r\n\r\n`), 20_000);
  t.equal(health.kind === 'answer' && health.response.status, 200, '/health answers afterwards');
});
