/**
 * The test-type catalogue: the registered plugins' own metas plus the static entries no plugin
 * runs, names and descriptions in six languages, ETag + 304, long caching.
 */
import type { FastifyPluginAsync } from 'fastify';
import etag from '@fastify/etag';
import { CATALOGUE_META, type TestType } from '../../core/catalogue.js';
import { LANGS, type Lang } from '../../core/i18n/langs.js';
import { LANG_QUERY } from './premium/schemas.js';
import { WebperfError } from '../../core/errors.js';
import { errorResponses } from '../envelope.js';

const CACHE_CONTROL = 'public, max-age=86400, stale-while-revalidate=604800';
const ACTIVE_VALUES = new Set(['1', 'true', 'yes']);

const localized = { type: 'object', properties: Object.fromEntries(LANGS.map((l) => [l, { type: 'string' }])), required: [...LANGS] } as const;

const TEST_TYPE_SCHEMA = {
  type: 'object',
  description: 'A test type. Decided where the spec says "not shown": besides `id` and the localised names, a record has `active` (active in the established catalogue; retired ids are false), `available` (this service runs it), `categories` it rates, descriptions, and `requires`: the programs the type needs besides Node and Chromium, each with how an operator installs it (empty for most types; type 32 needs `zonemaster-cli`). A runner that lacks one reports the type as not available (not rated, `data.code` TEST_TYPE_UNAVAILABLE) and a re-test is not charged for it: its credit is given back when the run is stored. With `lang`, `names`/`descriptions` flatten to `name`/`description` in that language and `lang` says which.',
  properties: {
    id: { type: 'integer' },
    active: { type: 'boolean' },
    available: { type: 'boolean' },
    categories: { type: 'array', items: { type: 'string', enum: ['a11y', 'pagespeed', 'infosec', 'webstandard'] } },
    requires: {
      type: 'array',
      items: { type: 'object', properties: { component: { type: 'string' }, install: { type: 'string' } }, required: ['component', 'install'] },
    },
    lang: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    names: localized,
    descriptions: localized,
  },
  required: ['id', 'active', 'available', 'categories', 'requires'],
} as const;

const META_SCHEMA = {
  type: 'object',
  properties: { machine_translated: { type: 'string' }, languages: { type: 'array', items: { type: 'string' } } },
  required: ['machine_translated', 'languages'],
} as const;


function present(t: TestType, lang: Lang | undefined) {
  const base = { id: t.id, active: t.active, available: t.available, categories: t.categories, requires: t.requires };
  return lang
    ? { ...base, lang, name: t.names[lang], description: t.descriptions[lang] }
    : { ...base, names: t.names, descriptions: t.descriptions };
}

const testTypes: FastifyPluginAsync = async (app) => {
  await app.register(etag);
  app.addHook('onSend', async (_request, reply) => {
    if (reply.statusCode === 200 || reply.statusCode === 304) void reply.header('cache-control', CACHE_CONTROL);
  });

  app.get<{ Querystring: { lang?: Lang; active?: string } }>('/v1/tests', {
    schema: {
      tags: ['open'],
      summary: 'The test-type catalogue',
      description: 'All test types, retired ones included (inactive). `active` = 1, true or yes (case-insensitive) keeps only active ones; any other value lists all. Served with an ETag (304 on If-None-Match) and Cache-Control: ' + CACHE_CONTROL + '.',
      querystring: { type: 'object', properties: { lang: LANG_QUERY, active: { type: 'string' } } },
      response: {
        200: { type: 'object', properties: { count: { type: 'integer' }, meta: META_SCHEMA, tests: { type: 'array', items: TEST_TYPE_SCHEMA } }, required: ['count', 'meta', 'tests'] },
        304: { type: 'null', description: 'Not modified' },
        ...errorResponses(400),
      },
    },
  }, async (request) => {
    const lang = request.query.lang;
    const onlyActive = request.query.active !== undefined && ACTIVE_VALUES.has(request.query.active.toLowerCase());
    const tests = app.deps.registry.testTypes().filter((t) => !onlyActive || t.active).map((t) => present(t, lang));
    return { count: tests.length, meta: CATALOGUE_META, tests };
  });

  app.get<{ Params: { test_id: number }; Querystring: { lang?: Lang } }>('/v1/tests/:test_id', {
    schema: {
      tags: ['open'],
      summary: 'One test type',
      params: { type: 'object', properties: { test_id: { type: 'integer' } }, required: ['test_id'] },
      querystring: { type: 'object', properties: { lang: LANG_QUERY } },
      response: {
        200: { type: 'object', properties: { meta: META_SCHEMA, test: TEST_TYPE_SCHEMA }, required: ['meta', 'test'] },
        304: { type: 'null', description: 'Not modified' },
        ...errorResponses(400, 404),
      },
    },
  }, async (request) => {
    const lang = request.query.lang;
    const t = app.deps.registry.testType(request.params.test_id);
    if (!t) throw new WebperfError('TEST_TYPE_NOT_FOUND', `Unknown test id ${request.params.test_id}`);
    return { meta: CATALOGUE_META, test: present(t, lang) };
  });
};

export default testTypes;
