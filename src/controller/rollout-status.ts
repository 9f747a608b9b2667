// A rollout that will not finish, read from the Deployment's own conditions, as kubectl rollout status
// and kstatus read them: Progressing=False with reason ProgressDeadlineExceeded (no progress within
// spec.progressDeadlineSeconds, 600 s by default: pods that never schedule, never become ready), or
// ReplicaFailure=True (the ReplicaSet cannot create pods: quota, admission, a missing ServiceAccount).
// Either makes the GlooHA Stalled with the Deployment's reason and message instead of waiting for
// replicas for ever. A Progressing condition from an older generation does not count: the Deployment
// controller has not looked at the current template yet.
import type { V1Deployment } from '@kubernetes/client-node';
import type { ComponentPlan } from './product.js';
import type { Stall } from './status.js';

export function rolloutFailure(dep: V1Deployment | undefined): Stall | undefined {
  if (!dep) return undefined;
  const current = (dep.status?.observedGeneration ?? 0) >= (dep.metadata?.generation ?? 0);
  if (!current) return undefined;
  const name = dep.metadata?.name ?? '';
  const failure = dep.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  if (failure) {
    return {
      reason: failure.reason || 'ReplicaFailure',
      message: `Deployment ${name}: ${failure.message ?? 'pods cannot be created'}`,
    };
  }
  const progressing = dep.status?.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      reason: 'ProgressDeadlineExceeded',
      message: `Deployment ${name}: ${progressing.message ?? 'rollout made no progress within its deadline'}`,
    };
  }
  return undefined;
}

/** The first component whose rollout failed; the stall names every failing Deployment. */
export function rolloutStall(
  plans: ComponentPlan[],
  deployments: Map<string, V1Deployment> | undefined,
): Stall | undefined {
  const failures = plans
    .filter((p) => p.found)
    .map((p) => rolloutFailure(deployments?.get(p.deploymentName)))
    .filter((s): s is Stall => s !== undefined);
  const first = failures[0];
  if (!first) return undefined;
  return { reason: first.reason, message: failures.map((f) => f.message).join('; ') };
}
