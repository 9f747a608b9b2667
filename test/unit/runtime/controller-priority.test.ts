// Which informer events a controller queues at which priority: the initial list (before the first
// sync, and the replay when a controller registers on a synced cache) and resyncs at LOW, live events
// at NORMAL, the echo of its own writes at LOW when the watch says so.
import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Controller } from '../../../src/runtime/controller.js';
import { Informer } from '../../../src/runtime/informer.js';
import { Priority } from '../../../src/runtime/ready-queue.js';
import { FakeClock, FakeTransport, flush, obj } from './helpers.js';

type Obj = KubernetesObject & Record<string, unknown>;
const { low, normal } = Priority;

function informerOf(items: Obj[]) {
  const transport = new FakeTransport<Obj>(() => ({ items, resourceVersion: '100' }));
  const informer = new Informer<Obj>(undefined, {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    watchTimeoutSeconds: 300,
    transport,
    clock: new FakeClock(),
  });
  return { transport, informer };
}

/** A controller with one worker whose reconciles wait for the test to release them. */
function gatedController() {
  const calls: string[] = [];
  const gates = new Map<string, () => void>();
  const c = new Controller({
    name: 't',
    concurrency: 1,
    reconcile: async (key) => {
      calls.push(key);
      await new Promise<void>((resolve) => gates.set(key, resolve));
      gates.delete(key);
    },
  });
  const release = async (key: string) => {
    const g = gates.get(key);
    if (!g) throw new Error(`${key} is not running (running: ${[...gates.keys()].join(',')})`);
    g();
    await flush();
  };
  const stop = async () => {
    const stopped = c.stop();
    for (const g of gates.values()) g();
    await stopped;
  };
  return { c, calls, release, stop, ready: () => Object.fromEntries(c.queue.readyByPriority()) };
}

const backlog = Array.from({ length: 6 }, (_, i) => obj(`k${i}`, '1'));

describe('Controller priorities', () => {
  it("a cold start's initial list queues at low; a change to one of them meanwhile moves it up", async () => {
    const { transport, informer } = informerOf(backlog);
    const g = gatedController();
    g.c.watch(informer); // informer not started: its list arrives after the controller starts it
    await g.c.start();
    await flush();
    expect(g.calls).toEqual(['ns/k0']);
    expect(g.ready()).toEqual({ [low]: 5 });
    // A user edits the last object of the backlog.
    transport.lastWatch.send('MODIFIED', obj('k5', '2', { data: { v: '1' } }));
    expect(g.ready()).toEqual({ [normal]: 1, [low]: 4 });
    await g.release('ns/k0');
    expect(g.calls).toEqual(['ns/k0', 'ns/k5']);
    // An object created now is a live event too.
    transport.lastWatch.send('ADDED', obj('new', '3'));
    await g.release('ns/k5');
    expect(g.calls.at(-1)).toBe('ns/new');
    await g.release('ns/new');
    expect(g.calls.at(-1)).toBe('ns/k1'); // then the backlog, in list order
    await g.stop();
  });

  it('a controller registering on a synced cache (a new leader term) replays it at low', async () => {
    const { transport, informer } = informerOf(backlog);
    informer.start();
    await informer.waitForSync();
    const g = gatedController();
    g.c.watch(informer);
    expect(g.ready()).toEqual({ [low]: 6 });
    await g.c.start();
    await flush();
    transport.lastWatch.send('DELETED', obj('k3', '2'));
    expect(g.ready()).toEqual({ [normal]: 1, [low]: 4 });
    await g.release('ns/k0');
    expect(g.calls).toEqual(['ns/k0', 'ns/k3']);
    await g.stop();
    await informer.stop();
  });

  it('resyncNow queues at low: a live event still goes first', async () => {
    const { transport, informer } = informerOf(backlog.slice(0, 3));
    const g = gatedController();
    g.c.watch(informer);
    await g.c.start();
    await flush();
    for (const k of ['ns/k0', 'ns/k1', 'ns/k2']) await g.release(k);
    await g.c.queue.whenIdle();
    g.c.resyncNow();
    await flush();
    expect(g.ready()).toEqual({ [low]: 2 });
    transport.lastWatch.send('MODIFIED', obj('k2', '5', { data: { v: '2' } }));
    await g.release('ns/k0');
    expect(g.calls.at(-1)).toBe('ns/k2');
    await g.stop();
  });

  it('lowPriority: the echo of our own write queues at low, anything else at normal', async () => {
    const primary = informerOf(backlog);
    const secondary = informerOf([]);
    const ours = new Set(['7']); // the resourceVersion our own write produced
    const seen: string[] = []; // the events the hook was asked about
    const g = gatedController();
    g.c.watch(primary.informer);
    g.c.watch(secondary.informer, {
      mapToKeys: (o) => `ns/${o.metadata?.labels?.owner}`,
      lowPriority: (o, key, ev) => {
        seen.push(ev.type);
        return ours.has(o.metadata?.resourceVersion ?? '');
      },
    });
    await g.c.start();
    await flush();
    const dep = (rv: string, owner: string) =>
      obj(`dep-${owner}`, rv, { metadata: { name: `dep-${owner}`, labels: { owner } } });
    secondary.transport.lastWatch.send('ADDED', dep('7', 'k4')); // our write: stays low
    expect(g.ready()).toEqual({ [low]: 5 });
    secondary.transport.lastWatch.send('ADDED', dep('8', 'k5')); // someone else's: normal
    expect(g.ready()).toEqual({ [normal]: 1, [low]: 4 });
    await g.release('ns/k0');
    expect(g.calls.at(-1)).toBe('ns/k5');
    expect(seen).toEqual(['add', 'add']); // the hook gets the event (an add here, for each key)

    // An event for the key being reconciled is judged when that reconcile ends: its write's echo
    // usually comes before the write's answer, which is what tells the hook it is ours.
    expect(g.calls.at(-1)).toBe('ns/k5');
    secondary.transport.lastWatch.send(
      'ADDED',
      obj('another', '9', { metadata: { name: 'another', labels: { owner: 'k5' } } }),
    );
    expect(seen).toHaveLength(2); // not asked yet
    ours.add('9');
    await g.release('ns/k5');
    expect(g.calls.at(-1)).toBe('ns/k1'); // k5 again, but at low: behind the backlog
    expect(g.ready()).toEqual({ [low]: 4 });
    await g.stop();
  });
});
