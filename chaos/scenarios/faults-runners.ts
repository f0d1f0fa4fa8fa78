/**
 * Runner faults and scale-out, with real processes: a `webperf api` that owns its embedded
 * PostgreSQL, `webperf runner` processes against it, and a fixture site of a test world
 * (https://kommun.test/ on port 443, chaos/installation.ts).
 *
 * 1. A batch of orders (re-tests, one-off tests, an audit) while runners are killed with SIGKILL
 *    again and again (each killed runner is replaced): every run ends done exactly once, every
 *    credit is charged once, the audit finishes.
 * 2. CPU-bound scale-out: a batch of Lighthouse + axe runs (types 18, 30) on the fixture site
 *    shared by 1, 2 and 3 runners: each run executed once; runs per minute. On one machine every
 *    runner shares the same cores, so this shows the limit, not scale-out.
 * 3. Site-latency-bound scale-out: re-tests of HTML validation and readability (types 28, 100) of
 *    a site whose page answers only after a fixed delay (a slow or far-away origin), shared by 1,
 *    2 and 3 runners of concurrency 1: runs per minute, speed-up over 1 runner, each run once.
 *    The gather step still loads each page with Lighthouse and axe whatever the test types, so a
 *    run costs the same CPU as in part 2; the delay makes waiting for the site the larger share.
 *
 * Sizes: CHAOS_RUNNER_ORDERS (default 20), CHAOS_RUNNER_KILLS (default 10), CHAOS_SCALE_RUNS
 * (default 6 per runner count), CHAOS_SCALE_LATENCY_RUNS (default 12 per runner count),
 * CHAOS_SCALE_LATENCY_MS (default 6000). CHAOS_RUNNER_PARTS (default `kills,cpu,latency`) runs
 * only the parts named.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../../core/db/kysely.js';
import type { Db } from '../../core/db/database.js';
import { startWorld } from '../../test/helpers/world/index.js';
import { startHeldSite, type HeldSite } from '../held-site.js';
import { install, type Installation } from '../installation.js';
import { spawnWebperf, stopProcess, timedFetch, until, type WebperfProcess } from '../processes.js';
import type { ChaosRow, ChaosScenario } from '../scenario.js';

const HEAVY_TESTNUMS = '[18,30]';
const LIGHT_TESTNUMS = '[28,100]';
const COUNTS = [1, 2, 3];
const int = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

/**
 * Places `n` orders of `testnums`: re-tests only, or (`mixed`) every third a one-off test of the
 * start page, with (`audit`) one audit of 2 pages first. Returns the credits charged.
 */
async function placeOrders(inst: Installation, n: number, testnums: string, { mixed = true, audit = false } = {}): Promise<number> {
  let credits = 0;
  for (let i = 0; i < n; i++) {
    const res = audit && i === 0
      ? await timedFetch(`${inst.api}/audit/`, { method: 'POST', headers: { ...inst.headers, pages: '2' } })
      : mixed && i % 3 === 2
        ? await timedFetch(`${inst.api}/test_once/`, { method: 'POST', headers: { ...inst.headers, 'content-type': 'application/json' }, body: JSON.stringify({ urls: inst.siteUrl }) })
        : await timedFetch(`${inst.api}/retest/`, { method: 'POST', headers: { ...inst.headers, testnums } });
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

/**
 * CPU seconds spent so far by the processes `roots` and everything below them (Chromium and its
 * renderers), from /proc: each live process's own time plus that of the children it reaped.
 */
function treeCpuSeconds(roots: number[]): number {
  const procs = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields after the name: ppid is 2nd; utime, stime, cutime, cstime are 12th–15th.
      procs.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 32; p = procs.get(p)?.ppid ?? 0, depth++) if (roots.includes(p)) return true;
    return false;
  };
  let ticks = 0;
  for (const [pid, p] of procs) if (inTree(pid)) ticks += p.ticks;
  return ticks / 100; // USER_HZ is 100 on Linux
}

interface ScaleKind {
  /** Scenario column label of this kind. */
  label: string;
  runs: number;
  testnums: string;
  /** One-off tests among the re-tests (every third order). */
  mixed: boolean;
  /** Loads a site of its own whose page answers after this delay (chaos/held-site.ts), not the fixture site. */
  delayMs?: number;
}

interface ScaleResult {
  count: number;
  rate: number;
  end: Tally;
  seconds: number;
  cpuPerRun: number;
  loads: number | null;
  atOnce: number | null;
}

/** Resolves once no run is queued or running. */
async function allRunsEnded(inst: Installation, what: string, signal: AbortSignal): Promise<void> {
  await until(what, 40 * 60_000, async () => {
    const open = await inst.db.selectFrom('test_runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
    return Number(open.n) === 0;
  }, signal);
}

/**
 * One batch of `kind.runs` orders shared by `count` runners (concurrency 1 each) on a fresh
 * installation. Start-up is left out the same way for every count: the runners are started, and
 * warm-up orders are placed until each one has launched its Chromium (which a runner does on its
 * first job; the browser pool notes it in the data folder) and every warm-up run has ended. The
 * time then counts from the first order of the batch to the last run's finish (its finished_at).
 * Without the warm-up, 3 runners would each pay a Chromium launch inside a short batch that 1
 * runner pays once.
 */
async function scaleOnce(kind: ScaleKind, count: number, signal: AbortSignal, log: (line: string) => void): Promise<ScaleResult> {
  // The slow site is served in a world of this batch's own, which the installation is pointed at.
  const world = kind.delayMs === undefined ? null : await startWorld();
  let site: HeldSite | null = null;
  let inst: Installation;
  try {
    site = world ? await startHeldSite(world, { delayMs: kind.delayMs }) : null;
    inst = await install(world && site ? { world, siteUrl: site.url } : {});
  } catch (err) {
    await world?.close();
    throw err;
  }
  const runners: WebperfProcess[] = [];
  try {
    // The default heartbeat settings, not the installation's short ones (made for quick recovery
    // from kills): on a loaded machine a runner's event loop can stall past a few seconds, its job
    // is then taken for abandoned and run again by another runner, which is not what this measures.
    const env = { ...inst.runnerEnv, WEBPERF_CONCURRENCY: '1', WEBPERF_HEARTBEAT_MS: '15000', WEBPERF_STALE_AFTER_MS: '60000' };
    for (let i = 0; i < count; i++) runners.push(await spawnWebperf('runner', env));
    const cold = () => runners.filter((r) => !existsSync(path.join(inst.dataDir, 'chromium', `${r.pid}.json`)));
    for (let round = 1; cold().length > 0; round++) {
      if (round > 5) throw new Error(`runners ${cold().map((r) => r.pid).join(', ')} took no warm-up order in 5 rounds`);
      await placeOrders(inst, cold().length, kind.testnums, { mixed: false });
      await allRunsEnded(inst, `${count} runner(s) warm up`, signal);
    }
    const warm = await tally(inst.db);
    const loadsBefore = site?.requests ?? 0;
    site?.resetMostAtOnce();
    const cpu0 = treeCpuSeconds(runners.map((r) => r.pid));
    const t0 = Date.now();
    await placeOrders(inst, kind.runs, kind.testnums, { mixed: kind.mixed });
    await allRunsEnded(inst, `${count} runner(s) finish ${kind.runs} runs`, signal);
    const cpu = treeCpuSeconds(runners.map((r) => r.pid)) - cpu0;
    const all = await tally(inst.db);
    // The batch alone; duplicates and failures of the warm-up runs count too.
    const end: Tally = { ...all, runs: all.runs - warm.runs, done: all.done - warm.done };
    const loads = site ? site.requests - loadsBefore : null;
    if (loads !== null && loads !== end.runs) {
      for (const r of runners) log(`runner ${r.pid} said:\n${r.lines.slice(-15).join('\n')}`);
    }
    const last = await inst.db.selectFrom('test_runs').select((eb) => eb.fn.max('finished_at').as('at')).executeTakeFirstOrThrow();
    const seconds = ((last.at ? new Date(last.at as Date | string).getTime() : Date.now()) - t0) / 1000;
    return {
      count,
      rate: end.done / (seconds / 60),
      end,
      seconds,
      cpuPerRun: cpu / Math.max(1, end.runs),
      loads,
      atOnce: site ? site.mostAtOnce : null,
    };
  } finally {
    for (const r of runners) await stopProcess(r, 10_000);
    await inst.close();
    await world?.close();
  }
}

/** Part 2 or 3: the batch on 1, 2 and 3 runners; a row per count. */
async function scaleOut(kind: ScaleKind, signal: AbortSignal, log: (line: string) => void): Promise<{ rows: ChaosRow[]; results: ScaleResult[] }> {
  const rows: ChaosRow[] = [];
  const results: ScaleResult[] = [];
  for (const count of COUNTS) {
    signal.throwIfAborted();
    const r = await scaleOnce(kind, count, signal, log);
    results.push(r);
    const speedUp = r.rate / results[0].rate;
    const once = r.end.done === r.end.runs && r.end.duplicated === 0 && (r.loads === null || r.loads === r.end.runs);
    log(`${kind.label}, ${count} runner(s): ${r.end.done} of ${r.end.runs} runs in ${r.seconds.toFixed(0)} s, ${r.cpuPerRun.toFixed(1)} CPU s/run` +
      (r.loads === null ? '' : `, ${r.loads} page loads, at most ${r.atOnce} at once`));
    const extra = [`${r.end.done} done`, `${r.end.duplicated} twice`, ...(r.loads === null ? [] : [`${r.loads} page loads`, `at most ${r.atOnce} at once`]), `${r.cpuPerRun.toFixed(1)} CPU s/run`];
    rows.push({
      area: 'faults', scenario: `${kind.label}: ${count} runner process(es) share ${kind.runs} runs on one PostgreSQL`, figure: 'runs/min, speed-up vs 1 runner (each run once)',
      value: `${r.rate.toFixed(2)}, ×${speedUp.toFixed(2)} (${extra.join(', ')})`, dataLost: r.end.duplicated + r.end.failed, ok: once,
    });
  }
  return { rows, results };
}

const scenario: ChaosScenario = {
  name: 'faults-runners',
  budgetMs: 90 * 60_000, // the kills and the CPU-bound batches took 43 min at load 12–24; the latency part adds ~10
  async run({ signal, log }) {
    const rows: ChaosRow[] = [];
    const orders = int(process.env.CHAOS_RUNNER_ORDERS, 20);
    const kills = int(process.env.CHAOS_RUNNER_KILLS, 10);
    const perCount = int(process.env.CHAOS_SCALE_RUNS, 6);
    const latencyRuns = int(process.env.CHAOS_SCALE_LATENCY_RUNS, 12);
    // 6 s, not 2–3: a run still costs ~5 CPU s (the gather loads the page with Lighthouse and axe
    // whatever the test types), so with 3 s three runners already contend for the 2 cores (×1.9 in
    // development at load 3–6; ×2.3 with 6 s).
    const delayMs = int(process.env.CHAOS_SCALE_LATENCY_MS, 6000);
    const parts = new Set((process.env.CHAOS_RUNNER_PARTS ?? 'kills,cpu,latency').split(',').map((p) => p.trim()));

    // 1. Kills under a batch.
    if (parts.has('kills')) {
      const inst = await install();
      const runners: WebperfProcess[] = [];
      try {
        const credits = await placeOrders(inst, orders, HEAVY_TESTNUMS, { audit: true });
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
          return t.open === 0 && (t.audits === 0 || t.auditsDone === t.audits) ? t : undefined;
        }, signal);
        const charged = end.charged;
        log(`after ${Math.round((Date.now() - t0) / 1000)} s: ${JSON.stringify(end)}`);
        rows.push(
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders (re-tests, one-off tests, 1 audit)`, figure: 'runs done exactly once', value: `${end.done} of ${end.runs}`, dataLost: end.failed + end.duplicated, ok: end.done === end.runs && end.duplicated === 0 },
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders`, figure: 'credits charged / ordered', value: `${charged} / ${credits}`, dataLost: Math.abs(charged - credits), ok: charged === credits },
          { area: 'faults', scenario: `runners SIGKILLed ${killed}× during ${orders} orders`, figure: 'audit finished after kills', value: `${end.auditsDone} of ${end.audits}`, dataLost: end.audits - end.auditsDone, ok: end.audits === end.auditsDone },
        );
      } finally {
        for (const r of runners) r.child.kill('SIGKILL');
        await inst.close();
      }
    }

    // 2. CPU-bound: Lighthouse + axe on the fixture site, re-tests and one-off tests.
    if (parts.has('cpu')) {
      const { rows: got } = await scaleOut({ label: 'CPU-bound (Lighthouse + axe)', runs: perCount, testnums: HEAVY_TESTNUMS, mixed: true }, signal, log);
      rows.push(...got);
    }

    // 3. Site-latency-bound: the same runners waiting on a slow origin.
    if (parts.has('latency')) {
      const label = `site-latency-bound (each page answers after ${delayMs / 1000} s)`;
      const { rows: got, results } = await scaleOut({ label, runs: latencyRuns, testnums: LIGHT_TESTNUMS, mixed: false, delayMs }, signal, log);
      rows.push(...got);
      const one = results.find((r) => r.count === 1)!;
      const three = results.find((r) => r.count === 3)!;
      const allOnce = got.every((r) => r.ok);
      // Counted in the rows above already: the goal row adds nothing to "data lost".
      rows.push({
        area: 'faults', scenario: `${label}: goal 3 runners ≥ 2× the runs/min of 1, every run done exactly once`, figure: 'speed-up of 3 runners; runs done once',
        value: `×${(three.rate / one.rate).toFixed(2)}; ${allOnce ? 'yes' : 'no'}`, dataLost: 0, ok: three.rate >= 2 * one.rate && allOnce,
      });
    }
    return rows;
  },
};

export default scenario;
