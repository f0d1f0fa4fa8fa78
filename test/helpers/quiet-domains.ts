/**
 * Loaded first into every test file's process (test/run.ts: `node --import …/quiet-domains.js`):
 * tap's async-hook-domain gets an async hook that is never enabled.
 *
 * tap gives every test a "domain" so that an error thrown outside it (in a timer, a rejection
 * nobody awaited) fails that test and not the process. The domain is an async hook with an `init`
 * and a `destroy` callback, and a `destroy` callback makes Node track the end of every promise
 * (a weak reference and a garbage-collector callback each): across the suite's test processes
 * that tracking and the hook's own calls were about 8 % of their CPU time, besides the collector's
 * extra work (measured with --cpu-prof over a whole run; the note of issue 28 has the figures).
 *
 * Nothing that fails stops failing without it: such an error ends the file's process with Node's
 * own message and stack on stderr and exit code 1, and tap, closing at the exit, fails the subtest
 * that was running as "test unfinished" (test/core/tap-failures.test.ts). What is lost is only the
 * error's message in the TAP: `WEBPERF_TEST_DOMAINS=1 npm test -- file` puts it there.
 */
import asyncHooks from 'node:async_hooks';
import { syncBuiltinESMExports } from 'node:module';

if (process.env.WEBPERF_TEST_DOMAINS !== '1') {
  const createHook = asyncHooks.createHook;
  const unused: asyncHooks.AsyncHook = {
    enable() {
      return unused;
    },
    disable() {
      return unused;
    },
  };
  asyncHooks.createHook = (callbacks) => (/[\\/]async-hook-domain[\\/]/.test(new Error().stack ?? '') ? unused : createHook(callbacks));
  // async-hook-domain imports createHook by name: its binding is updated before it is loaded.
  syncBuiltinESMExports();
}
