// plan(snapshot): what one reconcile of one GlooHA should write, decided without I/O. The reconciler
// (reconciler.ts) takes a Snapshot of the caches, asks for a Plan and hands it to the actions.
//
// Branches, in order:
//   gone            → forget what was kept for it
//   deleting        → hand over Gloo's fields, delete owned objects GC cannot reach, drop the finalizer
//   no finalizer    → add it, first, then carry on below in the same reconcile
//   older rival     → Stalled ConflictingGlooHA, nothing written
//   no gloo found   → Stalled TargetNotFound, check again in a minute
//   invalid spec    → Stalled InvalidSpec
//   self-conflict   → Stalled ConflictingDesiredObjects, nothing written
//   otherwise       → apply what is missing, changed by the spec, or drifted (per driftPolicy); prune
//                     owned objects no longer desired; events; status
// spec.suspend (Flux's meaning) keeps the finalizer and deletion branches, and turns every other
// branch into a report: no applies, prunes or events, only a status naming what would be written.
// The glooha.io/reconcile-requested-at annotation's value goes to status.lastHandledReconcileAt.
// Failures met while carrying a plan out (403, 400/422) become a Stalled plan through stalledPlan().
import type { KubernetesObject } from '@kubernetes/client-node';
import { ANNOTATION_OWNER, ANNOTATION_OWNER_KIND, RECONCILE_REQUEST_ANNOTATION } from '../api/constants.js';
import type { HAObject, HAStatus } from '../api/types.js';
import { ownerOf } from '../core/ownership.js';
import { replicasFloorsConfigMap } from '../core/replicas-floors.js';
import type { KubeObject } from '../core/templates.js';
import { kindKey, type ListTypes } from '../kube/list-types.js';
import { isOlderResourceVersion } from '../kube/resource-version.js';
import { canonicalJson, isSubset, stableHash } from './compare.js';
import { olderRival, selfConflicts } from './conflicts.js';
import { describeDrift } from './drift.js';
import { handoverOf } from './handover.js';
import { secondsToFailoverBound } from './leaderless-gap.js';
import { isOwnedBy } from './observe.js';
import {
  APPLIED_ANNOTATION,
  emptyPlan,
  FINALIZER,
  refOf,
  type OwnApply,
  type Plan,
  type PlannedApply,
  type Snapshot,
} from './plan-types.js';
import { installNamespaceOf, type Desired, type Product } from './product.js';
import { releaseReplicasOf } from './replicas-ownership.js';
import { computeStatus, type DriftReport, type Stall, type StatusInput } from './status.js';

/** Requeue while waiting for a missing install (no event announces it in another namespace). */
export const TARGET_REQUEUE_MS = 60_000;

export { ownerOf };

/** What a product's workload runs with: until these are written, its objects wait (applyPlan's stages). */
const RBAC_KINDS: ReadonlySet<string> = new Set(['Role', 'RoleBinding']);

function finalizersOf(g: HAObject): string[] {
  return (g.metadata.finalizers as string[] | undefined) ?? [];
}

/** The status to write: undefined when the GlooHA already has exactly this one. */
function changed(g: HAObject, status: HAStatus): HAStatus | undefined {
  return canonicalJson(status) === canonicalJson(g.status ?? {}) ? undefined : status;
}

function suspended(g: HAObject): boolean {
  return g.spec?.suspend === true;
}

function reconcileRequestOf(g: HAObject): { reconcileRequest?: string } {
  const value = g.metadata.annotations?.[RECONCILE_REQUEST_ANNOTATION];
  return value === undefined ? {} : { reconcileRequest: value };
}

/** A plan that writes nothing but a Stalled status and a Warning event (no event while suspended). */
export function stalledPlan(s: Snapshot, stall: Stall, requeueAfterMs?: number): Plan {
  const g = s.object;
  const plan: Plan = { ...emptyPlan(), stall, requeueAfterMs };
  if (!g) return plan;
  if (!suspended(g)) plan.events.push({ type: 'Warning', reason: stall.reason, message: stall.message });
  plan.status = changed(
    g,
    computeStatus({
      generation: g.metadata.generation,
      previous: g.status,
      now: s.now,
      stall,
      leader: s.leader,
      applied: 0,
      drift: [],
      ...reconcileRequestOf(g),
    }),
  );
  return plan;
}

/** `product` says how the install is read and what is desired of it. */
export function plan(s: Snapshot, product: Product): Plan {
  const g = s.object;
  if (!g) return { ...emptyPlan(), forget: true };
  if (g.metadata.deletionTimestamp) return finalizePlan(s, g, product);
  const p = livePlan(s, g, product);
  // Our finalizer goes on in this same reconcile, before any other write (execute() sends it first):
  // a reconcile of its own went to the back of the queue, behind every other key, at a cold start.
  if (!finalizersOf(g).includes(FINALIZER)) p.finalizers = [...finalizersOf(g), FINALIZER];
  return p;
}

/** Whether `obj` is owned by `g`, of `product`'s kind. */
function ownedBy(obj: KubernetesObject, g: HAObject, product: Product): boolean {
  return isOwnedBy(obj, ownerOf(g), product.ownsUnlabelledObjects === true);
}

/** The plan for a live object (not being deleted). */
function livePlan(s: Snapshot, g: HAObject, product: Product): Plan {
  const ns = installNamespaceOf(g);
  const rival = olderRival(g, s.sameNamespace);
  if (rival) {
    return stalledPlan(s, {
      reason: `Conflicting${g.kind}`,
      message: `the install in namespace ${ns} is already managed by ${g.kind} ${rival.metadata.namespace}/${rival.metadata.name} (created earlier); delete one of the two, or ${product.rivalFix}`,
    });
  }

  const ownedOf = (kind: string) =>
    (s.owned.get(kind) ?? []).filter((o) => o.metadata?.namespace === ns && ownedBy(o, g, product));
  const result = product.desired(g, s, ownedOf);
  if (!result.ok && 'stall' in result) return stalledPlan(s, result.stall, result.requeueAfterMs);
  if (!result.ok) {
    return stalledPlan(s, {
      reason: 'InvalidSpec',
      message: result.errors.map((e) => `${e.path}: ${e.message}`).join('; '),
    });
  }
  const d = result.desired;

  const conflicts = selfConflicts([...d.owned, ...d.patches]);
  if (conflicts.length > 0) {
    const components = (target: string) =>
      d.components.filter((c) => target.endsWith(`/${c.deploymentName}`)).map((c) => c.id);
    return stalledPlan(s, {
      reason: 'ConflictingDesiredObjects',
      message: conflicts
        .map((c) => {
          const ids = components(c.target);
          return `${c.target} is wanted twice with different contents${ids.length > 1 ? ` (by ${ids.join(' and ')})` : ` (${c.sources.join(', ')})`}`;
        })
        .join('; ')
        .concat(`: ${product.selfConflictFix}; nothing was written for this ${g.kind}`),
    });
  }

  return lookAgainAtFailoverBound(applyPlan(s, g, withReplicasFloors(g, d, ns), ns, product), s);
}

/** The Deployments' replicas floors, also as the ConfigMap the chart's scale policy reads. */
function withReplicasFloors(g: HAObject, d: Desired, ns: string): Desired {
  const floors = replicasFloorsConfigMap(ownerOf(g), ns, d.patches);
  return floors ? { ...d, owned: [...d.owned, floors] } : d;
}

/** Nothing announces that a leaderless spell passed its failover bound: look again when it does. */
function lookAgainAtFailoverBound(p: Plan, s: Snapshot): Plan {
  const seconds = s.leaderless ? secondsToFailoverBound(s.leaderless) : 0;
  if (seconds > 0) p.requeueAfterMs = Math.min(p.requeueAfterMs ?? Infinity, Math.ceil(seconds * 1000) + 100);
  return p;
}

function liveOf(s: Snapshot, body: KubeObject, patch: boolean): KubernetesObject | undefined {
  const same = (o: KubernetesObject) =>
    o.metadata?.name === body.metadata.name && o.metadata?.namespace === body.metadata.namespace;
  if (!patch) return s.owned.get(body.kind)?.find(same);
  if (body.kind === 'Deployment') return s.deployments.find(same);
  if (body.kind === 'HorizontalPodAutoscaler') return s.hpas.find(same);
  return s.related?.get(body.kind)?.find(same);
}

function annotated(body: KubeObject, hash: string): KubernetesObject {
  return {
    ...body,
    metadata: {
      ...body.metadata,
      annotations: {
        ...((body.metadata as { annotations?: Record<string, string> }).annotations ?? {}),
        [APPLIED_ANNOTATION]: hash,
      },
    },
  } as KubernetesObject;
}

/**
 * What to do with one desired body given its live object: nothing (in sync, or drift we only report),
 * or an apply — when it is missing, changed by a new spec (hash annotation), or drifted under
 * driftPolicy enforce.
 */
export function decideApply(
  body: KubeObject,
  live: KubernetesObject | undefined,
  driftPolicy: Desired['driftPolicy'],
  ownApplies: ReadonlyMap<string, OwnApply> = new Map(),
  listTypes: ListTypes = {},
): { apply?: PlannedApply; drift?: DriftReport } {
  const hash = stableHash(body);
  const what = `${body.kind} ${body.metadata.namespace}/${body.metadata.name}`;
  const component = body.metadata.labels?.['glooha.io/component'] ?? body.metadata.name;
  const base = { body: annotated(body, hash), what, component };
  if (!live) return { apply: { ...base, reason: 'create' } };
  // The cache is behind our own accepted apply of this very body: nothing to decide from it yet (its
  // watch event brings this GlooHA back). Only an existing cached object is judged this way: one that
  // is gone from the cache may have been deleted after our write, and is created again.
  const own = ownApplies.get(what);
  if (own?.hash === hash && isOlderResourceVersion(live.metadata?.resourceVersion, own.resourceVersion))
    return {};
  if (live.metadata?.annotations?.[APPLIED_ANNOTATION] !== hash)
    return { apply: { ...base, reason: 'update' } };
  const lists = listTypes[kindKey(body.apiVersion, body.kind)];
  if (isSubset(body, live, lists)) return {};
  if (driftPolicy === 'ignore') return {};
  const message = describeDrift(body, live, lists);
  if (driftPolicy === 'warn') return { drift: { message, corrected: false } };
  return {
    apply: { ...base, reason: 'drift', drift: message },
    drift: { message: `restored ${message}`, corrected: true },
  };
}

function applyPlan(s: Snapshot, g: HAObject, d: Desired, ns: string, product: Product): Plan {
  const out = emptyPlan();
  const drift: DriftReport[] = [];
  const consider = (body: KubeObject, live: KubernetesObject | undefined, stage: number) => {
    const decision = decideApply(body, live, d.driftPolicy, s.ownApplies, s.listTypes);
    if (decision.apply) out.applies.push({ ...decision.apply, stage });
    if (decision.drift) drift.push(decision.drift);
  };
  // Stages (see PlannedApply.stage): our own objects, the RoleBinding once its Role exists (the API
  // server's escalation check reads the Role), then the product's objects once the RBAC they run with
  // is written, so gloo never runs with leader election before it may use its Lease. A plan that
  // writes no Role or RoleBinding has nothing the product's objects wait for: they go out with our
  // own, and a spec change reaches its Deployment in one round trip instead of two. The price: a
  // refused write of one of our objects no longer holds the product's back. If it is the replicas
  // floors ConfigMap, the scale policy judges `deployments/scale` writes by the old floors until the
  // retry succeeds (the status says Stalled meanwhile); the Deployment's own floor rides on its apply.
  for (const body of d.owned) consider(body, liveOf(s, body, false), body.kind === 'RoleBinding' ? 1 : 0);
  const writesRbac = out.applies.some((a) => RBAC_KINDS.has(a.body.kind ?? ''));
  // Owned objects of this object the spec no longer asks for. Never others'.
  const wanted = new Set(d.owned.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
  for (const [kind, objs] of s.owned) {
    for (const obj of objs) {
      if (!ownedBy(obj, g, product)) continue;
      if (wanted.has(`${kind}/${obj.metadata?.namespace}/${obj.metadata?.name}`)) continue;
      out.prunes.push({ ...refOf(obj), kind });
    }
  }
  for (const body of d.patches) {
    const live = liveOf(s, body, true);
    if (live) consider(body, live, writesRbac ? 2 : 0); // no live object: the core reported it as a problem
  }
  if (suspended(g)) return suspendedPlan(s, g, d, out, drift, product);
  // Ownership of spec.replicas our earlier applies left behind. A Deployment applied now is skipped:
  // the apply takes the field again, and its watch event brings the reconcile that releases it.
  const applying = new Set(out.applies.map((a) => a.what));
  const keep = new Set(d.keepReplicas ?? []);
  for (const dep of s.deployments) {
    if (dep.metadata?.namespace !== ns || !product.inTarget(g, dep)) continue;
    if (keep.has(dep.metadata?.name ?? '')) continue;
    const release = releaseReplicasOf(dep);
    if (release && !applying.has(release.what)) out.releaseReplicas.push(release);
  }

  // Drift is a Warning per object (what was changed and by whom); everything else this reconcile
  // wrote is one Normal event listing the changes, as Flux's kustomize-controller reports a change
  // set: one write per reconcile instead of one per object (they were 7 of a new install's 19 writes).
  for (const a of out.applies)
    if (a.reason === 'drift')
      out.events.push({ type: 'Warning', reason: 'DriftCorrected', message: `restored ${a.drift}` });
  for (const r of drift.filter((x) => !x.corrected))
    out.events.push({ type: 'Warning', reason: 'DriftDetected', message: r.message });
  const changeSet = appliedChangeSet(out);
  if (changeSet) out.events.push({ type: 'Normal', reason: 'Applied', message: changeSet });
  for (const w of d.warnings) out.events.push({ type: 'Warning', reason: 'HAWarning', message: w.message });
  for (const p of d.problems) out.events.push({ type: 'Warning', reason: p.code, message: p.message });

  // A correction stays on record (status may be a step behind our own write) until the next one.
  const corrected = drift.filter((r) => r.corrected);
  if (corrected.length > 0) out.corrections = corrected;
  const reported = drift.length > 0 ? drift : [...s.lastCorrections];

  const applied = out.applies.length + out.prunes.length;
  out.status = changed(
    g,
    computeStatus({ ...observedStatusInput(s, g, d, ns, product), applied, drift: reported }),
  );
  // No requeue after applying: every object applied or deleted comes back as a watch event on an
  // informer that maps it to this GlooHA, and that reconcile reports the settled state. A timed
  // requeue doubled the reconciles of a cold start for nothing. Only a product waiting for what no
  // event announces asks for one (Desired.requeueAfterMs).
  if (d.requeueAfterMs !== undefined) out.requeueAfterMs = d.requeueAfterMs;
  return out;
}

/** What computeStatus needs from the snapshot once the desired state is known. */
function observedStatusInput(
  s: Snapshot,
  g: HAObject,
  d: Desired,
  ns: string,
  product: Product,
): Omit<StatusInput, 'applied' | 'drift'> {
  const byName = <T extends KubernetesObject>(xs: T[]) => new Map(xs.map((x) => [x.metadata?.name ?? '', x]));
  const ownedIn = (kind: string) =>
    (s.owned.get(kind) ?? []).filter((o) => o.metadata?.namespace === ns && ownedBy(o, g, product));
  return {
    generation: g.metadata.generation,
    previous: g.status,
    now: s.now,
    desired: d,
    deployments: byName(s.deployments),
    pdbs: byName([...s.pdbs, ...ownedIn('PodDisruptionBudget')]),
    hpas: byName([...s.hpas, ...ownedIn('HorizontalPodAutoscaler')]) as never,
    leader: s.leader,
    ...(s.leaderless ? { leaderless: s.leaderless } : {}),
    ...reconcileRequestOf(g),
  };
}

/**
 * spec.suspend: the plan applyPlan would carry out, reported instead of carried out. Drift it would
 * correct is reported as drift; creates, updates and prunes are listed as pending in Reconciling.
 */
function suspendedPlan(
  s: Snapshot,
  g: HAObject,
  d: Desired,
  would: Plan,
  decided: DriftReport[],
  product: Product,
): Plan {
  const drift: DriftReport[] = [
    ...decided.filter((r) => !r.corrected),
    ...would.applies.flatMap((a) => (a.drift ? [{ message: a.drift, corrected: false }] : [])),
  ];
  const pending = [
    ...would.applies.filter((a) => a.reason !== 'drift').map((a) => `${a.reason} ${a.what}`),
    ...would.prunes.map((p) => `delete ${p.kind} ${p.namespace}/${p.name}`),
  ];
  const input = observedStatusInput(s, g, d, installNamespaceOf(g), product);
  return {
    ...emptyPlan(),
    status: changed(g, computeStatus({ ...input, applied: 0, drift, suspended: { pending } })),
  };
}

/**
 * Deletion. Owned objects in the GlooHA's namespace go by ownerReference garbage collection; those in
 * another namespace (no cross-namespace ownerReferences) are deleted here. Gloo's Deployments and
 * HPAs keep their values (see handover.ts). Then the finalizer goes.
 */
function finalizePlan(s: Snapshot, g: HAObject, product: Product): Plan {
  const out = emptyPlan();
  if (!finalizersOf(g).includes(FINALIZER)) return out;
  const owner = ownerOf(g);
  const ns = installNamespaceOf(g);
  for (const live of handoverScope(s, g, product)) {
    const h = handoverOf(live);
    if (h) out.handover.push(h);
  }
  if (ns !== owner.namespace) {
    for (const [kind, objs] of s.owned) {
      for (const obj of objs) {
        if (obj.metadata?.namespace === ns && ownedBy(obj, g, product))
          out.prunes.push({ ...refOf(obj), kind });
      }
    }
  }
  out.finalizers = finalizersOf(g).filter((f) => f !== FINALIZER);
  return out;
}

/**
 * The objects of the install that `g` may have written to and hands back on deletion. All the
 * operator's applies share one field manager, so "holds a field of ours" does not say whose: an
 * object of another install in the namespace (another spec.target), or one whose replicas floor names
 * another GlooHA, is not ours; and a GlooHA that stood back for an older rival of the same install
 * never wrote at all (handing over would strip the rival's fields).
 */
function handoverScope(s: Snapshot, g: HAObject, product: Product): KubernetesObject[] {
  if (olderRival(g, s.sameNamespace)) return [];
  const ns = installNamespaceOf(g);
  const owner = ownerOf(g);
  const mine = (o: KubernetesObject) => {
    const a = o.metadata?.annotations ?? {};
    if (a[ANNOTATION_OWNER] === undefined) return true;
    return (
      a[ANNOTATION_OWNER] === `${owner.namespace}/${owner.name}` &&
      (a[ANNOTATION_OWNER_KIND] === undefined ||
        owner.kind === undefined ||
        a[ANNOTATION_OWNER_KIND] === owner.kind)
    );
  };
  const here = (o: KubernetesObject) => o.metadata?.namespace === ns && mine(o);
  const deployments = (s.deployments as KubernetesObject[]).filter((d) => here(d) && product.inTarget(g, d));
  // The HPAs that scale those Deployments (kgateway's HPA informer sees every HPA, a GlooHA's
  // included, and those are the GlooHA's to hand over, not this object's).
  const targets = new Set(deployments.map((d) => d.metadata?.name));
  const hpas = s.hpas.filter(
    (h) => h.metadata?.namespace === ns && targets.has(h.spec?.scaleTargetRef?.name),
  );
  // The product's related kinds (kgateway's GatewayParameters): inTarget is a rule for Deployments, and
  // releasing only the operator's own entries from one the install's namespace holds takes nothing from anyone.
  const related = [...(s.related?.values() ?? [])].flat().filter(here);
  return [...deployments, ...hpas, ...related];
}

/**
 * The objects a plan creates, updates and deletes, as one line ("created A, B; updated C; deleted D"),
 * or undefined when it changes nothing but drift (reported on its own).
 */
export function appliedChangeSet(p: Pick<Plan, 'applies' | 'prunes'>): string | undefined {
  const created = p.applies.filter((a) => a.reason === 'create').map((a) => a.what);
  const updated = p.applies.filter((a) => a.reason === 'update').map((a) => a.what);
  const deleted = p.prunes.map((r) => `${r.kind} ${r.namespace}/${r.name}`);
  const parts = [
    created.length ? `created ${created.join(', ')}` : '',
    updated.length ? `updated ${updated.join(', ')}` : '',
    deleted.length ? `deleted ${deleted.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}
