// The process failure policy: every way out logs, stops (releasing the Lease) and exits — in time.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installFailurePolicy } from '../../../src/process/failure-policy.js';
import { createLogger } from '../../../src/log.js';

function setup(stop: (reason: string) => Promise<void>) {
  const events = new EventEmitter();
  const exits: number[] = [];
  const lines: Record<string, unknown>[] = [];
  const stops: string[] = [];
  const policy = installFailurePolicy({
    log: createLogger('debug', {}, (l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
    stop: (reason) => {
      stops.push(reason);
      return stop(reason);
    },
    exit: (code) => exits.push(code),
    deadlineMs: 10_000,
    events,
  });
  return { events, exits, lines, stops, policy };
}

describe('failure policy', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('unhandled rejection: logs it, stops (release), exits 1', async () => {
    const { events, exits, lines, stops } = setup(async () => {});
    events.emit('unhandledRejection', new Error('boom'), Promise.resolve());
    await vi.advanceTimersByTimeAsync(0);
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'unhandled promise rejection: stopping',
      err: { message: 'boom' },
    });
    expect(stops).toEqual(['unhandled promise rejection']);
    expect(exits).toEqual([1]);
  });

  it('uncaught exception: the same, once, even if a second failure follows during the stop', async () => {
    let finish = () => {};
    const { events, exits, stops } = setup(() => new Promise<void>((r) => (finish = r)));
    events.emit('uncaughtException', new Error('one'));
    events.emit('unhandledRejection', new Error('two'));
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(stops).toHaveLength(1);
    expect(exits).toEqual([1]);
  });

  it('SIGTERM: stops and exits 0; a stop that fails exits 1', async () => {
    const ok = setup(async () => {});
    ok.events.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(0);
    expect(ok.exits).toEqual([0]);
    const failing = setup(async () => {
      throw new Error('release failed');
    });
    failing.events.emit('SIGINT', 'SIGINT');
    await vi.advanceTimersByTimeAsync(0);
    expect(failing.exits).toEqual([1]);
  });

  it('a stop that hangs still ends the process at the deadline (exit 1)', async () => {
    const { events, exits, lines } = setup(() => new Promise<void>(() => {}));
    events.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(9_999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(lines.some((l) => l.msg === 'shutdown did not finish within its deadline; exiting')).toBe(true);
  });

  it('uninstall removes every listener it added', () => {
    const { events, policy } = setup(async () => {});
    policy.uninstall();
    for (const e of ['unhandledRejection', 'uncaughtException', 'SIGTERM', 'SIGINT'])
      expect(events.listenerCount(e)).toBe(0);
  });

  it('terminating() says a signal arrived, so a start-up that fails because of it is not an error exit', async () => {
    const { events, exits, policy } = setup(async () => {});
    expect(policy.terminating()).toBe(false);
    events.emit('SIGTERM', 'SIGTERM');
    expect(policy.terminating()).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([0]);
  });
});
