// The operator's one source of time. Everything that waits or measures (work queue delays, informer
// backoff, resync, leader election) goes through a Clock so unit tests can drive time without
// sleeping. The default reads the globals at call time, so vitest's fake timers also work when
// installed after this module loads.
//
// Two kinds of time on purpose:
// - `now()` is MONOTONIC (performance.now(): CLOCK_MONOTONIC under libuv). Every decision — "has the
//   holder's lease expired?", "is my last renew younger than renewDeadline?", backoff — uses only
//   differences of it. It never jumps with NTP or a skewed node clock, and it keeps running while the
//   process is SIGSTOPped or stuck in a GC pause, which is what makes fencing after a pause work.
// - `wallNow()` is for stamping records humans and other tools read (the Lease's renewTime, condition
//   times); it is never compared with anything.

/** Opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

export interface Clock {
  /** Monotonic milliseconds (only differences are meaningful). */
  now(): number;
  /** Wall-clock time, only for stamping records. */
  wallNow(): Date;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  wallNow: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Why `signal` aborted, as an Error: its reason when that is one (AbortController's default, a
 * DOMException, is), else one that says what it was.
 */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error
    ? r
    : new Error(r === undefined ? 'aborted' : `aborted: ${JSON.stringify(r) ?? typeof r}`);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = realClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal ? abortReason(signal) : new Error('aborted'));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
