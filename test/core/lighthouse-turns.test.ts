/**
 * Lighthouse takes turns in a process (core/gather/lighthouse-turns.ts): its timing marks are
 * process-global, so two runs at once in one process made one of them fail. The turns in
 * isolation, then two real gathers at once in one process, with Chromium, of a fixture site
 * served as https://good.test/ in the test world.
 */
import t from 'tap';
import { gather } from '../../core/gather/gather.js';
import { Turns } from '../../core/gather/lighthouse-turns.js';
import { fixtureSite, LOOPBACK_GUARD, testBrowserPool } from '../helpers/fixture-artifacts.js';

const tick = () => new Promise((r) => setImmediate(r));

t.test('turns are taken one at a time, in order', async (t) => {
  const turns = new Turns();
  const order: string[] = [];
  const first = await turns.take();
  const second = turns.take().then((giveBack) => {
    order.push('second');
    return giveBack;
  });
  const third = turns.take().then((giveBack) => {
    order.push('third');
    giveBack();
  });
  await tick();
  t.same(order, [], 'nobody else while the first holds the turn');
  first();
  (await second)();
  await third;
  t.same(order, ['second', 'third']);
});

t.test('a waiter whose signal aborts leaves the queue with the reason; the next waiter is not held up by it', async (t) => {
  const turns = new Turns();
  const holder = await turns.take();
  const controller = new AbortController();
  const abandoned = turns.take(controller.signal);
  let nextTook = false;
  const next = turns.take().then((giveBack) => {
    nextTook = true;
    giveBack();
  });
  const reason = new Error('stopped');
  controller.abort(reason);
  await t.rejects(abandoned, reason);
  await tick();
  t.equal(nextTook, false, 'still the holder\'s turn');
  holder();
  await next;
  t.equal(nextTook, true);
});

t.test('an aborted holder keeps the turn until it gives it back, at most the overrun', async (t) => {
  // The overrun timer does not hold a process open (a runner has its sockets): this test does.
  const alive = setTimeout(() => {}, 5_000);
  t.teardown(() => clearTimeout(alive));
  const turns = new Turns();
  const controller = new AbortController();
  await turns.take(controller.signal, 200);
  let nextAt = 0;
  const next = turns.take().then((giveBack) => {
    nextAt = Date.now();
    giveBack();
  });
  const abortedAt = Date.now();
  controller.abort();
  await tick();
  t.equal(nextAt, 0, 'the aborted holder\'s Lighthouse may still run: the turn is still its');
  await next;
  t.ok(nextAt - abortedAt >= 190, 'given back by the overrun', { waitedMs: nextAt - abortedAt });
});

t.test('two gathers at once in one process both load and measure the page', async (t) => {
  const site = await fixtureSite('good');
  const browser = await testBrowserPool().acquire();
  const both = await Promise.allSettled([1, 2].map(() => gather(site.url, { browser, guard: LOOPBACK_GUARD, timeoutMs: 110_000 })));
  t.same(both.map((r) => (r.status === 'fulfilled' ? 'fulfilled' : `${r.reason}`)), ['fulfilled', 'fulfilled'], 'neither gather failed');
  for (const r of both) {
    if (r.status !== 'fulfilled') continue;
    t.equal(r.value.finalUrl, 'https://good.test/', 'the page on https, port 443');
    t.equal(r.value.lighthouse?.categories.performance?.score != null, true, 'a performance score');
    t.equal(r.value.lighthouse?.categories.accessibility?.score != null, true, 'an accessibility score');
  }
});
