/**
 * Info, health and the machine-readable description.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { answerWithin } from '../../core/abort.js';
import { databaseState } from '../../core/db/database.js';
import { ping } from '../../core/store/sites.js';

const HEALTH_SCHEMA = {
  type: 'object',
  description: 'Decided where the spec says "not shown": status of the API and of its database connection, with the database round-trip time.',
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    version: { type: 'string' },
    uptime_s: { type: 'integer' },
    database: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['ok', 'unavailable'] }, latency_ms: { type: 'integer' }, error: { type: 'string' } },
      required: ['status'],
    },
    timestamp: { type: 'string' },
  },
  required: ['status', 'database', 'timestamp'],
} as const;

// Under a second: a load balancer asking /health learns of a dead database within one second.
const HEALTH_TIMEOUT_MS = 800;

const meta: FastifyPluginAsync = async (app) => {
  const info = async () => ({
    name: 'webperf',
    version: app.deps.version,
    environment: app.deps.config.env,
    endpoints: app.endpoints,
  });
  const infoSchema = {
    tags: ['meta'],
    summary: 'Name, version, environment and available endpoints',
    response: {
      200: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          version: { type: 'string' },
          environment: { type: 'string' },
          endpoints: { type: 'array', items: { type: 'object', properties: { method: { type: 'string' }, path: { type: 'string' } } } },
        },
        required: ['name', 'version', 'environment', 'endpoints'],
      },
    },
  };
  app.get('/info', { schema: infoSchema }, info);
  app.get('/api/info', { schema: infoSchema }, info);

  const started = Date.now();
  const state = databaseState(app.deps.db);
  // One probe of the database at a time, shared by the checks that arrive meanwhile; only its
  // answer clears the known-down state (so 200 is never answered while the database is down).
  let probing: Promise<void> | null = null;
  const probe = () => {
    probing ??= ping(app.deps.db).then(
      () => state.noteAnswer(),
      (err: unknown) => {
        state.noteFailure(err);
        throw err;
      },
    ).finally(() => { probing = null; });
    return probing;
  };
  app.get('/health', {
    schema: { tags: ['meta'], summary: 'Health of the API and its database', description: '200 when the database answers within 0.8 s (of time the process could listen: a limit reached while the process was busy is given 0.8 s once more), 503 otherwise (same body shape); 503 at once while the database is known to be down and already being probed. Recovers by itself when the database is back.', response: { 200: HEALTH_SCHEMA, 503: HEALTH_SCHEMA } },
  }, async (_request, reply) => {
    const t0 = Date.now();
    const base = { version: app.deps.version, uptime_s: Math.floor((Date.now() - started) / 1000), timestamp: new Date().toISOString() };
    const unavailable = (error: string) => reply.status(503).send({ status: 'unavailable', ...base, database: { status: 'unavailable', error } });
    // Known to be down (a connection failed since the database last answered) and already being
    // asked: 503 at once, without queueing behind the pending probe or opening another connection.
    if (state.downSince !== null && probing) return unavailable('the database does not respond');
    try {
      // The query itself cannot be cancelled; the answer stops waiting for it after the limit (of
      // time this process could listen: see answerWithin).
      await answerWithin(probe(), HEALTH_TIMEOUT_MS);
      return { status: 'ok', ...base, database: { status: 'ok', latency_ms: Date.now() - t0 } };
    } catch (err) {
      return unavailable(err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${HEALTH_TIMEOUT_MS} ms` : 'the database does not respond');
    }
  });

  app.get('/openapi.json', { schema: { tags: ['meta'], summary: 'This description (JSON)' } }, async () => app.swagger());
  // @fastify/swagger renders the YAML once and keeps it (rendering the whole description took
  // ~0.5 s of CPU a request: an open route must not cost that).
  const yaml = async (_request: unknown, reply: FastifyReply) => reply.type('application/x-yaml').send(app.swagger({ yaml: true }));
  app.get('/openapi.yaml', { schema: { tags: ['meta'], summary: 'This description (YAML, application/x-yaml)' } }, yaml);
  app.get('/openapi.yml', { schema: { tags: ['meta'], summary: 'This description (YAML, application/x-yaml)' } }, yaml);
};

export default meta;
