// Test doubles for the runtime: a manual clock and a fake list/watch transport.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Clock } from '../../../src/runtime/clock.js';
import type { ListPage, ListRequest, Transport, WatchRequest } from '../../../src/runtime/informer.js';

/** Lets pending promise callbacks (several hops deep) run. */
export async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** A clock that only moves when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  private t = 0;
  private nextId = 1;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  wallNow(): Date {
    return new Date(Date.UTC(2030, 0, 1) + this.t);
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting promises settle after each. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await flush();
    }
    this.t = target;
    await flush();
  }
}

export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function obj(
  name: string,
  rv: string,
  extra: Partial<KubernetesObject> & Record<string, unknown> = {},
  namespace = 'ns',
): KubernetesObject & Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...extra,
    metadata: { name, namespace, resourceVersion: rv, ...(extra.metadata ?? {}) },
  };
}

export interface FakeWatch {
  req: WatchRequest;
  send(type: string, o: unknown): void;
  /** Ends the watch as the server would (no error), or with an error. */
  close(err?: unknown): void;
  aborted: boolean;
}

/**
 * A scripted API server: `lists` answers list calls in order (a function can throw), every watch
 * call is recorded and driven by the test.
 */
export class FakeTransport<T extends KubernetesObject> implements Transport<T> {
  listCalls: ListRequest[] = [];
  watches: FakeWatch[] = [];
  listResponder: (req: ListRequest) => ListPage<T> | Promise<ListPage<T>>;
  watchError?: unknown;

  constructor(listResponder: (req: ListRequest) => ListPage<T> | Promise<ListPage<T>>) {
    this.listResponder = listResponder;
  }

  async list(req: ListRequest): Promise<ListPage<T>> {
    this.listCalls.push(req);
    return this.listResponder(req);
  }

  async watch(
    req: WatchRequest,
    onEvent: (type: string, obj: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<{ abort(): void }> {
    let done = false;
    const w: FakeWatch = {
      req,
      aborted: false,
      send: (type, o) => {
        if (!done) onEvent(type, o);
      },
      close: (err) => {
        if (done) return;
        done = true;
        onDone(err ?? null);
      },
    };
    this.watches.push(w);
    if (this.watchError) {
      const err = this.watchError;
      queueMicrotask(() => w.close(err));
    }
    return {
      abort: () => {
        w.aborted = true;
        w.close(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      },
    };
  }

  get lastWatch(): FakeWatch {
    const w = this.watches[this.watches.length - 1];
    if (!w) throw new Error('no watch yet');
    return w;
  }
}
