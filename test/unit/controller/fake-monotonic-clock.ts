// A MonotonicClock whose time moves only when a test says so. Timers fire synchronously, in due order
// (then creation order), with now() set to their due time while they run.
import type { Clock } from '../../../src/runtime/clock.js';

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
}

export class FakeMonotonicClock implements Clock {
  /** The wall clock this fake reports; tests move it themselves. */
  wallNow: () => Date = () => new Date(0);
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();
  /** Every delay passed to setTimeout, in order (to check what was armed). */
  readonly armed: number[] = [];

  /**
   * `leakyClear`: clearTimeout does nothing, as when a timer was already due and queued when it was
   * cleared. Code that must not act on a superseded timer has to check for itself.
   */
  constructor(
    start = 1_000_000,
    private readonly leakyClear = false,
  ) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.armed.push(ms);
    this.timers.set(id, { due: this.t + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (this.leakyClear) return;
    this.timers.delete(handle as number);
  }

  pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, Timer] | undefined;
      for (const entry of this.timers) {
        const [, timer] = entry;
        if (timer.due > end) continue;
        if (!next || timer.due < next[1].due || (timer.due === next[1].due && timer.seq < next[1].seq))
          next = entry;
      }
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].due);
      next[1].fn();
    }
    this.t = end;
  }
}
