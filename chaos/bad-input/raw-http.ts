/**
 * HTTP/1.1 over a plain loopback socket, byte for byte: the fuzzer must be able to send what no
 * well-behaved client library would (invalid UTF-8, control bytes, broken framing), and must see
 * whether the server answered at all or dropped the connection.
 */
import net from 'node:net';

/** A parsed answer. */
export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** What became of one request. */
export type RawOutcome =
  | { kind: 'answer'; response: RawResponse }
  /** The connection ended (or was reset) before a whole answer arrived. */
  | { kind: 'dropped'; detail: string }
  /** No whole answer within the time limit. */
  | { kind: 'hang' };

const HEAD_END = Buffer.from('\r\n\r\n');

/** The first whole answer in `buf` (skipping 1xx answers), or null while incomplete. */
export function parseResponse(buf: Buffer, method: string, ended: boolean): RawResponse | null {
  let start = 0;
  for (;;) {
    const end = buf.indexOf(HEAD_END, start);
    if (end < 0) return null;
    const lines = buf.subarray(start, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!m) throw new Error(`not an HTTP answer: ${JSON.stringify(lines[0].slice(0, 80))}`);
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const name = line.slice(0, i).trim().toLowerCase();
      const value = line.slice(i + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    if (method === 'HEAD' || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const body = dechunk(buf.subarray(bodyStart));
      return body === null ? null : { status, headers, body };
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (buf.length - bodyStart < length) return null;
      return { status, headers, body: buf.subarray(bodyStart, bodyStart + length) };
    }
    return ended ? { status, headers, body: buf.subarray(bodyStart) } : null;
  }
}

function dechunk(buf: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return null;
    const size = parseInt(buf.subarray(at, eol).toString('latin1').split(';')[0], 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size in the answer');
    if (size === 0) return Buffer.concat(parts);
    if (buf.length < eol + 2 + size + 2) return null;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * Sends `request` (head and body, as bytes) on a new connection to 127.0.0.1:`port` and waits for
 * one whole answer, the end of the connection, or `timeoutMs`.
 */
export function rawRequest(port: number, method: string, request: Buffer, timeoutMs: number): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const timer = setTimeout(() => finish({ kind: 'hang' }), timeoutMs);
    const finish = (outcome: RawOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const check = (ended: boolean, detail: string) => {
      const buf = Buffer.concat(chunks, size);
      try {
        const response = parseResponse(buf, method, ended);
        if (response) return finish({ kind: 'answer', response });
      } catch (err) {
        return finish({ kind: 'dropped', detail: (err as Error).message });
      }
      if (ended) finish({ kind: 'dropped', detail: size === 0 ? `${detail} without any answer` : `${detail} in the middle of the answer` });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      check(false, '');
    });
    socket.on('end', () => check(true, 'closed'));
    socket.on('close', () => check(true, 'closed'));
    // A reset after the answer arrived still counts as answered (check runs on what came).
    socket.on('error', (err: NodeJS.ErrnoException) => check(true, err.code ?? 'socket error'));
    socket.on('connect', () => socket.write(request));
  });
}
