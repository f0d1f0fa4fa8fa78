/**
 * The plugin contract: how plugins are found (one folder each in plugins/, third-party ones by
 * package name), what every registered plugin must honour on the good and the flawed fixture
 * sites, and what the pipeline enforces around run(): required artifacts, declared categories,
 * errors and time limits. Last, a plugin folder made at test time is listed, ordered and rated by
 * a real runner without any other file changing. The fixture sites are served as real ones are
 * (https://<name>.test/ on port 443 in the test world).
 */
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { buildApp } from '../../api/app.js';
import { STATIC_TEST_TYPES } from '../../core/catalogue.js';
import { loadConfig } from '../../core/config.js';
import { LANGS } from '../../core/i18n/langs.js';
import { CATEGORIES, NOT_RATED, definePlugin, type PluginMeta, type PluginResult, type TestPlugin } from '../../core/plugin-api.js';
import { PLUGIN_TIMEOUT_MS, runPlugin, runPlugins } from '../../core/pipeline.js';
import { BUILTIN_PLUGIN_DIR, PluginRegistry, discoverPlugins, loadExternalPlugins, loadPlugins } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { createTestDb } from '../helpers/db.js';
import { loadFixture, makeArtifacts } from '../helpers/fixture-artifacts.js';
import { startTestRunner } from '../helpers/runner.js';
import { testWorld } from '../helpers/world/index.js';

const config = loadConfig({ WEBPERF_PLUGINS: 'webperf-plugin-example' });
const builtins = await discoverPlugins();
const external = await loadExternalPlugins(config.plugins);
const registry = new PluginRegistry([...builtins, ...external]);
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');

/** Names and descriptions for the throwaway plugins below, borrowed from a real one. */
const texts = { names: registry.get(150)!.meta.names, descriptions: registry.get(150)!.meta.descriptions };
const testMeta = (id: number, extra: Partial<PluginMeta> = {}): PluginMeta => ({ id, ...texts, active: true, categories: [], requiredArtifacts: [], ...extra });
const result = (extra: Partial<PluginResult> = {}): PluginResult => ({ rating: 4, ratings: {}, findings: [], summary: { sv: 'Klart.', en: 'Done.' }, data: {}, ...extra });

/** A scratch plugins directory, removed when the test ends. */
async function scratchDir(t: { teardown(fn: () => unknown): void }, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('third-party plugins load by npm package name from configuration', async (t) => {
  t.same(external.map((p) => p.meta.id), [150]);
  t.equal(registry.get(150)?.meta.names.en, 'Page title');
  await t.rejects(loadExternalPlugins(['webperf-plugin-does-not-exist']), /Cannot find/);
  t.throws(() => registry.register(external[0]), /Two plugins claim type_of_test 150/);
});

t.test('the built-ins are discovered one per folder of plugins/, each with its identity in meta.ts', async (t) => {
  const folders = (await readdir(BUILTIN_PLUGIN_DIR, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  t.equal(builtins.length, folders.length, 'one plugin per folder');
  t.same(builtins.map((p) => p.meta.id), [...builtins.map((p) => p.meta.id)].sort((a, b) => a - b), 'in id order');
  for (const folder of folders) {
    const { default: plugin } = (await import(pathToFileURL(path.join(BUILTIN_PLUGIN_DIR, folder, 'index.js')).href)) as { default: TestPlugin };
    const { meta } = (await import(pathToFileURL(path.join(BUILTIN_PLUGIN_DIR, folder, 'meta.js')).href)) as { meta: PluginMeta };
    t.equal(plugin.meta, meta, `plugins/${folder}: index.ts declares the meta of its meta.ts`);
    t.equal(builtins.find((p) => p.meta.id === meta.id), plugin, `plugins/${folder}: discovered as type ${meta.id}`);
  }
  const staticIds = new Set(STATIC_TEST_TYPES.map((s) => s.id));
  t.same(registry.ids().filter((id) => staticIds.has(id)), [], 'the static catalogue keeps only ids no plugin runs');
});

t.test('discovery fails clearly on a folder that is not a plugin', async (t) => {
  const dir = await scratchDir(t, 'webperf-plugins-bad-');
  // A new folder name per case: an imported module stays cached under its URL.
  await mkdir(path.join(dir, 'not-a-plugin'));
  await writeFile(path.join(dir, 'not-a-plugin', 'index.js'), 'export default { hello: "world" };\n');
  await t.rejects(discoverPlugins(dir), /not-a-plugin\/index\.js: the default export is not a test plugin \(an object with meta and run\(\)\)$/);
  await rm(path.join(dir, 'not-a-plugin'), { recursive: true });

  await mkdir(path.join(dir, 'empty'));
  await t.rejects(discoverPlugins(dir), { message: `Plugin folder ${path.join(dir, 'empty')} has no index.js` });
  await rm(path.join(dir, 'empty'), { recursive: true });

  await mkdir(path.join(dir, 'swedish-only'));
  const swedishOnly = { ...testMeta(161), names: { sv: 'Bara svenska' } };
  await writeFile(path.join(dir, 'swedish-only', 'index.js'), `export default { meta: ${JSON.stringify(swedishOnly)}, run() {} };\n`);
  await t.rejects(discoverPlugins(dir), /swedish-only\/index\.js: Plugin 161 has no name in en$/);
});

for (const plugin of registry.all()) {
  t.test(`plugin ${plugin.meta.id} honours the contract`, async (t) => {
    const m = plugin.meta;
    for (const lang of LANGS) {
      t.ok(m.names[lang]?.length > 0, `name in ${lang}`);
      t.ok(m.descriptions[lang]?.length > 0, `description in ${lang}`);
    }
    t.ok(m.categories.every((c) => (CATEGORIES as readonly string[]).includes(c)), 'known categories');
    t.strictSame([good.artifacts.finalUrl, flawed.artifacts.finalUrl], ['https://good.test/', 'https://flawed.test/'], 'the fixtures as loaded: https on port 443');
    for (const [name, fixture] of [['good', good], ['flawed', flawed]] as const) {
      const outcome = await runPlugin(plugin, fixture.artifacts, { probes: fixture.probes });
      t.equal(outcome.error, null, `${name}: no error`);
      t.ok(outcome.rating === NOT_RATED || (outcome.rating >= 1 && outcome.rating <= 5), `${name}: overall rating on the scale`);
      for (const [category, r] of Object.entries(outcome.ratings)) {
        t.ok(m.categories.includes(category as any), `${name}: rates only its declared categories (${category})`);
        t.ok(r! >= 1 && r! <= 5, `${name}: ${category} rating on the scale`);
      }
      for (const lang of ['sv', 'en'] as const) {
        t.type(outcome.reports[lang].overall, 'string');
        t.ok(outcome.reports[lang].overall.length > 0, `${name}: a ${lang} report`);
      }
      t.doesNotThrow(() => JSON.parse(JSON.stringify(outcome.data)), `${name}: json_check_data is JSON`);
      t.ok(outcome.durationMs < (m.timeoutMs ?? PLUGIN_TIMEOUT_MS), `${name}: in time`);
    }
  });
}

t.test('a plugin that throws yields an error result and the others still run', async (t) => {
  const throwing = definePlugin({
    meta: testMeta(991),
    run() {
      throw new TypeError('cannot read x of undefined');
    },
  });
  // A plugin that never answers, as one waiting on a silent socket would. Its pending timer stands
  // for that socket: a bare never-settling promise holds nothing open, and with no other handle in
  // this process (the fixtures come gathered) it would end before the 50 ms limit fires.
  let hung: ReturnType<typeof setTimeout> | undefined;
  t.teardown(() => clearTimeout(hung));
  const slow = definePlugin({ meta: testMeta(992, { timeoutMs: 50 }), run: () => new Promise<PluginResult>((resolve) => { hung = setTimeout(() => resolve(result()), 600_000); }) });
  const outcomes = await runPlugins([throwing, slow, registry.get(150)!], good.artifacts, { probes: good.probes });
  t.same(outcomes.map((o) => [o.typeOfTest, o.rating, o.error]), [
    [991, -1, 'cannot read x of undefined'],
    [992, -1, 'took longer than 50 ms'],
    [150, 5, null],
  ]);
  t.equal(outcomes[0].reports.sv.overall, 'Testet kunde inte genomföras: cannot read x of undefined');
  t.same(outcomes[2].data, { title: 'Harbour Library', length: 15 });
});

t.test('required artifacts are checked before run(): a missing one is an error outcome naming it', async (t) => {
  let runs = 0;
  const needsLighthouse = definePlugin({
    meta: testMeta(993, { requiredArtifacts: ['mainDocument', 'lighthouse', 'axe'] }),
    run: () => {
      runs += 1;
      return result();
    },
  });
  const artifacts = makeArtifacts('https://kommun.test/', { axe: { version: '4.14.1', violations: [], passes: 1, incomplete: 0 } });
  const one = await runPlugin(needsLighthouse, artifacts, { probes: good.probes });
  t.equal(runs, 0, 'run() is not called');
  t.strictSame(
    { rating: one.rating, ratings: one.ratings, error: one.error, data: one.data, findings: one.findings },
    { rating: NOT_RATED, ratings: {}, error: 'required artifact lighthouse not collected by the page load', data: { error: 'required artifact lighthouse not collected by the page load' }, findings: [] },
  );
  t.equal(one.reports.en.overall, 'The test could not be completed: required artifact lighthouse not collected by the page load');
  t.equal(one.reports.sv.overall, 'Testet kunde inte genomföras: required artifact lighthouse not collected by the page load');

  const two = await runPlugin(needsLighthouse, makeArtifacts('https://kommun.test/'), { probes: good.probes });
  t.equal(two.error, 'required artifacts lighthouse, axe not collected by the page load');
  t.equal(runs, 0);

  const all = await runPlugin(needsLighthouse, { ...artifacts, lighthouse: good.artifacts.lighthouse }, { probes: good.probes });
  t.equal(all.error, null, 'with every artifact present the plugin runs');
  t.equal(all.rating, 4);
  t.equal(runs, 1);
});

t.test('a plugin that rates a category it did not declare is an error result', async (t) => {
  const sneaky = definePlugin({ meta: testMeta(994, { categories: ['webstandard'] }), run: () => result({ ratings: { webstandard: 5, infosec: 2 } }) });
  const unknown = definePlugin({ meta: testMeta(995), run: () => result({ ratings: { seo: 3 } as PluginResult['ratings'] }) });
  const honest = definePlugin({ meta: testMeta(996, { categories: ['webstandard', 'infosec'] }), run: () => result({ ratings: { webstandard: 5, infosec: 2 } }) });
  const [a, b, c] = await runPlugins([sneaky, unknown, honest], good.artifacts, { probes: good.probes });
  t.strictSame([a.rating, a.ratings, a.error], [NOT_RATED, {}, 'the plugin rated the category "infosec", which its meta does not declare (declared: webstandard)']);
  t.strictSame([b.rating, b.ratings, b.error], [NOT_RATED, {}, 'the plugin rated the category "seo", which its meta does not declare (declared: none)']);
  t.strictSame([c.rating, c.ratings, c.error], [4, { webstandard: 5, infosec: 2 }, null]);
});

t.test("the caller's signal stops every plugin at once and aborts the signal each plugin sees", async (t) => {
  const seen: AbortSignal[] = [];
  const hanging = (id: number) =>
    definePlugin({
      // An hour: only the caller's signal can end these within the test.
      meta: testMeta(id, { timeoutMs: 3_600_000 }),
      run: (_a, { signal }) => {
        seen.push(signal);
        return new Promise<never>(() => {});
      },
    });
  // One that does listen, and fails its own way when the signal aborts (as fetch does).
  const listening = definePlugin({
    meta: testMeta(989, { timeoutMs: 3_600_000 }),
    run: (_a, { signal }) => {
      seen.push(signal);
      return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('fetch failed: aborted'))));
    },
  });
  const job = new AbortController();
  const pending = runPlugins([hanging(997), hanging(998), listening], good.artifacts, { probes: good.probes, signal: job.signal });
  // Abort once both plugins have started (run() is called on the next microtask).
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(seen.length, 3, 'all three plugins started');
  job.abort(new Error('job time limit of 120000 ms reached'));
  const outcomes = await pending;
  t.same(outcomes.map((o) => [o.typeOfTest, o.rating, o.error]), [
    [997, -1, 'stopped: job time limit of 120000 ms reached'],
    [998, -1, 'stopped: job time limit of 120000 ms reached'],
    [989, -1, 'stopped: job time limit of 120000 ms reached'],
  ]);
  t.ok(seen.every((s) => s.aborted), 'each plugin saw its signal abort');

  let called = false;
  const late = definePlugin({ meta: testMeta(999), run: () => ((called = true), result()) });
  const [before] = await runPlugins([late], good.artifacts, { probes: good.probes, signal: AbortSignal.abort(new Error('already over')) });
  t.equal(before.error, 'stopped: already over', 'an already aborted signal gives an error outcome');
  t.equal(called, false, 'and run() is not called');
});

t.test('a plugin folder added at test time is listed, ordered through POST /retest/ and rated by a real runner', async (t) => {
  // A plugins directory holding the built-in folders (linked) plus one new folder, and nothing else.
  const dir = await scratchDir(t, 'webperf-plugins-');
  for (const folder of (await readdir(BUILTIN_PLUGIN_DIR, { withFileTypes: true })).filter((e) => e.isDirectory())) {
    await symlink(path.join(BUILTIN_PLUGIN_DIR, folder.name), path.join(dir, folder.name), 'dir');
  }
  await mkdir(path.join(dir, 'page-language'));
  const meta = testMeta(160, {
    names: { sv: 'Sidans språk', en: 'Page language', da: 'Sidens sprog', no: 'Sidens språk', fi: 'Sivun kieli', is: 'Tungumál síðu' },
    categories: ['webstandard'],
    requiredArtifacts: ['htmlLang', 'mainDocument'],
  });
  await writeFile(path.join(dir, 'page-language', 'meta.js'), `export const meta = ${JSON.stringify(meta)};\n`);
  await writeFile(
    path.join(dir, 'page-language', 'index.js'),
    [
      "import { meta } from './meta.js';",
      'export default {',
      '  meta,',
      '  run(artifacts) {',
      '    const rating = artifacts.htmlLang ? 5 : 1;',
      "    const summary = { sv: `Språk: ${artifacts.htmlLang || 'inget'}`, en: `Language: ${artifacts.htmlLang || 'none'}` };",
      '    return { rating, ratings: { webstandard: rating }, findings: [], summary, data: { lang: artifacts.htmlLang, status: artifacts.mainDocument.status } };',
      '  },',
      '};',
      '',
    ].join('\n'),
  );

  const plugins = await loadPlugins({ dir });
  t.same(plugins.ids(), [...builtins.map((p) => p.meta.id), 160].sort((a, b) => a - b), 'the built-ins and the new type');

  const testDb = await createTestDb(t);
  const { db } = testDb;
  const appConfig = loadConfig({ NODE_ENV: 'test' }, { publicUrl: 'http://webperf.test', databaseUrl: testDb.url, rateLimitPerMinute: 100_000 });
  const app = await buildApp({ db, config: appConfig, registry: plugins, version: '1.0.0', databaseUrl: testDb.url });
  t.teardown(() => app.close());

  const listed = await app.inject({ method: 'GET', url: '/v1/tests?lang=en' });
  t.equal(listed.statusCode, 200);
  t.strictSame(
    listed.json().tests.find((x: { id: number }) => x.id === 160),
    { id: 160, active: true, available: true, categories: ['webstandard'], requires: [], lang: 'en', name: 'Page language', description: meta.descriptions.en },
    '/v1/tests lists the new type',
  );
  const one = await app.inject({ method: 'GET', url: '/v1/tests/160?lang=sv' });
  t.equal(one.json().test.name, 'Sidans språk', '/v1/tests/160 answers');

  const site = await (await testWorld()).site('kommun.test', { root: 'good' });
  t.teardown(() => site.close());
  t.equal(site.url, 'https://kommun.test/');
  await db.insertInto('premium_levels').values({ name: 'standard', monthly_quota: 100 }).execute();
  const siteId = await createSite(db, { title: 'God kommun', url: site.url, premiumLevel: 'standard' });
  const key = (await createKey(db, { kind: 'standard', siteIds: [siteId] })).key;

  await startTestRunner(t, { db, connectionString: testDb.url, registry: plugins, allowOrigins: [site.origin] });

  const res = await app.inject({ method: 'POST', url: '/retest/', headers: { 'api-key': key, 'site-id': String(siteId), testnums: '[160]' } });
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json().test_types, [160]);
  const runId: number = res.json().run_id;
  // Wait for the runner; the test's own timeout bounds this loop.
  let run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
  while (run.status !== 'done' && run.status !== 'failed') {
    await new Promise((r) => setTimeout(r, 250));
    run = await db.selectFrom('test_runs').select(['status', 'error']).where('id', '=', runId).executeTakeFirstOrThrow();
  }
  t.strictSame(run, { status: 'done', error: null });
  const rows = await db.selectFrom('test_results').select(['type_of_test', 'rating', 'rating_webstandard', 'error', 'json_check_data']).where('run_id', '=', runId).execute();
  t.strictSame(
    rows.map((r) => [r.type_of_test, Number(r.rating), Number(r.rating_webstandard), r.error, r.json_check_data]),
    [[160, 5, 5, null, { lang: 'en', status: 200 }]],
    'rated by the new plugin on the page the runner loaded',
  );
});
