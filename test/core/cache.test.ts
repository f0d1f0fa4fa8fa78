/**
 * core/cache.ts (the LRU with TTL, tags, fill tokens and suspension) and the cache-event payloads
 * of core/store/notify.ts. No database: a hand-driven clock.
 */
import t from 'tap';
import { LruCache } from '../../core/cache.js';
import { parseCacheEvent } from '../../core/store/notify.js';

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

t.test('least recently used goes first when full; a read counts as use', async (t) => {
  const c = new LruCache<string>({ max: 3, ttlMs: 60_000 });
  c.set('a', 'A');
  c.set('b', 'B');
  c.set('c', 'C');
  t.equal(c.get('a'), 'A', 'a read makes a the most recently used');
  c.set('d', 'D');
  t.equal(c.size, 3, 'bounded');
  t.equal(c.get('b'), undefined, 'b, the least recently used, went');
  t.strictSame(['a', 'c', 'd'].map((k) => c.get(k)), ['A', 'C', 'D']);
  c.set('c', 'C2');
  t.equal(c.size, 3, 'replacing a key does not grow the cache');
  t.equal(c.get('c'), 'C2');
});

t.test('an entry lives for ttlMs from when it was stored', async (t) => {
  const time = clock();
  const c = new LruCache<number>({ max: 10, ttlMs: 1_000, now: time.now });
  c.set('x', 1);
  time.advance(1_000);
  t.equal(c.get('x'), 1, 'still live when exactly the TTL has passed');
  time.advance(1);
  t.equal(c.get('x'), undefined, 'gone once it is older than the TTL');
  t.equal(c.size, 0, 'and removed, not only hidden');
  c.set('y', 2);
  time.advance(600);
  t.equal(c.get('y'), 2);
  time.advance(600);
  t.equal(c.get('y'), undefined, 'reads do not extend the lifetime');
});

t.test('an entry may be given a shorter life than the TTL, never a longer one', async (t) => {
  const time = clock();
  const c = new LruCache<number>({ max: 10, ttlMs: 1_000, now: time.now });
  t.equal(c.set('short', 1, { ttlMs: 250 }), true);
  t.equal(c.set('long', 2, { ttlMs: 5_000 }), true);
  t.equal(c.set('spent', 3, { ttlMs: 0 }), false, 'a life already over is not stored');
  t.equal(c.set('negative', 4, { ttlMs: -1 }), false);
  t.equal(c.get('spent'), undefined);
  time.advance(250);
  t.equal(c.get('short'), 1, 'live at exactly its own TTL');
  time.advance(1);
  t.equal(c.get('short'), undefined, 'gone after it');
  t.equal(c.get('long'), 2);
  time.advance(750);
  t.equal(c.get('long'), undefined, 'a longer life is cut to the cache\'s TTL');
});

t.test('a tag drops every entry carrying it, and only those', async (t) => {
  const c = new LruCache<string>({ max: 100, ttlMs: 60_000 });
  c.set('stats:1:sv', 's1', { tags: ['site:1'] });
  c.set('stats:1:en', 'e1', { tags: ['site:1'] });
  c.set('month:1', 'm1', { tags: ['site:1'] });
  c.set('stats:2:sv', 's2', { tags: ['site:2'] });
  c.set('categories', 'cats', { tags: ['categories'] });
  t.equal(c.invalidateTag('site:1'), 3);
  t.strictSame(['stats:1:sv', 'stats:1:en', 'month:1'].map((k) => c.get(k)), [undefined, undefined, undefined]);
  t.equal(c.get('stats:2:sv'), 's2', 'another site untouched');
  t.equal(c.get('categories'), 'cats');
  t.equal(c.invalidateTag('site:1'), 0, 'nothing left of the tag');
  t.equal(c.invalidateTag('site:404'), 0, 'an unknown tag is harmless');
  c.invalidate('categories');
  t.equal(c.get('categories'), undefined, 'one key');
  c.set('stats:2:sv', 's2b', { tags: ['site:3'] });
  t.equal(c.invalidateTag('site:2'), 0, 'replacing an entry replaces its tags');
  t.equal(c.get('stats:2:sv'), 's2b');
});

t.test('a fill that read before an invalidation is refused', async (t) => {
  const c = new LruCache<string>({ max: 10, ttlMs: 60_000 });
  const before = c.token();
  c.invalidateTag('key:7'); // e.g. the key was revoked while its row was being read
  t.notOk(c.set('k', 'stale', { token: before }), 'refused');
  t.equal(c.get('k'), undefined);
  const fresh = c.token();
  t.ok(c.set('k', 'fresh', { token: fresh }), 'a fill that read after it is kept');
  t.equal(c.get('k'), 'fresh');
  const t2 = c.token();
  c.clear();
  t.notOk(c.set('k', 'stale', { token: t2 }), 'clear counts as an invalidation');
  t.ok(c.set('k', 'untokened'), 'a set without a token is the caller\'s promise that the value is current');
});

t.test('a tag token is refused only by its own tag, a key or a clear', async (t) => {
  const c = new LruCache<string>({ max: 3, ttlMs: 60_000 });
  const token = c.tagToken('site:1');
  c.invalidateTag('site:2');
  t.ok(c.set('refusal:1', 'r1', { tags: ['site:1'], tagToken: token }), 'another tag\'s invalidation does not refuse it');
  const t1 = c.tagToken('site:1');
  c.invalidateTag('site:1');
  t.notOk(c.set('refusal:1', 'stale', { tags: ['site:1'], tagToken: t1 }), 'its own tag does');
  t.equal(c.get('refusal:1'), undefined);
  for (const drop of [() => c.invalidate('other'), () => c.clear(), () => c.suspend()]) {
    const before = c.tagToken('site:1');
    drop();
    if (!c.active) c.resume();
    t.notOk(c.set('refusal:1', 'stale', { tags: ['site:1'], tagToken: before }), 'a key, a clear, a suspension do');
  }
  const late = c.tagToken('site:9');
  for (const tag of ['site:2', 'site:3', 'site:4', 'site:5']) c.invalidateTag(tag);
  t.notOk(c.set('refusal:9', 'maybe', { tags: ['site:9'], tagToken: late }), 'past max tags remembered, every fill under way is refused');
  t.ok(c.set('refusal:9', 'fresh', { tags: ['site:9'], tagToken: c.tagToken('site:9') }));
});

t.test('suspended: holds nothing, stores nothing; resumes empty', async (t) => {
  const c = new LruCache<string>({ max: 10, ttlMs: 60_000 });
  c.set('a', 'A');
  const token = c.token();
  c.suspend();
  t.notOk(c.active);
  t.equal(c.get('a'), undefined, 'emptied');
  t.notOk(c.set('b', 'B'), 'refuses to store');
  c.resume();
  t.ok(c.active);
  t.equal(c.size, 0, 'resumes from empty');
  t.notOk(c.set('a', 'A', { token }), 'a fill that began before the suspension is refused');
  t.ok(c.set('a', 'A', { token: c.token() }));
});

t.test('maxWeight bounds the total weight; a value heavier than it is not kept', async (t) => {
  const c = new LruCache<string>({ max: 100, ttlMs: 60_000, maxWeight: 10, weigh: (v) => v.length });
  c.set('a', 'xxxx');
  c.set('b', 'yyyy');
  t.equal(c.weight, 8);
  c.set('c', 'zzzz');
  t.equal(c.get('a'), undefined, 'the least recently used went to make room');
  t.equal(c.weight, 8);
  t.notOk(c.set('huge', 'x'.repeat(11)), 'heavier than the whole cache');
  t.equal(c.get('b'), 'yyyy', 'and it pushed nothing out');
  c.invalidate('b');
  t.equal(c.weight, 4, 'weight follows removals');
  c.clear();
  t.equal(c.weight, 0);
});

t.test('a stream of new keys cannot grow the cache beyond max', async (t) => {
  const c = new LruCache<number>({ max: 50, ttlMs: 60_000 });
  for (let i = 0; i < 10_000; i++) c.set(`k${i}`, i, { tags: [`t${i % 7}`] });
  t.equal(c.size, 50);
  t.equal(c.get('k9999'), 9999);
  t.equal(c.get('k9949'), undefined);
  t.equal(c.invalidateTag('t0') + c.invalidateTag('t1') + c.invalidateTag('t2') + c.invalidateTag('t3') + c.invalidateTag('t4') + c.invalidateTag('t5') + c.invalidateTag('t6'), 50, 'the tag index holds only live keys');
});

t.test('invalid options are refused', async (t) => {
  t.throws(() => new LruCache({ max: 0, ttlMs: 1 }), RangeError);
  t.throws(() => new LruCache({ max: 1, ttlMs: 0 }), RangeError);
});

t.test('cache-event payloads: well-formed events only; anything else is null (drop everything)', async (t) => {
  t.strictSame(parseCacheEvent('{"key":12}'), { key: 12 });
  t.strictSame(parseCacheEvent('{"site":3,"categories":true}'), { site: 3, categories: true });
  t.strictSame(parseCacheEvent('{"categories":true}'), { categories: true });
  t.strictSame(parseCacheEvent('{"site":3,"extra":"ignored"}'), { site: 3 });
  t.strictSame(parseCacheEvent('{"sites":true}'), { sites: true });
  t.strictSame(parseCacheEvent('{"credits" : 7}'), { credits: 7 }, 'as place_order sends it (json_build_object)');
  t.strictSame(parseCacheEvent('{"levels":true}'), { levels: true });
  for (const bad of [undefined, '', 'not json', '[]', 'null', '42', '{}', '{"key":"12"}', '{"key":-1}', '{"site":1.5}', '{"categories":false}', '{"categories":"yes"}', '{"sites":false}', '{"sites":1}', '{"credits":0}', '{"credits":"7"}', '{"levels":false}', '{"levels":1}']) {
    t.equal(parseCacheEvent(bad), null, `${JSON.stringify(bad)} → null`);
  }
});
