// HolderRelease: the write that hands a confirmed-dead holder's Lease over, as client-go's release
// writes it, conditional on the resourceVersion read; never twice for one record; only on the leader;
// a 409 (renewed or taken meanwhile) writes nothing more.
import type { V1Lease, V1Pod } from '@kubernetes/client-node';
import { beforeEach, describe, expect, it } from 'vitest';
import { HolderRelease } from '../../../src/controller/holder-release.js';
import { controllerRuntimeHolderPod } from '../../../src/core/dead-holder.js';
import { KubeApiError, type KubeClient } from '../../../src/kube/client.js';
import type { Leadership } from '../../../src/leader/leadership.js';
import { createLogger } from '../../../src/log.js';
import { FakeMonotonicClock } from './fake-monotonic-clock.js';

const NS = 'kgateway-system';
const POD = 'kgateway-7d9f8b6c5d-x2k4q';
const HOLDER = `${POD}_0f8a7c1e-9b2d-4c3e-8f10-123456789abc`;

const lease = (rv: string, holder = HOLDER): V1Lease =>
  ({
    metadata: { name: 'kgateway-envoy', namespace: NS, resourceVersion: rv },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: '2030-01-01T00:00:00.000000Z',
      renewTime: '2030-01-01T00:00:10.000000Z',
      leaseTransitions: 4,
    },
  }) as unknown as V1Lease;

const pod = (states: Array<'running' | 'terminated'>, deleting = true): V1Pod =>
  ({
    metadata: {
      name: POD,
      namespace: NS,
      uid: 'u1',
      generateName: 'kgateway-7d9f8b6c5d-',
      ...(deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: { containers: [{ name: 'controller' }] },
    status: {
      containerStatuses: states.map((s) => ({
        name: 'controller',
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 0,
        // The kubelet's report of the holder's own process: it ended after the Lease's acquireTime.
        state:
          s === 'running'
            ? { running: {} }
            : {
                terminated: {
                  exitCode: 143,
                  reason: 'Error',
                  containerID: 'containerd://abc',
                  finishedAt: '2030-01-01T00:00:11Z',
                },
              },
      })),
    },
  }) as V1Pod;

let requests: Array<{ method: string; path: string; body: unknown }>;
let respond: () => unknown;
let leading: boolean;
let current: V1Lease | undefined;
let live: V1Pod | undefined;
let released: string[];
let release: HolderRelease;

beforeEach(() => {
  requests = [];
  respond = () => ({});
  leading = true;
  current = lease('100');
  live = undefined;
  released = [];
  const clock = new FakeMonotonicClock();
  clock.wallNow = () => new Date('2030-01-01T00:00:12.345Z');
  const client = {
    request: async (method: string, path: string, opts: { body?: unknown }) => {
      requests.push({ method, path, body: opts.body });
      return respond();
    },
  } as unknown as KubeClient;
  const leadership = {
    canWrite: () => leading,
    leadingSignal: new AbortController().signal,
  } as unknown as Leadership;
  release = new HolderRelease({
    client,
    leadership,
    log: createLogger('error'),
    clock,
    pod: () => live,
    lease: () => current,
    holderPod: controllerRuntimeHolderPod,
    electorContainer: 'controller',
    managed: (ns) => ns === NS,
    onReleased: (_ns, holder) => released.push(holder),
  });
});

describe('HolderRelease', () => {
  it("writes client-go's release on the resourceVersion it read once the kubelet reported the holder's process ended", async () => {
    release.podDeleted(pod(['terminated']));
    expect(await release.evaluate(NS)).toBe(true);
    expect(requests).toHaveLength(1);
    const r = requests[0]!;
    expect(r.method).toBe('PUT');
    expect(r.path).toBe(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/kgateway-envoy`);
    expect(r.body).toMatchObject({
      metadata: { resourceVersion: '100' },
      spec: {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: '2030-01-01T00:00:12.345000Z',
        renewTime: '2030-01-01T00:00:12.345000Z',
        leaseTransitions: 4,
      },
    });
    expect(released).toEqual([HOLDER]);
    // The same record is never written twice.
    expect(await release.evaluate(NS)).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('writes nothing for a force-deleted pod, a running one, in another namespace, or on a standby', async () => {
    release.podDeleted(pod(['running']));
    expect(await release.evaluate(NS)).toBe(false);
    live = pod(['running'], false);
    expect(await release.evaluate(NS)).toBe(false);
    live = pod(['terminated']);
    expect(await release.evaluate('elsewhere')).toBe(false);
    leading = false;
    expect(await release.evaluate(NS)).toBe(false);
    expect(requests).toHaveLength(0);
  });

  it('a 409 (the Lease was renewed or taken since it was read) writes nothing more', async () => {
    live = pod(['terminated']);
    respond = () => {
      throw new KubeApiError(409, 'PUT lease', { reason: 'Conflict' }, {});
    };
    expect(await release.evaluate(NS)).toBe(false);
    expect(requests).toHaveLength(1);
    expect(released).toEqual([]);
    expect(await release.evaluate(NS)).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('another failure is retried on the next event for the same record', async () => {
    live = pod(['terminated']);
    respond = () => {
      throw new KubeApiError(500, 'PUT lease', {}, {});
    };
    expect(await release.evaluate(NS)).toBe(false);
    respond = () => ({});
    expect(await release.evaluate(NS)).toBe(true);
    expect(requests).toHaveLength(2);
  });
});
