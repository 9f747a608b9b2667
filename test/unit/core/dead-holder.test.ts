// The decision to clear the managed product's Lease (docs/leader-election.md, "The managed product's
// leader: handing over a dead holder's Lease"): one case per signal and fault of the safety argument.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  controllerRuntimeHolderPod,
  decideHolderRelease,
  podFacts,
  type PodFacts,
} from '../../../src/core/dead-holder.js';

const UUID = '0f8a7c1e-9b2d-4c3e-8f10-123456789abc';
const POD = 'kgateway-7d9f8b6c5d-x2k4q';
const HOLDER = `${POD}_${UUID}`;

type State = 'running' | 'terminated' | 'waiting' | 'none';
function pod(opts: {
  deleting?: boolean;
  states?: State[];
  generateName?: string | null;
  hostname?: string;
  uid?: string;
}): V1Pod {
  const states = opts.states ?? ['running'];
  return {
    metadata: {
      name: POD,
      uid: opts.uid ?? 'uid-1',
      ...(opts.generateName === null ? {} : { generateName: opts.generateName ?? 'kgateway-7d9f8b6c5d-' }),
      ...(opts.deleting ? { deletionTimestamp: new Date(), deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      containers: states.map((_, i) => ({ name: `c${i}` })),
      ...(opts.hostname ? { hostname: opts.hostname } : {}),
    },
    status: {
      containerStatuses: states.flatMap((s, i) =>
        s === 'none'
          ? []
          : [
              {
                name: `c${i}`,
                image: 'x',
                imageID: '',
                ready: s === 'running',
                restartCount: 0,
                state:
                  s === 'running'
                    ? { running: {} }
                    : s === 'waiting'
                      ? { waiting: { reason: 'ContainerCreating' } }
                      : { terminated: { exitCode: 0, reason: 'Completed' } },
              },
            ],
      ),
    },
  } as V1Pod;
}
const facts = (o: Parameters<typeof pod>[0]): PodFacts => podFacts(pod(o));

describe('the holder identity names a pod (controller-runtime: <hostname>_<uuid>)', () => {
  it('maps a controller-runtime identity to its pod, and nothing else', () => {
    expect(controllerRuntimeHolderPod(HOLDER)).toBe(POD);
    expect(controllerRuntimeHolderPod('kgateway-abc')).toBeUndefined(); // no uuid
    expect(controllerRuntimeHolderPod(`${POD}_1234`)).toBeUndefined(); // not a uuid
    expect(controllerRuntimeHolderPod(`${POD}_${UUID}_x`)).toBeUndefined();
    expect(controllerRuntimeHolderPod(`Upper_${UUID}`)).toBeUndefined(); // not a pod name
    expect(controllerRuntimeHolderPod('')).toBeUndefined();
  });
});

describe('clears only when the kubelet confirmed the holder stopped for good', () => {
  const base = { holder: HOLDER, holderPod: POD };

  it('graceful deletion confirmed (deleting, every container terminated), pod still present: clear', () => {
    const d = decideHolderRelease({
      ...base,
      pod: facts({ deleting: true, states: ['terminated', 'terminated'] }),
    });
    expect(d).toEqual({ release: true, reason: expect.stringContaining('terminated') });
  });

  it('graceful deletion confirmed, then the kubelet removed the pod object: clear', () => {
    const d = decideHolderRelease({ ...base, deleted: facts({ deleting: true, states: ['terminated'] }) });
    expect(d.release).toBe(true);
    expect(d.reason).toContain('deleted after');
  });

  it('force deletion (or the pod GC of a lost node): the object is gone, last seen running: no clear', () => {
    const d = decideHolderRelease({ ...base, deleted: facts({ deleting: true, states: ['running'] }) });
    expect(d.release).toBe(false);
    expect(d.reason).toContain("without its kubelet's confirmation");
    // Force-deleted before any deletionTimestamp was seen.
    expect(decideHolderRelease({ ...base, deleted: facts({ states: ['running'] }) }).release).toBe(false);
  });

  it('in its grace period (deleting, a container still running): no clear', () => {
    const d = decideHolderRelease({
      ...base,
      pod: facts({ deleting: true, states: ['terminated', 'running'] }),
    });
    expect(d.release).toBe(false);
    expect(d.reason).toContain('c1 (running)');
  });

  it('a container not reported yet, or waiting: no clear', () => {
    expect(decideHolderRelease({ ...base, pod: facts({ deleting: true, states: ['none'] }) }).release).toBe(
      false,
    );
    expect(
      decideHolderRelease({ ...base, pod: facts({ deleting: true, states: ['waiting'] }) }).release,
    ).toBe(false);
  });

  it('running and not deleting (an unreachable node looks the same: the kubelet reports nothing): no clear', () => {
    expect(decideHolderRelease({ ...base, pod: facts({}) }).release).toBe(false);
  });

  it('a terminated container of a pod that is not being deleted (it restarts, as a new identity): no clear', () => {
    const d = decideHolderRelease({ ...base, pod: facts({ states: ['terminated'] }) });
    expect(d.release).toBe(false);
    expect(d.reason).toContain('not being deleted');
  });

  it('a pod whose name may be reused (no generateName) or whose hostname is not its name: no clear', () => {
    const confirmed = { deleting: true, states: ['terminated'] as State[] };
    expect(decideHolderRelease({ ...base, pod: facts({ ...confirmed, generateName: null }) }).release).toBe(
      false,
    );
    expect(
      decideHolderRelease({ ...base, deleted: facts({ ...confirmed, generateName: null }) }).release,
    ).toBe(false);
    expect(decideHolderRelease({ ...base, pod: facts({ ...confirmed, hostname: 'other' }) }).release).toBe(
      false,
    );
  });

  it('a new pod of the same name exists (running) beside the confirmed end of an older one: no clear', () => {
    const d = decideHolderRelease({
      ...base,
      pod: facts({ uid: 'uid-2' }),
      deleted: facts({ deleting: true, states: ['terminated'] }),
    });
    expect(d.release).toBe(false);
  });

  it('a missed update (stale cache, relisted watch): never seen: no clear', () => {
    expect(decideHolderRelease(base).release).toBe(false);
  });

  it('no holder, or a holder that names no pod: no clear', () => {
    expect(decideHolderRelease({ holder: '' }).release).toBe(false);
    expect(decideHolderRelease({ holder: 'someone' }).release).toBe(false);
  });
});
