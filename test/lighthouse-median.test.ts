/**
 * How the Lighthouse score tests judge their runs (test/helpers/lighthouse-median.ts): one run at
 * the goal; else the median of three, and when it misses the goal, the median of the three least
 * busy of five.
 */
import t from 'tap';
import { medianOfQuietRuns, type RatedRun } from './helpers/lighthouse-median.js';

const runsOf = (runs: [number, number][]) => {
  let n = 0;
  return async (): Promise<RatedRun & { n: number }> => {
    const [performance, benchmarkIndex] = runs[n];
    return { performance, benchmarkIndex, n: n++ };
  };
};

t.test('a first run at the goal is judged alone', async (t) => {
  const judged = await medianOfQuietRuns(runsOf([[90, 700], [10, 10]]), 90);
  t.equal(judged.median.n, 0);
  t.strictSame([judged.performances, judged.benchmarks], [[90], [700]]);
});

t.test('a first run under the goal and a median at it: three runs, no more', async (t) => {
  const judged = await medianOfQuietRuns(runsOf([[88, 400], [99, 1000], [93, 900], [10, 10]]), 90);
  t.equal(judged.median.n, 2);
  t.strictSame(judged.performances, [88, 99, 93]);
});

t.test('a median under the goal: two more runs, the three of the highest benchmarkIndex judged', async (t) => {
  // Runs 0 and 2 were made on a loaded machine; of the quiet ones (1, 3, 4) the median is 94.
  const judged = await medianOfQuietRuns(runsOf([[70, 300], [96, 1000], [75, 350], [94, 950], [92, 980]]), 90);
  t.equal(judged.median.n, 3);
  t.strictSame(judged.performances, [70, 96, 75, 94, 92]);
  t.strictSame(judged.benchmarks, [300, 1000, 350, 950, 980]);
});

t.test('a page slow on a quiet machine still fails', async (t) => {
  const judged = await medianOfQuietRuns(runsOf([[80, 1000], [85, 990], [95, 300], [81, 980], [97, 200]]), 90);
  t.equal(judged.median.performance, 81);
});

t.test('a run whose trace was not recorded is no measurement, unless fewer than three runs measured', async (t) => {
  const withErrors = (runs: [number, number, string | null][]) => {
    let n = 0;
    return async (): Promise<RatedRun & { n: number }> => {
      const [performance, benchmarkIndex, runtimeError] = runs[n];
      return { performance, benchmarkIndex, runtimeError, n: n++ };
    };
  };
  // The CI run of 2026-11-27: the two quietest runs had NO_NAVSTART (scored 0).
  const judged = await medianOfQuietRuns(withErrors([[0, 1534, 'NO_NAVSTART'], [0, 1496, 'NO_NAVSTART'], [95, 1386, null], [99, 1399, null], [93, 1495, null]]), 90);
  t.strictSame([judged.median.n, judged.median.performance], [2, 95], 'the median of the three that measured the page');
  const broken = await medianOfQuietRuns(withErrors([[0, 1500, 'NO_FCP'], [0, 1400, 'NO_FCP'], [92, 1300, null], [0, 1450, 'NO_FCP'], [91, 1350, null]]), 90);
  const first = await medianOfQuietRuns(withErrors([[95, 1500, 'NO_NAVSTART'], [91, 1400, null], [92, 1300, null]]), 90);
  t.equal(first.performances.length, 3, 'a first run at the goal without a trace is not judged alone');
  t.strictSame([broken.median.performance, broken.median.runtimeError], [0, 'NO_FCP'], 'a page that mostly fails to load fails');
});
