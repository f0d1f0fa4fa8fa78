/**
 * One installation for a chaos scenario: a `webperf api` process that owns its embedded PostgreSQL,
 * a loopback fixture site, a site with a premium level and a key; and the settings runner
 * processes need to join it. The fixture site is test/fixtures/sites/good unless the scenario
 * brings its own (`siteUrl`: a loopback site it started and closes itself).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../core/config.js';
import { createDb, type Db } from '../core/db/database.js';
import { stopRunningPostgres } from '../core/db/embedded.js';
import { createKey } from '../core/store/keys.js';
import { createSite } from '../core/store/sites.js';
import { startStaticSite } from '../runners/static-site.js';
import { postmasterOf, spawnWebperf, stopProcess, type WebperfProcess } from './processes.js';

export interface Installation {
  api: string;
  apiProcess: WebperfProcess;
  dataDir: string;
  siteId: number;
  key: string;
  db: Db;
  dbUrl: string;
  siteUrl: string;
  headers: Record<string, string>;
  runnerEnv: Record<string, string>;
  close(): Promise<void>;
}

export interface InstallOptions {
  /** The registered site's start page, on a loopback site the caller runs; the runners may load its origin. */
  siteUrl?: string;
}

export async function install(options: InstallOptions = {}): Promise<Installation> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-chaos-runners-'));
  const site = options.siteUrl
    ? { url: options.siteUrl, close: async () => {} }
    : await startStaticSite(path.join(PROJECT_ROOT, 'test', 'fixtures', 'sites', 'good'));
  const origin = new URL(site.url).origin;
  const api = await spawnWebperf('api', { WEBPERF_DATA_DIR: dataDir, PORT: '0', WEBPERF_DEMO: '0', LOG_LEVEL: 'warn', WEBPERF_RATE_LIMIT: '100000' });
  const { port } = postmasterOf(path.join(dataDir, 'pg'));
  const dbUrl = `postgres://webperf:webperf@127.0.0.1:${port}/webperf`;
  const db = createDb(dbUrl, { max: 4 });
  await db.insertInto('premium_levels').values({ name: 'chaos', monthly_quota: 100_000 }).execute();
  const siteId = await createSite(db, { title: 'Chaos', url: site.url, premiumLevel: 'chaos', monthlyQuota: null });
  const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
  return {
    api: api.apiUrl!,
    apiProcess: api,
    dataDir,
    siteId,
    key,
    db,
    dbUrl,
    siteUrl: site.url,
    headers: { 'api-key': key, 'site-id': String(siteId) },
    runnerEnv: {
      DATABASE_URL: dbUrl, WEBPERF_DATA_DIR: dataDir, WEBPERF_ALLOW_TARGETS: origin, WEBPERF_DEMO: '0', LOG_LEVEL: 'warn',
      WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '4000', WEBPERF_JOB_TIMEOUT_MS: '240000',
    },
    close: async () => {
      await db.destroy();
      await stopProcess(api);
      await stopRunningPostgres(path.join(dataDir, 'pg')).catch(() => {});
      await site.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

