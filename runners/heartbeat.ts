/**
 * Runner heartbeats. A runner killed with SIGKILL leaves its jobs locked, and graphile-worker frees
 * such locks only after 4 hours. So every runner announces, every `intervalMs`, that it is alive
 * and which worker ids lock its jobs; and at each beat it unlocks, with graphile-worker's own
 * forceUnlockWorkers, the jobs of workers no runner has announced for `staleMs`. A live runner, or
 * the same installation restarted, then picks the job up again.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { makeWorkerUtils, type Logger } from 'graphile-worker';
import type pg from 'pg';
import type { Db } from '../core/db/database.js';
import { recordSilentRunnerJobsUnlocked } from '../core/metrics.js';
import { beat, forgetRunner, jobsLockedBy, restoreCrashedAttempts, silentWorkerIds } from '../core/store/jobs.js';

export interface HeartbeatOptions {
  db: Db;
  /** The runner's pool for graphile-worker (its forceUnlockWorkers); the runner ends it. */
  pgPool: pg.Pool;
  intervalMs: number;
  staleMs: number;
  /** The runner's current worker ids. */
  workerIds: () => readonly string[];
  logger: Logger;
}

export interface Heartbeat {
  runnerId: string;
  stop(): Promise<void>;
}

export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const runnerId = `runner-${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const utils = await makeWorkerUtils({ pgPool: options.pgPool, logger: options.logger });
  const tick = async () => {
    try {
      const own = options.workerIds();
      await beat(options.db, { id: runnerId, workerIds: own, host: os.hostname(), pid: process.pid });
      const silent = await silentWorkerIds(options.db, options.staleMs, own);
      if (silent.length > 0) {
        const jobs = await jobsLockedBy(options.db, silent);
        await utils.forceUnlockWorkers(silent);
        recordSilentRunnerJobsUnlocked(jobs.length);
        const restored = await restoreCrashedAttempts(options.db, jobs);
        options.logger.warn(`unlocked the jobs of ${silent.length} silent worker(s): ${silent.join(', ')}` + (restored ? `; ${restored} got back the last attempt the crash cost them` : ''));
      }
    } catch (err) {
      // The database may be restarting: the next beat tries again.
      options.logger.error(`heartbeat failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  let running: Promise<void> = tick();
  await running;
  const timer = setInterval(() => {
    running = running.then(tick);
  }, options.intervalMs);
  let stopped = false;
  return {
    runnerId,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running;
      await forgetRunner(options.db, runnerId).catch(() => {});
      await utils.release();
    },
  };
}
