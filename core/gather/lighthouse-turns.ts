/**
 * One Lighthouse at a time in a process. Lighthouse does not support concurrent runs in one Node
 * process (its maintainers: run them in separate processes): its timing marks are process-global
 * (lighthouse-logger's marky over `performance` marks), and a run that ends takes its entries by
 * clearing every mark, so another run still going throws at its next step's end ("The "start
 * lh:runner:gather" performance mark has not been set") and its job fails. A runner with a
 * concurrency above 1, or a gather abandoned while its Lighthouse still ran, met that.
 *
 * So a gather takes a turn for Lighthouse's own steps (the page load and measurement, then the
 * audits); its other work (axe, reading the page, the plugins, the save) still overlaps other
 * jobs. Scale-out across page loads is more runner processes, as the architecture has it.
 *
 * The turn is given back when Lighthouse's steps have really settled, not when the gather was
 * abandoned: an aborted gather rejects at once while Lighthouse notices its closed browser context
 * a moment later. Should those steps not settle within `overrunMs` of the abort, the turn is given
 * back anyway, so that nothing can hold up the process's later gathers for ever.
 */
import { untilAborted } from '../abort.js';

/** How long an aborted gather's Lighthouse may still hold the turn. */
export const TURN_OVERRUN_MS = 30_000;

export class Turns {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Waits for the turn (rejecting with the signal's reason should it abort first: the turn then
   * passes on as if taken and given back at once) and returns the function that gives it back.
   */
  async take(signal?: AbortSignal, overrunMs = TURN_OVERRUN_MS): Promise<() => void> {
    let giveBack!: () => void;
    const given = new Promise<void>((resolve) => (giveBack = resolve));
    const before = this.tail;
    this.tail = before.then(() => given);
    try {
      await (signal ? untilAborted(before, signal) : before);
    } catch (err) {
      giveBack();
      throw err;
    }
    let overrun: NodeJS.Timeout | undefined;
    const onAbort = () => {
      overrun = setTimeout(giveBack, overrunMs);
      overrun.unref();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(overrun);
      giveBack();
    };
  }
}

/** Runs `fn` in a turn of `turns`, given back once `fn` has settled (see Turns.take for `signal`). */
export async function inTurn<T>(turns: Turns, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const giveBack = await turns.take(signal);
  try {
    return await fn();
  } finally {
    giveBack();
  }
}

/** This process's Lighthouse turns. */
export const lighthouseTurns = new Turns();
