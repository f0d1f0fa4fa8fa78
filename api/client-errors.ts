/**
 * The API's answers to what Node's HTTP parser refuses before there is a request (an oversized
 * request line or headers, bytes that are not HTTP, a client too slow): Fastify's
 * `clientErrorHandler`, with the lingering close of core/net/lingering-close.ts, so that the 414,
 * 431, 413, 408 or 400 in the documented body reaches a client that is still sending. buildApp
 * sets it, and the header limit, on the server of every process kind that serves the API.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerClientError } from '../core/net/lingering-close.js';

export { MAX_HEADER_BYTES } from '../core/net/lingering-close.js';

/** Fastify's `clientErrorHandler`: the answer is read by the client before the connection closes. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  answerClientError(err, socket, this.log);
}
