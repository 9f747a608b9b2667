// computeStatus: the GlooHA status as a pure function of one reconcile. Desired inputs come from the
// real core (desired()) over chart-shaped installs; only the live Deployments/PDBs/HPAs are hand-made.
import type { V1Deployment, V1PodDisruptionBudget, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Condition, LeaderStatus } from '../../../src/api/types.js';
import type { GlooHA, GlooHAStatus } from '../../../src/products/gloo/types.js';
import { canonicalJson } from '../../../src/controller/compare.js';
import { computeStatus as computeAnyStatus, type StatusInput } from '../../../src/controller/status.js';
import type { Desired } from '../../../src/controller/product.js';
import { glooHA, installFor, run } from '../core/fixtures.js';

/** A GlooHA's status (the product these tests exercise). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAStatus to GlooHA's: the rule misreads the narrowing (its fix does not compile)
const computeStatus = (input: StatusInput) => computeAnyStatus(input) as GlooHAStatus;

const T0 = new Date('2030-01-01T00:00:00.000Z');
const T1 = new Date('2030-01-01T00:01:00.000Z');
const T2 = new Date('2030-01-01T00:02:00.000Z');
const GEN = 4;

/** gloo 3, discovery 1, gatewayProxy 2 fixed, publicGw autoscaled 2–6 (glooha creates its HPA). */
const g: GlooHA = glooHA(
  {
    gloo: { replicas: 3 },
    discovery: {},
    gatewayProxies: {
      gatewayProxy: { replicas: 2 },
      publicGw: { autoscaling: { minReplicas: 2, maxReplicas: 6 } },
    },
  },
  { generation: GEN },
);
const d: Desired = run(g);

interface DepState {
  ready: number;
  updated?: number;
  replicas?: number;
  available?: number;
  generation?: number;
  observedGeneration?: number;
}

function dep(name: string, s: DepState): V1Deployment {
  const generation = s.generation ?? 7;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'gloo-system', generation },
    status: {
      observedGeneration: s.observedGeneration ?? generation,
      replicas: s.replicas ?? s.ready,
      readyReplicas: s.ready,
      updatedReplicas: s.updated ?? s.ready,
      availableReplicas: s.available ?? s.ready,
    },
  };
}

type States = Partial<Record<'gloo' | 'discovery' | 'gateway-proxy' | 'public-gw', DepState | undefined>>;

/** Every component rolled out with its desired ready replicas, with `over` applied. */
function deployments(over: States = {}): Map<string, V1Deployment> {
  const states: States = {
    gloo: { ready: 3 },
    discovery: { ready: 1 },
    'gateway-proxy': { ready: 2 },
    'public-gw': { ready: 2 },
    ...over,
  };
  const m = new Map<string, V1Deployment>();
  for (const [name, s] of Object.entries(states)) if (s) m.set(name, dep(name, s));
  return m;
}

const freshLeader: LeaderStatus = {
  holder: 'gloo-7d9f-x2kqp',
  fresh: true,
  leaseDurationSeconds: 15,
  lastTransitionTime: '2029-12-31T00:00:00.000Z',
};
const staleLeader: LeaderStatus = { ...freshLeader, fresh: false };

function input(over: Partial<StatusInput> = {}): StatusInput {
  return {
    generation: GEN,
    previous: undefined,
    now: T0,
    desired: d,
    deployments: deployments(),
    pdbs: new Map(),
    hpas: new Map(),
    leader: freshLeader,
    applied: 0,
    drift: [],
    ...over,
  };
}

function cond(status: GlooHAStatus, type: string): Condition {
  const c = status.conditions?.find((x) => x.type === type);
  if (!c) throw new Error(`no ${type} condition in ${JSON.stringify(status.conditions)}`);
  return c;
}

/** type → [status, reason] of every condition. */
function summary(status: GlooHAStatus): Record<string, [string, string]> {
  return Object.fromEntries((status.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]));
}

describe('all components ready, nothing applied', () => {
  const s = computeStatus(input());

  it('is Ready, not Reconciling, not Stalled, not Drifted, not Degraded', () => {
    expect(summary(s)).toEqual({
      Stalled: ['False', 'Progressing'],
      Reconciling: ['False', 'Reconciled'],
      Ready: ['True', 'Reconciled'],
      Drifted: ['False', 'NoDrift'],
      Degraded: ['False', 'AsExpected'],
    });
  });

  it('stamps every condition with the generation and now', () => {
    expect(s.observedGeneration).toBe(GEN);
    expect(s.conditions).toHaveLength(5);
    for (const c of s.conditions ?? []) {
      expect(c.observedGeneration).toBe(GEN);
      expect(c.lastTransitionTime).toBe(T0.toISOString());
      expect(c.message).not.toBe('');
    }
  });

  it('reports each component with its Deployment’s counts, its HPA and its PDB', () => {
    expect(s.components).toEqual({
      gloo: {
        deploymentName: 'gloo',
        desiredReplicas: 3,
        replicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        podDisruptionBudget: { name: 'gloo-glooha', owned: true, maxUnavailable: 1 },
      },
      discovery: {
        deploymentName: 'discovery',
        desiredReplicas: 1,
        replicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
      gatewayProxies: {
        gatewayProxy: {
          deploymentName: 'gateway-proxy',
          desiredReplicas: 2,
          replicas: 2,
          readyReplicas: 2,
          availableReplicas: 2,
          podDisruptionBudget: { name: 'gateway-proxy-glooha', owned: true, maxUnavailable: 1 },
        },
        publicGw: {
          deploymentName: 'public-gw',
          desiredReplicas: 2,
          replicas: 2,
          readyReplicas: 2,
          availableReplicas: 2,
          autoscaling: { hpaName: 'public-gw-glooha', minReplicas: 2, maxReplicas: 6 },
          podDisruptionBudget: { name: 'public-gw-glooha', owned: true, maxUnavailable: 1 },
        },
      },
    });
  });

  it('carries the leader, the warnings and the Helm values ConfigMap', () => {
    expect(s.leader).toEqual(freshLeader);
    expect(s.warnings).toEqual([]);
    expect(s.helmValuesConfigMap).toBe('ha-helm-values');
  });
});

describe('component details', () => {
  it('adds the live PDB’s health and the HPA’s current replicas', () => {
    const pdb: V1PodDisruptionBudget = {
      metadata: { name: 'gloo-glooha' },
      status: { currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3 },
    };
    const hpa: V2HorizontalPodAutoscaler = {
      metadata: { name: 'public-gw-glooha' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'public-gw' }, maxReplicas: 6 },
      status: { currentReplicas: 4, desiredReplicas: 4 },
    };
    const s = computeStatus(
      input({ pdbs: new Map([['gloo-glooha', pdb]]), hpas: new Map([['public-gw-glooha', hpa]]) }),
    );
    expect(s.components?.gloo?.podDisruptionBudget).toEqual({
      name: 'gloo-glooha',
      owned: true,
      maxUnavailable: 1,
      currentHealthy: 3,
      desiredHealthy: 2,
      disruptionsAllowed: 1,
    });
    expect(s.components?.gatewayProxies?.publicGw?.autoscaling).toEqual({
      hpaName: 'public-gw-glooha',
      minReplicas: 2,
      maxReplicas: 6,
      currentReplicas: 4,
    });
  });

  it('reports a chart PDB that stands in for glooha’s as not owned, with its budget', () => {
    const g2 = glooHA({ gloo: { replicas: 3 } }, { generation: 1 });
    const d2 = run(
      g2,
      installFor(g2, (i) => {
        i.pdbs.push({
          name: 'gloo-pdb',
          selector: { matchLabels: { gloo: 'gloo' } },
          maxUnavailable: 1,
          ours: false,
        });
      }),
    );
    const s = computeStatus(input({ desired: d2, generation: 1 }));
    expect(s.components?.gloo?.podDisruptionBudget).toEqual({
      name: 'gloo-pdb',
      owned: false,
      maxUnavailable: 1,
    });
  });

  it('a planned component whose Deployment is not in the cache has no counts and is not ready', () => {
    const s = computeStatus(input({ deployments: deployments({ discovery: undefined }) }));
    expect(s.components?.discovery).toEqual({ deploymentName: 'discovery', desiredReplicas: 1 });
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'Progressing' });
    expect(cond(s, 'Ready').message).toContain('discovery (0/1 ready, 0/1 updated)');
  });

  it('copies warnings with their component and path', () => {
    const g2 = glooHA({ gloo: { replicas: 1 } }, { generation: 1 });
    const d2 = run(g2);
    expect(d2.warnings.length).toBeGreaterThan(0);
    const s = computeStatus(
      input({ desired: d2, generation: 1, deployments: deployments({ gloo: { ready: 1 } }) }),
    );
    expect(s.warnings).toEqual(
      d2.warnings.map((w) => ({
        code: w.code,
        message: w.message,
        ...(w.component ? { component: w.component } : {}),
        ...(w.path ? { path: w.path } : {}),
      })),
    );
    expect(s.warnings?.map((w) => w.code)).toContain('SingleReplica');
    expect(s.warnings?.find((w) => w.code === 'SingleReplica')).toMatchObject({
      component: 'gloo',
      path: 'spec.gloo.replicas',
    });
  });
});

describe('converging', () => {
  it('applied > 0: Reconciling True (Applied), Ready False', () => {
    const s = computeStatus(input({ applied: 2 }));
    expect(cond(s, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'Applied',
      message: 'applied 2 object(s)',
    });
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      message: 'changes applied, waiting for them to settle',
    });
    expect(cond(s, 'Stalled').status).toBe('False');
  });

  it('applied > 0 with a component not ready: the Ready message names what it waits for', () => {
    const s = computeStatus(
      input({ applied: 1, deployments: deployments({ gloo: { ready: 1, updated: 1 } }) }),
    );
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(cond(s, 'Ready').message).toBe('waiting for gloo (1/3 ready, 1/3 updated)');
  });

  it('a Deployment whose observedGeneration lags is not ready, even with every replica ready', () => {
    const s = computeStatus(
      input({ deployments: deployments({ gloo: { ready: 3, generation: 8, observedGeneration: 7 } }) }),
    );
    expect(cond(s, 'Reconciling')).toMatchObject({
      status: 'True',
      reason: 'WaitingForReplicas',
      message: 'waiting for gloo (3/3 ready, 3/3 updated)',
    });
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      message: 'waiting for gloo (3/3 ready, 3/3 updated)',
    });
    // Its pods are up: not degraded.
    expect(cond(s, 'Degraded').status).toBe('False');
  });

  it('a Deployment whose status has no observedGeneration yet is not ready', () => {
    const m = deployments();
    delete m.get('gloo')!.status!.observedGeneration;
    const s = computeStatus(input({ deployments: m }));
    expect(cond(s, 'Ready').status).toBe('False');
    expect(cond(s, 'Ready').message).toContain('gloo (3/3 ready, 3/3 updated)');
  });

  it('a Deployment with fewer updated than desired replicas is not ready (a rollout in progress)', () => {
    const s = computeStatus(
      input({ deployments: deployments({ 'gateway-proxy': { ready: 2, updated: 1 } }) }),
    );
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Progressing',
      message: 'waiting for gateway-proxy (2/2 ready, 1/2 updated)',
    });
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'True', reason: 'WaitingForReplicas' });
  });

  it('an old pod does not make up the count: all updated pods must be ready and no old pod left', () => {
    // 3 pods of the new template, one not ready yet, plus an old ready pod: 3 ready in total.
    const mixed = computeStatus(
      input({ deployments: deployments({ gloo: { ready: 3, updated: 3, replicas: 4 } }) }),
    );
    expect(cond(mixed, 'Ready').status).toBe('False');
    const done = computeStatus(
      input({ deployments: deployments({ gloo: { ready: 3, updated: 3, replicas: 3 } }) }),
    );
    expect(cond(done, 'Ready').status).toBe('True');
  });

  it('a Deployment with fewer ready than desired replicas is not ready', () => {
    const s = computeStatus(input({ deployments: deployments({ gloo: { ready: 2, updated: 3 } }) }));
    expect(cond(s, 'Ready').message).toBe('waiting for gloo (2/3 ready, 3/3 updated)');
  });

  it('lists every component it waits for', () => {
    const s = computeStatus(
      input({
        deployments: deployments({ gloo: { ready: 2, updated: 3 }, 'public-gw': { ready: 1, updated: 2 } }),
      }),
    );
    expect(cond(s, 'Ready').message).toBe(
      'waiting for gloo (2/3 ready, 3/3 updated), public-gw (1/2 ready, 2/2 updated)',
    );
  });

  it('an autoscaled proxy is ready at its HPA minimum, and above it', () => {
    const s = computeStatus(input({ deployments: deployments({ 'public-gw': { ready: 5 } }) }));
    expect(cond(s, 'Ready').status).toBe('True');
  });

  it('more ready replicas than desired (a surge) is ready', () => {
    const s = computeStatus(input({ deployments: deployments({ gloo: { ready: 4, replicas: 4 } }) }));
    expect(cond(s, 'Ready').status).toBe('True');
  });
});

describe('problems', () => {
  const withProblems = run(
    g,
    installFor(g, (i) => {
      i.gatewayProxies = i.gatewayProxies.filter((x) => x.name !== 'public-gw');
      i.gloo!.containers = [{ name: 'not-gloo' }];
    }),
  );

  it('Stalled True (a person must act) and Ready False with the first problem’s code, every problem in the message', () => {
    expect(withProblems.problems.map((p) => p.code)).toEqual([
      'GlooContainerNotFound',
      'GatewayProxyNotFound',
    ]);
    const s = computeStatus(input({ desired: withProblems }));
    const message = withProblems.problems.map((p) => p.message).join('; ');
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'GlooContainerNotFound', message });
    expect(cond(s, 'Ready').message).toContain('no Deployment public-gw');
    // kstatus reads Stalled=True as Failed: without it the GlooHA would read as Current (or
    // InProgress for ever) while nothing but a person can fix it.
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'GlooContainerNotFound', message });
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'False', reason: 'GlooContainerNotFound' });
  });

  it('a problem outranks converging: Reconciling stays False while objects are applied', () => {
    const s = computeStatus(input({ desired: withProblems, applied: 3 }));
    expect(cond(s, 'Ready').reason).toBe('GlooContainerNotFound');
    expect(cond(s, 'Stalled').status).toBe('True');
    // Never both True: kstatus reads Reconciling first and would say InProgress for ever.
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'False', reason: 'GlooContainerNotFound' });
  });

  it('a component that was not found is left out of status.components', () => {
    const s = computeStatus(input({ desired: withProblems }));
    expect(Object.keys(s.components?.gatewayProxies ?? {})).toEqual(['gatewayProxy']);
    expect(s.components?.gloo).toBeDefined();
  });

  it('a missing gloo Deployment is DeploymentNotFound', () => {
    const d2 = run(
      g,
      installFor(g, (i) => delete i.discovery),
    );
    const s = computeStatus(input({ desired: d2 }));
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'DeploymentNotFound' });
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'DeploymentNotFound' });
    expect(s.components).not.toHaveProperty('discovery');
  });
});

describe('suspended (spec.suspend)', () => {
  it('nothing pending: Reconciling and Stalled False with reason Suspended; Ready from the replicas', () => {
    const s = computeStatus(input({ suspended: { pending: [] } }));
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'False', reason: 'Suspended' });
    expect(cond(s, 'Reconciling').message).toContain('spec.suspend is true');
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'False', reason: 'Suspended' });
    expect(cond(s, 'Ready')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });

  it('writes pending: Ready False Suspended, naming each write resuming will make', () => {
    const pending = ['create PodDisruptionBudget gloo-system/gloo', 'update Deployment gloo-system/gloo'];
    const s = computeStatus(input({ suspended: { pending } }));
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'Suspended' });
    for (const p of pending) expect(cond(s, 'Ready').message).toContain(p);
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'False', reason: 'Suspended' });
  });

  it('a problem still stalls a suspended GlooHA', () => {
    const broken = run(
      g,
      installFor(g, (i) => delete i.discovery),
    );
    const s = computeStatus(input({ desired: broken, suspended: { pending: [] } }));
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'DeploymentNotFound' });
  });
});

describe('lastHandledReconcileAt', () => {
  it('echoes the handled request, and keeps the last one when the annotation is gone', () => {
    const first = computeStatus(input({ reconcileRequest: '1700000000' }));
    expect(first.lastHandledReconcileAt).toBe('1700000000');
    const later = computeStatus(input({ previous: first }));
    expect(later.lastHandledReconcileAt).toBe('1700000000');
  });

  it('is recorded by a stalled reconcile too', () => {
    const s = computeStatus(
      input({ desired: undefined, stall: { reason: 'Forbidden', message: 'no' }, reconcileRequest: 'now' }),
    );
    expect(s.lastHandledReconcileAt).toBe('now');
  });
});

describe('drift', () => {
  const pending = {
    message: 'Deployment gloo: spec.replicas (replicas 1, want 3) changed by kubectl-scale (Update)',
    corrected: false,
  };
  const corrected = {
    message: 'restored Deployment gateway-proxy: spec.replicas changed by kubectl (Update)',
    corrected: true,
  };

  it('drift left in place (driftPolicy warn): Drifted True DriftDetected', () => {
    const s = computeStatus(input({ drift: [pending] }));
    expect(cond(s, 'Drifted')).toMatchObject({
      status: 'True',
      reason: 'DriftDetected',
      message: pending.message,
    });
  });

  it('drift corrected: Drifted False DriftCorrected with what was restored', () => {
    const s = computeStatus(input({ drift: [corrected], applied: 1 }));
    expect(cond(s, 'Drifted')).toMatchObject({
      status: 'False',
      reason: 'DriftCorrected',
      message: corrected.message,
    });
  });

  it('pending drift outranks corrected drift, and every pending report is listed', () => {
    const other = {
      message: 'HorizontalPodAutoscaler public-gw-glooha: spec.minReplicas changed by x',
      corrected: false,
    };
    const s = computeStatus(input({ drift: [corrected, pending, other] }));
    expect(cond(s, 'Drifted')).toMatchObject({
      status: 'True',
      reason: 'DriftDetected',
      message: `${pending.message}; ${other.message}`,
    });
  });

  it('a correction stays on record until the next drift, then NoDrift once that drift is gone', () => {
    const s1 = computeStatus(input({ drift: [corrected], applied: 1 }));
    const s2 = computeStatus(input({ previous: s1, now: T1 }));
    expect(cond(s2, 'Drifted')).toEqual(cond(s1, 'Drifted'));
    const s3 = computeStatus(input({ previous: s2, now: T2, drift: [pending] }));
    expect(cond(s3, 'Drifted')).toMatchObject({
      status: 'True',
      reason: 'DriftDetected',
      lastTransitionTime: T2.toISOString(),
    });
    const s4 = computeStatus(input({ previous: s3, now: T2 }));
    expect(cond(s4, 'Drifted')).toMatchObject({ status: 'False', reason: 'NoDrift' });
  });
});

describe('Degraded', () => {
  it('the gloo leader’s Lease is stale while gloo has ready replicas: GlooLeaderLost', () => {
    const s = computeStatus(input({ leader: staleLeader }));
    expect(cond(s, 'Degraded')).toMatchObject({ status: 'True', reason: 'GlooLeaderLost' });
    expect(cond(s, 'Degraded').message).toContain('gloo-7d9f-x2kqp');
    expect(cond(s, 'Degraded').message).toContain('15s');
    expect(s.leader).toEqual(staleLeader);
  });

  it('a released Lease (no holder) while gloo has ready replicas: GlooLeaderLost, saying nobody holds it', () => {
    const s = computeStatus(input({ leader: { fresh: false, leaseDurationSeconds: 1 } }));
    expect(cond(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'GlooLeaderLost',
      message: 'the gloo Lease has no holder: no gloo replica is writing statuses',
    });
  });

  it('a stale Lease does not make the install un-Ready by itself', () => {
    const s = computeStatus(input({ leader: staleLeader }));
    expect(cond(s, 'Ready').status).toBe('True');
  });
});

describe('Ready and a product without a leader: not Ready only past the failover bound', () => {
  // leaseDuration 15 s, retryPeriod 2 s: bound 15 + 2 + (ceil(1.2 × 2 + 5) = 8) = 25 s.
  const spell = (seconds: number) => ({ seconds, leaseDurationSeconds: 15, retryPeriodSeconds: 2 });

  it('within the bound (a handover, a takeover after expiry) Ready stays True; Degraded says the leader is lost', () => {
    const s = computeStatus(input({ leader: staleLeader, leaderless: spell(25) }));
    expect(cond(s, 'Ready')).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(cond(s, 'Degraded')).toMatchObject({ status: 'True', reason: 'GlooLeaderLost' });
  });

  it('past the bound: Ready=False with the product’s reason and the bound spelled out; not Reconciling, not Stalled', () => {
    const s = computeStatus(input({ leader: staleLeader, leaderless: spell(25.1) }));
    expect(summary(s)).toEqual({
      Stalled: ['False', 'Progressing'],
      Reconciling: ['False', 'Reconciled'],
      Ready: ['False', 'GlooLeaderLost'],
      Drifted: ['False', 'NoDrift'],
      Degraded: ['True', 'GlooLeaderLost'],
    });
    expect(cond(s, 'Ready').message).toBe(
      'the gloo Lease has had no live holder longer than its failover bound of 25s (leaseDuration 15s + retryPeriod 2s + 8s slack): no gloo replica is writing statuses',
    );
  });

  it('a longer spell rewrites nothing (the message names the bound, not the growing length)', () => {
    const s1 = computeStatus(input({ leader: staleLeader, leaderless: spell(30) }));
    const s2 = computeStatus(input({ previous: s1, now: T1, leader: staleLeader, leaderless: spell(90) }));
    expect(canonicalJson(s2)).toBe(canonicalJson(s1));
  });

  it('a released Lease (no holder) past the bound is not Ready either', () => {
    const s = computeStatus(
      input({ leader: { fresh: false, leaseDurationSeconds: 1 }, leaderless: spell(40) }),
    );
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'GlooLeaderLost' });
  });

  it('a new leader makes it Ready again, the flip recorded once each way', () => {
    const lost = computeStatus(input({ leader: staleLeader, leaderless: spell(26) }));
    expect(cond(lost, 'Ready').lastTransitionTime).toBe(T0.toISOString());
    const back = computeStatus(input({ previous: lost, now: T1, leader: freshLeader }));
    expect(cond(back, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: T1.toISOString() });
  });

  it('no leader is expected when leader election is disabled, or when the elected component has no ready pod', () => {
    const g2 = glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false } } }, { generation: 1 });
    const off = computeStatus(
      input({
        desired: run(g2),
        generation: 1,
        leader: staleLeader,
        leaderless: spell(600),
        deployments: deployments({ gloo: { ready: 1 } }),
      }),
    );
    expect(cond(off, 'Ready').status).toBe('True');
    const down = computeStatus(
      input({
        leader: staleLeader,
        leaderless: spell(600),
        deployments: deployments({ gloo: { ready: 0 } }),
      }),
    );
    expect(cond(down, 'Degraded')).toMatchObject({ status: 'True', reason: 'ComponentUnavailable' });
    expect(cond(down, 'Ready').reason).toBe('Progressing');
  });

  it('suspended: still not Ready past the bound (suspending writes nothing, it hides nothing)', () => {
    const s = computeStatus(
      input({ leader: staleLeader, leaderless: spell(60), suspended: { pending: [] } }),
    );
    expect(cond(s, 'Ready')).toMatchObject({ status: 'False', reason: 'GlooLeaderLost' });
  });

  it('no leader is expected when leader election is disabled', () => {
    const g2 = glooHA({ gloo: { replicas: 1, leaderElection: { enabled: false } } }, { generation: 1 });
    const s = computeStatus(
      input({
        desired: run(g2),
        generation: 1,
        leader: staleLeader,
        deployments: deployments({ gloo: { ready: 1 } }),
      }),
    );
    expect(cond(s, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });

  it('no Lease seen at all is not GlooLeaderLost', () => {
    const s = computeStatus(input({ leader: undefined }));
    expect(cond(s, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(s).not.toHaveProperty('leader');
  });

  it('a component with no ready replicas: ComponentUnavailable, naming it', () => {
    const s = computeStatus(
      input({ deployments: deployments({ 'gateway-proxy': { ready: 0, updated: 2 } }) }),
    );
    expect(cond(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ComponentUnavailable',
      message: 'no ready replicas: gateway-proxy',
    });
    expect(cond(s, 'Ready').status).toBe('False');
  });

  it('lists every unavailable component', () => {
    const s = computeStatus(
      input({ deployments: deployments({ discovery: { ready: 0 }, 'public-gw': { ready: 0 } }) }),
    );
    expect(cond(s, 'Degraded').message).toBe('no ready replicas: discovery, public-gw');
  });

  it('gloo with no ready replicas and a stale Lease is ComponentUnavailable (no leader is expected)', () => {
    const s = computeStatus(input({ leader: staleLeader, deployments: deployments({ gloo: { ready: 0 } }) }));
    expect(cond(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ComponentUnavailable',
      message: 'no ready replicas: gloo',
    });
  });

  it('GlooLeaderLost outranks an unavailable proxy', () => {
    const s = computeStatus(
      input({ leader: staleLeader, deployments: deployments({ 'gateway-proxy': { ready: 0 } }) }),
    );
    expect(cond(s, 'Degraded').reason).toBe('GlooLeaderLost');
  });

  it('a fewer-than-desired but non-zero ready count is not Degraded', () => {
    const s = computeStatus(input({ deployments: deployments({ gloo: { ready: 1 } }) }));
    expect(cond(s, 'Degraded').status).toBe('False');
  });

  it('discovery scaled to 0 on purpose (discovery.replicas: 0) is Ready and not Degraded', () => {
    const g2 = glooHA({ gloo: { replicas: 2 }, discovery: { replicas: 0 } }, { generation: 1 });
    const d2 = run(g2);
    expect(d2.components.find((c) => c.id === 'discovery')?.desiredReplicas).toBe(0);
    const s = computeStatus(
      input({
        desired: d2,
        generation: 1,
        deployments: deployments({ gloo: { ready: 2 }, discovery: { ready: 0 } }),
      }),
    );
    expect(cond(s, 'Ready').status).toBe('True');
    expect(cond(s, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });
});

describe('stalled', () => {
  const ready = computeStatus(input());

  it('Stalled True and Ready False with the stall’s reason and message; Reconciling False', () => {
    const stall = { reason: 'InvalidSpec', message: 'spec.gloo.replicas: must be at least 1' };
    const s = computeStatus({ generation: GEN + 1, previous: ready, now: T1, stall, applied: 0, drift: [] });
    expect(cond(s, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidSpec',
      message: stall.message,
      observedGeneration: GEN + 1,
      lastTransitionTime: T1.toISOString(),
    });
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      message: stall.message,
      lastTransitionTime: T1.toISOString(),
    });
    expect(cond(s, 'Reconciling')).toMatchObject({ status: 'False', reason: 'InvalidSpec' });
    expect(s.observedGeneration).toBe(GEN + 1);
  });

  it('keeps the components it last knew and the conditions it does not own', () => {
    const stall = { reason: 'TargetNotFound', message: 'no Gloo install found' };
    const s = computeStatus({ generation: GEN, previous: ready, now: T1, stall, applied: 0, drift: [] });
    expect(s.components).toEqual(ready.components);
    expect(cond(s, 'Drifted')).toEqual(cond(ready, 'Drifted'));
    expect(cond(s, 'Degraded')).toEqual(cond(ready, 'Degraded'));
    // Reconciling kept its status (False), so its transition time stays.
    expect(cond(s, 'Reconciling').lastTransitionTime).toBe(T0.toISOString());
  });

  it('reports the leader when one is known', () => {
    const stall = { reason: 'ConflictingGlooHA', message: 'already managed' };
    const s = computeStatus({
      generation: 1,
      previous: undefined,
      now: T0,
      stall,
      leader: staleLeader,
      applied: 0,
      drift: [],
    });
    expect(s.leader).toEqual(staleLeader);
    expect(s).not.toHaveProperty('components');
    expect(summary(s)).toEqual({
      Stalled: ['True', 'ConflictingGlooHA'],
      Ready: ['False', 'ConflictingGlooHA'],
      Reconciling: ['False', 'ConflictingGlooHA'],
    });
  });

  it('a stall outranks desired state, if both are given', () => {
    const stall = { reason: 'ConflictingGlooHA', message: 'already managed' };
    const s = computeStatus(input({ stall }));
    expect(cond(s, 'Stalled').status).toBe('True');
    expect(cond(s, 'Ready').reason).toBe('ConflictingGlooHA');
  });

  it('without a desired state or a stall it stalls with reason Unknown', () => {
    const s = computeStatus({ generation: 1, previous: undefined, now: T0, applied: 0, drift: [] });
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'Unknown' });
  });

  it('recovers: Stalled flips back to False with a new transition time', () => {
    const stall = { reason: 'TargetNotFound', message: 'no Gloo install found' };
    const stalled = computeStatus({
      generation: GEN,
      previous: undefined,
      now: T0,
      stall,
      applied: 0,
      drift: [],
    });
    const s = computeStatus(input({ previous: stalled, now: T1 }));
    expect(cond(s, 'Stalled')).toMatchObject({ status: 'False', lastTransitionTime: T1.toISOString() });
    expect(cond(s, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: T1.toISOString() });
    // Reconciling was False while stalled and is False now: no transition.
    expect(cond(s, 'Reconciling')).toMatchObject({
      status: 'False',
      reason: 'Reconciled',
      lastTransitionTime: T0.toISOString(),
    });
  });
});

describe('transitions', () => {
  it('lastTransitionTime moves only for the conditions that flip', () => {
    const s0 = computeStatus(input());
    const s1 = computeStatus(
      input({ previous: s0, now: T1, deployments: deployments({ gloo: { ready: 0 } }) }),
    );
    expect(cond(s1, 'Ready')).toMatchObject({ status: 'False', lastTransitionTime: T1.toISOString() });
    expect(cond(s1, 'Reconciling')).toMatchObject({ status: 'True', lastTransitionTime: T1.toISOString() });
    expect(cond(s1, 'Degraded')).toMatchObject({ status: 'True', lastTransitionTime: T1.toISOString() });
    expect(cond(s1, 'Stalled').lastTransitionTime).toBe(T0.toISOString());
    expect(cond(s1, 'Drifted').lastTransitionTime).toBe(T0.toISOString());
    const s2 = computeStatus(input({ previous: s1, now: T2 }));
    expect(cond(s2, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: T2.toISOString() });
    expect(s2.conditions?.map((c) => c.type)).toEqual(s0.conditions?.map((c) => c.type));
  });

  it('a new generation updates observedGeneration everywhere without moving transition times', () => {
    const s0 = computeStatus(input());
    const s1 = computeStatus(input({ previous: s0, now: T1, generation: GEN + 1 }));
    expect(s1.observedGeneration).toBe(GEN + 1);
    for (const c of s1.conditions ?? []) {
      expect(c.observedGeneration).toBe(GEN + 1);
      expect(c.lastTransitionTime).toBe(T0.toISOString());
    }
  });

  it('without a generation there is no observedGeneration anywhere', () => {
    const s = computeStatus(input({ generation: undefined }));
    expect(s).not.toHaveProperty('observedGeneration');
    for (const c of s.conditions ?? []) expect(c).not.toHaveProperty('observedGeneration');
  });

  it('does not mutate the previous status', () => {
    const s0 = computeStatus(input());
    const snapshot = structuredClone(s0);
    computeStatus(input({ previous: s0, now: T1, applied: 2, drift: [{ message: 'm', corrected: false }] }));
    expect(s0).toEqual(snapshot);
  });
});

describe('steady state: the same inputs with the previous output as previous give an identical status', () => {
  const stall = { reason: 'TargetNotFound', message: 'no Gloo install found' };
  const problems = run(
    g,
    installFor(g, (i) => delete i.discovery),
  );
  const cases: [string, Partial<StatusInput>][] = [
    ['ready', {}],
    ['converging (applied)', { applied: 2 }],
    ['waiting for replicas', { deployments: deployments({ gloo: { ready: 1, updated: 2 } }) }],
    [
      'observedGeneration lagging',
      { deployments: deployments({ gloo: { ready: 3, generation: 9, observedGeneration: 8 } }) },
    ],
    ['problems', { desired: problems }],
    ['drift detected', { drift: [{ message: 'Deployment gloo: spec.replicas changed', corrected: false }] }],
    ['drift corrected', { drift: [{ message: 'restored Deployment gloo', corrected: true }], applied: 1 }],
    ['leader lost', { leader: staleLeader }],
    ['component unavailable', { deployments: deployments({ 'public-gw': { ready: 0 } }) }],
    ['stalled', { stall, desired: undefined }],
    ['no generation', { generation: undefined }],
  ];

  it.each(cases)('%s', (_name, over) => {
    const first = computeStatus(input(over));
    const second = computeStatus(input({ ...over, previous: first, now: T1 }));
    const third = computeStatus(input({ ...over, previous: second, now: T2 }));
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    // What the reconciler compares before writing: canonical JSON of the status.
    expect(canonicalJson(second)).toBe(canonicalJson(first));
  });

  it.each(cases)('%s, with previous read back from the API server (JSON round trip)', (_name, over) => {
    const first = computeStatus(input(over));
    const stored = JSON.parse(JSON.stringify(first)) as GlooHAStatus;
    const second = computeStatus(input({ ...over, previous: stored, now: T2 }));
    expect(canonicalJson(second)).toBe(canonicalJson(stored));
  });
});
