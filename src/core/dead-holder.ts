// Whether the managed product's leader Lease may be cleared because the process that holds it has
// ended (docs/leader-election.md, "The managed product's leader: handing over a dead holder's Lease",
// which holds the argument this module follows). Pure: the Lease record and the facts of the pod its
// holder names, as the caches last saw them, in; a decision and its reason out.
//
// The proof is about the holder's own process, not its pod: a termination the kubelet reported for the
// container the product elects in, which ended after the holder acquired the Lease. Container instances
// of one container run one after another, so an instance that ended after the holder's acquire is the
// holder's own or a later one, and either way the holder's process is gone. Anything less (no such
// record, a record the kubelet wrote without knowing, a record from before the acquire, facts that
// contradict each other) waits for the Lease to expire, as it would without the operator.
import type { V1ContainerStateTerminated, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';

/** The reason the kubelet writes for a container it can no longer find: "unknown", not "stopped". */
export const UNKNOWN_TERMINATION_REASON = 'ContainerStatusUnknown';

/** One ended instance of the elector container, as its kubelet reported it. */
export interface Termination {
  /** Where the kubelet put it: the current instance (`state`) or the previous one (`lastState`). */
  field: 'state' | 'lastState';
  containerID: string;
  reason: string;
  /** `finishedAt` in microseconds since the epoch (metav1.Time: whole seconds); undefined if unset. */
  finishedAtUs: number | undefined;
}

/** What the decision reads of one pod. */
export interface PodFacts {
  name: string;
  uid: string;
  /** Named by generateName (a Deployment's pods): a later pod does not reuse the name. */
  generatedName: boolean;
  /** Its hostname is its name (no spec.hostname): an identity built from the hostname names this pod. */
  hostnameIsName: boolean;
  /** The container the product elects in: whether the pod has it, and its reported terminations. */
  elector: { name: string; inSpec: boolean; terminations: Termination[] };
}

/** The Lease record the decision is about. Times in microseconds since the epoch. */
export interface LeaseFacts {
  /** spec.holderIdentity ('' or undefined: nobody holds it). */
  holder?: string;
  /** spec.acquireTime: when this holder took the record (kept by its renewals). */
  acquireTimeUs?: number;
  /** spec.renewTime: the holder's last renewal. */
  renewTimeUs?: number;
}

export interface HolderFacts extends LeaseFacts {
  /** The pod the holder identity names (the product maps it); undefined: the identity names none. */
  holderPod?: string;
  /** The pod of that name in the cache now, if any. */
  pod?: PodFacts;
  /** The last state of a pod of that name that was deleted, as its deletion event carried it. */
  deleted?: PodFacts;
}

export type HolderDecision = { release: true; reason: string } | { release: false; reason: string };

const SECOND_US = 1_000_000;
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Microseconds since the epoch of an RFC 3339 time (a MicroTime's six digits kept, where a Date keeps
 * three), or of a Date; undefined for anything else, and for Go's zero time (year 1), which is how an
 * unset metav1.Time reads when a writer serialises it anyway.
 */
export function timeMicros(value: unknown): number | undefined {
  let us: number | undefined;
  if (value instanceof Date) us = value.getTime() * 1000;
  else if (typeof value === 'string') {
    const m = RFC3339.exec(value);
    if (!m) return undefined;
    const seconds = Date.parse(`${m[1]}${m[3]}`);
    if (Number.isNaN(seconds)) return undefined;
    us = seconds * 1000 + Number((m[2] ?? '').padEnd(6, '0').slice(0, 6));
  }
  if (us === undefined || Number.isNaN(us) || us <= 0) return undefined;
  return us;
}

function termination(field: Termination['field'], t: V1ContainerStateTerminated | undefined) {
  if (!t) return [];
  return [
    {
      field,
      containerID: t.containerID ?? '',
      reason: t.reason ?? '',
      finishedAtUs: timeMicros(t.finishedAt),
    },
  ];
}

/**
 * A pod cut down to what podFacts reads (the pods cache stores this, src/controller/setup.ts):
 * metadata as it is, spec.hostname and the containers' names, and of each container status its name
 * and terminated states. The rest of a pod (images, env, volumes, probes, conditions, IPs) is most
 * of its size and read by no code. Next to podFacts so that a new read there is a new field here; the
 * test holds that podFacts of the projection is podFacts of the pod, for every elector name.
 */
export function podAsRead<T extends V1Pod>(pod: T): T {
  const { spec, status } = pod;
  if (spec)
    pod.spec = {
      ...(spec.hostname === undefined ? {} : { hostname: spec.hostname }),
      containers: (spec.containers ?? []).map((c) => ({ name: c.name })),
    };
  if (status)
    pod.status = {
      ...(status.containerStatuses
        ? {
            // Partial statuses: image, ready and restartCount are of no use here.
            containerStatuses: status.containerStatuses.map(
              (c) =>
                ({
                  name: c.name,
                  ...(c.state?.terminated ? { state: { terminated: c.state.terminated } } : {}),
                  ...(c.lastState?.terminated ? { lastState: { terminated: c.lastState.terminated } } : {}),
                }) as V1ContainerStatus,
            ),
          }
        : {}),
    };
  return pod;
}

/** The facts of a pod, for the container `elector` the product runs its leader election in. */
export function podFacts(pod: V1Pod, elector: string): PodFacts {
  const status = (pod.status?.containerStatuses ?? []).find((s) => s.name === elector);
  return {
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    generatedName: Boolean(pod.metadata?.generateName),
    hostnameIsName: !pod.spec?.hostname || pod.spec.hostname === pod.metadata?.name,
    elector: {
      name: elector,
      inSpec: (pod.spec?.containers ?? []).some((c) => c.name === elector),
      terminations: [
        ...termination('state', status?.state?.terminated),
        ...termination('lastState', status?.lastState?.terminated),
      ],
    },
  };
}

/**
 * The pod of a controller-runtime leader identity, `<hostname>_<uuid>` (resourcelock's default: the
 * hostname, which is the pod's name, and a uuid drawn at each process start); undefined for any other
 * form. A pod name holds no `_`, so the split is unambiguous.
 */
export function controllerRuntimeHolderPod(holder: string): string | undefined {
  const m =
    /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.exec(
      holder,
    );
  return m?.[1];
}

/** Why the kubelet's record does not show what ended, if it does not. */
function unknowing(t: Termination): string | undefined {
  if (t.reason === UNKNOWN_TERMINATION_REASON)
    return `${t.reason}: the kubelet could not find the container, which says nothing of its process`;
  if (t.containerID === '') return 'it names no container ID (not a runtime report)';
  if (t.finishedAtUs === undefined) return 'it has no finishedAt';
  return undefined;
}

const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString();

/**
 * Whether `t` proves the holder's process ended. `finishedAt` has whole seconds, truncated: the
 * instance ended in [finishedAt, finishedAt + 1 s). Strictly after the acquire, to the second, means it
 * ended after the holder acquired (conservative: an end within the acquire's own second proves nothing).
 */
export function provesHolderEnded(
  t: Termination,
  lease: Required<Pick<LeaseFacts, 'acquireTimeUs' | 'renewTimeUs'>>,
): { proves: boolean; why: string } {
  const what = `${t.field}.terminated ${t.containerID || '(no container ID)'}`;
  const doubt = unknowing(t);
  if (doubt) return { proves: false, why: `${what}: ${doubt}` };
  const finished = t.finishedAtUs!;
  if (finished <= lease.acquireTimeUs)
    return {
      proves: false,
      why: `${what} ended at ${iso(finished)}, not after the holder acquired at ${iso(lease.acquireTimeUs)}: an earlier process`,
    };
  // The holder's last renewal lies before its process's end; a renewal after the end's second means
  // the clocks or the records disagree (a stepped clock, a forged status): prove nothing.
  if (lease.renewTimeUs >= finished + SECOND_US)
    return {
      proves: false,
      why: `${what} ended at ${iso(finished)} but the holder renewed later, at ${iso(lease.renewTimeUs)}: the records disagree`,
    };
  return {
    proves: true,
    why: `${what} (${t.reason || 'no reason'}) ended at ${iso(finished)}, after the holder acquired at ${iso(lease.acquireTimeUs)}`,
  };
}

function decideForPod(p: PodFacts, lease: LeaseFacts): { proven: boolean; why: string } {
  if (!p.generatedName)
    return { proven: false, why: "the pod's name is not generated: a later pod may reuse it" };
  if (!p.hostnameIsName)
    return { proven: false, why: 'the pod sets spec.hostname: the identity may name another pod' };
  if (!p.elector.inSpec) return { proven: false, why: `the pod has no container ${p.elector.name}` };
  if (lease.acquireTimeUs === undefined || lease.renewTimeUs === undefined)
    return { proven: false, why: 'the Lease has no acquireTime or renewTime to compare with' };
  const times = { acquireTimeUs: lease.acquireTimeUs, renewTimeUs: lease.renewTimeUs };
  const judged = p.elector.terminations.map((t) => provesHolderEnded(t, times));
  const proof = judged.find((j) => j.proves);
  if (proof)
    return {
      proven: true,
      why: `the kubelet reported container ${p.elector.name} of pod ${p.name} ${proof.why}`,
    };
  if (judged.length === 0)
    return {
      proven: false,
      why: `the kubelet has reported no end of container ${p.elector.name} of pod ${p.name}`,
    };
  return {
    proven: false,
    why: `container ${p.elector.name} of pod ${p.name}: ${judged.map((j) => j.why).join('; ')}`,
  };
}

export function decideHolderRelease(f: HolderFacts): HolderDecision {
  if (!f.holder) return { release: false, reason: 'the Lease has no holder' };
  if (!f.holderPod) return { release: false, reason: `holder ${f.holder} names no pod the product runs` };
  const names = `holder ${f.holder} (pod ${f.holderPod})`;
  // A pod of that name exists: it is the only one that can run the holder's process now (a deleted
  // one of the same name is a different pod, and says nothing of this one's processes).
  const p = f.pod ?? f.deleted;
  if (!p) return { release: false, reason: `${names}: the pod was never seen, so no end was reported` };
  if (f.pod && f.deleted && f.deleted.uid !== f.pod.uid)
    return { release: false, reason: `${names}: another pod of that name existed before this one` };
  const d = decideForPod(p, f);
  const where = f.pod ? '' : 'deleted after ';
  return d.proven
    ? { release: true, reason: `${names}: ${where}${d.why}` }
    : { release: false, reason: `${names}: ${d.why}` };
}
