/**
 * PostgreSQL killed (SIGKILL) under traffic: a `webperf api` owning its embedded PostgreSQL, a
 * `webperf runner` beside it with re-test orders queued, 8 clients reading and ordering without a
 * pause, and a save caught mid-transaction. Measured: how fast /health turns 503, what every
 * answer during the outage was (503 with the error body; no other 5xx, no dropped connection),
 * how long until the service has started PostgreSQL again by itself, whether the cut save left
 * anything behind, and whether every queued run still ends done once.
 */
import path from 'node:path';
import { sql } from '../../core/db/kysely.js';
import pg from 'pg';
import { saveRunResults } from '../../core/store/runs.js';
import { install } from '../installation.js';
import { healthUntilDown, postmasterOf, spawnWebperf, stopProcess, timedFetch, until, type WebperfProcess } from '../processes.js';
import type { ChaosRow, ChaosScenario } from '../scenario.js';

const scenario: ChaosScenario = {
  name: 'faults-db',
  budgetMs: 30 * 60_000,
  async run({ signal, log }) {
    const inst = await install();
    let runner: WebperfProcess | null = null;
    try {
      const { api, db, headers } = inst;
      const orders: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await timedFetch(`${api}/retest/`, { method: 'POST', headers: { ...headers, testnums: '[18,30]' } });
        orders.push(res.body.run_id);
      }
      runner = await spawnWebperf('runner', inst.runnerEnv);

      // A save caught mid-transaction on a run of its own.
      const { rows } = await sql<{ id: number }>`insert into test_runs (site_id, url, status) values (${inst.siteId}, ${inst.siteUrl}, 'running') returning id`.execute(db);
      const cutRun = rows[0].id;
      await sql`insert into site_scores (site_id) values (${inst.siteId}) on conflict do nothing`.execute(db);
      const locker = new pg.Client({ connectionString: inst.dbUrl });
      locker.on('error', () => {});
      await locker.connect();
      await locker.query('begin');
      await locker.query('select * from site_scores where site_id = $1 for update', [inst.siteId]);
      const outcome = (typeOfTest: number) => ({ typeOfTest, rating: 4, ratings: { a11y: 4 }, reports: { sv: { overall: '', a11y: '', perf: '', sec: '', stand: '' }, en: { overall: '', a11y: '', perf: '', sec: '', stand: '' } }, findings: [], data: {}, error: null, durationMs: 1 });
      const save = saveRunResults(db, cutRun, [outcome(18), outcome(30)] as any).then(() => 'saved', (e: Error) => e.message);
      await until('the save waits on the locked row', 30_000, async () => {
        const { rows: w } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%site_scores%'`.execute(db);
        return w[0].n > 0;
      }, signal);

      // Traffic: 8 clients without a pause, until the service is healthy again.
      const answers = new Map<string, number>();
      let badBodies = 0;
      let stopTraffic = false;
      const routes = [
        () => timedFetch(`${api}/public-sector/`),
        () => timedFetch(`${api}/quota/`, { headers }),
        () => timedFetch(`${api}/health`),
        () => timedFetch(`${api}/retest/`, { method: 'POST', headers: { ...headers, testnums: '[18]' } }),
      ];
      let outage = false;
      const client = async (n: number) => {
        for (let i = n; !stopTraffic; i++) {
          const r = await routes[i % routes.length]();
          const kind = r.status === 0 ? 'dropped' : String(r.status);
          if (outage) answers.set(kind, (answers.get(kind) ?? 0) + 1);
          if (outage && r.status === 503 && !(r.body?.error === 'DB_UNAVAILABLE' || r.body?.database?.status === 'unavailable')) badBodies++;
          // Orders placed while the database is up become runs the runner must finish too.
          if (r.status === 200 && typeof r.body?.run_id === 'number') orders.push(r.body.run_id);
        }
      };
      const traffic = Array.from({ length: 8 }, (_, n) => client(n));
      await new Promise((r) => setTimeout(r, 2000));
      const first = postmasterOf(path.join(inst.dataDir, 'pg'));
      outage = true;
      process.kill(first.pid, 'SIGKILL');
      const killedAt = Date.now();
      const health = await healthUntilDown(`${api}/health`, performance.now());
      await until('/health 200 again', 120_000, async () => (await timedFetch(`${api}/health`)).status === 200, signal);
      const recoveredMs = Date.now() - killedAt;
      outage = false;
      stopTraffic = true;
      await Promise.all(traffic);
      const cut = await save;
      const { rows: left } = await sql<{ n: number }>`select count(*)::int as n from test_results where run_id = ${cutRun}`.execute(db);
      log(`outage answers ${JSON.stringify(Object.fromEntries(answers))}; cut save: ${cut}; recovered in ${recoveredMs} ms`);

      const ordered = [...new Set(orders)];
      const end = await until('every ordered run ends', 20 * 60_000, async () => {
        const runs = await db.selectFrom('test_runs').select(['id', 'status']).where('id', 'in', ordered).execute().catch(() => []);
        return runs.length === ordered.length && runs.every((r) => r.status === 'done' || r.status === 'failed') ? runs : undefined;
      }, signal);
      const { rows: dup } = await sql<{ n: number }>`select count(*)::int as n from (select run_id, type_of_test from test_results group by 1, 2 having count(*) > 1) d`.execute(db);
      const notDone = end.filter((r) => r.status !== 'done').length;
      const other5xx = [...answers].filter(([k]) => k !== '503' && (k === 'dropped' || Number(k) >= 500)).reduce((n, [, v]) => n + v, 0);
      const during = [...answers.values()].reduce((a, b) => a + b, 0);
      const rows2: ChaosRow[] = [
        { area: 'faults', scenario: 'PostgreSQL SIGKILL under traffic (embedded, owned by the service)', figure: '/health 503 after the kill', value: `${Math.round(health.ms)} ms (status ${health.status})`, dataLost: 0, ok: health.status === 503 && health.ms < 1000 },
        { area: 'faults', scenario: 'PostgreSQL SIGKILL under traffic', figure: 'answers during the outage: 503 with error body / other 5xx or dropped', value: `${answers.get('503') ?? 0} of ${during} / ${other5xx + badBodies}`, dataLost: 0, ok: other5xx === 0 && badBodies === 0 },
        { area: 'faults', scenario: 'PostgreSQL SIGKILL: restarted by the service itself', figure: 'kill → /health 200, no restart of the API', value: `${(recoveredMs / 1000).toFixed(1)} s`, dataLost: 0, ok: recoveredMs < 60_000 },
        { area: 'faults', scenario: 'PostgreSQL SIGKILL mid-save', figure: 'results of the cut save kept', value: String(left[0].n), dataLost: left[0].n, ok: left[0].n === 0 && cut !== 'saved' },
        { area: 'faults', scenario: 'PostgreSQL SIGKILL with a runner working', figure: 'ordered runs done exactly once after the restart', value: `${end.length - notDone} of ${end.length}`, dataLost: notDone + dup[0].n, ok: notDone === 0 && dup[0].n === 0 },
      ];
      await locker.end().catch(() => {});
      return rows2;
    } finally {
      if (runner) await stopProcess(runner, 10_000);
      await inst.close();
    }
  },
};

export default scenario;
