// Which of the optional kinds the API server serves (API discovery), asked at start-up and again
// later. At start-up a single failed request must not end the process: while the API server restarts
// a TLS reset, a 503 "before all known HTTP paths have been installed" or a 403 while RBAC warms up
// are ordinary, and each used to crash-loop the replica (every one of 32 unexpected exits in the fault
// tests). So every answer but "not served" (404, or a group version without the resource) is retried
// with backoff inside the same start-up window the cache sync has (2 minutes), and the last error is
// reported only when the window is over.
//
// A kind installed after the operator (the KgatewayHA CRD applied later, Gateway API added to the
// cluster) is noticed by asking again every few tens of seconds: the caller then restarts gracefully
// (the Lease is released, a standby takes over at once) to watch it, as a CRD cannot be added to a
// running manager's caches.

import { errorStatus } from './client.js';
import { realClock, sleep, type Clock } from '../runtime/clock.js';

/** A GET of a discovery path, as KubeClient.request does it. */
export type DiscoveryGet = (path: string, signal?: AbortSignal) => Promise<unknown>;

export interface DiscoveryTarget {
  /** e.g. /apis/glooha.io/v1alpha1 */
  path: string;
  plural: string;
}

/** The start-up window: the same as the cache sync's (controller-runtime's 2 minutes). */
export const DISCOVERY_WINDOW_MS = 120_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** How often the kinds that were missing are asked for again. */
export const REDISCOVERY_INTERVAL_MS = 30_000;

/** Whether the API server serves `plural` at `path`; 404 means not served, anything else throws. */
export async function serves(
  get: DiscoveryGet,
  target: DiscoveryTarget,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const list = (await get(target.path, signal)) as { resources?: { name?: unknown }[] } | undefined;
    return (list?.resources ?? []).some((r) => r.name === target.plural);
  } catch (err) {
    if (errorStatus(err) === 404) return false;
    throw err;
  }
}

export interface RetryOptions {
  windowMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
  /** Called before each retry with the failure and the delay. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

/**
 * `attempt()` until it resolves, retrying any error with jittered exponential backoff (250 ms
 * doubling to 8 s) until `windowMs` has passed since the first attempt; then the last error is
 * thrown. An aborted signal ends it at once with the signal's reason.
 */
export async function withinStartupWindow<T>(attempt: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const clock = opts.clock ?? realClock;
  const windowMs = opts.windowMs ?? DISCOVERY_WINDOW_MS;
  const started = clock.now();
  let backoff = FIRST_BACKOFF_MS;
  for (let n = 1; ; n++) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const left = windowMs - (clock.now() - started);
      if (left <= 0) throw err;
      const delay = Math.min(left, backoff * (1 + Math.random() * 0.2));
      opts.onRetry?.(err, n, delay);
      await sleep(delay, opts.signal, clock);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }
}

export interface RediscoveryOptions {
  /** True once what was missing at start-up is served (all of it). */
  served: (signal: AbortSignal) => Promise<boolean>;
  /** Called once, when `served` first says true. */
  onServed: () => void;
  signal: AbortSignal;
  intervalMs?: number;
  clock?: Clock;
  /** A failed check (it is asked again at the next interval). */
  onError?: (err: unknown) => void;
}

/** Asks `served` every `intervalMs` until it says true (then calls onServed) or `signal` aborts. */
export async function watchForKinds(opts: RediscoveryOptions): Promise<void> {
  const clock = opts.clock ?? realClock;
  const interval = opts.intervalMs ?? REDISCOVERY_INTERVAL_MS;
  while (!opts.signal.aborted) {
    try {
      await sleep(interval, opts.signal, clock);
    } catch {
      return;
    }
    try {
      if (await opts.served(opts.signal)) {
        if (!opts.signal.aborted) opts.onServed();
        return;
      }
    } catch (err) {
      if (opts.signal.aborted) return;
      opts.onError?.(err);
    }
  }
}
