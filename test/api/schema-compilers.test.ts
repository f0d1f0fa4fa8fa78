/**
 * api/schema-compilers.ts: route schemas compiled at their first use, once per process, by
 * Fastify's own compilers; every schema of every route compiles; header schemas are written in
 * lower case (Fastify passes them as written to a compilersFactory's validators).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import t from 'tap';
import { compiled } from '../../api/schema-compilers.js';
import { buildApp } from '../../api/app.js';
import type { FastifyInstance } from 'fastify';
import { LATEST_VERSION, ORG_RECORD_SCHEMA } from '../../api/envelope.js';
import { ERROR_BODY_SCHEMA } from '../../api/plugins/errors.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { buildTestApi } from '../helpers/api.js';

const AJV_OPTIONS = { customOptions: { coerceTypes: 'array', removeAdditional: false } };

const api = await buildTestApi(t);
const { app } = api;

t.test('nothing is compiled at start; a route compiles its schemas at its first request, once for both prefixes and for a second app', async (t) => {
  t.strictSame(compiled, { validators: 0, serializers: 0 }, 'the app is ready with no schema compiled');
  const siteId = await createSite(api.db, { title: 'Kommunen', url: 'https://www.kommunen.se/', monthlyQuota: 10 });
  const headers = { 'api-key': (await createKey(api.db, { kind: 'standard', siteIds: [siteId] })).key, 'site-id': String(siteId) };
  const put = (target: FastifyInstance, url: string) => target.inject({ method: 'PUT', url, headers, payload: {} });
  const bad = await put(app, '/webhook/');
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error, 'VALIDATION', 'the body schema refused a body without url, with the documented error body');
  t.match(bad.json().message, /^The body needs url/);
  const afterFirst = { ...compiled };
  t.ok(afterFirst.validators >= 1 && afterFirst.serializers >= 1, `the route's schemas were compiled (${JSON.stringify(afterFirst)})`);
  const again = await put(app, `/${LATEST_VERSION}/webhook/`);
  t.equal(again.statusCode, 400);
  t.strictSame(again.json(), bad.json(), `the same answer at /${LATEST_VERSION}/`);
  t.strictSame(compiled, afterFirst, `the /${LATEST_VERSION}/ route has the same schemas: nothing compiled again`);

  const health = await app.inject({ url: '/health' });
  t.equal(health.json().status, 'ok', 'a response schema serializes at its first use');
  const afterHealth = { ...compiled };
  t.equal(afterHealth.serializers, afterFirst.serializers + 1, "/health's response schema compiled");
  const second = await buildApp({ db: api.db, config: api.config, registry: api.registry, version: '1.0.0', databaseUrl: api.url });
  await second.ready();
  t.teardown(() => second.close());
  t.equal((await second.inject({ url: '/health' })).json().status, 'ok');
  t.strictSame((await put(second, '/webhook/')).json(), bad.json());
  t.strictSame(compiled, afterHealth, 'a second app in the same process compiles nothing again');
});

t.test("every schema of every route compiles with Fastify's own compilers; header schemas are in lower case", async (t) => {
  // The shared schemas routes refer to ($ref), each added in the plugin whose routes use it.
  const shared = { ...app.getSchemas(), Error: ERROR_BODY_SCHEMA, Organisation: ORG_RECORD_SCHEMA };
  const validator = AjvCompiler()(shared as never, AJV_OPTIONS as never) as unknown as (route: { schema: unknown }) => unknown;
  const serializer = SerializerSelector()(shared as never, {} as never) as unknown as (route: { schema: unknown }) => unknown;
  let parts = 0;
  const failures: string[] = [];
  const upperHeaders: string[] = [];
  for (const route of app.routeTable) {
    const schema = route.schema as Record<string, any> | undefined;
    if (!schema) continue;
    const name = `${route.method} ${route.url}`;
    const compile = (what: string, fn: (r: { schema: unknown }) => unknown, part: unknown) => {
      parts++;
      try {
        fn({ schema: part });
      } catch (err) {
        failures.push(`${name} ${what}: ${(err as Error).message}`);
      }
    };
    for (const part of ['headers', 'querystring', 'params'] as const) if (schema[part] !== undefined) compile(part, validator, schema[part]);
    if (schema.body !== undefined) {
      if (schema.body?.content) for (const [type, c] of Object.entries<any>(schema.body.content)) compile(`body ${type}`, validator, c.schema);
      else compile('body', validator, schema.body);
    }
    for (const [status, response] of Object.entries<any>(schema.response ?? {})) {
      if (response?.content) for (const [type, c] of Object.entries<any>(response.content)) compile(`response ${status} ${type}`, serializer, c.schema);
      else compile(`response ${status}`, serializer, response);
    }
    const headers = schema.headers as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    for (const h of [...Object.keys(headers?.properties ?? {}), ...(headers?.required ?? [])]) if (h !== h.toLowerCase()) upperHeaders.push(`${name}: ${h}`);
  }
  t.ok(parts > 200, `${parts} schema parts`);
  t.strictSame(failures, [], 'every part compiles');
  t.strictSame(upperHeaders, [], 'every header name in lower case');
});
