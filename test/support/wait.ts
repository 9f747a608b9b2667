// Polling for integration tests: the API is eventually consistent, so tests wait for a condition
// with a deadline (never a fixed sleep) and report the last observed value when it times out.
import { setTimeout as sleep } from 'node:timers/promises';

export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  { timeoutMs = 30_000, intervalMs = 200 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      last = value;
      if (accept(value)) return value;
    } catch (err) {
      last = err instanceof Error ? `error: ${err.message}` : err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last observed: ${JSON.stringify(last)?.slice(0, 2000)}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** The HTTP status of a client-node ApiException (undefined for other errors). */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Resolves to the HTTP status the call fails with, or 200 when it succeeds. */
export async function httpStatusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return 200;
  } catch (err) {
    return statusOf(err);
  }
}
