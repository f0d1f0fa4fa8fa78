/**
 * Conformance: our accessibility numbers against the reference way to run axe from Puppeteer,
 * @axe-core/puppeteer, on the same fixture page in the same Chromium, rule by rule and node by
 * node. Both use the axe-core build the product ships (the reference is given its source, so a
 * different bundled version cannot explain a difference) and the same WCAG 2.2 A/AA tags.
 * The product gathers once (Lighthouse and axe in one page load); the reference loads the page
 * itself, so this test loads it twice, never the product. The page is served as a real one is
 * (https://a11y-frames.test/ on port 443 in the test world) and its cross-site booking widget comes
 * from another host of the world, https://bokning.test/.
 */
import { AxePuppeteer } from '@axe-core/puppeteer';
import t from 'tap';
import { AXE_RUN_OPTIONS, loadAxe } from '../../core/gather/axe.js';
import { runPlugin } from '../../core/pipeline.js';
import a11y from '../../plugins/a11y/index.js';
import { gather } from '../../core/gather/gather.js';
import { openGuardedContext } from '../../core/gather/guarded-context.js';
import { createProbes } from '../../core/net/probes.js';
import { LOOPBACK_GUARD, testBrowserPool } from '../helpers/fixture-artifacts.js';
import { testWorld } from '../helpers/world/index.js';

/** A node's place as one string: frames, then shadow hosts, then the element, as the plugin writes it. */
const place = (target: unknown[]) => target.map((part) => (Array.isArray(part) ? part.join(' >>> ') : String(part))).join(' >>> ');

async function reference(url: string): Promise<Map<string, string[]>> {
  const browser = await testBrowserPool().acquire();
  // Chromium asks the world's names of a proxy that resolves them (the guard proxy the product
  // uses too); nothing else of the product is involved in the reference's page load.
  const { context, close } = await openGuardedContext(browser, LOOPBACK_GUARD);
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    // puppeteer-core's Page is the same class as puppeteer's; only the package names differ.
    const result = await new AxePuppeteer(page as any, await loadAxe()).options(AXE_RUN_OPTIONS as any).analyze();
    return new Map(result.violations.map((v) => [v.id, v.nodes.map((n) => place(n.target as unknown[])).sort()]));
  } finally {
    await close();
  }
}

t.test('a11y-frames: every violation the reference finds, in the page, its frames and its shadow root, and nothing else', async (t) => {
  const world = await testWorld();
  const site = await world.site('a11y-frames.test', { root: 'a11y-frames' });
  // The booking service: a host of its own, serving the same folder (its boka.html).
  await world.site('bokning.test', { root: 'a11y-frames' });
  const fixture = { url: site.url, artifacts: await gather(site.url, { browser: await testBrowserPool().acquire(), guard: LOOPBACK_GUARD }), probes: createProbes(LOOPBACK_GUARD) };
  const ours = fixture.artifacts.axe!;
  const theirs = await reference(fixture.url);
  const mine = new Map(ours.violations.map((v) => [v.id, v.nodes.map((n) => place(n.target)).sort()]));
  t.same([...mine.keys()].sort(), [...theirs.keys()].sort(), 'the same rules fail');
  for (const [rule, nodes] of theirs) t.same(mine.get(rule), nodes, `${rule}: the same elements`);
  // Exact, so that both cannot miss the same element: the page's image, the same-origin map, the
  // cross-site booking widget (bokning.test is another site than a11y-frames.test) and the shadow root.
  t.same([...theirs], [
    ['image-alt', ['#boka >>> img', '#karta >>> #kartbild', '#kontakt >>> .kontakt-bild', 'img']],
    ['label', ['#boka >>> input']],
  ]);
  const origin = new URL(fixture.url).origin;
  t.equal(origin, 'https://a11y-frames.test');
  t.same(ours.frames, [
    { path: ['#karta'], url: `${origin}/karta.html` },
    { path: ['#boka'], url: 'https://bokning.test/boka.html' },
  ]);

  const outcome = await runPlugin(a11y, fixture.artifacts, { probes: fixture.probes });
  const data = outcome.data as any;
  t.same(data.violations.map((v: any) => [v.rule, v.count, v.selectors]), [
    ['image-alt', 4, ['img', '#karta >>> #kartbild', '#boka >>> img', '#kontakt >>> .kontakt-bild']],
    ['label', 1, ['#boka >>> input']],
  ]);
  t.same(data.frames, [
    { frame: '#karta', url: `${origin}/karta.html`, elements: 1 },
    { frame: '#boka', url: 'https://bokning.test/boka.html', elements: 2 },
  ]);
  // Two critical rules: 100 − 2 × 25 = 50 → 2.5.
  t.equal(outcome.rating, 2.5);
  t.equal(
    outcome.reports.sv.a11y,
    'Tillgänglighet: Betyg: 2.50\n- Bilder saknar alternativtext (4 element, varav 2 i inbäddad ram)\n- Formulärfält saknar etikett (1 element, i inbäddad ram)',
  );
  t.equal(
    outcome.reports.en.a11y,
    'Accessibility: Rating: 2.50\n- Images must have alternative text (4 elements, 2 of them in an embedded frame)\n- Form elements must have labels (1 element, in an embedded frame)',
  );
  t.match(outcome.reports.en.overall, /in 5 elements in all \(\d+ rules passed\)\. The 2 frames \(iframe\) the page embeds were tested too\./);
  t.match(outcome.reports.sv.overall, /i sammanlagt 5 element \(\d+ regler godkända\)\. Sidans 2 inbäddade ramar \(iframe\) testades också\./);
});
