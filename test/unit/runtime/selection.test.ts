// Selections evaluated on cached objects, and an informer watching the union of several: one store
// whose objects each selection's list and watch answer for (a re-list or a delete of one selection
// never drops what another still selects).
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Informer } from '../../../src/runtime/informer.js';
import { selectionMatcher } from '../../../src/runtime/selection.js';
import { FakeClock, FakeTransport, flush } from './helpers.js';

type Obj = KubernetesObject & Record<string, unknown>;

const o = (name: string, rv: string, labels: Record<string, string> = {}): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ns', resourceVersion: rv, labels },
});

describe('selectionMatcher', () => {
  const m = (labelSelector: string, labels: Record<string, string>) =>
    selectionMatcher({ labelSelector })(o('x', '1', labels));

  it('evaluates label selectors as the API server does', () => {
    expect(m('app=gloo', { app: 'gloo' })).toBe(true);
    expect(m('app==gloo', { app: 'gloo' })).toBe(true);
    expect(m('app=gloo', { app: 'other' })).toBe(false);
    expect(m('app!=gloo', {})).toBe(true);
    expect(m('app!=gloo', { app: 'gloo' })).toBe(false);
    expect(m('kgateway in (kgateway,kube-gateway)', { kgateway: 'kube-gateway' })).toBe(true);
    expect(m('kgateway in (kgateway,kube-gateway)', { kgateway: 'other' })).toBe(false);
    expect(m('kgateway in (kgateway,kube-gateway)', {})).toBe(false);
    expect(m('tier notin (a, b)', {})).toBe(true);
    expect(m('tier notin (a, b)', { tier: 'b' })).toBe(false);
    expect(m('app', { app: '' })).toBe(true);
    expect(m('!app', { app: '' })).toBe(false);
    expect(m('!app', {})).toBe(true);
    expect(m('a.b/managed-by=x,k in (v)', { 'a.b/managed-by': 'x', k: 'v' })).toBe(true);
    expect(m('a.b/managed-by=x,k in (v)', { 'a.b/managed-by': 'x' })).toBe(false);
    expect(m('', {})).toBe(true);
  });

  it('evaluates field selectors on metadata.name and metadata.namespace, and refuses others', () => {
    expect(selectionMatcher({ fieldSelector: 'metadata.name=x' })(o('x', '1'))).toBe(true);
    expect(selectionMatcher({ fieldSelector: 'metadata.name=y' })(o('x', '1'))).toBe(false);
    expect(selectionMatcher({ fieldSelector: 'metadata.namespace!=ns' })(o('x', '1'))).toBe(false);
    expect(() => selectionMatcher({ fieldSelector: 'status.phase=Running' })).toThrow(/status.phase/);
  });
});

describe('Informer with several selections', () => {
  function setup(items: Obj[]) {
    const transport = new FakeTransport<Obj>((req) => ({
      items: items.filter((i) => selectionMatcher({ labelSelector: req.labelSelector })(i)),
      resourceVersion: '100',
    }));
    const informer = new Informer<Obj>(undefined, {
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      selections: [{ labelSelector: 'app=gloo' }, { labelSelector: 'kgateway in (kgateway)' }],
      watchTimeoutSeconds: 300,
      transport,
      clock: new FakeClock(),
    });
    const events: string[] = [];
    informer.addEventHandler({
      add: (x) => events.push(`add ${x.metadata?.name}`),
      update: (_old, x) => events.push(`update ${x.metadata?.name}`),
      delete: (x) => events.push(`delete ${x.metadata?.name}`),
    });
    return { transport, informer, events };
  }

  it('lists and watches each selection into one store', async () => {
    const { transport, informer } = setup([
      o('gloo', '1', { app: 'gloo' }),
      o('kgw', '2', { kgateway: 'kgateway' }),
      o('other', '3', { app: 'other' }),
    ]);
    informer.start();
    await informer.waitForSync();
    await flush();
    expect(transport.listCalls.map((c) => c.labelSelector).sort()).toEqual([
      'app=gloo',
      'kgateway in (kgateway)',
    ]);
    expect(transport.watches.map((w) => w.req.labelSelector).sort()).toEqual([
      'app=gloo',
      'kgateway in (kgateway)',
    ]);
    expect(informer.store.keys().sort()).toEqual(['ns/gloo', 'ns/kgw']);
    await informer.stop();
  });

  it("one selection's list does not drop what only another selects", async () => {
    const { transport, informer, events } = setup([
      o('gloo', '1', { app: 'gloo' }),
      o('kgw', '2', { kgateway: 'kgateway' }),
    ]);
    informer.start();
    await informer.waitForSync();
    await flush();
    // The app=gloo watch expires: its re-list has gloo, and must not take kgw for deleted.
    const glooWatch = transport.watches.find((w) => w.req.labelSelector === 'app=gloo')!;
    glooWatch.send('ERROR', { code: 410 });
    await flush();
    expect(transport.listCalls.filter((c) => c.labelSelector === 'app=gloo')).toHaveLength(2);
    expect(informer.store.keys().sort()).toEqual(['ns/gloo', 'ns/kgw']);
    expect(events.filter((e) => e.startsWith('delete'))).toEqual([]);
    await informer.stop();
  });

  it('an object leaving one selection stays while another still selects it, and goes when none does', async () => {
    const both = o('both', '1', { app: 'gloo', kgateway: 'kgateway' });
    const { transport, informer, events } = setup([both]);
    informer.start();
    await informer.waitForSync();
    await flush();
    const glooWatch = transport.watches.find((w) => w.req.labelSelector === 'app=gloo')!;
    const kgwWatch = transport.watches.find((w) => w.req.labelSelector === 'kgateway in (kgateway)')!;
    // Relabelled out of app=gloo: that watch says DELETED, the other MODIFIED.
    const relabelled = o('both', '2', { kgateway: 'kgateway' });
    glooWatch.send('DELETED', relabelled);
    kgwWatch.send('MODIFIED', relabelled);
    await flush();
    expect(informer.store.keys()).toEqual(['ns/both']);
    expect(informer.store.get('ns/both')?.metadata?.resourceVersion).toBe('2');
    // Deleted for real: both watches say so; it goes once.
    glooWatch.send('DELETED', o('both', '3', { kgateway: 'other' }));
    kgwWatch.send('DELETED', o('both', '3', { kgateway: 'other' }));
    await flush();
    expect(informer.store.keys()).toEqual([]);
    expect(events.filter((e) => e.startsWith('delete'))).toEqual(['delete both']);
    await informer.stop();
  });
});
