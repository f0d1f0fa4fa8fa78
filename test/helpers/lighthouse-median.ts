/**
 * Lighthouse CI's `numberOfRuns: 3`: a page is rated three times and the run of median performance
 * is judged. One run's total blocking time swings with whatever else the 2-core CI machine is doing
 * at that moment (seen: 86 with 557 ms of style and layout work that takes a fraction of that
 * alone); the median of three is what Lighthouse CI itself asserts on.
 */
export async function medianOfThree<T>(rate: () => Promise<T>, performance: (run: T) => number): Promise<{ median: T; performances: number[] }> {
  const runs: T[] = [];
  for (let n = 0; n < 3; n++) runs.push(await rate());
  return { median: [...runs].sort((a, b) => performance(a) - performance(b))[1], performances: runs.map(performance) };
}
