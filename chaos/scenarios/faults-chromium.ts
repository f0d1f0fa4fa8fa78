/**
 * Chromium killed (SIGKILL) mid-gather under a `webperf runner` process, three times on three
 * runs: each time the page is held back until the kill, so the browser surely dies mid-load. The
 * runner must survive, relaunch Chromium, retry the job and store every run exactly once.
 */
import { readFileSync } from 'node:fs';
import { startHeldSite } from '../held-site.js';
import path from 'node:path';
import { sql } from '../../core/db/kysely.js';
import { queueRun } from '../../core/store/runs.js';
import { install } from '../installation.js';
import { running, spawnWebperf, stopProcess, until, type WebperfProcess } from '../processes.js';
import type { ChaosScenario } from '../scenario.js';

const KILLS = 3;

const scenario: ChaosScenario = {
  name: 'faults-chromium',
  budgetMs: 30 * 60_000,
  async run({ signal, log }) {
    const inst = await install();
    let runner: WebperfProcess | null = null;
    try {
      // https://held.test/ in the installation's world, beside its fixture site.
      const site = await startHeldSite(inst.world);
      const siteUrl = site.url;
      const { db } = inst;
      runner = await spawnWebperf('runner', inst.runnerEnv);
      const note = () => (JSON.parse(readFileSync(path.join(inst.dataDir, 'chromium', `${runner!.pid}.json`), 'utf8')) as { chromium: number }).chromium;
      const recoveries: number[] = [];
      const browsers = new Set<number>();
      for (let k = 0; k < KILLS; k++) {
        site.hold();
        const before = site.requests;
        const runId = await queueRun(db, { siteId: inst.siteId, url: siteUrl, testTypes: [18, 30] });
        await until('Chromium loads the page', 300_000, () => site.requests > before, signal);
        const chromium = note();
        browsers.add(chromium);
        process.kill(chromium, 'SIGKILL');
        const killedAt = Date.now();
        await until('the killed Chromium is gone', 30_000, () => !running(chromium), signal);
        site.release();
        await until(`run ${runId} ends`, 600_000, async () => {
          const run = await db.selectFrom('test_runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow();
          return run.status === 'done' || run.status === 'failed';
        }, signal);
        recoveries.push(Date.now() - killedAt);
        browsers.add(note());
        log(`kill ${k + 1}: run ${runId} ended ${Math.round(recoveries[k] / 1000)} s after the kill`);
      }
      const runs = await db.selectFrom('test_runs').select('status').execute();
      const done = runs.filter((r) => r.status === 'done').length;
      const { rows: dup } = await sql<{ n: number }>`select count(*)::int as n from (select run_id, type_of_test from test_results group by 1, 2 having count(*) > 1) d`.execute(db);
      const alive = running(runner.pid);
      return [
        { area: 'faults', scenario: `Chromium SIGKILLed mid-gather ${KILLS}× (runner process)`, figure: 'runs retried and done once / runner survived / Chromium launched', value: `${done} of ${runs.length} / ${alive ? 'yes' : 'no'} / ${browsers.size}×`, dataLost: runs.length - done + dup[0].n, ok: done === runs.length && dup[0].n === 0 && alive && browsers.size === KILLS + 1 },
        { area: 'faults', scenario: 'Chromium SIGKILLed mid-gather', figure: 'kill → run stored (slowest)', value: `${Math.round(Math.max(...recoveries) / 1000)} s`, dataLost: 0, ok: true },
      ];
    } finally {
      if (runner) await stopProcess(runner, 10_000);
      await inst.close();
    }
  },
};

export default scenario;
