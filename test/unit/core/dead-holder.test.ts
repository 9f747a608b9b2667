// The decision to clear the managed product's Lease (docs/leader-election.md, "The managed product's
// leader: handing over a dead holder's Lease"): one case per kubelet state and fault of the argument,
// then a model of container instances that checks the rule never calls a live holder's process ended.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  UNKNOWN_TERMINATION_REASON,
  controllerRuntimeHolderPod,
  decideHolderRelease,
  podAsRead,
  podFacts,
  timeMicros,
  type HolderFacts,
  type PodFacts,
} from '../../../src/core/dead-holder.js';

const UUID = '0f8a7c1e-9b2d-4c3e-8f10-123456789abc';
const POD = 'kgateway-7d9f8b6c5d-x2k4q';
const HOLDER = `${POD}_${UUID}`;
const ELECTOR = 'controller';

/** Seconds after a fixed origin, as the API server writes a metav1.Time (whole seconds) or a MicroTime. */
const T0 = Date.parse('2030-01-01T00:00:00Z');
const time = (s: number) => new Date(T0 + Math.floor(s) * 1000).toISOString().replace('.000Z', 'Z');
const micro = (s: number) => new Date(T0 + s * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

interface Ended {
  finishedAt?: number | 'zero';
  reason?: string;
  containerID?: string;
}
const terminated = (e: Ended) => ({
  terminated: {
    exitCode: 137,
    reason: e.reason ?? 'Error',
    ...(e.containerID === '' ? {} : { containerID: e.containerID ?? 'containerd://c1' }),
    ...(e.finishedAt === undefined
      ? {}
      : { finishedAt: e.finishedAt === 'zero' ? '0001-01-01T00:00:00Z' : time(e.finishedAt) }),
  },
});

function pod(
  opts: {
    state?: 'running' | 'waiting' | Ended;
    lastState?: Ended;
    containers?: string[];
    generateName?: string | null;
    hostname?: string;
    uid?: string;
    deleting?: boolean;
    statusOf?: string;
  } = {},
): V1Pod {
  const state = opts.state ?? 'running';
  const status = {
    name: opts.statusOf ?? ELECTOR,
    image: 'x',
    imageID: '',
    ready: state === 'running',
    restartCount: opts.lastState ? 1 : 0,
    state:
      state === 'running'
        ? { running: {} }
        : state === 'waiting'
          ? { waiting: { reason: 'CrashLoopBackOff' } }
          : terminated(state),
    ...(opts.lastState ? { lastState: terminated(opts.lastState) } : {}),
  } as V1ContainerStatus;
  return {
    metadata: {
      name: POD,
      uid: opts.uid ?? 'uid-1',
      ...(opts.generateName === null ? {} : { generateName: opts.generateName ?? 'kgateway-7d9f8b6c5d-' }),
      ...(opts.deleting ? { deletionTimestamp: new Date(), deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      containers: (opts.containers ?? [ELECTOR]).map((name) => ({ name })),
      ...(opts.hostname ? { hostname: opts.hostname } : {}),
    },
    status: { containerStatuses: [status] },
  };
}
const facts = (o: Parameters<typeof pod>[0] = {}): PodFacts => podFacts(pod(o), ELECTOR);

/** The holder acquired at 100 s and renewed last at `renewedAt` (default 110 s). */
const lease = (acquiredAt = 100.25, renewedAt = 110.5) => ({
  holder: HOLDER,
  holderPod: POD,
  acquireTimeUs: timeMicros(micro(acquiredAt)),
  renewTimeUs: timeMicros(micro(renewedAt)),
});

describe('the pods cache keeps what podFacts reads (podAsRead)', () => {
  /** A pod as the API server sends it: everything podFacts does not read filled in. */
  const full = (o: Parameters<typeof pod>[0]): V1Pod => {
    const p = pod(o);
    return {
      ...p,
      metadata: { ...p.metadata, namespace: 'ns', labels: { kgateway: 'kgateway' }, resourceVersion: '7' },
      spec: {
        ...p.spec!,
        nodeName: 'node-1',
        containers: p.spec!.containers.map((c) => ({
          ...c,
          image: 'cr.kgateway.dev/kgateway:v2.4.2',
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets' }],
        })),
        volumes: [{ name: 'token', projected: { sources: [] } }],
      },
      status: {
        ...p.status,
        phase: 'Running',
        podIP: '10.0.0.7',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: p.status!.containerStatuses!.map((c) => ({
          ...c,
          started: true,
          image: 'cr.kgateway.dev/kgateway:v2.4.2',
        })),
      },
    };
  };
  const cases: Parameters<typeof pod>[0][] = [
    {},
    { state: 'waiting', lastState: { finishedAt: 120 } },
    { state: { finishedAt: 130, reason: UNKNOWN_TERMINATION_REASON, containerID: '' } },
    { state: { finishedAt: 'zero' } },
    { containers: ['sidecar'], statusOf: 'sidecar', lastState: { finishedAt: 90 } },
    { containers: [ELECTOR, 'sidecar'], hostname: 'other-host', generateName: null, uid: 'uid-2' },
    { hostname: POD, deleting: true, state: { finishedAt: 140 }, lastState: { finishedAt: 99 } },
  ];

  it.each(cases.map((c, i) => [i, c] as const))(
    'case %i: the facts of the projection are the facts of the pod, for every container name',
    (_i, c) => {
      for (const elector of [ELECTOR, 'sidecar', 'absent']) {
        expect(podFacts(podAsRead(full(c)), elector)).toEqual(podFacts(full(c), elector));
      }
    },
  );

  it('drops what no code reads, keeps the metadata whole', () => {
    const p = podAsRead(full({ lastState: { finishedAt: 120 } }));
    expect(p.metadata).toEqual(full({ lastState: { finishedAt: 120 } }).metadata);
    expect(p.spec).toEqual({ containers: [{ name: ELECTOR }] });
    expect(p.status).toEqual({
      containerStatuses: [{ name: ELECTOR, lastState: terminated({ finishedAt: 120 }) }],
    });
    // a pod without spec or status (a deletion's tombstone) stays as it is
    expect(podAsRead({ metadata: { name: 'x' } })).toEqual({ metadata: { name: 'x' } });
    expect(podAsRead({ metadata: { name: 'x' }, status: {} })).toEqual({
      metadata: { name: 'x' },
      status: {},
    });
  });
});

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

describe('times as the API server writes them', () => {
  it("keeps a MicroTime's six digits, reads whole seconds and Dates, refuses Go's zero time and garbage", () => {
    expect(timeMicros('2030-01-01T00:00:01.123456Z')).toBe((T0 + 1000) * 1000 + 123456);
    expect(timeMicros('2030-01-01T00:00:01Z')).toBe((T0 + 1000) * 1000);
    expect(timeMicros('2030-01-01T01:00:01+01:00')).toBe((T0 + 1000) * 1000);
    expect(timeMicros(new Date(T0 + 1500))).toBe((T0 + 1500) * 1000);
    expect(timeMicros('0001-01-01T00:00:00Z')).toBeUndefined();
    expect(timeMicros('yesterday')).toBeUndefined();
    expect(timeMicros(undefined)).toBeUndefined();
    expect(timeMicros(12)).toBeUndefined();
  });
});

describe("clears only on the kubelet's report that the holder's own process ended", () => {
  it('graceful deletion: the current instance terminated after the acquire: clear', () => {
    const d = decideHolderRelease({ ...lease(), pod: facts({ deleting: true, state: { finishedAt: 111 } }) });
    expect(d).toEqual({ release: true, reason: expect.stringContaining('state.terminated') });
  });

  it('the kubelet removed the pod object after reporting it: the deletion event carries the report: clear', () => {
    const d = decideHolderRelease({
      ...lease(),
      deleted: facts({ deleting: true, state: { finishedAt: 111 } }),
    });
    expect(d.release).toBe(true);
    expect(d.reason).toContain('deleted after');
  });

  it('a crash restarted in place (lastState.terminated after the acquire, a new instance running): clear', () => {
    const d = decideHolderRelease({
      ...lease(),
      pod: facts({ state: 'running', lastState: { finishedAt: 111 } }),
    });
    expect(d.release).toBe(true);
    expect(d.reason).toContain('lastState.terminated');
    // In the restart's back-off (waiting) and before the kubelet moved it to lastState: the same.
    expect(
      decideHolderRelease({ ...lease(), pod: facts({ state: 'waiting', lastState: { finishedAt: 111 } }) })
        .release,
    ).toBe(true);
    expect(
      decideHolderRelease({ ...lease(), pod: facts({ state: { finishedAt: 111, reason: 'OOMKilled' } }) })
        .release,
    ).toBe(true);
  });

  it('a stale termination of an earlier instance (the holder acquired after it ended): no clear, deleting or not', () => {
    // The sequence of the issue: the container restarted, its new process acquired at 100 s, the kubelet
    // was cut off, so the status still shows the end of the instance before it (at 95 s).
    for (const deleting of [false, true]) {
      const d = decideHolderRelease({ ...lease(), pod: facts({ deleting, state: { finishedAt: 95 } }) });
      expect(d.release).toBe(false);
      expect(d.reason).toContain('an earlier process');
    }
    expect(decideHolderRelease({ ...lease(), pod: facts({ lastState: { finishedAt: 95 } }) }).release).toBe(
      false,
    );
  });

  it("an end within the acquire's own second proves nothing (finishedAt is truncated to the second)", () => {
    // Acquired at 100.25 s; an end stamped 100 s happened in [100, 101): before or after the acquire.
    expect(decideHolderRelease({ ...lease(), pod: facts({ state: { finishedAt: 100 } }) }).release).toBe(
      false,
    );
    expect(
      decideHolderRelease({ ...lease(100.0, 100.0), pod: facts({ state: { finishedAt: 100 } }) }).release,
    ).toBe(false);
    expect(
      decideHolderRelease({ ...lease(100.25, 100.5), pod: facts({ state: { finishedAt: 101 } }) }).release,
    ).toBe(true);
  });

  it('what the kubelet writes when it does not know: ContainerStatusUnknown, no container ID, no finishedAt: no clear', () => {
    // As the kubelet writes it: exit 137, zero times, no container ID.
    const unknown = { reason: UNKNOWN_TERMINATION_REASON, containerID: '', finishedAt: 'zero' as const };
    for (const f of [
      facts({ deleting: true, state: unknown }),
      facts({ lastState: unknown }),
      // Even with every other field a real report has.
      facts({ deleting: true, state: { reason: UNKNOWN_TERMINATION_REASON, finishedAt: 111 } }),
      facts({ deleting: true, state: { containerID: '', finishedAt: 111 } }),
      facts({ deleting: true, state: {} }),
      facts({ deleting: true, state: { finishedAt: 'zero' } }),
    ])
      expect(decideHolderRelease({ ...lease(), pod: f }).release).toBe(false);
    expect(decideHolderRelease({ ...lease(), pod: facts({ state: unknown }) }).reason).toContain(
      UNKNOWN_TERMINATION_REASON,
    );
  });

  it('a renewal after the reported end (a stepped clock, a forged status): no clear', () => {
    const d = decideHolderRelease({ ...lease(100.25, 113.5), pod: facts({ state: { finishedAt: 111 } }) });
    expect(d.release).toBe(false);
    expect(d.reason).toContain('records disagree');
    // A renewal within the end's second is consistent (the process renewed, then ended).
    expect(
      decideHolderRelease({ ...lease(100.25, 111.9), pod: facts({ state: { finishedAt: 111 } }) }).release,
    ).toBe(true);
  });

  it('another container ended (a sidecar), the elector runs on: no clear', () => {
    const f = facts({ containers: [ELECTOR, 'sidecar'], statusOf: 'sidecar', state: { finishedAt: 111 } });
    expect(decideHolderRelease({ ...lease(), pod: f }).release).toBe(false);
    expect(
      decideHolderRelease({ ...lease(), pod: facts({ containers: ['other'], state: { finishedAt: 111 } }) })
        .reason,
    ).toContain(`no container ${ELECTOR}`);
  });

  it('nothing reported (running, waiting, a partition, a paused or lost node; force deletion): no clear', () => {
    expect(decideHolderRelease({ ...lease(), pod: facts() }).release).toBe(false);
    expect(decideHolderRelease({ ...lease(), pod: facts({ state: 'waiting' }) }).release).toBe(false);
    expect(decideHolderRelease({ ...lease(), pod: facts({ deleting: true }) }).release).toBe(false);
    const forced = decideHolderRelease({ ...lease(), deleted: facts({ deleting: true }) });
    expect(forced.release).toBe(false);
    expect(forced.reason).toContain('no end');
  });

  it('a Lease without acquireTime or renewTime: no clear', () => {
    const f = facts({ state: { finishedAt: 111 } });
    expect(decideHolderRelease({ ...lease(), acquireTimeUs: undefined, pod: f }).release).toBe(false);
    expect(decideHolderRelease({ ...lease(), renewTimeUs: undefined, pod: f }).release).toBe(false);
  });

  it('a pod whose name may be reused, whose hostname is not its name, or a new pod of the same name: no clear', () => {
    const ended = { state: { finishedAt: 111 } };
    expect(decideHolderRelease({ ...lease(), pod: facts({ ...ended, generateName: null }) }).release).toBe(
      false,
    );
    expect(
      decideHolderRelease({ ...lease(), deleted: facts({ ...ended, generateName: null }) }).release,
    ).toBe(false);
    expect(decideHolderRelease({ ...lease(), pod: facts({ ...ended, hostname: 'other' }) }).release).toBe(
      false,
    );
    const d = decideHolderRelease({ ...lease(), pod: facts({ uid: 'uid-2' }), deleted: facts({ ...ended }) });
    expect(d.release).toBe(false);
  });

  it('a missed update (never seen), no holder, or a holder that names no pod: no clear', () => {
    expect(decideHolderRelease(lease()).release).toBe(false);
    expect(decideHolderRelease({ holder: '' }).release).toBe(false);
    expect(decideHolderRelease({ ...lease(), holder: 'someone', holderPod: undefined }).release).toBe(false);
  });
});

describe('a model of one container: the rule never calls a live holder ended', () => {
  // Instances of one container run one after another (the kubelet starts the next after the last ended).
  // A holder is a process of one instance that acquired while it ran and renewed until it ended or now.
  // The kubelet's reports are any past truth (it may be cut off: its last report stands), truncated to
  // the second. Whatever report the operator sees, it may clear only when the holder's instance ended.
  function rng(seed: number) {
    let x = seed >>> 0;
    return () => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return x / 2 ** 32;
    };
  }
  it('holds on 20,000 random histories (restarts, stale and current reports, deletions)', () => {
    const rand = rng(36);
    let cleared = 0;
    let provenDead = 0;
    for (let run = 0; run < 20_000; run++) {
      const instances: Array<{ start: number; end?: number; id: string }> = [];
      let t = 1 + rand() * 5;
      const n = 1 + Math.floor(rand() * 4);
      for (let i = 0; i < n; i++) {
        const start = t + rand() * 3; // restart back-off, start-up
        const end = i < n - 1 || rand() < 0.5 ? start + 0.05 + rand() * 20 : undefined;
        instances.push({ start, ...(end === undefined ? {} : { end }), id: `containerd://i${i}` });
        if (end === undefined) break;
        t = end;
      }
      const now = (instances.at(-1)!.end ?? instances.at(-1)!.start) + rand() * 10;
      // The holder: a process of a random instance, acquired while it ran, renewing every 2 s until its end.
      const k = Math.floor(rand() * instances.length);
      const inst = instances[k]!;
      const runsTo = inst.end ?? now;
      const acquired = inst.start + rand() * (runsTo - inst.start);
      let renewed = acquired;
      while (renewed + 2 < runsTo) renewed += 2;
      // The kubelet's last report was made at a random past moment: what had ended by then.
      const reportAt = rand() * now;
      const ended = instances.filter((i) => i.end !== undefined && i.end <= reportAt);
      const current = ended.at(-1);
      const previous = ended.at(-2);
      const runningAtReport = instances.find(
        (i) => i.start <= reportAt && (i.end === undefined || i.end > reportAt),
      );
      const asReport = (i: { end?: number; id: string }): Ended => ({
        finishedAt: i.end!,
        containerID: i.id,
      });
      const p = pod({
        deleting: rand() < 0.5,
        // The instance running at the report, or the last ended one (state) and the one before (lastState).
        ...(runningAtReport
          ? { state: 'running' as const, ...(current ? { lastState: asReport(current) } : {}) }
          : current
            ? { state: asReport(current), ...(previous ? { lastState: asReport(previous) } : {}) }
            : { state: 'waiting' as const }),
      });
      const f: HolderFacts = {
        holder: HOLDER,
        holderPod: POD,
        acquireTimeUs: timeMicros(micro(acquired)),
        renewTimeUs: timeMicros(micro(renewed)),
        pod: podFacts(p, ELECTOR),
      };
      const d = decideHolderRelease(f);
      const holderEnded = inst.end !== undefined && inst.end <= now;
      if (d.release) {
        cleared++;
        expect(holderEnded, `run ${run}: cleared a live holder: ${d.reason}`).toBe(true);
      }
      if (holderEnded) provenDead++;
    }
    // The rule is not vacuous: it clears most holders the reports show ended.
    expect(cleared).toBeGreaterThan(provenDead / 4);
  });
});
