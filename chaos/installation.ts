/**
 * One installation for a chaos scenario: a `webperf api` process that owns its embedded PostgreSQL,
 * a fixture site, a site with a premium level and a key; and the settings runner processes need to
 * join it. The fixture site lives in a test world (test/helpers/world), as a real site does:
 * `https://kommun.test/` on port 443 (test/fixtures/sites/good) under a name the world's DNS
 * server answers, its certificate from the suite's CA. The API and every runner are pointed at
 * that world as an operator would point them at their network (world.env(): WEBPERF_DNS_SERVERS,
 * WEBPERF_EXTRA_CA_CERTS, WEBPERF_ALLOW_TARGETS for loopback, where the world's hosts live).
 *
 * A scenario that brings its own site (`siteUrl`, e.g. a held or slow site) serves it in a world
 * it made and passes that world too; the installation then leaves both to the caller to close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../core/db/database.js';
import { stopRunningPostgres } from '../core/db/embedded.js';
import { createKey } from '../core/store/keys.js';
import { createSite } from '../core/store/sites.js';
import { startWorld, type World } from '../test/helpers/world/index.js';
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
  /** The world the fixture sites live in; more can be served in it. */
  world: World;
  headers: Record<string, string>;
  runnerEnv: Record<string, string>;
  close(): Promise<void>;
}

export interface InstallOptions {
  /** The world the installation's processes are pointed at (default: one of its own, closed with it). */
  world?: World;
  /** The registered site's start page, a site of `world` the caller serves and closes itself. */
  siteUrl?: string;
}

export async function install(options: InstallOptions = {}): Promise<Installation> {
  if (options.siteUrl && !options.world) throw new Error('install: a siteUrl of your own needs the world it is served in');
  const world = options.world ?? (await startWorld());
  const ownWorld = options.world ? null : world;
  try {
    const siteUrl = options.siteUrl ?? (await world.site('kommun.test', { root: 'good', aliases: ['www.kommun.test'] })).url;
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webperf-chaos-runners-'));
    const api = await spawnWebperf('api', world.env({ WEBPERF_DATA_DIR: dataDir, PORT: '0', WEBPERF_DEMO: '0', LOG_LEVEL: 'warn', WEBPERF_RATE_LIMIT: '100000' }));
    const { port } = postmasterOf(path.join(dataDir, 'pg'));
    const dbUrl = `postgres://webperf:webperf@127.0.0.1:${port}/webperf`;
    const db = createDb(dbUrl, { max: 4 });
    await db.insertInto('premium_levels').values({ name: 'chaos', monthly_quota: 100_000 }).execute();
    const siteId = await createSite(db, { title: 'Chaos', url: siteUrl, premiumLevel: 'chaos', monthlyQuota: null });
    const { key } = await createKey(db, { kind: 'standard', siteIds: [siteId] });
    return {
      api: api.apiUrl!,
      apiProcess: api,
      dataDir,
      siteId,
      key,
      db,
      dbUrl,
      siteUrl,
      world,
      headers: { 'api-key': key, 'site-id': String(siteId) },
      runnerEnv: world.env({
        DATABASE_URL: dbUrl, WEBPERF_DATA_DIR: dataDir, WEBPERF_DEMO: '0', LOG_LEVEL: 'warn',
        WEBPERF_HEARTBEAT_MS: '1000', WEBPERF_STALE_AFTER_MS: '4000', WEBPERF_JOB_TIMEOUT_MS: '240000',
      }),
      close: async () => {
        await db.destroy();
        await stopProcess(api);
        await stopRunningPostgres(path.join(dataDir, 'pg')).catch(() => {});
        await ownWorld?.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await ownWorld?.close();
    throw err;
  }
}
