// The status of an HA object (any product's) as a pure function of what one reconcile saw and did. Conditions follow
// metav1.Condition and kstatus: a summary `Ready`, abnormal-true `Reconciling` and `Stalled`, plus
// `Drifted` and `Degraded`. lastTransitionTime moves only on a flip, so an unchanged world yields an
// identical status and the reconciler skips the write.
//
// What kstatus (Flux, kpt, cli-utils) and Argo CD (deploy/argocd/health.lua) make of it:
//   Reconciling=True                       → InProgress: the operator is still converging
//   Stalled=True                           → Failed: only a person can fix it (an invalid spec, a
//                                            Deployment the spec names that does not exist, a rollout
//                                            past its progress deadline, a missing permission)
//   both False, observedGeneration current → Current
// Reconciling and Stalled are never both True: kstatus reads Reconciling first, and a problem a person
// must fix would then read as progress for ever.
import type { V1Deployment, V1PodDisruptionBudget, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import type { ComponentStatus, HAStatus, LeaderStatus } from '../api/types.js';
import type { Finding } from '../core/findings.js';
import { setCondition, type Condition, type ConditionInput } from './conditions.js';
import { failoverBound, type LeaderlessSpell } from './leaderless-gap.js';
import type { ComponentPlan, Desired } from './product.js';
import { rolloutStall } from './rollout-status.js';

export interface Stall {
  reason: string;
  message: string;
}

export interface DriftReport {
  /** Human summary: which field of which object, and who changed it. */
  message: string;
  corrected: boolean;
}

export interface StatusInput {
  generation: number | undefined;
  previous: HAStatus | undefined;
  now: Date;
  /** Set when the reconcile could not proceed; the rest may be absent. */
  stall?: Stall;
  desired?: Desired;
  deployments?: Map<string, V1Deployment>;
  pdbs?: Map<string, V1PodDisruptionBudget>;
  hpas?: Map<string, V2HorizontalPodAutoscaler>;
  leader?: LeaderStatus;
  /** While the product has no live leader: for how long (Ready turns False past its failover bound). */
  leaderless?: LeaderlessSpell;
  /** Writes this reconcile made (objects applied); >0 means the install is still converging. */
  applied: number;
  drift: DriftReport[];
  /**
   * spec.suspend is true: nothing was written; `pending` lists what the operator would have written
   * ("create Deployment ns/name", ...), so the status says what resuming will change.
   */
  suspended?: { pending: string[] };
  /** The reconcile-request annotation's value this reconcile handled (recorded as lastHandledReconcileAt). */
  reconcileRequest?: string;
}

function componentStatus(plan: ComponentPlan, input: StatusInput): ComponentStatus {
  const dep = input.deployments?.get(plan.deploymentName);
  const status: ComponentStatus = {
    deploymentName: plan.deploymentName,
    desiredReplicas: plan.desiredReplicas,
  };
  if (dep) {
    status.replicas = dep.status?.replicas ?? 0;
    status.readyReplicas = dep.status?.readyReplicas ?? 0;
    status.availableReplicas = dep.status?.availableReplicas ?? 0;
  }
  if (plan.autoscaling) {
    const hpa = input.hpas?.get(plan.autoscaling.hpaName);
    status.autoscaling = {
      hpaName: plan.autoscaling.hpaName,
      minReplicas: plan.autoscaling.minReplicas,
      maxReplicas: plan.autoscaling.maxReplicas,
      ...(hpa?.status?.currentReplicas === undefined ? {} : { currentReplicas: hpa.status.currentReplicas }),
    };
  }
  if (plan.podDisruptionBudget) {
    const b = plan.podDisruptionBudget;
    const live = input.pdbs?.get(b.name);
    status.podDisruptionBudget = {
      name: b.name,
      owned: b.owned,
      ...(b.minAvailable === undefined ? {} : { minAvailable: b.minAvailable }),
      ...(b.maxUnavailable === undefined ? {} : { maxUnavailable: b.maxUnavailable }),
      ...(live?.status
        ? {
            currentHealthy: live.status.currentHealthy,
            desiredHealthy: live.status.desiredHealthy,
            disruptionsAllowed: live.status.disruptionsAllowed,
          }
        : {}),
    };
  }
  return status;
}

/** Ready means: the Deployment rolled out our generation and has at least the desired ready replicas. */
function componentReady(plan: ComponentPlan, input: StatusInput): boolean {
  const dep = input.deployments?.get(plan.deploymentName);
  if (!dep) return false;
  const observed = dep.status?.observedGeneration ?? 0;
  if (observed < (dep.metadata?.generation ?? 0)) return false;
  // Rolled out as `kubectl rollout status` judges it, and enough of it ready: every pod runs the
  // current template (no old pod makes up the count) and every one of them is ready.
  const updated = dep.status?.updatedReplicas ?? 0;
  const ready = dep.status?.readyReplicas ?? 0;
  const total = dep.status?.replicas ?? 0;
  return updated >= plan.desiredReplicas && total === updated && ready >= updated;
}

const SUSPENDED = 'spec.suspend is true: the operator writes nothing to the install';

type SetCondition = (c: Omit<ConditionInput, 'observedGeneration'>) => void;

/**
 * Ready for a GlooHA that is not stalled: True once every component is rolled out and ready, and the
 * product has not been leaderless past its failover bound (`leaderMissing` then says so).
 */
function setReadiness(
  set: SetCondition,
  notReady: string[],
  applying: boolean,
  leaderMissing?: { reason: string; message: string },
): void {
  if (notReady.length > 0 || applying) {
    set({
      type: 'Ready',
      status: 'False',
      reason: 'Progressing',
      message: notReady.length
        ? `waiting for ${notReady.join(', ')}`
        : 'changes applied, waiting for them to settle',
    });
  } else if (leaderMissing) {
    set({ type: 'Ready', status: 'False', ...leaderMissing });
  } else {
    set({
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: 'every component has its desired ready replicas and every owned object is applied',
    });
  }
}

function describe(findings: Finding[]): string {
  return findings.map((f) => f.message).join('; ');
}

/**
 * The failover bound a leaderless spell has passed (leaderless-gap.ts failoverBound), spelled out;
 * undefined within it. The message names the bound, not the spell's growing length, so that a
 * reconcile during a long spell rewrites no status (Ready's lastTransitionTime says when it began).
 */
function leaderlessBeyondBound(spell: LeaderlessSpell | undefined): string | undefined {
  if (!spell) return undefined;
  const bound = failoverBound(spell.leaseDurationSeconds, spell.retryPeriodSeconds);
  if (spell.seconds <= bound.seconds) return undefined;
  return `longer than its failover bound of ${bound.seconds}s (leaseDuration ${spell.leaseDurationSeconds}s + retryPeriod ${spell.retryPeriodSeconds}s + ${bound.slackSeconds}s slack)`;
}

export function computeStatus(input: StatusInput): HAStatus {
  const gen = input.generation;
  let conditions: Condition[] = input.previous?.conditions ?? [];
  const set: SetCondition = (c) => {
    conditions = setCondition(
      conditions,
      { ...c, ...(gen === undefined ? {} : { observedGeneration: gen }) },
      input.now,
    );
  };
  const status: HAStatus = { ...(gen === undefined ? {} : { observedGeneration: gen }) };
  const handled = input.reconcileRequest ?? input.previous?.lastHandledReconcileAt;
  if (handled !== undefined) status.lastHandledReconcileAt = handled;

  if (input.stall || !input.desired) {
    setStalledWithoutPlan(set, input.stall ?? { reason: 'Unknown', message: 'no desired state' });
    status.conditions = conditions;
    // Keep what we last knew of the components: a stall says nothing new about them.
    if (input.previous?.components) status.components = input.previous.components;
    if (input.leader) status.leader = input.leader;
    return status;
  }

  const d = input.desired;
  const { components, statusOf, notReady, unavailable } = componentsOf(d, input);
  status.components = components;
  if (input.leader) status.leader = input.leader;
  status.warnings = d.warnings.map((w) => ({
    code: w.code,
    message: w.message,
    ...(w.component ? { component: w.component } : {}),
    ...(w.path ? { path: w.path } : {}),
  }));
  status.helmValuesConfigMap = d.helmValuesConfigMap;

  // What only a person can fix makes the GlooHA Stalled, with its reason: a Deployment that gave up
  // rolling out (see rollout-status.ts), or a problem the core found (a Deployment the spec names is
  // missing, a PDB or HPA of someone else's in the way). The rest of the status is still reported and
  // the rest of the install still managed.
  const stall: Stall | undefined =
    rolloutStall(d.components, input.deployments) ??
    (d.problems.length > 0 ? { reason: d.problems[0]!.code, message: describe(d.problems) } : undefined);
  const le = d.leaderElection;
  const elected = statusOf.get(le.component);
  const expectsLeader = le.enabled && elected !== undefined && (elected.readyReplicas ?? 0) > 0;
  const leaderLost = expectsLeader && input.leader !== undefined && !input.leader.fresh;
  // A handover leaves the product leaderless for a while (Degraded says so at once); past the bound
  // its settings imply, it is no longer a handover and the object is not Ready.
  const beyondBound = leaderLost ? leaderlessBeyondBound(input.leaderless) : undefined;
  const leaderMissing = beyondBound
    ? {
        reason: le.lostReason,
        message: `the ${le.lease} Lease has had no live holder ${beyondBound}: ${le.leaderless}`,
      }
    : undefined;
  setProgress(set, input, stall, notReady, leaderMissing);
  setDrifted(set, input.drift, conditions);
  setDegraded(set, leaderLost ? input.leader : undefined, le, unavailable);
  status.conditions = conditions;
  return status;
}

/** A stall found before any plan (the spec itself, or no desired state): Stalled, not Ready. */
function setStalledWithoutPlan(set: SetCondition, stall: Stall): void {
  set({ type: 'Stalled', status: 'True', reason: stall.reason, message: stall.message });
  set({ type: 'Ready', status: 'False', reason: stall.reason, message: stall.message });
  set({
    type: 'Reconciling',
    status: 'False',
    reason: stall.reason,
    message: 'waiting for the problem above to be fixed',
  });
}

/** status.components from the plan, and which components are not ready or have no ready replica. */
function componentsOf(d: NonNullable<StatusInput['desired']>, input: StatusInput) {
  const components: NonNullable<HAStatus['components']> = {};
  const statusOf = new Map<string, ComponentStatus>();
  const notReady: string[] = [];
  const unavailable: string[] = [];
  for (const plan of d.components) {
    if (!plan.found) continue;
    const cs = componentStatus(plan, input);
    statusOf.set(plan.id, cs);
    // `group.key`: an entry of the map status.components.group; otherwise status.components.<id>.
    const dot = plan.id.indexOf('.');
    if (dot < 0) components[plan.id] = cs;
    else
      ((components[plan.id.slice(0, dot)] ??= {}) as Record<string, ComponentStatus>)[
        plan.id.slice(dot + 1)
      ] = cs;
    if (!componentReady(plan, input)) {
      const updated = input.deployments?.get(plan.deploymentName)?.status?.updatedReplicas ?? 0;
      notReady.push(
        `${plan.deploymentName} (${cs.readyReplicas ?? 0}/${plan.desiredReplicas} ready, ${updated}/${plan.desiredReplicas} updated)`,
      );
    }
    if (plan.desiredReplicas > 0 && (cs.readyReplicas ?? 0) === 0) unavailable.push(plan.deploymentName);
  }
  return { components, statusOf, notReady, unavailable };
}

/** Stalled, Reconciling and Ready: stalled, suspended, converging, or reconciled. */
function setProgress(
  set: SetCondition,
  input: StatusInput,
  stall: Stall | undefined,
  notReady: string[],
  leaderMissing: { reason: string; message: string } | undefined,
): void {
  const suspended = input.suspended;
  if (stall) {
    set({ type: 'Stalled', status: 'True', reason: stall.reason, message: stall.message });
    set({
      type: 'Reconciling',
      status: 'False',
      reason: stall.reason,
      message: 'the operator cannot finish: see Stalled',
    });
    set({ type: 'Ready', status: 'False', reason: stall.reason, message: stall.message });
    return;
  }
  set(
    suspended
      ? { type: 'Stalled', status: 'False', reason: 'Suspended', message: SUSPENDED }
      : {
          type: 'Stalled',
          status: 'False',
          reason: 'Progressing',
          message: 'the operator can make progress',
        },
  );
  if (suspended) {
    const waiting = suspended.pending.length
      ? `; not applied until it is resumed: ${suspended.pending.join(', ')}`
      : '; the install matches the spec';
    set({ type: 'Reconciling', status: 'False', reason: 'Suspended', message: `${SUSPENDED}${waiting}` });
    if (suspended.pending.length > 0)
      set({ type: 'Ready', status: 'False', reason: 'Suspended', message: `${SUSPENDED}${waiting}` });
    else setReadiness(set, notReady, false, leaderMissing);
  } else if (input.applied > 0 || notReady.length > 0) {
    set({
      type: 'Reconciling',
      status: 'True',
      reason: input.applied > 0 ? 'Applied' : 'WaitingForReplicas',
      message:
        input.applied > 0 ? `applied ${input.applied} object(s)` : `waiting for ${notReady.join(', ')}`,
    });
    setReadiness(set, notReady, true);
  } else {
    set({
      type: 'Reconciling',
      status: 'False',
      reason: 'Reconciled',
      message: 'the install matches the spec',
    });
    setReadiness(set, notReady, false, leaderMissing);
  }
}

/** Drifted: pending corrections, corrections made, or (a past correction kept on record) none. */
function setDrifted(set: SetCondition, drift: StatusInput['drift'], conditions: readonly Condition[]): void {
  const pending = drift.filter((r) => !r.corrected);
  const corrected = drift.filter((r) => r.corrected);
  if (pending.length > 0) {
    set({
      type: 'Drifted',
      status: 'True',
      reason: 'DriftDetected',
      message: pending.map((r) => r.message).join('; '),
    });
  } else if (corrected.length > 0) {
    set({
      type: 'Drifted',
      status: 'False',
      reason: 'DriftCorrected',
      message: corrected.map((r) => r.message).join('; '),
    });
  } else if (!conditions.some((c) => c.type === 'Drifted' && c.reason === 'DriftCorrected')) {
    // A past correction stays on record until the next drift; otherwise say there is none.
    set({
      type: 'Drifted',
      status: 'False',
      reason: 'NoDrift',
      message: 'the install matches what the operator applied',
    });
  }
}

/** Degraded: the product's leader lost (at once, unlike Ready), or a component with no ready replica. */
function setDegraded(
  set: SetCondition,
  lostLeader: StatusInput['leader'],
  le: NonNullable<StatusInput['desired']>['leaderElection'],
  unavailable: string[],
): void {
  if (lostLeader) {
    set({
      type: 'Degraded',
      status: 'True',
      reason: le.lostReason,
      message: lostLeader.holder
        ? `the ${le.lease} Lease held by ${lostLeader.holder} was not renewed within its leaseDuration (${lostLeader.leaseDurationSeconds}s): ${le.leaderless}`
        : `the ${le.lease} Lease has no holder: ${le.leaderless}`,
    });
  } else if (unavailable.length > 0) {
    set({
      type: 'Degraded',
      status: 'True',
      reason: 'ComponentUnavailable',
      message: `no ready replicas: ${unavailable.join(', ')}`,
    });
  } else {
    set({
      type: 'Degraded',
      status: 'False',
      reason: 'AsExpected',
      message: 'every component has ready replicas',
    });
  }
}
