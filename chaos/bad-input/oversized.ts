/**
 * Oversized requests, sent on purpose: a request line or a header over the server's limit
 * (core/net/lingering-close.ts MAX_HEADER_BYTES), each with and without a body, by a client that keeps
 * sending its whole request while the answer comes, as most HTTP clients do (they write the request,
 * then read). A server that answers and destroys the socket at once resets the connection under such
 * a client, which then sees ECONNRESET or EPIPE instead of its answer; the verdict of one request is
 * the whole answer read and no error on the socket.
 */
import net from 'node:net';
import { parseResponse, type RawResponse } from './raw-http.js';

/** The four cases: what is oversized, and whether a body follows. */
export const OVERSIZED_CASES = ['line', 'line+body', 'header', 'header+body'] as const;
export type OversizedCase = (typeof OVERSIZED_CASES)[number];

/** The status each case is answered with: 414 for the request line, 431 for a header. */
export const OVERSIZED_STATUS: Record<OversizedCase, number> = { line: 414, 'line+body': 414, header: 431, 'header+body': 431 };

/** Sizes of the oversized parts: the fuzz findings' 70,000-byte header and 100 kB query string. */
export const OVERSIZED = { queryBytes: 100_000, headerBytes: 70_000, bodyBytes: 256 * 1024 } as const;

const BOUNDARY = 'oversizedB0undary';

/** A multipart/form-data body of about `bytes` bytes (one text field), and its content type. */
export function multipartBody(bytes: number): { contentType: string; body: Buffer } {
  const open = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="content"\r\n\r\n`;
  const close = `\r\n--${BOUNDARY}--\r\n`;
  const body = Buffer.alloc(Math.max(bytes, open.length + close.length), 'y');
  body.write(open, 0, 'latin1');
  body.write(close, body.length - close.length, 'latin1');
  return { contentType: `multipart/form-data; boundary=${BOUNDARY}`, body };
}

/** One request as bytes: its method (to read the answer right) and its head and body. */
export interface WireRequest {
  method: string;
  head: Buffer;
  body: Buffer;
}

/**
 * A request of `oversized` case to `target` (path and query, already encoded); `headers` are sent
 * besides (name, value). The line case pads the query string, the header case adds an
 * `accept-language` of OVERSIZED.headerBytes; the body cases send a multipart body.
 */
export function oversizedRequest(method: string, target: string, oversized: OversizedCase, options: { host: string; headers?: [string, string | Buffer][]; bodyBytes?: number; queryBytes?: number; headerBytes?: number }): WireRequest {
  const line = oversized.startsWith('line');
  const pad = 'a'.repeat(options.queryBytes ?? OVERSIZED.queryBytes);
  const fullTarget = line ? `${target}${target.includes('?') ? '&' : '?'}pad=${pad}` : target;
  const headers: [string, string | Buffer][] = [['host', options.host], ...(options.headers ?? [])];
  if (!line) headers.push(['accept-language', 'sv,'.repeat(Math.ceil((options.headerBytes ?? OVERSIZED.headerBytes) / 3)).slice(0, options.headerBytes ?? OVERSIZED.headerBytes)]);
  let body: Buffer = Buffer.alloc(0);
  if (oversized.endsWith('+body')) {
    const form = multipartBody(options.bodyBytes ?? OVERSIZED.bodyBytes);
    body = form.body;
    headers.push(['content-type', form.contentType], ['content-length', String(body.length)]);
  }
  const head = Buffer.concat([
    Buffer.from(`${method} ${fullTarget} HTTP/1.1\r\n`, 'latin1'),
    ...headers.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `), Buffer.from(value), Buffer.from('\r\n')])),
    Buffer.from('\r\n'),
  ]);
  return { method, head, body };
}

/** What one client that keeps sending saw. */
export interface KeepSendingOutcome {
  /** The whole answer read, or null. */
  response: RawResponse | null;
  /** The socket's error (ECONNRESET, EPIPE …), or null. */
  error: string | null;
  /** Bytes of the request written to the socket. */
  sent: number;
  /** The server closed its end (FIN); false when the run gave up first. */
  closedByServer: boolean;
  ms: number;
}

/**
 * Sends `request` on a new connection to 127.0.0.1:`port` in pieces of `pieceBytes`, `pauseMs`
 * apart (0: as fast as the socket takes them), whatever arrives meanwhile, then closes its end and
 * waits for the server to close, or `timeoutMs`. Bytes are read all along (a client that reads
 * only after writing would see the same answer: it waits in the kernel).
 */
export function sendKeepSending(port: number, request: WireRequest, options: { pieceBytes?: number; pauseMs?: number; timeoutMs: number }): Promise<KeepSendingOutcome> {
  const whole = Buffer.concat([request.head, request.body]);
  const pieceBytes = options.pieceBytes ?? 16 * 1024;
  const started = Date.now();
  return new Promise((resolve) => {
    // Half-open allowed: the server's end (FIN) after its answer does not stop the sending.
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.setNoDelay(true);
    const chunks: Buffer[] = [];
    let sent = 0;
    let error: string | null = null;
    let serverEnded = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      let response: RawResponse | null = null;
      try {
        response = parseResponse(Buffer.concat(chunks), request.method, true);
      } catch {
        response = null;
      }
      resolve({ response, error, sent, closedByServer: serverEnded, ms: Date.now() - started });
    };
    const timer = setTimeout(finish, options.timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      serverEnded = true;
      if (sent === whole.length) finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
      finish();
    });
    socket.on('close', finish);
    const pump = () => {
      while (!done && !socket.destroyed && sent < whole.length) {
        const piece = whole.subarray(sent, sent + pieceBytes);
        sent += piece.length;
        const more = socket.write(piece);
        if (options.pauseMs) return void setTimeout(pump, options.pauseMs);
        if (!more) return void socket.once('drain', pump);
      }
      if (done || socket.destroyed) return;
      // All sent: our end closes; the server, having answered, closes its end too.
      socket.end();
      if (serverEnded) finish();
    };
    socket.on('connect', pump);
  });
}

/** Whether an outcome is what the case must get: the whole answer, its status, no error. */
export function oversizedVerdict(outcome: KeepSendingOutcome, expected: number): string | null {
  if (outcome.error) return `${outcome.error} after ${outcome.sent} bytes sent${outcome.response ? ` (answer ${outcome.response.status} read before)` : ', no answer read'}`;
  if (!outcome.response) return outcome.closedByServer ? `closed without a whole answer after ${outcome.sent} bytes sent` : 'no answer in time';
  if (outcome.response.status !== expected) return `answered ${outcome.response.status}, not ${expected}`;
  return null;
}
