/**
 * Wall time per named phase, summed over many pages: the audit benchmark's profile. The gather
 * step, the engine and the crawler mark where a phase starts; the time until the next mark (or
 * the end) is added to it. Optional everywhere: without a PhaseTimes nothing is measured.
 * A phase whose name starts with a space is a part of another one, run beside it: listed, but not
 * counted in total().
 */

/** A lap timer of one page: each `next` ends the running phase and starts the named one. */
export interface Laps {
  next(phase: string): void;
  end(): void;
}

export class PhaseTimes {
  private readonly totals = new Map<string, { ms: number; count: number }>();

  /** `count`: how many runs of the phase this is (0 for a correction). */
  add(phase: string, ms: number, count = 1): void {
    const t = this.totals.get(phase) ?? { ms: 0, count: 0 };
    t.ms += ms;
    t.count += count;
    this.totals.set(phase, t);
  }

  laps(first?: string): Laps {
    let phase = first ?? null;
    let since = performance.now();
    const close = () => {
      const now = performance.now();
      if (phase !== null) this.add(phase, now - since);
      since = now;
    };
    return {
      next: (p) => {
        close();
        phase = p;
      },
      end: () => {
        close();
        phase = null;
      },
    };
  }

  /** Phases in the order first seen, with total milliseconds and how many times each ran. */
  entries(): { phase: string; ms: number; count: number }[] {
    return [...this.totals].map(([phase, t]) => ({ phase, ...t }));
  }

  total(): number {
    let sum = 0;
    for (const [phase, t] of this.totals) if (!phase.startsWith(' ')) sum += t.ms;
    return sum;
  }
}
