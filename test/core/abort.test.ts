/**
 * core/abort.ts: answerWithin, the limit /health puts on the database's answer, counted in time
 * this process could have read it: a real PostgreSQL's answer that arrives while the event loop is
 * held past the limit is still taken (a plain timer races it and reports it missing).
 */
import t from 'tap';
import { answerWithin, untilAborted } from '../../core/abort.js';
import { ping } from '../../core/store/sites.js';
import { createTestDb } from '../helpers/db.js';

/** Holds this process's event loop, as a module load or a long synchronous step does. */
function hold(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

t.test('answerWithin: the answer, or a TimeoutError once the limit has passed', async (t) => {
  t.equal(await answerWithin(Promise.resolve(42), 100), 42);
  await t.rejects(answerWithin(Promise.reject(new Error('refused')), 100), { message: 'refused' });
  await t.rejects(answerWithin(new Promise(() => {}), 50), { name: 'TimeoutError', message: 'no answer within 50 ms' });
  // Held once past the limit and still unanswered: the second, last period ends it.
  const silent = answerWithin(new Promise(() => {}), 100);
  hold(300);
  await t.rejects(silent, { name: 'TimeoutError' }, 'a silent database is reported after the second period');
});

t.test('a database that answered while this process was held is not reported silent', async (t) => {
  const { db } = await createTestDb(t);
  await ping(db); // the pool's connection is open
  // As /health asked before: a plain timer against the query. The answer waits unread in the
  // socket while the loop is held; timers run before sockets are read, so the timer wins.
  const raced = Promise.race([ping(db), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 1000 ms')), 1000))]);
  hold(1500);
  await t.rejects(raced, { message: 'no answer within 1000 ms' }, 'a plain timer reports the answered query as missing');
  const answered = answerWithin(ping(db), 1000);
  hold(1500);
  await t.resolves(answered, 'answerWithin reads the answer first');
});

t.test('untilAborted: the work, or the signal\'s reason', async (t) => {
  t.equal(await untilAborted(Promise.resolve('done'), new AbortController().signal), 'done');
  const stop = new AbortController();
  const pending = untilAborted(new Promise(() => {}), stop.signal);
  stop.abort(new Error('stopped'));
  await t.rejects(pending, { message: 'stopped' });
  await t.rejects(untilAborted(Promise.resolve(1), AbortSignal.abort(new Error('already'))), { message: 'already' });
});
