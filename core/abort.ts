/**
 * Waiting on work that an AbortSignal stops. The signal's owner stops the work itself (closes the
 * browser context, for one); this only makes sure the caller does not wait for it to notice.
 */

/** Settles like `work`, or rejects with the signal's reason as soon as the signal aborts. */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    throw signal.reason;
  }
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** How late a timer may fire before the process is taken to have been too busy to read an answer. */
const LATE_MS = 50;

/**
 * Settles like `work`, or rejects with a TimeoutError once `ms` have passed in which this process
 * could have read its answer. A limit timer that fires late means the event loop was held
 * meanwhile (a runner in the same process loading Lighthouse's modules, a busy machine): the
 * answer may be waiting unread in a socket, and timers run before sockets are read, so the limit
 * is given the same time once more instead of reporting a database that did answer as silent.
 */
export async function answerWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    const arm = (rearm: boolean) => {
      const due = performance.now() + ms;
      timer = setTimeout(() => {
        if (rearm && performance.now() - due > LATE_MS) arm(false);
        else reject(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
      }, ms);
    };
    arm(true);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
