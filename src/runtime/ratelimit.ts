// Rate limiters for retries, after client-go's workqueue rate limiters. controller-runtime's default
// controller limiter is the max of a per-item exponential backoff (5ms doubling to 1000s) and an
// overall token bucket (10 qps, burst 100); `defaultControllerRateLimiter()` is the same, plus jitter
// on the per-item delay so that many keys failing together (an API server outage) do not retry in
// lock step.
import { realClock, type Clock } from './clock.js';

export interface RateLimiter {
  /** How long to wait before retrying `key`; counts one more failure for it. */
  when(key: string): number;
  /** The item succeeded (or was given up on): reset its failure count. */
  forget(key: string): void;
  /** Failures counted for `key` since the last forget. */
  numRequeues(key: string): number;
}

export interface ExponentialBackoffOptions {
  /** Delay after the first failure (default 5 ms). */
  baseDelayMs?: number;
  /** Cap on the delay (default 1000 s). */
  maxDelayMs?: number;
  /**
   * Fraction of the delay that is randomised downwards (default 0.1): the delay after n failures is
   * uniform in [(1 - jitter) * d, d] with d = min(max, base * 2^n). Jitter never pushes a delay above the cap.
   */
  jitter?: number;
  /** Random source in [0, 1) (tests pin it). */
  random?: () => number;
}

/** Per-key exponential backoff with jitter (client-go's ItemExponentialFailureRateLimiter + jitter). */
export class ExponentialBackoffRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: number;
  private readonly random: () => number;

  constructor(opts: ExponentialBackoffOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1_000_000;
    this.jitter = Math.min(1, Math.max(0, opts.jitter ?? 0.1));
    this.random = opts.random ?? Math.random;
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return backoffDelay(n, this.baseDelayMs, this.maxDelayMs, this.jitter, this.random);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** The delay after `failures` previous failures: min(max, base * 2^failures), jittered downwards. */
export function backoffDelay(
  failures: number,
  baseMs: number,
  maxMs: number,
  jitter = 0,
  random: () => number = Math.random,
): number {
  const raw = baseMs * 2 ** failures;
  const capped = Number.isFinite(raw) ? Math.min(raw, maxMs) : maxMs;
  return capped * (1 - jitter * random());
}

export interface BucketOptions {
  /** Tokens added per second (default 10). */
  qps?: number;
  /** Bucket size (default 100). */
  burst?: number;
  clock?: Clock;
}

/**
 * An overall token bucket (client-go's BucketRateLimiter): every retry of any key reserves a token;
 * when the bucket is empty, the retry waits for the token it reserved. Per-key state is not kept.
 */
export class BucketRateLimiter implements RateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(opts: BucketOptions = {}) {
    this.qps = opts.qps ?? 10;
    this.burst = opts.burst ?? 100;
    this.clock = opts.clock ?? realClock;
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    return Math.max(0, ...this.limiters.map((l) => l.when(key)));
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    return Math.max(0, ...this.limiters.map((l) => l.numRequeues(key)));
  }
}

/** controller-runtime's default: max(per-key exponential 5ms..1000s with jitter, bucket 10 qps / 100). */
export function defaultControllerRateLimiter(
  opts: { backoff?: ExponentialBackoffOptions; bucket?: BucketOptions } = {},
): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialBackoffRateLimiter(opts.backoff),
    new BucketRateLimiter(opts.bucket),
  );
}
