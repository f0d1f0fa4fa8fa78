/**
 * Request bodies of the form routes: JSON, application/x-www-form-urlencoded and
 * multipart/form-data all reach a route as `request.body`, a plain object of its text fields.
 *
 * - A route opts in with `...formBody(rules)` (its size limits and its 413/400 errors) and puts
 *   `checkDeclaredLength` in its preParsing hooks, after its access check, so that a body whose
 *   declared length is already too large is refused before any of it is read.
 * - Multipart file parts are refused (400 FILE_NOT_ACCEPTED); other content types 415. A field
 *   sent twice in a urlencoded body becomes an array and so fails the route's schema.
 * - `bodyError` maps the framework's and @fastify/multipart's body errors to catalogue errors;
 *   the one error handler (api/plugins/errors.ts) calls it.
 * - An answer given while the client is still sending its body (a 413, a 401 before the body is
 *   read, or any answer of a route that reads no body, such as a GET sent with one) keeps the
 *   connection open while the rest of the body is read and dropped (up to DRAIN_BYTES /
 *   DRAIN_MS): closing a socket with unread data makes the kernel send a reset, and the client
 *   then sees a reset instead of its answer (the input fuzz saw a signed-in GET /portal/ with a
 *   100 kB body lose its page that way).
 */
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyRequest } from 'fastify';
import { WebperfError } from '../../core/errors.js';
import { LINGER } from '../../core/net/lingering-close.js';

/** Size limits and errors of one form route. */
export interface FormBodyRules {
  /** Largest body in bytes, as sent (any content type). */
  maxBytes: number;
  /** Largest declared length of a multipart body, when tighter than maxBytes. */
  maxMultipartBytes?: number;
  /** Largest multipart field value kept (a longer one is cut to this length). */
  fieldBytes: number;
  /** The 413 of a body over the limits. */
  tooLarge: () => WebperfError;
  /** The 400 of a body that fails the route's body schema (a field missing, sent twice …). */
  invalid: () => WebperfError;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by `formBody()`. */
    formBody?: FormBodyRules;
  }
}

/** Most bytes of an unread body read and dropped after an error answer: the lingering close's. */
export const DRAIN_BYTES = LINGER.bytes;
/** Longest wait for the rest of an unread body after an error answer: the lingering close's. */
export const DRAIN_MS = LINGER.ms;

/** Multipart limits besides the field size: a form has a few text fields and no file. */
const MULTIPART_LIMITS = { fields: 10, files: 1, fileSize: 1, parts: 20 } as const;

/** Route options of a form route: `app.post(url, { ...formBody(rules), preParsing, schema }, handler)`. */
export function formBody(rules: FormBodyRules) {
  return {
    bodyLimit: Math.max(rules.maxBytes, rules.maxMultipartBytes ?? 0),
    config: { formBody: rules, multipartOptions: { limits: { ...MULTIPART_LIMITS, fieldSize: rules.fieldBytes } } },
  };
}

/** The messages of the multipart parser's (busboy's) errors about a malformed body. */
const BUSBOY_ERROR = /^(Multipart: |Unexpected end of (form|file|multipart data)|Part terminated early|Malformed part header|Unsupported content type)/;

const isMultipart = (request: FastifyRequest) => /^multipart\/form-data/i.test(request.headers['content-type'] ?? '');

/** preParsing: a declared content-length over the route's limit is refused before the body is read. */
export async function checkDeclaredLength(request: FastifyRequest): Promise<void> {
  const rules = request.routeOptions.config.formBody;
  const raw = request.headers['content-length'];
  if (rules === undefined || raw === undefined || !/^[0-9]+$/.test(raw)) return;
  const cap = isMultipart(request) ? (rules.maxMultipartBytes ?? rules.maxBytes) : rules.maxBytes;
  if (Number(raw) > cap) throw rules.tooLarge();
}

/** The catalogue error of a body error, or null when `err` is not one. */
export function bodyError(err: FastifyError, request: FastifyRequest): WebperfError | null {
  const rules = request.routeOptions.config?.formBody;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return rules?.tooLarge() ?? new WebperfError('REQUEST_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new WebperfError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_FILES_LIMIT':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new WebperfError('FILE_NOT_ACCEPTED');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new WebperfError('VALIDATION', 'The form has too many fields');
  }
  if (rules && err.validation && err.validationContext === 'body') return rules.invalid();
  // busboy's own errors carry neither a code nor a status: without this a multipart body without
  // a boundary, or cut short, would be a 500.
  if (isMultipart(request) && err.code === undefined && err.statusCode === undefined && BUSBOY_ERROR.test(err.message)) {
    return new WebperfError('VALIDATION', `The multipart body is malformed: ${err.message}`);
  }
  return null;
}

/** application/x-www-form-urlencoded: a field sent twice becomes an array (and fails the schema). */
export function parseUrlencoded(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    const value = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * Reads and drops the rest of a request body: true once it has ended, false when it is larger
 * than `maxBytes` or takes longer than `ms`.
 */
export function drainBody(req: IncomingMessage, maxBytes = DRAIN_BYTES, ms = DRAIN_MS): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(req.complete);
  return new Promise((resolve) => {
    const signal = AbortSignal.timeout(ms);
    let seen = 0;
    const finish = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      signal.removeEventListener('abort', onAbort);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const onAbort = () => finish(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    signal.addEventListener('abort', onAbort);
    req.resume();
  });
}

/** How often dropRest looks at the socket's byte count. */
const DROP_CHECK_MS = 5;

/**
 * Waits while Node drops the rest of a request body after the answer (IncomingMessage._dump, which
 * emits no 'data' events): true once it has ended, false when more than `maxBytes` more arrived on
 * the socket (a fast client overshoots by what arrives in DROP_CHECK_MS) or `ms` passed. Without
 * this bound a client could make the server read a body of any size.
 */
export function dropRest(req: IncomingMessage, maxBytes = DRAIN_BYTES, ms = DRAIN_MS): Promise<boolean> {
  const socket = req.socket;
  if (req.complete || socket === null || socket.destroyed) return Promise.resolve(req.complete);
  // A socket without a byte count (app.inject's) passes its body through 'data' events.
  if (typeof socket.bytesRead !== 'number') return drainBody(req, maxBytes, ms);
  const start = socket.bytesRead;
  return new Promise((resolve) => {
    const deadline = Date.now() + ms;
    const finish = (ended: boolean) => {
      clearInterval(timer);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(ended);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setInterval(() => {
      if (req.complete) finish(true);
      else if (socket.bytesRead - start > maxBytes || Date.now() > deadline || socket.destroyed) finish(false);
    }, DROP_CHECK_MS);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}

export default fp(
  async (app) => {
    await app.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { ...MULTIPART_LIMITS, fieldSize: 1024 },
      async onFile(part) {
        part.file.resume();
        throw new WebperfError('FILE_NOT_ACCEPTED', `The form part "${part.fieldname}" is a file; send it as a plain text field`);
      },
    });
    // Fastify's own text/plain parser would hand a bare string to the routes: not a form.
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, parseUrlencoded(body as string));
    });
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.raw.complete) return payload;
      if (reply.raw.shouldKeepAlive) {
        // Answer now and keep the connection, which Fastify would close (`connection: close`)
        // with the body unread: the kernel then resets it and the client, still sending, sees
        // the reset instead of this answer. The rest of the body is read and dropped; a body
        // over the drain limits ends the connection.
        // Counted from when the answer has gone: Node then drops the body itself (without 'data'
        // events, so the bytes are counted on the socket).
        reply.removeHeader('connection');
        reply.raw.once('finish', () => {
          void dropRest(request.raw).then((ended) => {
            if (ended) return;
            const socket = request.raw.socket as { destroy?: unknown } | null;
            if (typeof socket?.destroy === 'function') request.raw.socket.destroy();
            else request.raw.destroy();
          });
        });
      } else {
        // The client asked to close: the answer goes now, and so does our end of the connection
        // (FIN), as asked; but Node destroys the socket as soon as the answer is out, which with
        // the body still arriving is a reset that can take the answer with it. So this socket is
        // destroyed only once the rest of the body has been read and dropped (within the drain
        // limits). Draining before answering instead would leave a client that waits for the
        // answer before sending the rest waiting for ever.
        const socket = request.raw.socket as (typeof request.raw.socket & { destroySoon?: () => void }) | null;
        if (socket && typeof socket.destroySoon === 'function') {
          const destroySoon = socket.destroySoon.bind(socket);
          socket.destroySoon = () => {
            socket.end();
            void dropRest(request.raw).then(destroySoon);
          };
        }
      }
      return payload;
    });
  },
  { name: 'webperf-body' },
);
