/**
 * The guard matrix inside Chromium (chaos/guard/matrix.ts), in one shared browser whose own
 * resolver maps every name to 127.0.0.1 (so a name Chromium resolved itself would reach a counting
 * listener): start pages and one-off addresses, and one guarded page load (interception and the
 * guard proxy, as the gather and the crawl open it) whose page points an image, an iframe, a
 * fetch() and a redirected iframe at every form, then redirects the page itself to six of them.
 * Every case is refused and nothing is connected. The rest of the redirects, the rebinding start
 * page, the Lighthouse gather of the same page and the crawl's visitor run in
 * `npm run chaos -- guard-matrix` (too slow for CI); test/core/gather-guard.test.ts keeps
 * Lighthouse's own fetches in CI.
 */
import puppeteer from 'puppeteer-core';
import t from 'tap';
import { findChromium } from '../../core/config.js';
import { CHROMIUM_ARGS } from '../../runners/browser-pool.js';
import { FORMS, openArena, runBrowserMatrix } from '../../chaos/guard/matrix.js';

const arena = await openArena();
const browser = await puppeteer.launch({ executablePath: findChromium(process.env.CHROMIUM_PATH)!, headless: true, pipe: true, args: [...CHROMIUM_ARGS, ...arena.browserArgs] });
t.teardown(async () => {
  await browser.close();
  await arena.close();
});

const results = await runBrowserMatrix(arena, browser, { signal: AbortSignal.timeout(180_000) });
const forms = FORMS.filter((f) => f.browser).length;

t.test('every Chromium path refuses every address form before connecting', async (t) => {
  const paths = [...new Set(results.map((r) => r.path))];
  t.equal(paths.length, 6, 'six paths');
  // Six top-level redirects and no rebinding start page in CI (see runBrowserMatrix).
  t.equal(results.length, paths.length * forms - (forms - 6) - 1, 'every path met its forms');
  for (const path of paths) {
    t.test(path, async (t) => {
      for (const r of results.filter((x) => x.path === path)) {
        t.same({ refused: r.refused, connections: r.connections }, { refused: r.expected, connections: 0 }, `${r.form}: ${r.detail}`);
      }
    });
  }
});
