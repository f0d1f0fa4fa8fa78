/**
 * Which pairs GET /changes/ answers (core/store/changes-read.ts), checked against the definition
 * computed in this file from every row: a site's history of several test types with results with
 * an error, private one-off tests, results of several types on one date, two results of one type
 * on one date, a type tested once, and another site's results interleaved. Every page of every
 * size, date ranges that cut through pairs, and test-type filters give exactly the pairs and the
 * total the definition gives: per test type, consecutive judgements (ordered by date, then id)
 * whose later one is in the range, newest first (then type, then the later result's id); or per
 * type its latest judgement against the one before, the newest first (then type).
 */
import t from 'tap';
import { sql } from '../../core/db/kysely.js';
import { readChanges, type ChangesQuery } from '../../core/store/changes-read.js';
import { createTestDb } from '../helpers/db.js';

const { db } = await createTestDb(t);

/** A small deterministic generator (mulberry32): the same history on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Row { id: number; site: number; type: number; date: number; private: boolean; error: boolean }

const site = async (title: string) => (await db.insertInto('sites').values({ title, url: `https://${title}.example/` }).returning('id').executeTakeFirstOrThrow()).id;
const A = await site('alfa');
const B = await site('beta');
const next = random(31);
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const rows: Row[] = [];
// 90 runs of A and 40 of B, by turns; each run tests some of the types 10, 21, 30 (32 once, in A's
// 40th run); every eleventh run is a private one-off test; a result in nine has an error.
for (let i = 0; i < 130; i++) {
  const siteId = i % 13 < 9 ? A : B;
  const isPrivate = i % 11 === 5;
  // Runs a day apart, but now and then two on one day at the same minute (results with one date).
  const date = START + Math.floor(i / 2) * DAY + (i % 7 === 3 ? 0 : (i % 2) * 3_600_000);
  const types = [10, 21, 30].filter(() => next() < 0.8);
  if (siteId === A && i === 40) types.push(32);
  if (types.length === 0) continue;
  const run = await db.insertInto('test_runs').values({ site_id: siteId, url: 'https://x.example/', private: isPrivate, status: 'done' }).returning('id').executeTakeFirstOrThrow();
  for (const type of types) {
    const error = next() < 1 / 9 && type !== 32;
    const { id } = await db.insertInto('test_results').values({
      run_id: run.id, site_id: siteId, private: isPrivate, url: 'https://x.example/', type_of_test: type,
      rating: error ? -1 : 3, reports: JSON.stringify({}), error: error ? 'the page could not be loaded' : null,
      test_date: new Date(date), findings: sql`'[]'::json`,
    }).returning('id').executeTakeFirstOrThrow();
    rows.push({ id: Number(id), site: siteId, type, date, private: isPrivate, error });
  }
}

type Pair = [type: number, from: number, to: number];

/** The pairs by the definition, in the answer's order, before pagination. */
function expected(siteId: number, q: { kind: 'latest' | 'range'; since?: number; until?: number; types: number[] | null }): Pair[] {
  const judged = rows.filter((r) => r.site === siteId && !r.private && !r.error && (!q.types || q.types.includes(r.type)));
  const byType = new Map<number, Row[]>();
  for (const r of judged) byType.set(r.type, [...(byType.get(r.type) ?? []), r]);
  const pairs: { type: number; from: Row; to: Row }[] = [];
  for (const [type, list] of byType) {
    list.sort((x, y) => x.date - y.date || x.id - y.id);
    const consecutive = list.slice(1).map((to, i) => ({ type, from: list[i], to }));
    if (q.kind === 'latest') pairs.push(...consecutive.slice(-1));
    else pairs.push(...consecutive.filter((p) => p.to.date >= q.since! && p.to.date < q.until!));
  }
  pairs.sort((x, y) => y.to.date - x.to.date || x.type - y.type || (q.kind === 'range' ? y.to.id - x.to.id : 0));
  return pairs.map((p) => [p.type, p.from.id, p.to.id]);
}

async function answered(siteId: number, q: ChangesQuery) {
  const r = (await readChanges(db, siteId, q))!;
  return { total: r.total, pairs: r.pairs.map((p): Pair => [p.typeOfTest, p.from.resultId, p.to.resultId]) };
}

t.test('the history holds what the definition must get right', async (t) => {
  const ofA = rows.filter((r) => r.site === A);
  t.ok(ofA.some((r) => r.error) && ofA.some((r) => r.private), 'results with an error and private ones');
  t.ok(ofA.some((r, i) => ofA.some((s, j) => i !== j && s.date === r.date && s.type === r.type)), 'two results of one type on one date');
  t.strictSame(ofA.filter((r) => r.type === 32).map((r) => r.error || r.private), [false], 'a type judged once, amid the history: never in a pair');
});

t.test('since the last test: every page of every size', async (t) => {
  for (const siteId of [A, B]) {
    for (const types of [null, [21], [30, 10], [32], [32, 21]]) {
      const all = expected(siteId, { kind: 'latest', types });
      for (const limit of [1, 2, 20]) {
        for (let offset = 0; offset <= all.length; offset += limit) {
          const got = await answered(siteId, { kind: 'latest', types, limit, offset });
          t.strictSame(got, { total: all.length, pairs: all.slice(offset, offset + limit) }, `site ${siteId}, types ${types ?? 'all'}, ${limit} from ${offset}`);
        }
      }
    }
  }
  t.equal(expected(A, { kind: 'latest', types: null }).length, 3, 'three types with two judgements or more');
});

t.test('date ranges: every page of every size, ranges cutting through pairs, the first judgement of a type inside the range', async (t) => {
  const ranges: [number, number][] = [[0, 8.64e15], [START + 10 * DAY, START + 20 * DAY], [START + 30.5 * DAY, START + 31 * DAY], [START, START + DAY], [START + 400 * DAY, START + 500 * DAY]];
  for (const siteId of [A, B]) {
    for (const types of [null, [21], [32, 10]]) {
      for (const [since, until] of ranges) {
        const all = expected(siteId, { kind: 'range', since, until, types });
        for (const limit of [3, 7, 100]) {
          for (let offset = 0; offset <= all.length; offset += limit) {
            const got = await answered(siteId, { kind: 'range', since: new Date(since), until: new Date(until), types, limit, offset });
            t.strictSame(got, { total: all.length, pairs: all.slice(offset, offset + limit) }, `site ${siteId}, types ${types ?? 'all'}, ${new Date(since).toISOString().slice(0, 10)}..${until > 8e15 ? '' : new Date(until).toISOString().slice(0, 10)}, ${limit} from ${offset}`);
          }
        }
      }
    }
  }
  t.ok(expected(A, { kind: 'range', since: 0, until: 8.64e15, types: null }).length > 100, 'the whole history has over a hundred pairs');
});

t.test('a page past the end: no pairs, and the total still told', async (t) => {
  const all = expected(A, { kind: 'range', since: 0, until: 8.64e15, types: null });
  t.strictSame(await answered(A, { kind: 'range', since: new Date(0), until: new Date(8.64e15), types: null, limit: 20, offset: 10_000 }), { total: all.length, pairs: [] });
  t.strictSame(await answered(A, { kind: 'latest', types: null, limit: 20, offset: 40 }), { total: 3, pairs: [] });
});
