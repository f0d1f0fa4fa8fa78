/**
 * `npm run chaos -- guard-matrix`: the whole guard matrix (chaos/guard/matrix.ts), every fetch
 * path × every address form, with the parts too slow for CI: every top-level redirect, the
 * rebinding start page's Lighthouse load, the crawl's visitor and a Lighthouse gather of a page
 * that points at every form. The webhook address is set through the real API over an embedded
 * PostgreSQL of its own. Reports, per path, how many cases were refused before connecting.
 * Traffic: loopback only (the fence stops anything else and counts it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { buildApp } from '../../api/app.js';
import { findChromium, loadConfig } from '../../core/config.js';
import { createDb } from '../../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../../core/db/embedded.js';
import { migrateToLatest } from '../../core/db/migrate.js';
import { loadPlugins } from '../../core/registry.js';
import { createKey } from '../../core/store/keys.js';
import { createSite } from '../../core/store/sites.js';
import { CHROMIUM_ARGS } from '../../runners/browser-pool.js';
import { VERSION } from '../../runners/service.js';
import { held, nodePaths, openArena, runBrowserMatrix, runNodeMatrix, type CaseResult } from '../guard/matrix.js';
import type { ChaosRow, ChaosScenario } from '../scenario.js';

function rows(results: CaseResult[]): ChaosRow[] {
  const out: ChaosRow[] = [];
  for (const p of [...new Set(results.map((r) => r.path))]) {
    const cases = results.filter((r) => r.path === p);
    const ok = cases.filter(held).length;
    out.push({ area: 'guard', scenario: p, figure: 'cases held (refused before connecting)', value: `${ok} / ${cases.length}`, dataLost: 0, ok: ok === cases.length });
  }
  const all = results.filter(held).length;
  const connections = results.reduce((n, r) => n + r.connections, 0);
  out.push({ area: 'guard', scenario: 'all paths × all address forms', figure: 'cases held', value: `${all} / ${results.length}`, dataLost: 0, ok: all === results.length });
  out.push({ area: 'guard', scenario: 'all paths × all address forms', figure: 'connections to refused addresses', value: String(connections), dataLost: 0, ok: connections === 0 });
  return out;
}

const scenario: ChaosScenario = {
  name: 'guard-matrix',
  budgetMs: 15 * 60_000,
  async run({ signal, log }) {
    const chromium = findChromium(process.env.CHROMIUM_PATH);
    if (!chromium) throw new Error('Chromium was not found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).');
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-guard-'));
    const pg = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
    const stops: (() => Promise<unknown>)[] = [() => pg.stop(), () => rm(tmp, { recursive: true, force: true })];
    try {
      await ensureDatabase(pg.adminUrl, 'webperf_guard');
      const url = pg.urlFor('webperf_guard');
      const db = createDb(url, { max: 4 });
      stops.unshift(() => db.destroy());
      await migrateToLatest(db);
      const arena = await openArena();
      stops.unshift(() => arena.close());
      const config = loadConfig({ NODE_ENV: 'test' }, { databaseUrl: url, rateLimitPerMinute: 0, demo: false });
      const app = await buildApp({ db, config, registry: await loadPlugins({ external: [] }), version: VERSION, databaseUrl: null, guard: arena.guard() });
      stops.unshift(() => app.close());
      const site = await createSite(db, { title: 'Exempelby kommun', url: 'https://www.exempel.se/', premiumLevel: null, monthlyQuota: null });
      const { key } = await createKey(db, { kind: 'standard', siteIds: [site] });
      const putWebhook = async (address: string) => {
        const res = await app.inject({ method: 'PUT', url: '/webhook/', headers: { 'api-key': key, 'site-id': String(site) }, payload: { url: address } });
        return { statusCode: res.statusCode, body: res.json() };
      };

      log('paths outside Chromium');
      const results = await runNodeMatrix(arena, nodePaths(putWebhook), signal);
      log(`${results.filter(held).length} / ${results.length} held`);
      log('Chromium paths (one browser; a Lighthouse gather at the end)');
      const browser = await puppeteer.launch({ executablePath: chromium, headless: true, pipe: true, args: [...CHROMIUM_ARGS, ...arena.browserArgs] });
      stops.unshift(() => browser.close());
      const inBrowser = await runBrowserMatrix(arena, browser, { full: true, signal });
      log(`${inBrowser.filter(held).length} / ${inBrowser.length} held`);
      for (const r of [...results, ...inBrowser].filter((x) => !held(x))) log(`NOT HELD ${r.path} / ${r.form}: refused ${r.refused}, ${r.connections} connections (${r.detail})`);
      return rows([...results, ...inBrowser]);
    } finally {
      for (const stop of stops) await stop().catch(() => {});
    }
  },
};

export default scenario;
