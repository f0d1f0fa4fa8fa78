/**
 * The process-level handler of unhandled rejections of a process that runs jobs (`webperf runner`,
 * `webperf serve`). Node ends the process on an unhandled rejection; two kinds come from libraries
 * that do not await their own promises, and neither is a reason to end a runner:
 *
 * - Chromium dying mid-navigation: Lighthouse (12.x, driver/navigation.js) leaves its Page.navigate
 *   promise rejected with no handler. The job itself fails on its own (and is retried on a
 *   relaunched browser).
 * - The database away when a job ends: graphile-worker (0.17, non-batched completion) does not
 *   await `completeJob`/`failJob`, and retries them only on a few error codes. The job row then
 *   stays locked by this runner; startWorker (worker.ts) notices and releases it.
 *
 * Each is let pass, logged in one line; any other unhandled rejection still ends the process.
 */
import { isDatabaseUnavailable } from '../core/db/database.js';
import { isClosedBrowserError } from './browser-pool.js';

export function tolerateBrowserCrashAndDatabaseOutageRejections(log: (line: string) => void): void {
  process.on('unhandledRejection', (reason) => {
    const message = reason instanceof Error ? reason.message : String(reason);
    if (isClosedBrowserError(reason)) {
      log(`ignored after a browser crash: ${message}`);
      return;
    }
    if (isDatabaseUnavailable(reason)) {
      log(`ignored while the database is unavailable (a job's end may be unrecorded; the runner releases such jobs): ${message}`);
      return;
    }
    throw reason;
  });
}
