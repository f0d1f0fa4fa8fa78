/**
 * Bulk site import benchmark: `webperf sites import` of a generated 4,000-row file (an agency's
 * portfolio: categories, levels, quotas, some sites not followed), run as the operator runs it,
 * the real CLI in its own process, wall time to its exit. Beside it, in the same run, the same
 * CLI's fixed cost (`webperf levels list`: start, connect, migrations checked), and the steps that
 * follow a first import: the same file again (nothing changes), a file changing a quarter of the
 * sites, and that file as a dry run; and the first import's own work in this process (no CLI).
 *
 *   npm run bench -- site-import
 *   node dist/bench/site-import.js [--rows 4000] [--rounds 3]
 *
 * The database is an embedded PostgreSQL in a temporary folder (or a fresh database on the server
 * of DATABASE_URL, dropped afterwards), migrated, with the public-sector list imported as a
 * service has it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from '../core/config.js';
import { createDb } from '../core/db/database.js';
import { ensureDatabase, startEmbeddedPostgres } from '../core/db/embedded.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { importSites, readSiteImportFile } from '../core/store/site-import.js';
import { importPublicSector } from '../core/store/sites.js';
import { runWorkerMigrations } from '../runners/worker-schema.js';
import { runIfMain } from './main.js';

/** Goal of issue 22: a 4,000-row file imports in under 10 s. */
export const GOALS = { rows: 4000, maxSeconds: 10 };

const run = promisify(execFile);
const BIN = path.join(PROJECT_ROOT, 'bin', 'webperf.js');
const LEVELS = ['bronze', 'silver', 'gold'];
const CATEGORIES = Array.from({ length: 12 }, (_, i) => `Kategori ${i + 1}`);

/** The file: a BOM, ";" between fields, a header, one row per site; `changed` rows of every fourth site altered. */
function generate(rows: number, changed: boolean): string {
  const lines = ['title;url;category;level;quota;followed'];
  for (let i = 1; i <= rows; i++) {
    const alter = changed && i % 4 === 0;
    const cats = [CATEGORIES[i % CATEGORIES.length], ...(i % 3 === 0 ? [CATEGORIES[(i * 7) % CATEGORIES.length]] : [])];
    const level = i % 5 === 0 ? '' : LEVELS[(i + (alter ? 1 : 0)) % LEVELS.length];
    const quota = i % 7 === 0 ? String(50 + (i % 200)) : '';
    const followed = i % 11 === 0 ? 'no' : 'yes';
    const title = `Webbplats ${i}${alter ? ' (ny)' : ''}${i % 50 === 0 ? '; "citat"' : ''}`;
    lines.push([`"${title.replace(/"/g, '""')}"`, `https://webbplats-${i}.example/`, [...new Set(cats)].join('|'), level, quota, followed].join(';'));
  }
  return '\uFEFF' + lines.join('\r\n') + '\r\n';
}

export async function benchSiteImport(options: { rows?: number; rounds?: number; databaseUrl?: string | null; log?: (line: string) => void } = {}): Promise<string> {
  const rows = options.rows ?? GOALS.rows;
  const rounds = options.rounds ?? 3;
  const log = options.log ?? ((line: string) => process.stderr.write(`[bench site-import] ${line}\n`));
  const serverUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL || null : options.databaseUrl;
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'webperf-bench-import-'));
    stops.push(() => rm(tmp, { recursive: true, force: true }));
    // A fresh database per round: embedded in the temporary folder, or created on the given server.
    let admin: string;
    if (serverUrl) {
      const u = new URL(serverUrl);
      u.pathname = '/postgres';
      admin = u.href;
    } else {
      const server = await startEmbeddedPostgres(path.join(tmp, 'pg'), { fast: true });
      stops.push(server.stop);
      admin = server.adminUrl;
      log(`embedded PostgreSQL on port ${server.port}`);
    }
    const freshDatabase = async () => {
      const name = `webperf_bench_import_${randomBytes(4).toString('hex')}`;
      await ensureDatabase(admin, name);
      stops.push(async () => {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      });
      const u = new URL(admin);
      u.pathname = `/${name}`;
      const db = createDb(u.href, { max: 2 });
      await migrateToLatest(db);
      await runWorkerMigrations(u.href);
      await importPublicSector(db);
      await db.insertInto('premium_levels').values(LEVELS.map((name, i) => ({ name, monthly_quota: 100 * (i + 1) }))).execute();
      await db.insertInto('categories').values(CATEGORIES.map((title) => ({ title }))).execute();
      return { db, url: u.href };
    };

    const first = path.join(tmp, 'portfolio.csv');
    const second = path.join(tmp, 'portfolio-changed.csv');
    await writeFile(first, generate(rows, false));
    await writeFile(second, generate(rows, true));

    const timings: Record<string, number[]> = { fixed: [], first: [], again: [], changed: [], dry: [], core: [] };
    const expectations: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const { db, url } = await freshDatabase();
      const env = { ...process.env, DATABASE_URL: url, WEBPERF_DEMO: '0', WEBPERF_DATA_DIR: path.join(tmp, 'data') };
      const webperf = async (key: string, args: string[], code = 0) => {
        const start = process.hrtime.bigint();
        const res = await run(process.execPath, [BIN, ...args], { env, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }).then(
          (r) => ({ code: 0, ...r }),
          (e: { code: number; stdout: string; stderr: string }) => e,
        );
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        if (res.code !== code) throw new Error(`webperf ${args.join(' ')} exited with ${res.code}: ${res.stderr}`);
        timings[key].push(seconds);
        return res.stdout.trim().split('\n').at(-1) ?? '';
      };
      await webperf('fixed', ['levels', 'list']);
      const summaries = [
        await webperf('first', ['sites', 'import', first]),
        await webperf('again', ['sites', 'import', first]),
        await webperf('dry', ['sites', 'import', second, '--dry-run']),
        await webperf('changed', ['sites', 'import', second]),
      ];
      const sites = Number((await db.selectFrom('sites').select((eb) => eb.fn.countAll<number>().as('n')).where('public_sector', '=', false).executeTakeFirstOrThrow()).n);
      await db.destroy();
      if (sites !== rows) throw new Error(`${sites} sites after the imports, expected ${rows}`);
      if (round === 1) expectations.push(...summaries.map((s) => s.replace(tmp + path.sep, '')));

      // The import's own work, in this process on another fresh database: read, check, write.
      const fresh = await freshDatabase();
      const start = process.hrtime.bigint();
      const report = await importSites(fresh.db, await readSiteImportFile(await readFile(first)));
      timings.core.push(Number(process.hrtime.bigint() - start) / 1e9);
      await fresh.db.destroy();
      if (report.added.length !== rows) throw new Error(`in process: ${report.added.length} sites added, expected ${rows}`);
      log(`round ${round}: first import ${timings.first.at(-1)!.toFixed(2)} s, in process ${timings.core.at(-1)!.toFixed(2)} s`);
    }

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const fixed = median(timings.fixed);
    const row = (what: string, key: string) => `| ${what} | ${median(timings[key]).toFixed(2)} s | ${Math.max(0, median(timings[key]) - fixed).toFixed(2)} s |`;
    const firstSeconds = median(timings.first);
    return [
      `\`webperf sites import\` of a generated ${rows.toLocaleString('en')}-row file (BOM, ";", categories, levels, quotas) into a catalogue holding the public-sector list,`,
      `the real CLI in its own process, wall time to its exit; median of ${rounds} rounds, each on a fresh database. "Beyond the fixed cost": less \`webperf levels list\`'s time (start, connect, migrations checked).`,
      '| step | wall time | beyond the fixed cost |',
      '|---|---|---|',
      `| fixed cost (levels list) | ${fixed.toFixed(2)} s | - |`,
      row(`first import: ${rows} added`, 'first'),
      row('the same file again: nothing changes', 'again'),
      row(`dry run of a file changing every fourth site`, 'dry'),
      row(`that file imported`, 'changed'),
      `| first import in process (readSiteImportFile + importSites, no CLI) | ${median(timings.core).toFixed(2)} s | - |`,
      'What each printed last (round 1):',
      ...expectations.map((s) => `    ${s}`),
      `First import of ${rows} rows: ${firstSeconds.toFixed(2)} s (goal < ${GOALS.maxSeconds} s): ${firstSeconds < GOALS.maxSeconds ? 'yes' : 'NO'}`,
    ].join('\n');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({ options: { rows: { type: 'string' }, rounds: { type: 'string' } } });
  return benchSiteImport({ rows: values.rows ? Number(values.rows) : undefined, rounds: values.rounds ? Number(values.rounds) : undefined });
});
