import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { fenceInterceptor, type FenceLayer } from '../../../src/kube/fence.js';

/** A dispatch that records what it was given and lets the test play undici's part. */
function fakeDispatch() {
  const seen: { opts: Dispatcher.DispatchOptions; handler: Dispatcher.DispatchHandler }[] = [];
  const dispatch: Dispatcher.Dispatch = (opts, handler) => {
    seen.push({ opts, handler });
    return true;
  };
  return { dispatch, seen };
}

function controller() {
  const c = {
    aborted: false,
    paused: false,
    reason: null as Error | null,
    abort(reason: Error) {
      c.aborted = true;
      c.reason = reason;
    },
    pause() {},
    resume() {},
  };
  return c;
}

describe('fenceInterceptor: the write fence as an undici dispatcher interceptor', () => {
  it('passes reads through untouched, without asking the fence', () => {
    const { dispatch, seen } = fakeDispatch();
    let asked = 0;
    const handler: Dispatcher.DispatchHandler = {};
    fenceInterceptor(() => void asked++)(dispatch)({ path: '/x', method: 'GET' }, handler);
    expect(asked).toBe(0);
    expect(seen[0]!.handler).toBe(handler);
  });

  it('refuses a write before dispatching it (layer client): nothing reaches the connection', () => {
    const { dispatch, seen } = fakeDispatch();
    const refused: FenceLayer[] = [];
    const fenced = fenceInterceptor(
      () => {
        throw new Error('not the leader');
      },
      (l) => refused.push(l),
    )(dispatch);
    expect(() => fenced({ path: '/x', method: 'PATCH' }, {})).toThrow('not the leader');
    expect(seen).toHaveLength(0);
    expect(refused).toEqual(['client']);
  });

  it('asks again right before the first byte (layer socket) and aborts the request there', () => {
    const { dispatch, seen } = fakeDispatch();
    const refused: FenceLayer[] = [];
    let leading = true;
    let innerStarted = 0;
    const fenced = fenceInterceptor(
      () => {
        if (!leading) throw new Error('term over');
      },
      (l) => refused.push(l),
    )(dispatch);
    fenced({ path: '/x', method: 'POST' }, { onRequestStart: () => void innerStarted++ });
    leading = false; // the term ends while the connection is being made
    const c = controller();
    seen[0]!.handler.onRequestStart!(c, {});
    expect(c.aborted).toBe(true);
    expect(c.reason?.message).toBe('term over');
    expect(innerStarted).toBe(0);
    expect(refused).toEqual(['socket']);
  });

  it('a write still in its term goes on, every callback reaching the caller', () => {
    const { dispatch, seen } = fakeDispatch();
    const calls: string[] = [];
    const fenced = fenceInterceptor(() => {})(dispatch);
    fenced(
      { path: '/x', method: 'DELETE' },
      {
        onRequestStart: () => void calls.push('start'),
        onResponseStart: (_c, status) => void calls.push(`status ${status}`),
        onResponseData: () => void calls.push('data'),
        onResponseEnd: () => void calls.push('end'),
      },
    );
    const h = seen[0]!.handler;
    const c = controller();
    h.onRequestStart!(c, {});
    h.onResponseStart!(c, 200, {}, 'OK');
    h.onResponseData!(c, Buffer.from('{}'));
    h.onResponseEnd!(c, {});
    expect(c.aborted).toBe(false);
    expect(calls).toEqual(['start', 'status 200', 'data', 'end']);
  });
});
