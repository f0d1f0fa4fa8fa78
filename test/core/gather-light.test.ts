/**
 * A page load for test types that need neither Lighthouse's categories nor axe (every type but 30
 * and 18) runs Lighthouse with LIGHT_AUDITS alone: the same page load, and the same network log,
 * served HTML, scripts and stylesheets as a full load, without the trace, the categories and axe.
 * In a real Chromium, on a site of the test world served as real ones are.
 */
import t from 'tap';
import { testPage } from '../../core/engine.js';
import { gather, gatherNeeds } from '../../core/gather/gather.js';
import { hostBenchmarkIndex, keepMeta } from '../../core/gather/lighthouse-modules.js';
import { loadPlugins } from '../../core/registry.js';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { startWorld } from '../helpers/world/index.js';

const PAGE = '<!DOCTYPE html><html lang="sv"><head><meta charset="utf-8"><title>Kommunen</title><link rel="stylesheet" href="/site.css"></head>' +
  '<body><main><h1>Välkommen</h1><p>Kommunens webbplats.</p></main><script src="/site.js"></script><script>document.body.dataset.ready = "1";</script></body></html>';

const world = await startWorld(t);
const site = await world.site('latt.test', {
  handler: (req, res) => {
    if (req.url === '/site.css') res.writeHead(200, { 'content-type': 'text/css' }).end('main { color: #222; }');
    else if (req.url === '/site.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.kommun = { namn: "Kommunen" };');
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(PAGE);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('saknas');
  },
});
const guard = world.guard();
const registry = await loadPlugins({ external: [] });

let fullLoad: Awaited<ReturnType<typeof gather>> | null = null;

t.test('which loads need Lighthouse and axe', async (t) => {
  t.strictSame(gatherNeeds(registry.select([21, 22, 24, 25, 26, 29])), { lighthouse: false, axe: false });
  t.strictSame(gatherNeeds(registry.select([18, 21])), { lighthouse: false, axe: true });
  t.strictSame(gatherNeeds(registry.select([30])), { lighthouse: true, axe: false });
  t.strictSame(gatherNeeds(registry.select(null)), { lighthouse: true, axe: true });
});

t.test('a light load reads what a full one does, without the trace, the categories and axe', async (t) => {
  const browser = await testBrowserPool().acquire();
  const full = await gather(site.url, { browser, guard });
  fullLoad = full;
  const light = await gather(site.url, { browser, guard, needs: { lighthouse: false, axe: false } });
  t.ok(full.lighthouse && full.axe, 'the full load has Lighthouse and axe');
  t.strictSame([light.lighthouse, light.axe], [null, null], 'the light one neither');
  const withoutDate = (d: typeof full.mainDocument) => ({ ...d, headers: { ...d.headers, date: '' } });
  t.strictSame(withoutDate(light.mainDocument), withoutDate(full.mainDocument), 'the same served document, status and headers');
  t.equal(light.mainDocument.html, PAGE);
  // Chromium asks for /favicon.ico by itself when it gets round to it after the load: the full
  // load's longer run logs it, the light one ends first. Every request of the page itself is there.
  const requests = (a: typeof full) => a.network.map((r) => [r.url, r.status, r.resourceType, r.resourceSize]);
  t.strictSame(requests(light), [
    ['https://latt.test/', 200, 'Document', Buffer.byteLength(PAGE)],
    ['https://latt.test/site.css', 200, 'Stylesheet', 21],
    ['https://latt.test/site.js', 200, 'Script', 37],
  ], 'the page, its stylesheet and its script, with their decoded sizes');
  t.strictSame(requests(full).filter(([url]) => url !== 'https://latt.test/favicon.ico'), requests(light), 'the same as the full load, the favicon aside');
  t.strictSame(light.scripts, full.scripts, 'the same scripts with their text');
  t.strictSame(light.scripts.map((s) => s.url).sort(), ['', 'https://latt.test/site.js'], 'the external script and the inline one');
  t.strictSame(light.stylesheets, full.stylesheets, 'the same stylesheets');
  t.strictSame([light.htmlLang, light.mainText, light.finalUrl], [full.htmlLang, full.mainText, full.finalUrl]);
});

t.test('a run of the types that need neither loads light, and each of them rates as after a full load', async (t) => {
  const types = [21, 22, 25, 29];
  const deps = { browser: await testBrowserPool().acquire(), guard, registry };
  const light = await testPage(site.url, registry.select(types), deps);
  const full = await testPage(site.url, registry.select([...types, 30]), deps);
  t.equal(light.artifacts.lighthouse, null, 'no Lighthouse categories were read');
  t.ok(full.artifacts.lighthouse, 'with type 30 they were');
  const ratings = (p: typeof full) => p.outcomes.filter((o) => types.includes(o.typeOfTest)).map((o) => [o.typeOfTest, o.rating, o.ratings, o.error]);
  t.strictSame(ratings(light), ratings(full));
});

t.test('the host is benchmarked at the first page load of a process, and later loads report that figure', async (t) => {
  // Every test above loaded a page in this process: the first one measured the host.
  const measured = hostBenchmarkIndex();
  t.ok(typeof measured === 'number' && measured > 0, `Lighthouse's BenchmarkIndex measured once: ${measured}`);
  const { pageFunctions } = (await import('lighthouse/core/lib/page-functions.js')) as unknown as { pageFunctions: { computeBenchmarkIndex: () => number } };
  // Lighthouse evaluates the page function's source in the page before each load, as here.
  const page = await (await testBrowserPool().acquire()).newPage();
  t.teardown(() => page.close());
  t.equal(await page.evaluate(`(${pageFunctions.computeBenchmarkIndex.toString()})()`), measured, 'in the page it gives the measured figure, without running the benchmark');
  await gather(site.url, { browser: await testBrowserPool().acquire(), guard, needs: { lighthouse: false, axe: false } });
  t.equal(hostBenchmarkIndex(), measured, 'a later load does not measure again');
});

t.test("each audit's metadata is built once per process, and the reports keep both languages", async (t) => {
  // The loads above resolved Lighthouse's configuration: its audits give one frozen object.
  const { default: IsOnHttps } = (await import('lighthouse/core/audits/is-on-https.js')) as unknown as { default: { meta: any } };
  const meta = IsOnHttps.meta;
  t.equal(IsOnHttps.meta, meta, 'the same object at each read');
  t.ok(Object.isFrozen(meta) && Object.isFrozen(meta.title) && Object.isFrozen(meta.requiredArtifacts), 'frozen through');
  t.strictSame([meta.id, meta.title.formattedDefault], ['is-on-https', 'Uses HTTPS'], 'the metadata Lighthouse builds');
  // A full load's report of the same audit, in English and Swedish (Lighthouse's own Swedish).
  t.strictSame(fullLoad?.lighthouse?.audits['is-on-https']?.title, { en: 'Uses HTTPS', sv: 'Använder HTTPS' });
  // keepMeta itself: the getter runs once, and a class already kept is left as it is.
  let built = 0;
  class Audit {
    static get meta() {
      built++;
      return { id: 'x', requiredArtifacts: ['URL'] };
    }
  }
  keepMeta(Audit);
  keepMeta(Audit);
  t.strictSame([Audit.meta, Audit.meta.requiredArtifacts === Audit.meta.requiredArtifacts, built], [{ id: 'x', requiredArtifacts: ['URL'] }, true, 1]);
  t.throws(() => {
    (Audit.meta as { id: string }).id = 'y';
  }, TypeError, 'a write to the kept metadata throws');
});

t.test('types that need no page run beside the page load, not after it, and come back in the order asked', async (t) => {
  const marks: string[] = [];
  let pagelessStarted = 0;
  let phasePlugins = 0;
  const pageless = { meta: { ...registry.get(24)!.meta, id: 990, needsPage: false }, run: async () => {
    pagelessStarted = performance.now();
    marks.push('pageless started');
    return { rating: 5, ratings: {}, findings: [], summary: { sv: 'ok', en: 'ok' }, data: {} };
  } };
  const paged = { meta: { ...registry.get(21)!.meta, id: 991, categories: [], requiredArtifacts: ['mainDocument' as const] }, run: async () => {
    marks.push('page type started');
    return { rating: 4, ratings: {}, findings: [], summary: { sv: 'ok', en: 'ok' }, data: {} };
  } };
  const tested = await testPage(site.url, [paged, pageless], { browser: await testBrowserPool().acquire(), guard, registry }, {
    onPhase: (phase) => {
      if (phase === 'plugins') phasePlugins = performance.now();
    },
  });
  t.strictSame(marks, ['pageless started', 'page type started']);
  t.ok(pagelessStarted > 0 && pagelessStarted < phasePlugins, 'the type needing no page had started before the page load ended');
  t.strictSame(tested.outcomes.map((o) => [o.typeOfTest, o.rating, o.error]), [[991, 4, null], [990, 5, null]], 'in the order asked');
});
