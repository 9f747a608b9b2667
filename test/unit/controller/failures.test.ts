// Which write failures are terminal. The 500 bodies here are the API server's own (recorded from a
// server-side apply of a PodDisruptionBudget against kube-apiserver; the integration test in
// test/integration/reconciler.test.ts makes the same write on the real server).
import { describe, expect, it } from 'vitest';

import { terminalFailure } from '../../../src/controller/failures.js';

const status = (code: number, message: string) =>
  Object.assign(new Error(`HTTP ${code}`), {
    code,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code },
  });

describe('terminalFailure', () => {
  it('a 500 that is a decoding error of our own body (a value beyond int32) is InvalidObject, not transient', () => {
    const err = status(
      500,
      'failed to create typed patch object (team-a/gloo-glooha; policy/v1, Kind=PodDisruptionBudget): .spec.maxUnavailable: json: cannot unmarshal number 2147483648 into Go value of type int32',
    );
    const t = terminalFailure({ what: 'PodDisruptionBudget team-a/gloo-glooha', cause: err, code: 500 });
    expect(t?.kind).toBe('invalid');
    expect(t?.stall.reason).toBe('InvalidObject');
    expect(t?.stall.message).toContain('cannot unmarshal number 2147483648');
    expect(
      terminalFailure(
        status(500, 'json: cannot unmarshal string into Go struct field Spec.spec.replicas of type int32'),
      )?.kind,
    ).toBe('invalid');
  });

  it('413 (our body is too large) is InvalidObject', () => {
    expect(terminalFailure(status(413, 'Request entity too large: limit is 3145728'))?.kind).toBe('invalid');
  });

  it('other 500s, 503, 429, 409 and connection errors stay transient', () => {
    expect(terminalFailure(status(500, 'etcdserver: request timed out'))).toBeUndefined();
    expect(
      terminalFailure(
        status(500, 'Internal error occurred: failed calling webhook "x": context deadline exceeded'),
      ),
    ).toBeUndefined();
    expect(
      terminalFailure(status(503, 'the server is currently unable to handle the request')),
    ).toBeUndefined();
    expect(terminalFailure(status(429, 'too many requests'))).toBeUndefined();
    expect(terminalFailure(status(409, 'the object has been modified'))).toBeUndefined();
    expect(terminalFailure(new Error('read ECONNRESET'))).toBeUndefined();
  });
});
