/**
 * Runner faults and scale-out, with real processes: a `webperf api` that owns its embedded
 * PostgreSQL, `webperf runner` processes against it, and a loopback fixture site.
 *
 * 1. A batch of orders (re-tests, one-off tests, an audit) while runners are killed with SIGKILL
 *    again and again (each killed runner is replaced): every run ends done exactly once, every
 *    credit is charged once, the audit finishes.
 * 2. The same kind of batch shared by 1, 2 and 3 runners: each run executed once; runs per minute.
 *
 * Sizes: CHAOS_RUNNER_ORDERS (default 20), CHAOS_RUNNER_KILLS (default 10), CHAOS_SCALE_RUNS
 * (default 6 per runner count).
 */
import { sql } from 'kysely';
import type { Db } from '../../core/db/database.js';
import { install, type Installation } from '../installation.js';
import { spawnWebperf, stopProcess, timedFetch, until, type WebperfProcess } from '../processes.js';
import type { ChaosRow, ChaosScenario } from '../scenario.js';

const TESTNUMS = '[18,30]';
const int = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

/** Places `n` orders: mostly re-tests, every third a one-off test of a page, and (optionally) one audit of 2 pages. Returns the credits charged. */
async function placeOrders(inst: Installation, n: number, audit: boolean): Promise<number> {
  let credits = 0;
  for (let i = 0; i < n; i++) {
    const res = audit && i === 0
      ? await timedFetch(`${inst.api}/audit/`, { method: 'POST', headers: { ...inst.headers, pages: '2' } })
      : i % 3 === 2
        ? await timedFetch(`${inst.api}/test_once/`, { method: 'POST', headers: { ...inst.headers, 'content-type': 'application/json' }, body: JSON.stringify({ urls: inst.siteUrl }) })
        : await timedFetch(`${inst.api}/retest/`, { method: 'POST', headers: { ...inst.headers, testnums: TESTNUMS } });
    if (res.status !== 200) throw new Error(`order ${i} refused: ${res.status} ${JSON.stringify(res.body)}`);
    credits += Number(res.body.credits ?? 0);
  }
  return credits;
}

interface Tally {
  runs: number;
  done: number;
  open: number;
  failed: number;
  duplicated: number;
  audits: number;
  auditsDone: number;
  charged: number;
}

async function tally(db: Db): Promise<Tally> {
  const runs = await db.selectFrom('test_runs').select(['id', 'status', 'test_types']).execute();
  const { rows: dup } = await sql<{ n: number }>`select count(*)::int as n from (select run_id, type_of_test from test_results where run_id is not null group by 1, 2 having count(*) > 1) d`.execute(db);
  const { rows: audits } = await sql<{ status: string }>`select status from audits`.execute(db).catch(() => ({ rows: [] as { status: string }[] }));
  const { rows: charged } = await sql<{ n: number }>`select coalesce(sum(credits), 0)::int as n from credit_ledger`.execute(db).catch(() => ({ rows: [{ n: -1 }] }));
  return {
    runs: runs.length,
    done: runs.filter((r) => r.status === 'done').length,
    failed: runs.filter((r) => r.status === 'failed').length,
    open: runs.filter((r) => r.status === 'queued' || r.status === 'running').length,
    duplicated: dup[0].n,
    audits: audits.length,
    auditsDone: audits.filter((a) => a.status === 'done').length,
    charged: charged[0].n,
  };
}

const scenario: ChaosScenario = {
  name: 'faults-runners',
  budgetMs: 60 * 60_000,
  async run({ signal, log }) {
    const rows: ChaosRow[] = [];
    const orders = int(process.env.CHAOS_RUNNER_ORDERS, 20);
    const kills = int(process.env.CHAOS_RUNNER_KILLS, 10);
    const perCount = int(process.env.CHAOS_SCALE_RUNS, 6);

    // 1. Kills under a batch.
    {
      const inst = await install();
      const runners: WebperfProcess[] = [];
      try {
        const credits = await placeOrders(inst, orders, true);
        log(`${orders} orders placed (${credits} credits); 2 runners, ${kills} SIGKILLs`);
        for (let i = 0; i < 2; i++) runners.push(await spawnWebperf('runner', inst.runnerEnv));
        let killed = 0;
        const t0 = Date.now();
        while (killed < kills) {
          signal.throwIfAborted();
          const t = await tally(inst.db);
          if (t.open === 0 && t.auditsDone === t.audits) break;
          // Kill while something is running, then replace the runner.
          await new Promise((r) => setTimeout(r, 4000 + Math.random() * 8000));
          const victim = runners.splice(Math.floor(Math.random() * runners.length), 1)[0];
          victim.child.kill('SIGKILL');
          await victim.exited;
          killed++;
          log(`kill ${killed}: runner ${victim.pid}`);
          runners.push(await spawnWebperf('runner', inst.runnerEnv));
        }
        const end = await until('every run and the audit end', 40 * 60_000, async () => {
          const t = await tally(inst.db);
          return t.open === 0 && t.auditsDone + (t.audits - t.auditsDone) === t.audits && (t.audits === 0 || t.auditsDone === t.audits) ? t : undefined;
        }, signal);
        const charged = end.charged;
        const lost = end.failed + end.duplicated + Math.abs(charged - credits) + (end.audits - end.auditsDone);
        log(`after ${Math.round((Date.now() - t0) / 1000)} s: ${JSON.stringify(end)}`);
        rows.push(
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders (re-tests, one-off tests, 1 audit)`, figure: 'runs done exactly once', value: `${end.done} of ${end.runs}`, dataLost: end.failed + end.duplicated, ok: end.done === end.runs && end.duplicated === 0 },
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders`, figure: 'credits charged / ordered', value: `${charged} / ${credits}`, dataLost: Math.abs(charged - credits), ok: charged === credits },
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders`, figure: 'audit finished after kills', value: `${end.auditsDone} of ${end.audits}`, dataLost: end.audits - end.auditsDone, ok: end.audits === end.auditsDone },
        );
        void lost;
      } finally {
        for (const r of runners) r.child.kill('SIGKILL');
        await inst.close();
      }
    }

    // 2. Scale-out: the same batch on 1, 2 and 3 runners.
    for (const count of [1, 2, 3]) {
      signal.throwIfAborted();
      const inst = await install();
      const runners: WebperfProcess[] = [];
      try {
        await placeOrders(inst, perCount, false);
        const t0 = Date.now();
        for (let i = 0; i < count; i++) runners.push(await spawnWebperf('runner', inst.runnerEnv));
        const end = await until(`${count} runner(s) finish ${perCount} runs`, 40 * 60_000, async () => {
          const t = await tally(inst.db);
          return t.open === 0 ? t : undefined;
        }, signal);
        const minutes = (Date.now() - t0) / 60_000;
        const rate = end.done / minutes;
        log(`${count} runner(s): ${end.done} runs in ${(minutes * 60).toFixed(0)} s`);
        rows.push({
          area: 'faults', scenario: `${count} runner process(es) share ${perCount} runs on one PostgreSQL`, figure: 'runs/min (each run once)',
          value: `${rate.toFixed(2)} (${end.done} done, ${end.duplicated} twice)`, dataLost: end.duplicated + end.failed, ok: end.done === end.runs && end.duplicated === 0,
        });
      } finally {
        for (const r of runners) await stopProcess(r, 10_000);
        await inst.close();
      }
    }
    return rows;
  },
};

export default scenario;
