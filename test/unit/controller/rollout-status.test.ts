// rolloutFailure/rolloutStall and their effect on computeStatus: a Deployment that gave up rolling out
// (ProgressDeadlineExceeded, ReplicaFailure) makes the GlooHA Stalled with the Deployment's own words.
import type { V1Deployment, V1DeploymentCondition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { rolloutFailure, rolloutStall } from '../../../src/controller/rollout-status.js';
import { computeStatus } from '../../../src/controller/status.js';
import { glooHA, run } from '../core/fixtures.js';

function dep(conditions: V1DeploymentCondition[], generation = 2, observedGeneration = 2): V1Deployment {
  return {
    metadata: { name: 'gloo', generation },
    status: { observedGeneration, conditions, replicas: 3, readyReplicas: 2, updatedReplicas: 1 },
  };
}
const deadline: V1DeploymentCondition = {
  type: 'Progressing',
  status: 'False',
  reason: 'ProgressDeadlineExceeded',
  message: 'ReplicaSet "gloo-5d8" has timed out progressing.',
};

describe('rolloutFailure', () => {
  it('reads ProgressDeadlineExceeded with the Deployment message', () => {
    expect(rolloutFailure(dep([deadline]))).toEqual({
      reason: 'ProgressDeadlineExceeded',
      message: 'Deployment gloo: ReplicaSet "gloo-5d8" has timed out progressing.',
    });
  });

  it('reads ReplicaFailure=True with its own reason', () => {
    const failure: V1DeploymentCondition = {
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'pods "gloo-x" is forbidden: exceeded quota',
    };
    expect(rolloutFailure(dep([failure]))).toEqual({
      reason: 'FailedCreate',
      message: 'Deployment gloo: pods "gloo-x" is forbidden: exceeded quota',
    });
  });

  it('ignores a progressing rollout, a finished one, and a condition from an older generation', () => {
    expect(
      rolloutFailure(dep([{ ...deadline, status: 'True', reason: 'ReplicaSetUpdated' }])),
    ).toBeUndefined();
    expect(
      rolloutFailure(dep([{ ...deadline, status: 'True', reason: 'NewReplicaSetAvailable' }])),
    ).toBeUndefined();
    expect(rolloutFailure(dep([deadline], 3, 2))).toBeUndefined();
    expect(rolloutFailure(undefined)).toBeUndefined();
  });
});

describe('computeStatus with a stopped rollout', () => {
  const g = glooHA({ gloo: { replicas: 3 } }, { generation: 5 });
  const d = run(g);

  it('is Stalled (kstatus Failed) with the Deployment reason, not WaitingForReplicas for ever', () => {
    const s = computeStatus({
      generation: 5,
      previous: undefined,
      now: new Date('2030-01-01T00:00:00Z'),
      desired: d,
      deployments: new Map([['gloo', dep([deadline])]]),
      applied: 0,
      drift: [],
    });
    const c = (t: string) => s.conditions?.find((x) => x.type === t);
    expect(c('Stalled')).toMatchObject({ status: 'True', reason: 'ProgressDeadlineExceeded' });
    expect(c('Stalled')?.message).toContain('has timed out progressing');
    expect(c('Ready')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(c('Reconciling')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('names every failing Deployment', () => {
    const other = { ...dep([deadline]), metadata: { name: 'gateway-proxy', generation: 2 } };
    const stall = rolloutStall(
      [
        { id: 'gloo', deploymentName: 'gloo', found: true, desiredReplicas: 3, managesReplicas: true },
        {
          id: 'gatewayProxies.gatewayProxy',
          deploymentName: 'gateway-proxy',
          found: true,
          desiredReplicas: 2,
          managesReplicas: true,
        },
      ],
      new Map([
        ['gloo', dep([deadline])],
        ['gateway-proxy', other],
      ]),
    );
    expect(stall?.message).toMatch(/Deployment gloo: .*; Deployment gateway-proxy: /);
  });
});
