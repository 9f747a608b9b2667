// Whether the managed product's leader Lease may be cleared because its holder's process has stopped
// for good (docs/leader-election.md, "The managed product's leader: handing over a dead holder's
// Lease"). Pure: the facts of the pod the holder names, as the caches last saw them, in; a decision and
// its reason out. Only a kubelet's confirmation counts: a deleting pod whose every container reports
// terminated. Everything else (force deletion, a lost node, a container still running, a missed
// event) waits for the Lease to expire, as it would without the operator.
import type { V1Pod } from '@kubernetes/client-node';

/** What the decision reads of one pod. */
export interface PodFacts {
  name: string;
  uid: string;
  /** The pod has a deletionTimestamp: the kubelet stops its containers and never restarts them. */
  deleting: boolean;
  /** Named by generateName (a Deployment's pods): a later pod does not reuse the name. */
  generatedName: boolean;
  /** Its hostname is its name (no spec.hostname): an identity built from the hostname names this pod. */
  hostnameIsName: boolean;
  /** Each container of spec.containers and its state as the kubelet last reported it. */
  containers: Array<{ name: string; state: 'running' | 'waiting' | 'terminated' | 'unreported' }>;
}

export interface HolderFacts {
  /** spec.holderIdentity of the Lease ('' or undefined: nobody holds it). */
  holder?: string;
  /** The pod the holder identity names (the product maps it); undefined: the identity names none. */
  holderPod?: string;
  /** The pod of that name in the cache now, if any. */
  pod?: PodFacts;
  /** The last state of a pod of that name that was deleted, as its deletion event carried it. */
  deleted?: PodFacts;
}

export type HolderDecision = { release: true; reason: string } | { release: false; reason: string };

export function podFacts(pod: V1Pod): PodFacts {
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  return {
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    deleting: pod.metadata?.deletionTimestamp !== undefined && pod.metadata?.deletionTimestamp !== null,
    generatedName: Boolean(pod.metadata?.generateName),
    hostnameIsName: !pod.spec?.hostname || pod.spec.hostname === pod.metadata?.name,
    containers: (pod.spec?.containers ?? []).map((c) => {
      const s = statuses.get(c.name)?.state;
      return {
        name: c.name,
        state: s?.running ? 'running' : s?.terminated ? 'terminated' : s?.waiting ? 'waiting' : 'unreported',
      };
    }),
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

/** The kubelet confirmed the pod's processes gone for good: deleting, every container terminated. */
export function terminationConfirmed(p: PodFacts): { confirmed: boolean; why: string } {
  if (!p.deleting)
    return { confirmed: false, why: `pod ${p.name} is not being deleted (a stopped container restarts)` };
  if (p.containers.length === 0) return { confirmed: false, why: `pod ${p.name} reports no containers` };
  const alive = p.containers.filter((c) => c.state !== 'terminated');
  if (alive.length > 0)
    return {
      confirmed: false,
      why: `pod ${p.name} is terminating but its kubelet has not reported ${alive
        .map((c) => `${c.name} (${c.state})`)
        .join(', ')} terminated`,
    };
  return { confirmed: true, why: `the kubelet reported every container of pod ${p.name} terminated` };
}

export function decideHolderRelease(f: HolderFacts): HolderDecision {
  if (!f.holder) return { release: false, reason: 'the Lease has no holder' };
  if (!f.holderPod) return { release: false, reason: `holder ${f.holder} names no pod the product runs` };
  const names = `holder ${f.holder} (pod ${f.holderPod})`;
  // A pod of that name exists: it is the only one that can run the holder's process now.
  if (f.pod) {
    const unsure = nameDoubt(f.pod);
    if (unsure) return { release: false, reason: `${names}: ${unsure}` };
    const c = terminationConfirmed(f.pod);
    return c.confirmed
      ? { release: true, reason: `${names}: ${c.why}` }
      : { release: false, reason: `${names}: ${c.why}` };
  }
  if (!f.deleted)
    return { release: false, reason: `${names}: the pod was never seen, so its end was not confirmed` };
  const unsure = nameDoubt(f.deleted);
  if (unsure) return { release: false, reason: `${names}: ${unsure}` };
  const c = terminationConfirmed(f.deleted);
  return c.confirmed
    ? { release: true, reason: `${names}: deleted after ${c.why}` }
    : {
        release: false,
        reason: `${names}: deleted without its kubelet's confirmation (a force deletion, a lost node, or a missed update): ${c.why}`,
      };
}

/** Why the pod's name may not identify the holder's process, if it may not. */
function nameDoubt(p: PodFacts): string | undefined {
  if (!p.generatedName) return "the pod's name is not generated: a later pod may reuse it";
  if (!p.hostnameIsName) return 'the pod sets spec.hostname: the identity may name another pod';
  return undefined;
}
