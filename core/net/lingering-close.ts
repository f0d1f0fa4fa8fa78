/**
 * Answers to what Node's HTTP parser refuses before it becomes a request (a request line or
 * headers over MAX_HEADER_BYTES, bytes that are not HTTP, a client too slow: config.http), for
 * every HTTP server the service runs (the API's Fastify through api/client-errors.ts). Node's
 * own answer (and Fastify's default handler) writes the status and destroys the socket at once,
 * while the client is often still sending the rest of its headers or body; closing a socket with
 * unread data makes the kernel reset the connection, and the reset takes the answer with it: the
 * client sees ECONNRESET instead of its 431 (found by fuzzing: a 70,000-byte header with a
 * multipart body, `HEAD /portal` with a 100 kB query string).
 *
 * So a refused request gets a lingering close, as nginx gives one: the answer (the documented error
 * body with a catalogue code, `connection: close`), then our end of the connection closed (FIN),
 * then what the client still sends read and dropped until it closes its end, for at most
 * LINGER.bytes, LINGER.ms and LINGER.idleMs without data, and only then the socket destroyed.
 *
 * Which status:
 * - the limit crossed inside the request line (its address): 414 URI_TOO_LONG;
 * - the limit crossed inside a header line: 431 HEADERS_TOO_LARGE;
 * - chunk extensions over Node's limit: 413 REQUEST_TOO_LARGE (Node's own choice);
 * - a request not received in time: 408 REQUEST_TIMEOUT;
 * - any other parse error: 400 MALFORMED_REQUEST.
 * Node counts the request line and the headers together against one limit (`maxHeaderSize`) and
 * names both overflows HPE_HEADER_OVERFLOW; the line the limit was crossed in tells them apart: a
 * request line begins with a method and a space, a header line with a name and a colon. Where that
 * line began in an earlier read, the rest of the line is read first: a request line ends in
 * ` HTTP/1.1`. A client that has already reset or closed the connection gets nothing.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCodes, type ErrorCode } from '../errors.js';

/**
 * Most bytes of a request line and headers together (Node's `maxHeaderSize`, here for every
 * server the service runs, whatever `--max-http-header-size` the process was started with).
 * Node's default; nginx allows an 8 kB request line and 32 kB of headers.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Bounds of the lingering close: at most `bytes` read and dropped after the refusal, for at most
 * `ms` in all and `idleMs` without any data (nginx: lingering_time 30 s, lingering_timeout 5 s).
 * The API drains an unread body after an error answer within the same bytes and time
 * (api/plugins/body.ts DRAIN_BYTES, DRAIN_MS).
 */
export const LINGER = { bytes: 8 * 1024 * 1024, ms: 30_000, idleMs: 5_000 } as const;

/**
 * Where the limit was crossed in a line that began in an earlier read, the rest of that line is
 * read (and dropped) to learn whether it was the request line: for at most this many bytes and
 * this long (a client sending in small pieces on a loaded machine took over a second for the rest
 * of a 100 kB address), after which the answer is 431.
 */
export const LOOKAHEAD = { bytes: 1024 * 1024, ms: 5_000 } as const;

const LF = 0x0a;
/** A request line: a method (an HTTP token) and a space. A header line has a colon after its name. */
const REQUEST_LINE_START = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ /;
/** The end of a request line. */
const REQUEST_LINE_END = / HTTP\/\d\.\d\r?$/;
/** How much of a line's start or end is kept to judge it. */
const KEEP = 64;

/** Sockets being answered: the parser may complain about them again (its request timeout). */
const answering = new WeakSet<Socket>();

/** What a refused request is answered with. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  /** The request is a HEAD: the answer has no body (its content-length still says how long it would be). */
  head: boolean;
}

/** What Node's HTTP parser attaches to its errors. */
interface ParserError extends NodeJS.ErrnoException {
  bytesParsed?: number;
  rawPacket?: Buffer;
}

const plain = (code: ErrorCode): Refusal => ({ code, message: ErrorCodes[code].message, head: false });

/** The request line crossed the limit. */
const TOO_LONG: Refusal = {
  code: 'URI_TOO_LONG',
  message: `The request address is too long (the request line and the headers may hold ${MAX_HEADER_BYTES} bytes together)`,
  head: false,
};
/** A header line crossed the limit (or the line is not known to be the request line). */
const OVERFLOW = plain('HEADERS_TOO_LARGE');

/**
 * The refusal of a header overflow when the line the limit was crossed in can be seen in the read
 * that crossed it (`raw`, parsed up to `bytesParsed`; `firstRead`: nothing came before it on this
 * connection), or null when that line began in an earlier read.
 */
export function overflowRefusal(raw: Buffer, bytesParsed: number, firstRead: boolean): Refusal | null {
  const parsed = raw.subarray(0, Math.min(bytesParsed, raw.length));
  const lf = parsed.lastIndexOf(LF);
  if (lf < 0 && !firstRead) return null;
  const line = parsed.subarray(lf + 1, lf + 1 + KEEP).toString('latin1');
  if (REQUEST_LINE_START.test(line)) return { ...TOO_LONG, head: line.startsWith('HEAD ') };
  // A header line: its request's method is in view when the request began this connection in this read.
  const sameMessage = firstRead && parsed.indexOf('\r\n\r\n') < 0 && parsed.indexOf('\n\n') < 0;
  return { ...OVERFLOW, head: sameMessage && parsed.subarray(0, 5).toString('latin1') === 'HEAD ' };
}

/**
 * Reads on in a line whose start was not seen: `feed` takes the bytes that follow, and gives the
 * refusal once the line has ended (null until then).
 */
export function lineEndJudge(): { feed(chunk: Buffer): Refusal | null } {
  let tail = '';
  return {
    feed(chunk) {
      const lf = chunk.indexOf(LF);
      const end = lf < 0 ? chunk.length : lf;
      tail = (tail + chunk.subarray(Math.max(0, end - KEEP), end).toString('latin1')).slice(-KEEP);
      if (lf < 0) return null;
      return REQUEST_LINE_END.test(tail) ? TOO_LONG : OVERFLOW;
    },
  };
}

/** The refusal of a parser error; for a header overflow whose line began earlier, null (read on). */
function errorRefusal(err: ParserError, socket: Socket): Refusal | null {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return plain('REQUEST_TIMEOUT');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return plain('REQUEST_TOO_LARGE');
    case 'HPE_HEADER_OVERFLOW': {
      const raw = err.rawPacket;
      if (!Buffer.isBuffer(raw)) return OVERFLOW;
      return overflowRefusal(raw, err.bytesParsed ?? raw.length, socket.bytesRead === raw.length);
    }
    default:
      return plain('MALFORMED_REQUEST');
  }
}

/** The bytes of the answer: status line, headers and (but for HEAD) the documented error body. */
export function refusalBytes(r: Refusal): Buffer {
  const status = ErrorCodes[r.code].status;
  const body = JSON.stringify({ statusCode: status, error: r.code, message: r.message });
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  return Buffer.from(r.head ? head : head + body);
}

/** Where a refusal is noted (Fastify's and pino's loggers are ones). */
export interface RefusalLog {
  debug(details: object, message: string): void;
}

/**
 * Answers a parser error on `socket` with a lingering close (see the top of this file): Fastify's
 * `clientErrorHandler` (api/client-errors.ts), or for a plain node:http server
 * `http.createServer({ maxHeaderSize: MAX_HEADER_BYTES })` and
 * `server.on('clientError', (err, socket) => answerClientError(err, socket))`.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket, log?: RefusalLog): void {
  if (answering.has(socket)) return;
  // A client that reset or closed the connection reads nothing; an answer already being written
  // on it cannot be followed by this one (Node's rule). One not begun (a route waiting for a body
  // that is too slow) gives way to this one: the socket is ended before the route could answer.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable || started) {
    socket.destroy();
    return;
  }
  answering.add(socket);
  log?.debug({ err: { code: err.code, message: err.message } }, 'client error');
  const raw = (err as ParserError).rawPacket;
  const rest = Buffer.isBuffer(raw) ? raw.subarray(Math.min((err as ParserError).bytesParsed ?? raw.length, raw.length)) : Buffer.alloc(0);
  linger(socket, errorRefusal(err as ParserError, socket), rest);
}

/**
 * Takes the socket from Node's HTTP machinery, answers (now, or once `refusal` is known from the
 * rest of the line) and closes with a linger. `rest`: the bytes the parser read but did not parse.
 */
function linger(socket: Socket, known: Refusal | null, rest: Buffer): void {
  // Node's own listeners would hand what follows to the failed parser (which fails again); adding
  // a 'data' listener also takes the socket back from the parser where it read it directly.
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  const judge = known ? null : lineEndJudge();
  let read = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(whole);
    if (idle) clearTimeout(idle);
    if (lookahead) clearTimeout(lookahead);
    socket.destroy();
  };
  const whole = setTimeout(close, LINGER.ms);
  // From the answer on: while the line is read on, LOOKAHEAD bounds the wait.
  let idle: NodeJS.Timeout | null = null;
  const lookahead = known ? null : setTimeout(() => answer(OVERFLOW), LOOKAHEAD.ms);
  const answer = (r: Refusal) => {
    if (closed || socket.writableEnded) return;
    if (lookahead) clearTimeout(lookahead);
    idle = setTimeout(close, LINGER.idleMs);
    // Our end closes after the answer; the client's end is read until it closes it.
    socket.end(refusalBytes(r));
    if (socket.readableEnded) socket.once('finish', close);
  };
  const onBytes = (chunk: Buffer) => {
    if (closed) return;
    read += chunk.length;
    if (judge && !socket.writableEnded) {
      const judged = judge.feed(chunk);
      if (judged) answer(judged);
      else if (read > LOOKAHEAD.bytes) answer(OVERFLOW);
    }
    if (read > LINGER.bytes) close();
    else idle?.refresh();
  };
  socket.on('data', onBytes);
  // The client has sent all it will: once the answer is out, nothing is left to reset.
  socket.on('end', () => {
    answer(known ?? OVERFLOW);
    if (socket.writableFinished) close();
    else socket.once('finish', close);
  });
  socket.on('error', close);
  socket.once('close', close);
  socket.resume();
  if (known) answer(known);
  if (rest.length > 0) onBytes(rest);
}
