// Start-up API discovery: retried within the start-up window instead of ending the process, and the
// kinds missing at start-up asked for again later. Pure units with a scripted GET and a fake clock; the
// process-level behaviour (a real operator process against an API server it cannot reach) is in
// test/unit/process/startup.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  serves,
  watchForKinds,
  withinStartupWindow,
  type DiscoveryGet,
} from '../../../src/kube/discovery.js';

const httpError = (code: number, message: string) => Object.assign(new Error(message), { code });
const resources = (...names: string[]) => ({ resources: names.map((name) => ({ name })) });
const target = { path: '/apis/glooha.io/v1alpha1', plural: 'kgatewayhas' };

describe('withinStartupWindow + serves', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a TLS reset, a 503 while paths install and a 403 while RBAC warms up are retried, then it answers', async () => {
    const failures = [
      Object.assign(new Error('read ECONNRESET'), { errno: -104, code: 'ECONNRESET' }),
      httpError(
        503,
        'the server is currently unable to handle the request: before all known HTTP paths have been installed',
      ),
      httpError(
        403,
        'forbidden: User "system:serviceaccount:glooha-system:glooha-operator" cannot get path "/apis/glooha.io/v1alpha1"',
      ),
    ];
    const get: DiscoveryGet = async () => {
      const next = failures.shift();
      if (next) throw next;
      return resources('gloohas', 'kgatewayhas');
    };
    const retries: number[] = [];
    const answer = withinStartupWindow(() => serves(get, target), {
      onRetry: (_err, attempt) => retries.push(attempt),
    });
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(answer).resolves.toBe(true);
    expect(retries).toEqual([1, 2, 3]);
  });

  it('404 (group version not installed) is an answer, not an error', async () => {
    const get: DiscoveryGet = async () => {
      throw httpError(404, 'not found');
    };
    await expect(withinStartupWindow(() => serves(get, target))).resolves.toBe(false);
    await expect(withinStartupWindow(() => serves(async () => resources('gloohas'), target))).resolves.toBe(
      false,
    );
  });

  it('gives up with the last error only when the window is over', async () => {
    let calls = 0;
    const get: DiscoveryGet = async () => {
      calls++;
      throw httpError(503, `unavailable #${calls}`);
    };
    const answer = withinStartupWindow(() => serves(get, target), { windowMs: 120_000 });
    const settled = answer.then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await vi.advanceTimersByTimeAsync(110_000);
    let state: string | undefined;
    void settled.then((s) => (state = s));
    await vi.advanceTimersByTimeAsync(0);
    expect(state).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await settled).toBe(`unavailable #${calls}`);
    // backoff 250 ms doubling to 8 s: ~20 attempts in two minutes, not thousands
    expect(calls).toBeGreaterThan(10);
    expect(calls).toBeLessThan(30);
  });

  it('an abort (SIGTERM during start-up) ends the wait at once', async () => {
    const stop = new AbortController();
    const answer = withinStartupWindow(
      () => serves(async () => Promise.reject(httpError(503, 'unavailable')), target),
      { signal: stop.signal },
    );
    const outcome = answer.catch((err: Error) => err.message);
    await vi.advanceTimersByTimeAsync(1_000);
    stop.abort(new Error('stopping: SIGTERM'));
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toBe('stopping: SIGTERM');
  });
});

describe('watchForKinds', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('asks every interval, survives failed checks, and calls onServed once the kinds are served', async () => {
    const answers: (boolean | Error)[] = [false, new Error('ECONNRESET'), false, true];
    const served = vi.fn(async () => {
      const a = answers.shift()!;
      if (a instanceof Error) throw a;
      return a;
    });
    const onServed = vi.fn();
    const errors: unknown[] = [];
    const stop = new AbortController();
    const done = watchForKinds({
      served,
      onServed,
      signal: stop.signal,
      intervalMs: 30_000,
      onError: (e) => errors.push(e),
    });
    await vi.advanceTimersByTimeAsync(29_000);
    expect(served).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(3 * 30_000 + 1_000);
    await done;
    expect(served).toHaveBeenCalledTimes(4);
    expect(errors).toHaveLength(1);
    expect(onServed).toHaveBeenCalledTimes(1);
  });

  it('stops asking when the operator stops', async () => {
    const served = vi.fn(async () => false);
    const stop = new AbortController();
    const done = watchForKinds({ served, onServed: () => {}, signal: stop.signal, intervalMs: 30_000 });
    await vi.advanceTimersByTimeAsync(61_000);
    stop.abort();
    await done;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(served).toHaveBeenCalledTimes(2);
  });
});
