/**
 * The sentences of a text: their ends found by one forward scan, the sentence around a place by
 * binary search, so that asking for the sentence of every date or claim of a long page stays
 * linear (a page of 'Ja. ' repeated has a sentence end every four characters).
 */

/** The first of `count` ascending values (valueAt(0) … valueAt(count − 1)) that is at least `x`; count when none is. */
export function firstAtLeast(count: number, x: number, valueAt: (i: number) => number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (valueAt(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class Sentences {
  private readonly ends: number[];

  /** `end` (global) matches where a sentence ends; the index of each match is that end. */
  constructor(private readonly text: string, end: RegExp) {
    this.ends = Array.from(text.matchAll(end), (m) => m.index!);
  }

  /**
   * The sentence holding text[from, to): `start` just after the last end before `from`, `end` at
   * the first end at or after `to` (the index of its mark, text.length when there is none).
   */
  around(from: number, to: number): { start: number; end: number } {
    const at = (i: number) => this.ends[i];
    const before = firstAtLeast(this.ends.length, from, at) - 1;
    const after = firstAtLeast(this.ends.length, to, at);
    return { start: before >= 0 ? this.ends[before] + 1 : 0, end: after < this.ends.length ? this.ends[after] : this.text.length };
  }
}
