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
