/**
 * A webhook receiver (https://hooks.kommun.test/ on port 443, a host of the installation's test
 * world) down for an hour: 10 results' deliveries are retried by a real runner on the
 * documented schedule (RETRY_DELAYS_S with jitter); time is moved, not slept (each due job is made
 * due now and the webhook's failing clock moved back by the same step); the receiver comes back
 * after the simulated hour and every delivery must arrive exactly once with its webhook-id.
 */
import { sql } from '../../core/db/kysely.js';
import { findChromium } from '../../core/config.js';
import { PluginRegistry } from '../../core/registry.js';
import { saveRunResults } from '../../core/store/runs.js';
import { RETRY_DELAYS_S, RETRY_JITTER, setWebhook } from '../../core/store/webhooks.js';
import { BrowserPool } from '../../runners/browser-pool.js';
import { startWorker } from '../../runners/worker.js';
import { install } from '../installation.js';
import { until } from '../processes.js';
import type { ChaosScenario } from '../scenario.js';

const RESULTS = 10;
const HOUR_S = 3600;

const scenario: ChaosScenario = {
  name: 'faults-webhook',
  budgetMs: 10 * 60_000,
  async run({ signal, log }) {
    const inst = await install();
    const got: { id: string }[] = [];
    const { db } = inst;
    let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
    try {
      // The receiver is an https host of the installation's world. While it is down its name points
      // at an address where nothing listens any more (a host of the world, closed), so every
      // delivery's connection is refused, as when a receiver's server is down; it comes back when
      // the name points at the receiver again.
      const receiver = await inst.world.site('hooks.kommun.test', {
        handler: (req, res) => {
          req.resume();
          req.on('end', () => {
            got.push({ id: String(req.headers['webhook-id']) });
            res.writeHead(204).end();
          });
        },
      });
      const gone = await inst.world.site('gone.kommun.test');
      await gone.close();
      inst.world.record(receiver.name, { A: [gone.address] });
      let back = false;
      await setWebhook(db, { siteId: inst.siteId, url: `${receiver.origin}/hooks`, threshold: null, itemUri: `${inst.api}/item/${inst.siteId}`, apiVersion: '0.1' });
      for (let i = 0; i < RESULTS; i++) {
        const { rows } = await sql<{ id: number }>`insert into test_runs (site_id, url, status) values (${inst.siteId}, ${inst.siteUrl}, 'running') returning id`.execute(db);
        const empty = { overall: '', a11y: '', perf: '', sec: '', stand: '' };
        await saveRunResults(db, rows[0].id, [{ typeOfTest: 18, rating: 4, ratings: { a11y: 4 }, reports: { sv: empty, en: empty }, findings: [], data: {}, error: null, durationMs: 1 }] as any);
      }
      const queued = await db.selectFrom('webhook_deliveries').select(['event_id']).execute();
      // The guard a runner builds from the installation's settings (world.env()).
      const guard = inst.world.guard();
      worker = await startWorker({
        db, connectionString: inst.dbUrl, pool: new BrowserPool(findChromium(), null, guard.trust.chromiumArgs), guard,
        registry: new PluginRegistry(), concurrency: 4, jobTimeoutMs: 60_000, schedule: false,
      });
      let simulated = 0;
      let offSchedule = 0;
      let attempts = 0;
      for (let attempt = 1; attempt <= RETRY_DELAYS_S.length + 1; attempt++) {
        const rows = await until(`attempt ${attempt}`, 120_000, async () => {
          const r = await db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'last_attempt_at', 'next_attempt_at']).execute();
          return r.every((d) => d.attempts >= attempt) ? r : undefined;
        }, signal);
        attempts = attempt;
        if (rows.every((d) => d.status === 'delivered')) break;
        const base = RETRY_DELAYS_S[attempt - 1];
        const delays = rows.map((d) => (d.next_attempt_at!.getTime() - d.last_attempt_at!.getTime()) / 1000);
        offSchedule += delays.filter((d) => d < base * (1 - RETRY_JITTER) - 1 || d > base * (1 + RETRY_JITTER) + 1).length;
        const step = Math.max(...delays);
        simulated += step;
        log(`attempt ${attempt} failed for all ${rows.length}; next in ${Math.round(Math.min(...delays))}–${Math.round(step)} s (documented ${base} s ± ${RETRY_JITTER * 100} %)`);
        await sql`update webhooks set failing_since = failing_since - make_interval(secs => ${step}::double precision)`.execute(db);
        await db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date() }).where('status', '=', 'pending').execute();
        if (simulated >= HOUR_S && !back) {
          inst.world.record(receiver.name, { A: [receiver.address] });
          back = true;
        }
        await sql`select graphile_worker.reschedule_jobs(array(select id from graphile_worker.jobs where task_identifier = 'deliver_webhook'), run_at := now())`.execute(db);
      }
      const ids = new Set(got.map((g) => g.id));
      const missing = queued.filter((q) => !ids.has(q.event_id)).length;
      const duplicates = got.length - ids.size;
      return [
        { area: 'faults', scenario: `webhook receiver down for an hour (${RESULTS} deliveries, time moved)`, figure: 'attempts until delivered / retries off the documented schedule', value: `${attempts} / ${offSchedule}`, dataLost: 0, ok: offSchedule === 0 && simulated >= HOUR_S },
        { area: 'faults', scenario: 'webhook receiver down for an hour', figure: 'delivered exactly once, same webhook-id', value: `${ids.size - missing >= 0 ? ids.size : 0} of ${queued.length} (${duplicates} twice, ${missing} missing)`, dataLost: missing + duplicates, ok: missing === 0 && duplicates === 0 && got.length === queued.length },
      ];
    } finally {
      await worker?.stop();
      await inst.close();
    }
  },
};

export default scenario;
