// The entry of a WorkerTask's thread (worker-task.ts). Plain JavaScript on purpose: there is no
// build step, and a worker inherits neither bin/webperf.js's programmatic tsx registration nor
// (worker-task.ts starts it with no execArgv) the tests' `--import tsx`, so it registers tsx
// itself, then imports the TypeScript module whose exported functions it runs, one call at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const mod = await import(workerData.module);
parentPort.on('message', async ({ id, fn, args }) => {
  try {
    if (typeof mod[fn] !== 'function') throw new TypeError(`${workerData.module} exports no function ${fn}`);
    parentPort.postMessage({ id, ok: true, value: await mod[fn](...args) });
  } catch (err) {
    const error = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { name: 'Error', message: String(err) };
    parentPort.postMessage({ id, ok: false, error });
  }
});
parentPort.postMessage({ ready: true });
