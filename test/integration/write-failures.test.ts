// How the real API server refuses a body the operator wrote, and how the operator classifies it
// (src/controller/failures.ts). A PodDisruptionBudget's maxUnavailable is an int32 (intstr): a larger
// number passes JSON but not decoding, and server-side apply answers 500, not 422. Retrying the same
// body can never succeed, so it must be InvalidObject (Stalled), not a transient error retried for ever.
import { beforeAll, describe, expect, it } from 'vitest';

import { GROUP, VERSION } from '../../src/api/constants.js';
import { PLURAL } from '../../src/products/gloo/api.js';
import { kubeWriter } from '../../src/controller/actions/writer.js';
import { terminalFailure } from '../../src/controller/failures.js';
import { KubeClient, errorStatus } from '../../src/kube/client.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';

describe('a write the API server cannot decode', () => {
  let namespace: string;
  let client: KubeClient;
  beforeAll(async () => {
    namespace = await createNamespace('write-failures');
    client = new KubeClient(adminKubeConfig());
  });

  it('a PDB maxUnavailable beyond int32: 500 "cannot unmarshal", classified InvalidObject', async () => {
    const body = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'too-big-glooha', namespace },
      spec: { maxUnavailable: 2147483648, selector: { matchLabels: { gloo: 'gloo' } } },
    };
    let err: unknown;
    try {
      await kubeWriter(client, { group: GROUP, version: VERSION, plural: PLURAL }).apply(
        body,
        'glooha-operator',
        new AbortController().signal,
      );
    } catch (e) {
      err = e;
    }
    expect(err, 'the API server accepted maxUnavailable 2147483648').toBeDefined();
    const code = errorStatus((err as { cause?: unknown }).cause ?? err) ?? errorStatus(err);
    const failure = terminalFailure({
      what: `PodDisruptionBudget ${namespace}/too-big-glooha`,
      cause: err,
      code,
    });
    expect({ code, message: String((err as Error).message) }).toMatchObject({
      message: expect.stringMatching(/cannot unmarshal number 2147483648 into Go/),
    });
    expect(failure?.kind, String((err as Error).message)).toBe('invalid');
    expect(failure?.stall.reason).toBe('InvalidObject');
  });
});
