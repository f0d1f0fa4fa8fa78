/**
 * core/worker-task.ts: the functions of a module run in a worker thread, one call at a time, each
 * with a deadline. The module is written to a temporary folder (`.mjs`, so that it is an ES module
 * wherever it lies). Run in this process (as `npm test` runs the built JavaScript) and once in a
 * plain `node` that imports the built core/worker-task.js, as bin/webperf.js (`npm start`) does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { PROJECT_ROOT } from '../../core/config.js';
import { DeadlineError, IdleWorkers, WorkerTask } from '../../core/worker-task.js';

const TASKS = `
import { threadId } from 'node:worker_threads';
export function thread() { return threadId; }
let data = null;
let inits = 0;
export function setUp(given) { data = given; inits++; }
export function greet(name) { return \`\${data?.greeting ?? 'no set-up'}, \${name} (\${inits})\`; }
export function add(a, b) { return a + b; }
/** Busy for ms milliseconds: a synchronous loop no timer can interrupt. */
export function spin(ms) { const end = Date.now() + ms; let n = 0; while (Date.now() < end) n++; return n; }
export function fail(message) { throw new RangeError(message); }
export function uncloneable() { return () => 1; }
`;

const dir = await mkdtemp(path.join(os.tmpdir(), 'webperf-worker-task-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const MODULE = pathToFileURL(path.join(dir, 'tasks.mjs'));
await writeFile(MODULE, TASKS);

type Tasks = {
  thread(): number;
  setUp(given: { greeting: string }): void;
  greet(name: string): string;
  add(a: number, b: number): number;
  spin(ms: number): number;
  fail(message: string): never;
  uncloneable(): unknown;
};

/** How many times a 10 ms interval fired while `work` ran: the event loop's turns. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ ticks: number; result: PromiseSettledResult<T> }> {
  let ticks = 0;
  const interval = setInterval(() => ticks++, 10);
  const [result] = await Promise.allSettled([work]);
  clearInterval(interval);
  return { ticks, result };
}

t.test('starts no worker before the first call, then one for many calls, with init once', async (t) => {
  const task = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hej' }] } });
  t.teardown(() => task.close());
  t.equal(task.started, 0);
  t.equal(task.running, false);
  t.equal(await task.call('greet', ['Kommun'], 5_000), 'Hej, Kommun (1)');
  t.equal(await task.call('add', [2, 3], 5_000), 5);
  t.equal(await task.call('greet', ['Region'], 5_000), 'Hej, Region (1)');
  t.equal(task.started, 1);
  t.equal(task.running, true);
  await task.close();
  t.equal(task.running, false);
  await t.rejects(task.call('add', [1, 1], 5_000), /closed/);
});

t.test('a call past its deadline ends its worker; the loop kept turning; the next call gets a fresh worker, set up again', async (t) => {
  const task = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hej' }] } });
  t.teardown(() => task.close());
  await task.call('add', [0, 0], 5_000); // started and ready: the deadline below is the call's own
  const started = performance.now();
  const { ticks, result } = await ticksDuring(task.call('spin', [60_000], 300));
  const took = performance.now() - started;
  t.equal(result.status, 'rejected');
  const reason = (result as PromiseRejectedResult).reason;
  t.ok(reason instanceof DeadlineError, 'a DeadlineError');
  t.equal(reason.message, 'not done within 300 ms');
  t.ok(took < 2_000, `rejected at the deadline (${Math.round(took)} ms)`);
  t.ok(ticks >= 10, `the event loop turned while the worker spun (${ticks} ticks)`);
  t.equal(task.running, false, 'the worker was terminated');
  t.equal(await task.call('greet', ['again'], 5_000), 'Hej, again (1)', 'a fresh worker, set up again');
  t.equal(task.started, 2);
});

t.test('the signal ends the worker at once, mid-call, and refuses later calls with its reason', async (t) => {
  const controller = new AbortController();
  const task = new WorkerTask<Tasks>(MODULE, { signal: controller.signal });
  t.teardown(() => task.close());
  await task.call('add', [0, 0], 5_000);
  const spinning = task.call('spin', [60_000], 60_000);
  setTimeout(() => controller.abort(new Error('the job was cancelled')), 100);
  const started = performance.now();
  await t.rejects(spinning, { message: 'the job was cancelled' });
  t.ok(performance.now() - started < 2_000);
  t.equal(task.running, false);
  await t.rejects(task.call('add', [1, 1], 5_000), { message: 'the job was cancelled' });
  t.equal(task.started, 1, 'no worker started after the abort');
});

t.test("the function's own errors and uncloneable results reject that call only", async (t) => {
  const task = new WorkerTask<Tasks>(MODULE);
  t.teardown(() => task.close());
  await t.rejects(task.call('fail', ['too far'], 5_000), { name: 'RangeError', message: 'too far' });
  await t.rejects(task.call('uncloneable', [], 5_000), { name: 'DataCloneError' });
  await t.rejects(task.call('nothing' as 'add', [1, 2], 5_000), { name: 'TypeError', message: /exports no function nothing/ });
  t.equal(await task.call('add', [1, 2], 5_000), 3);
  t.equal(task.started, 1, 'the same worker throughout');
});

t.test('a module that does not load rejects the call, not the process', async (t) => {
  const broken = pathToFileURL(path.join(dir, 'broken.mjs'));
  await writeFile(broken, 'export const x = ;\n');
  const task = new WorkerTask<Tasks>(broken);
  t.teardown(() => task.close());
  await t.rejects(task.call('add', [1, 2], 5_000));
  t.equal(task.running, false);
});

t.test('kept warm: a closed task leaves its ready, idle worker to the next task of the same key, set up once', async (t) => {
  const warm = new IdleWorkers({ max: 1 });
  t.teardown(() => warm.close());
  const keep = { workers: warm, key: 'hej' };
  const first = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hej' }] }, keep });
  t.equal(await first.call('greet', ['ett'], 5_000), 'Hej, ett (1)');
  const thread = await first.call('thread', [], 5_000);
  await first.close();
  t.equal(warm.size, 1, 'kept, not terminated');
  t.equal(first.running, false);

  const second = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hej' }] }, keep });
  t.equal(await second.call('greet', ['två'], 5_000), 'Hej, två (1)', 'set up once, not again');
  t.equal(await second.call('thread', [], 5_000), thread, 'the same thread');
  t.equal(second.started, 0, 'no worker started');
  t.equal(warm.size, 0, 'taken');
  // A third task while the second holds the worker: a worker of its own; of the two closed, one is kept (max 1).
  const third = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hej' }] }, keep });
  t.not(await third.call('thread', [], 5_000), thread, 'a worker of its own');
  t.equal(third.started, 1);
  await Promise.all([second.close(), third.close()]);
  t.equal(warm.size, 1, 'at most max kept');
  await t.rejects(second.call('add', [1, 1], 5_000), /closed/, 'a closed task refuses calls, its worker kept or not');

  // Another key (another repository): the kept worker is ended, a fresh one set up with the new data.
  const other = new WorkerTask<Tasks>(MODULE, { init: { fn: 'setUp', args: [{ greeting: 'Hallo' }] }, keep: { workers: warm, key: 'hallo' } });
  t.equal(await other.call('greet', ['tre'], 5_000), 'Hallo, tre (1)');
  t.equal(other.started, 1);
  t.equal(warm.size, 0, 'the worker of the other key ended');
  await other.close();
  t.equal(warm.size, 1);
});

t.test('kept warm: never a worker that passed a deadline, was aborted or was mid-call; idle ones end after idleMs', async (t) => {
  const warm = new IdleWorkers({ max: 4, idleMs: 300 });
  t.teardown(() => warm.close());
  const keep = { workers: warm, key: 'k' };

  const late = new WorkerTask<Tasks>(MODULE, { keep });
  await t.rejects(late.call('spin', [60_000], 200), DeadlineError);
  await late.close();
  t.equal(warm.size, 0, 'a deadline ended it: not kept');

  const controller = new AbortController();
  const aborted = new WorkerTask<Tasks>(MODULE, { keep, signal: controller.signal });
  t.equal(await aborted.call('add', [1, 2], 5_000), 3);
  controller.abort(new Error('stop'));
  await aborted.close();
  t.equal(warm.size, 0, 'aborted: not kept');

  const busy = new WorkerTask<Tasks>(MODULE, { keep });
  t.equal(await busy.call('add', [2, 2], 5_000), 4);
  const inFlight = busy.call('spin', [60_000], 30_000);
  await new Promise((r) => setTimeout(r, 100));
  await busy.close();
  await t.rejects(inFlight, /closed/);
  t.equal(warm.size, 0, 'closed mid-call: not kept');

  const idle = new WorkerTask<Tasks>(MODULE, { keep });
  t.equal(await idle.call('add', [3, 3], 5_000), 6);
  await idle.close();
  t.equal(warm.size, 1);
  await new Promise((r) => setTimeout(r, 600));
  t.equal(warm.size, 0, 'ended after idleMs');

  const kept = new WorkerTask<Tasks>(MODULE, { keep });
  t.equal(await kept.call('add', [4, 4], 5_000), 8);
  await kept.close();
  t.equal(warm.size, 1);
  const taker = new WorkerTask<Tasks>(MODULE, { keep });
  t.equal(await taker.call('add', [5, 5], 5_000), 10);
  t.equal(taker.started, 0);
  await t.rejects(taker.call('spin', [60_000], 200), DeadlineError);
  await taker.close();
  t.equal(warm.size, 0, 'a kept worker that later passed a deadline is not kept again');
});

t.test('in a plain node that imports the built JavaScript as bin/webperf.js does (npm start)', async (t) => {
  const script = `
    const { WorkerTask, DeadlineError } = await import('./dist/core/worker-task.js');
    const task = new WorkerTask(new URL(${JSON.stringify(MODULE.href)}), { init: { fn: 'setUp', args: [{ greeting: 'Hello' }] } });
    const greeting = await task.call('greet', ['plain node'], 10000);
    const late = await task.call('spin', [60000], 300).catch((err) => err instanceof DeadlineError);
    const after = await task.call('add', [20, 22], 10000);
    await task.close();
    process.stdout.write(JSON.stringify({ greeting, late, after, started: task.started, preloads: process.execArgv.filter((a) => /^--(import|loader|require|experimental-loader)/.test(a)) }));
  `;
  const env = { ...process.env, NODE_OPTIONS: '' };
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], { cwd: PROJECT_ROOT, env, timeout: 60_000 });
  t.strictSame(JSON.parse(stdout), { greeting: 'Hello, plain node (1)', late: true, after: 42, started: 2, preloads: [] });
});
