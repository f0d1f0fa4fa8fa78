/**
 * The layout check the page tests share (test/helpers/layout.ts), on small pages made to break
 * it in one way each, in the real Chromium: it must see a page wider than the screen (also when
 * only a visually hidden text escapes a scrolling wrapper), overlapping text, a scrolling table a
 * keyboard cannot reach and a cut-off caption, and must not count what a reader does not see.
 */
import type { Page } from 'puppeteer-core';
import t from 'tap';
import { testBrowserPool } from '../helpers/fixture-artifacts.js';
import { layoutProblems } from '../helpers/layout.js';

const browser = await testBrowserPool().acquire();
const context = await browser.createBrowserContext();
t.teardown(() => context.close());
const page: Page = await context.newPage();
await page.setViewport({ width: 360, height: 740 });

const STYLE = `<style>
  body { margin: 0; font: 16px/1.5 sans-serif; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
  .scroll { overflow-x: auto; }
  table { border-collapse: collapse; }
  caption { text-align: left; }
  td { padding: 0 .5rem; white-space: nowrap; }
</style>`;

/** The problems the check finds on `body`, laid out at 360 px. */
async function problemsOf(body: string): Promise<string[]> {
  await page.setContent(`<!doctype html><html lang="en"><head>${STYLE}</head><body>${body}</body></html>`);
  return layoutProblems(page);
}

t.test('a page that fits, with text hidden for screen readers and a named scrolling region, has no problem', async (t) => {
  t.strictSame(await problemsOf(`
    <a href="#main" style="position: absolute; left: -999rem">Skip to the content</a>
    <h1 style="line-height: 1.2">A heading long enough to wrap onto a second line here</h1>
    <p>Sort by<span class="visually-hidden"> the overall rating, best first, which sits on this text</span></p>
    <div class="scroll" role="region" tabindex="0" aria-labelledby="c" style="position: relative">
      <table><caption id="c">Short</caption><tr><td>A cell far too wide for a phone, and beside it</td><td>another one</td></tr></table>
    </div>
    <details><summary>Report</summary><p style="margin-top: -1.5rem">Folded away, where it would overlap</p></details>`), []);
});

t.test('a page wider than the screen: its width and the element that reaches past the edge', async (t) => {
  t.strictSame(await problemsOf('<div class="wide" style="width: 600px">wide</div>'), [
    'the page scrolls sideways: 600 px wide in a 360 px viewport; past the edge: div.wide (600 px wide, right edge at 600)',
  ]);
});

t.test('a visually hidden text that escapes its scrolling wrapper (not positioned) widens the page', async (t) => {
  const problems = await problemsOf(`
    <div class="scroll" role="region" tabindex="0" aria-label="Scores">
      <table><tr><td>A cell far too wide for a phone, and beside it</td><td>another<span class="visually-hidden"> sort</span></td></tr></table>
    </div>`);
  t.equal(problems.length, 1, problems.join('\n'));
  t.match(problems[0], /^the page scrolls sideways: \d+ px wide in a 360 px viewport; past the edge: td > span\.visually-hidden \(1 px wide, right edge at \d+\)$/);
});

t.test('two texts on top of each other overlap, by how much', async (t) => {
  t.strictSame(await problemsOf(`
    <div style="position: relative; height: 3rem">
      <span class="a" style="position: absolute; left: 0; top: 0; font-size: 20px; line-height: 20px">Integrity &amp; security</span>
      <span class="b" style="position: absolute; left: 100px; top: 0; font-size: 20px; line-height: 20px">Standards</span>
    </div>`).then((ps) => ps.map((p) => p.replace(/by \d+×\d+ px at \(\d+, \d+\)$/, 'by …'))), [
    'text "Integrity & security" (div > span.a) overlaps "Standards" (div > span.b) by …',
  ]);
});

t.test('a table that scrolls sideways must be a focusable, named region', async (t) => {
  const table = '<table><tr><td>A cell far too wide for a phone, and beside it</td><td>another one</td></tr></table>';
  const [plain] = await problemsOf(`<div class="scroll">${table}</div>`);
  t.match(plain, /^div\.scroll scrolls sideways \(\d+ px in 360 px\) but is not a focusable, named region \(tabindex none, role none, name none\)$/);
  const [unnamed] = await problemsOf(`<div class="scroll" role="region" tabindex="0">${table}</div>`);
  t.match(unnamed, /\(tabindex 0, role region, name none\)$/);
  t.strictSame(await problemsOf(`<div class="scroll" role="region" tabindex="0" aria-label="Scores">${table}</div>`), []);
});

t.test('text scrolled out of a region is not compared; a caption cut off by the region is a problem', async (t) => {
  // The two cells overlap only beyond the region's visible 360 px.
  t.strictSame(await problemsOf(`
    <div class="scroll" role="region" tabindex="0" aria-label="Scores">
      <div style="position: relative; width: 900px; height: 2rem"><span style="position: absolute; left: 500px">Overlapping</span><span style="position: absolute; left: 520px">text</span></div>
    </div>`), []);
  const problems = await problemsOf(`
    <div class="scroll" role="region" tabindex="0" aria-labelledby="c" style="position: relative">
      <table><caption id="c" style="white-space: nowrap">Websites with their latest rating per category and more</caption><tr><td>A cell far too wide for a phone, and beside it</td><td>another one</td></tr></table>
    </div>`);
  t.equal(problems.length, 1, problems.join('\n'));
  t.match(problems[0], /^the caption "Websites with their latest rating per ca" is cut off: \d+ px of text, 360 px shown$/);
});
