// The elector's only sources of time, behind an interface so unit tests can drive them.
//
// Two clocks on purpose:
// - `now()` is MONOTONIC (performance.now(): CLOCK_MONOTONIC under libuv). Every decision the elector
//   takes — "has the holder's lease expired?", "is my last renew younger than renewDeadline?" — uses
//   only differences of this clock, measured on this process. It never jumps with NTP or a skewed
//   node clock, and it keeps running while the process is SIGSTOPped or stuck in a GC pause, which is
//   exactly what makes fencing after a pause work.
// - `wallNow()` is only written into the Lease (acquireTime/renewTime) for humans and for tooling such
//   as `kubectl get lease`; it is never compared with anything.

/** Opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

export interface Clock {
  /** Monotonic milliseconds; only differences are meaningful. */
  now(): number;
  /** Wall-clock time, only for stamping the Lease record. */
  wallNow(): Date;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
