/**
 * Slow and abusive clients against the running API: connections that send nothing, headers or a
 * body that trickle in a byte at a time, keep-alive connections left idle, and a body larger than
 * any limit. Measures the latency of normal requests with and without them, and how each slow
 * connection ended (answer and who closed it).
 */
import net from 'node:net';
import { parseResponse, type RawResponse } from './raw-http.js';

/** The kinds of slow connection, opened in equal numbers. */
export const SLOW_KINDS = ['idle', 'trickle-headers', 'trickle-body', 'idle-keep-alive'] as const;
export type SlowKind = (typeof SLOW_KINDS)[number];

/** How one slow connection ended. */
export interface SlowEnd {
  kind: SlowKind;
  /** The server closed it (else it was still open when the run gave up on it). */
  closedByServer: boolean;
  /** After how long, from the connection. */
  ms: number;
  /** The answer the server gave before closing, if any (idle-keep-alive: the answer after the first). */
  response: RawResponse | null;
}

/** Latency figures of normal requests. */
export interface Latency {
  n: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Sends `n` normal requests (`paths` in turn, `concurrency` at a time over keep-alive
 * connections) and measures each; a request fails when it is not a 2xx in `timeoutMs`.
 */
export async function measure(baseUrl: string, paths: string[], n: number, options: { concurrency?: number; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Latency> {
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await fetch(`${baseUrl}${paths[i % paths.length]}`, { headers: options.headers, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
        await res.arrayBuffer();
        if (!res.ok) errors++;
      } catch {
        errors++;
      }
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { n: times.length, errors, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times[times.length - 1] ?? 0) };
}

/** An open slow connection; `ended` settles when the server closes it or `giveUpMs` passes. */
export interface SlowConnection {
  kind: SlowKind;
  ended: Promise<SlowEnd>;
}

/**
 * Opens one slow connection of `kind` to 127.0.0.1:`port`, sending a byte every `intervalMs`
 * where it trickles. `bodyRequest` is the head of a POST whose declared body then trickles in.
 */
export function openSlow(port: number, kind: SlowKind, options: { intervalMs: number; giveUpMs: number; bodyRequestHead: string }): SlowConnection {
  const started = Date.now();
  const socket = net.connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  let timer: NodeJS.Timeout | undefined;
  let firstAnswerSeen = false;
  const ended = new Promise<SlowEnd>((resolve) => {
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearTimeout(giveUp);
      let buf = Buffer.concat(chunks);
      let response: RawResponse | null = null;
      try {
        if (kind === 'idle-keep-alive') {
          // Skip the answer to the one normal request.
          const first = parseResponse(buf, 'GET', false);
          if (first) buf = buf.subarray(buf.indexOf('\r\n\r\n') + 4 + first.body.length);
        }
        response = buf.length > 0 ? parseResponse(buf, 'GET', true) : null;
      } catch {
        response = null;
      }
      socket.destroy();
      resolve({ kind, closedByServer, ms: Date.now() - started, response });
    };
    const giveUp = setTimeout(() => finish(false), options.giveUpMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (kind === 'idle-keep-alive' && !firstAnswerSeen && parseResponse(Buffer.concat(chunks), 'GET', false)) firstAnswerSeen = true;
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
  socket.on('connect', () => {
    if (kind === 'trickle-headers') {
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      const header = 'x-slow: ' + 'a'.repeat(100_000);
      let i = 0;
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(header[i++ % header.length]);
      }, options.intervalMs);
    } else if (kind === 'trickle-body') {
      socket.write(options.bodyRequestHead);
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write('a');
      }, options.intervalMs);
    } else if (kind === 'idle-keep-alive') {
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    }
  });
  return { kind, ended };
}

/** How a body larger than any limit ended. */
export interface OversizeEnd {
  response: RawResponse | null;
  /** Bytes written before the server closed the connection (or the run gave up). */
  bytesSent: number;
  /** Bytes written when the answer began to arrive (null: no answer). */
  answeredAfterBytes: number | null;
  closedByServer: boolean;
  ms: number;
}

/**
 * Streams a body of the length `head` declares (or, with chunked, without end) as fast as the
 * socket takes it, after `head`, until the server closes the connection, or `giveUpMs` passes.
 */
export function sendOversize(port: number, head: string, giveUpMs: number, chunked = false): Promise<OversizeEnd> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const data = Buffer.alloc(64 * 1024, 'a');
    const block = chunked ? Buffer.concat([Buffer.from('10000\r\n'), data, Buffer.from('\r\n')]) : data;
    // A declared length is never exceeded: bytes after it would be a second, broken request.
    const declared = /content-length: (\d+)/i.exec(head);
    const limit = declared ? Number(declared[1]) : null;
    let sent = 0;
    let answeredAfter: number | null = null;
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      let response: RawResponse | null = null;
      try {
        response = parseResponse(Buffer.concat(chunks), 'POST', true);
      } catch {
        response = null;
      }
      socket.destroy();
      resolve({ response, bytesSent: sent, answeredAfterBytes: answeredAfter, closedByServer, ms: Date.now() - started });
    };
    const giveUp = setTimeout(() => finish(false), giveUpMs);
    const pump = () => {
      while (!done && !socket.destroyed && (limit === null || sent < limit)) {
        const piece = limit === null ? block : block.subarray(0, Math.min(block.length, limit - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (c: Buffer) => {
      if (chunks.length === 0) answeredAfter = sent;
      chunks.push(c);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}
