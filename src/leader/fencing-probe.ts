// Failing closed when the fencing policy is missing.
//
// Kubernetes enforces a ValidatingAdmissionPolicy only through its binding, and the binding's Lease
// parameter only when the Lease exists (parameterNotFoundAction: Allow, because Deny would refuse
// every write in the cluster). Delete the policy or its binding, install the operator without them,
// or run it under a ServiceAccount other than the one the policy names, and the API server silently
// accepts a stale leader's late writes again. The API server cannot fail closed on an object that is
// not there, so the operator does: a leader that requires the policy starts no controller until it
// has seen the API server enforce it.
//
// How it sees that: the policy refuses any CREATE that carries the probe annotation, with a message
// of its own (reason Invalid, so it is never mistaken for a fencing refusal of a real write). The
// leader sends such a create as a dry run (dryRun=All: admission runs, nothing is stored) of a Lease
// next to its own, which its RBAC allows. The refusal proves at once that the policy exists, that a
// binding applies it to this ServiceAccount, and that its Lease parameter was found — everything the
// fence needs. If the create is accepted, one of them is missing.
import type { V1Lease } from '@kubernetes/client-node';
import { errorStatus, type KubeClient } from '../kube/client.js';

/** The annotation the chart's fencing policy refuses on every CREATE (fencing-policy.yaml). */
export const FENCING_PROBE_ANNOTATION = 'glooha.io/fencing-probe';

/** How the policy's refusal of a probe starts (a unit test keeps it in step with the chart). */
export const FENCING_PROBE_MARKER = 'glooha-operator fencing probe: ';

export type FencingProbeResult =
  | { enforced: true }
  /**
   * `reason` says what the API server did instead, for the log. `missing`: the API server accepted
   * the probe, so the policy is certainly not enforced (an error proves nothing either way).
   */
  | { enforced: false; missing: boolean; reason: string };

export interface FencingProbeTarget {
  /** The operator's Lease: the probe goes to the same namespace, under a derived name. */
  namespace: string;
  leaseName: string;
}

/** The dry-run object the probe creates. */
export function probeLease(target: FencingProbeTarget): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: `${target.leaseName}-fencing-probe`,
      namespace: target.namespace,
      annotations: { [FENCING_PROBE_ANNOTATION]: 'true' },
    },
    spec: { holderIdentity: '' },
  };
}

/**
 * What an answer to the probe means. Only the policy's own refusal counts as enforced; anything else
 * (accepted, a 409 because a Lease of that name exists, a 403 from RBAC, a 5xx) is not proof.
 */
export function interpretProbe(
  outcome: { accepted: true } | { status?: number; message: string },
): FencingProbeResult {
  if ('accepted' in outcome) {
    return {
      enforced: false,
      missing: true,
      reason:
        'the API server accepted a write the fencing policy refuses: the ValidatingAdmissionPolicy, its ' +
        "binding or its Lease parameter is missing, or the policy names another ServiceAccount than the operator's",
    };
  }
  if (outcome.status === 422 && outcome.message.includes(FENCING_PROBE_MARKER)) return { enforced: true };
  return {
    enforced: false,
    missing: false,
    reason: `the probe failed (${outcome.status ?? 'no status'}): ${outcome.message}`,
  };
}

/** Sends the probe (a dry run: nothing is stored) and says whether the policy refused it. */
export async function probeFencingPolicy(
  client: KubeClient,
  target: FencingProbeTarget,
  signal?: AbortSignal,
): Promise<FencingProbeResult> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(target.namespace)}/leases`;
  try {
    await client.request('POST', path, { query: { dryRun: 'All' }, body: probeLease(target), signal });
    return interpretProbe({ accepted: true });
  } catch (err) {
    if (signal?.aborted) throw err;
    return interpretProbe({
      status: errorStatus(err),
      message: err instanceof Error ? err.message : String(err),
    });
  }
}
