// The fencing-policy probe's verdicts: only the policy's own refusal proves the policy is enforced.
// (Against the real API server: test/integration/fencing.test.ts.)
import { describe, expect, it } from 'vitest';
import {
  FENCING_PROBE_ANNOTATION,
  FENCING_PROBE_MARKER,
  interpretProbe,
  probeLease,
} from '../../../src/leader/fencing-probe.js';

describe('fencing-policy probe', () => {
  it("is a Lease next to the operator's, carrying the annotation the policy refuses", () => {
    const lease = probeLease({ namespace: 'ops', leaseName: 'glooha-operator' });
    expect(lease.metadata).toEqual({
      name: 'glooha-operator-fencing-probe',
      namespace: 'ops',
      annotations: { [FENCING_PROBE_ANNOTATION]: 'true' },
    });
  });

  it("the policy's refusal (422 with its marker) means enforced", () => {
    const message = `POST /apis/...: 422 Invalid: leases.coordination.k8s.io "x" is forbidden: ValidatingAdmissionPolicy 'ops-fencing' with binding 'ops-fencing' denied request: ${FENCING_PROBE_MARKER}the fencing policy is enforced`;
    expect(interpretProbe({ status: 422, message })).toEqual({ enforced: true });
  });

  it('anything else is not proof: accepted, another 422, RBAC, a conflict, no answer', () => {
    expect(interpretProbe({ accepted: true })).toMatchObject({
      enforced: false,
      reason: expect.stringContaining(
        'ValidatingAdmissionPolicy, its binding or its Lease parameter is missing',
      ),
    });
    for (const [status, message] of [
      [422, 'Lease.coordination.k8s.io "x" is invalid: metadata.name'],
      [403, 'leases is forbidden: User "system:serviceaccount:ops:op" cannot create'],
      [403, `glooha-operator fencing: pod op-a does not hold Lease ops/glooha-operator`],
      [409, 'already exists'],
      [undefined, 'connect ECONNREFUSED'],
    ] as const) {
      expect(interpretProbe({ status, message }), message).toMatchObject({
        enforced: false,
        reason: expect.stringContaining(message),
      });
    }
  });
});
