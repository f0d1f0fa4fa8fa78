/**
 * The plugin contract, for every registered plugin (built-in and third-party loaded by package
 * name from configuration) against the good and the flawed fixture sites.
 */
import t from 'tap';
import { CATEGORIES, NOT_RATED, definePlugin } from '../../core/plugin-api.js';
import { LANGS } from '../../core/i18n/langs.js';
import { runPlugin, runPlugins } from '../../core/pipeline.js';
import { PluginRegistry, loadExternalPlugins } from '../../core/registry.js';
import { loadConfig } from '../../core/config.js';
import { BUILTIN_PLUGINS } from '../../plugins/index.js';
import { CATALOGUE } from '../../core/catalogue.js';
import { loadFixture } from '../helpers/fixture-artifacts.js';

const config = loadConfig({ WEBPERF_PLUGINS: 'webperf-plugin-example' });
const external = await loadExternalPlugins(config.plugins);
const registry = new PluginRegistry([...BUILTIN_PLUGINS, ...external]);
const good = await loadFixture(t, 'good');
const flawed = await loadFixture(t, 'flawed');

t.test('third-party plugins load by npm package name from configuration', async (t) => {
  t.same(external.map((p) => p.meta.id), [150]);
  t.equal(registry.get(150)?.meta.names.en, 'Page title');
  await t.rejects(loadExternalPlugins(['webperf-plugin-does-not-exist']), /Cannot find/);
  t.throws(() => registry.register(external[0]), /Two plugins claim type_of_test 150/);
});

t.test('every built-in family is registered with its catalogue id', async (t) => {
  t.same(
    BUILTIN_PLUGINS.map((p) => p.meta.id).sort((a, b) => a - b),
    CATALOGUE.filter((c) => c.available).map((c) => c.id),
    'the catalogue marks exactly the built-in plugins as available',
  );
});

for (const plugin of registry.all()) {
  t.test(`plugin ${plugin.meta.id} honours the contract`, async (t) => {
    const m = plugin.meta;
    for (const lang of LANGS) {
      t.ok(m.names[lang]?.length > 0, `name in ${lang}`);
      t.ok(m.descriptions[lang]?.length > 0, `description in ${lang}`);
    }
    t.ok(m.categories.every((c) => (CATEGORIES as readonly string[]).includes(c)), 'known categories');
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
      t.ok(outcome.durationMs < (m.timeoutMs ?? 30_000), `${name}: in time`);
    }
  });
}

t.test('a plugin that throws yields an error result and the others still run', async (t) => {
  const entry = CATALOGUE.find((c) => c.id === 101)!;
  const throwing = definePlugin({
    meta: { id: 991, names: entry.names, descriptions: entry.descriptions, active: true, categories: [], requiredArtifacts: [] },
    run() {
      throw new TypeError('cannot read x of undefined');
    },
  });
  const slow = definePlugin({
    meta: { id: 992, names: entry.names, descriptions: entry.descriptions, active: true, categories: [], requiredArtifacts: [], timeoutMs: 50 },
    run: () => new Promise(() => {}),
  });
  const outcomes = await runPlugins([throwing, slow, registry.get(150)!], good.artifacts, { probes: good.probes });
  t.same(outcomes.map((o) => [o.typeOfTest, o.rating, o.error]), [
    [991, -1, 'cannot read x of undefined'],
    [992, -1, 'took longer than 50 ms'],
    [150, 5, null],
  ]);
  t.equal(outcomes[0].reports.sv.overall, 'Testet kunde inte genomföras: cannot read x of undefined');
  t.same(outcomes[2].data, { title: 'Harbour Library', length: 15 });
});
