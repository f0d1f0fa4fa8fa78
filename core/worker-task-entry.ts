/**
 * The entry of a WorkerTask's thread (worker-task.ts): imports the module whose exported functions
 * it runs, one call at a time, and answers each call with its value or its error. Stack traces of
 * the worker name the .ts sources as the process's do.
 */
import { parentPort, workerData } from 'node:worker_threads';

process.setSourceMapsEnabled(true);
const port = parentPort!;
const { module } = workerData as { module: string };
const mod = (await import(module)) as Record<string, unknown>;
port.on('message', async ({ id, fn, args }: { id: number; fn: string; args: unknown[] }) => {
  try {
    const f = mod[fn];
    if (typeof f !== 'function') throw new TypeError(`${module} exports no function ${fn}`);
    port.postMessage({ id, ok: true, value: await f(...args) });
  } catch (err) {
    const error = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { name: 'Error', message: String(err) };
    port.postMessage({ id, ok: false, error });
  }
});
port.postMessage({ ready: true });
