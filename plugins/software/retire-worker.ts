/**
 * The RetireJS scan of one script, the part of type 25 that runs in a worker thread
 * (core/worker-task.ts, driven by script-scanner.ts): RetireJS's regular expressions run
 * synchronously and some backtrack for minutes on crafted input, so they run where a deadline can
 * stop them without stalling the service's event loop. The repository is handed over once per
 * worker (setRepository), not with every script, and is the very one the run reports the date of.
 */
import type { Repository } from './retire-data.js';
import { isDontCheck, scanScript, type RetireHit } from './retire-scan.js';

let loaded: { repository: Repository; dontCheck: string[] } | null = null;

/** The repository (without "dont check") and the "dont check" patterns this worker scans with. */
export function setRepository(repository: Repository, dontCheck: string[]): void {
  loaded = { repository, dontCheck };
  // One small scan as the worker starts (WorkerTask's `init`): what RetireJS and V8 set up at the
  // first scan counts against the worker's start, not against the first script's deadline.
  scanScript({ url: 'https://webperf.invalid/warm-up.js', content: '/*! warm-up */' }, repository);
}

/** One script's libraries, or 'dont-check' when RetireJS does not scan such a script. */
export function scan(script: { url: string; content: string | null }): RetireHit[] | 'dont-check' {
  if (!loaded) throw new Error('setRepository was not called');
  if (isDontCheck(script.url, loaded.dontCheck)) return 'dont-check';
  return scanScript(script, loaded.repository);
}
