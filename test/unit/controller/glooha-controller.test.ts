// The GlooHA controller's wiring on a standby: caches warm, nothing reconciled, and what is remembered
// about a GlooHA forgotten when it is deleted — also on a replica that does not lead.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { setupGlooHAController } from '../../../src/controller/glooha-controller.js';
import { DEFAULT_TIMINGS } from '../../../src/leader/config.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { silentLogger } from '../../../src/log.js';
import { Manager, type Elector } from '../../../src/manager/manager.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { FakeTransport, flush } from '../runtime/helpers.js';
import { finalizedGlooHA } from './snapshots.js';

type Obj = KubernetesObject & Record<string, unknown>;

const standby: Elector = {
  start: () => {},
  stop: async () => {},
  isLeader: () => false,
  canWrite: () => false,
  assertLeading: () => {
    throw new NotLeaderError('standby');
  },
  leadingSignal: AbortSignal.abort(),
};

describe('GlooHA controller on a standby', () => {
  it('forgets a deleted GlooHA (reconciler memory) although it reconciles nothing', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const g = {
      ...finalizedGlooHA({ gloo: { replicas: 2 } }),
      metadata: { ...finalizedGlooHA({}).metadata, resourceVersion: '3' },
    };
    const transports = new Map<string, FakeTransport<Obj>>();
    const mgr = new Manager({
      kubeConfig: kc,
      logger: silentLogger,
      metrics: createMetrics({ defaultMetrics: false }),
      namespaces: [],
      leaderElection: {
        ...DEFAULT_TIMINGS,
        enabled: true,
        leaseName: 'x',
        namespace: 'ns',
        identity: 'me',
        releaseOnCancel: true,
      },
      metricsBindAddress: '127.0.0.1:0',
      makeElector: () => standby,
      informerTransport: (ref) => {
        const t = new FakeTransport<Obj>(() => ({
          items: ref.plural === 'gloohas' ? [g as unknown as Obj] : [],
          resourceVersion: '5',
        }));
        transports.set(ref.plural, t);
        return t as never;
      },
    });
    const ctl = setupGlooHAController(mgr, { concurrency: 1, resyncPeriodMs: 0 });
    await mgr.start();
    expect(ctl.gloohas.store.keys()).toEqual(['gloo-system/ha']);
    ctl.memory.setCorrections('gloo-system/ha', [{ message: 'x', corrected: true }]);
    ctl.memory.recordStatusWrite('gloo-system/ha', { json: '{}', basedOn: '3' });
    transports
      .get('gloohas')!
      .watches[0]!.send('DELETED', { ...g, metadata: { ...g.metadata, resourceVersion: '6' } });
    await flush();
    expect(ctl.gloohas.store.keys()).toEqual([]);
    expect(ctl.memory.size()).toBe(0);
    await mgr.stop('test');
  });
});
