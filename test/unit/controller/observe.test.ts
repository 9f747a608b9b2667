// From cached API objects to ObservedInstall: which Deployments are gloo, discovery and proxies, which
// objects spec.target selects, and which HPAs/PDBs are glooha's own.
import type { V1Deployment, V1PodDisruptionBudget, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  LABEL_COMPONENT,
  LABEL_MANAGED_BY,
  LABEL_OWNER_KIND,
  LABEL_OWNER_NAME,
  LABEL_OWNER_NAMESPACE,
  MANAGER,
} from '../../../src/api/constants.js';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import { KIND } from '../../../src/products/gloo/api.js';
import type { TargetSpec } from '../../../src/products/gloo/types.js';
import { isOwnedBy, observedDeployment, type InstallObjects } from '../../../src/controller/observe.js';
import { inTarget, observeInstall } from '../../../src/products/gloo/observe.js';
import { desired } from '../../../src/products/gloo/desired.js';
import type { Owner } from '../../../src/core/ownership.js';
import { glooHA, NS } from '../core/fixtures.js';

const owner: Owner = { name: 'ha', namespace: NS, uid: 'uid-1', kind: KIND };
const RELEASE = 'meta.helm.sh/release-name';

interface DepOpts {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  container?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  replicas?: number;
  serviceAccountName?: string;
}

function deployment(name: string, role: string | undefined, opts: DepOpts = {}): V1Deployment {
  const podLabels: Record<string, string> = role === undefined ? { app: name } : { gloo: role };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: NS,
      labels: { app: 'gloo', ...(role === undefined ? {} : { gloo: role }), ...opts.labels },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: podLabels },
      template: {
        metadata: { labels: { ...podLabels, extra: 'x' } },
        spec: {
          serviceAccountName: opts.serviceAccountName ?? name,
          containers: [{ name: opts.container ?? name, image: `img/${name}`, env: opts.env as never }],
        },
      },
    },
  };
}

function hpa(
  name: string,
  target: { kind: string; name: string },
  opts: { labels?: Record<string, string>; min?: number; max?: number } = {},
): V2HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: NS, ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', ...target },
      ...(opts.min === undefined ? {} : { minReplicas: opts.min }),
      maxReplicas: opts.max ?? 5,
    },
  };
}

function pdb(
  name: string,
  matchLabels: Record<string, string>,
  budget: { minAvailable?: number | string; maxUnavailable?: number | string },
  labels?: Record<string, string>,
): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
    spec: { selector: { matchLabels }, ...budget },
  };
}

const ownedLabels = (o: Owner = owner) => ({
  [LABEL_MANAGED_BY]: MANAGER,
  [LABEL_OWNER_NAME]: o.name,
  [LABEL_OWNER_NAMESPACE]: o.namespace,
  [LABEL_OWNER_KIND]: o.kind,
  [LABEL_COMPONENT]: 'gatewayProxy',
});

/** Labels an earlier release put on a GlooHA's objects: no owner-kind label. */
const legacyLabels = (o: Owner = owner) => {
  const { [LABEL_OWNER_KIND]: _kind, ...rest } = ownedLabels(o);
  return rest;
};

const objs = (over: Partial<InstallObjects> = {}): InstallObjects => ({
  namespace: NS,
  deployments: [],
  hpas: [],
  pdbs: [],
  ...over,
});

describe('observeInstall: Deployments by role', () => {
  const chart = [
    deployment('gateway-proxy', 'gateway-proxy'),
    deployment('gloo', 'gloo'),
    deployment('discovery', 'discovery'),
    deployment('public-gw', 'gateway-proxy'),
  ];

  it('maps gloo=gloo, gloo=discovery and gloo=gateway-proxy', () => {
    const o = observeInstall(objs({ deployments: chart }), owner);
    expect(o.namespace).toBe(NS);
    expect(o.gloo?.name).toBe('gloo');
    expect(o.discovery?.name).toBe('discovery');
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['gateway-proxy', 'public-gw']);
    expect(o.hpas).toEqual([]);
    expect(o.pdbs).toEqual([]);
  });

  it('leaves gloo and discovery out when the install has none', () => {
    const o = observeInstall(objs({ deployments: [deployment('gateway-proxy', 'gateway-proxy')] }), owner);
    expect(o).not.toHaveProperty('gloo');
    expect(o).not.toHaveProperty('discovery');
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['gateway-proxy']);
  });

  it('an empty install observes nothing', () => {
    expect(observeInstall(objs(), owner)).toEqual({
      namespace: NS,
      gatewayProxies: [],
      hpas: [],
      pdbs: [],
    });
  });

  it('offers Deployments without gloo=gateway-proxy as proxies too (a custom deploymentName)', () => {
    const o = observeInstall(
      objs({ deployments: [deployment('gloo', 'gloo'), deployment('edge', undefined)] }),
      owner,
    );
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['edge']);
  });

  it('never offers the gloo or discovery Deployment as a proxy', () => {
    const o = observeInstall(objs({ deployments: chart }), owner);
    expect(o.gatewayProxies.map((d) => d.name)).not.toContain('gloo');
    expect(o.gatewayProxies.map((d) => d.name)).not.toContain('discovery');
  });

  it('copies what the core needs from each Deployment', () => {
    const d = deployment('gloo', 'gloo', {
      replicas: 3,
      serviceAccountName: 'gloo-sa',
      env: [
        { name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' },
        { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      ],
    });
    expect(observeInstall(objs({ deployments: [d] }), owner).gloo).toEqual({
      name: 'gloo',
      labels: { app: 'gloo', gloo: 'gloo' },
      selector: { matchLabels: { gloo: 'gloo' } },
      podLabels: { gloo: 'gloo', extra: 'x' },
      containers: [
        {
          name: 'gloo',
          env: [{ name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' }, { name: 'POD_NAMESPACE' }],
          // Gloo's chart version is read from it.
          image: 'img/gloo',
        },
      ],
      serviceAccountName: 'gloo-sa',
      replicas: 3,
    });
  });

  it('tolerates a Deployment with almost nothing in it', () => {
    const bare = { metadata: { name: 'bare', labels: { gloo: 'gloo' } } } as V1Deployment;
    expect(observedDeployment(bare)).toEqual({
      name: 'bare',
      labels: { gloo: 'gloo' },
      selector: {},
      podLabels: undefined,
      containers: [],
      serviceAccountName: undefined,
      replicas: undefined,
    });
  });

  it('feeds the pure core: the chart layout yields no problems', () => {
    const g = glooHA({
      gloo: { replicas: 2 },
      discovery: {},
      gatewayProxies: { gatewayProxy: { replicas: 2 } },
    });
    const o = observeInstall(
      objs({ deployments: chart.filter((d) => d.metadata?.name !== 'public-gw') }),
      owner,
    );
    const r = desired(g, o);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.desired.problems).toEqual([]);
    expect(r.desired.components.map((c) => [c.id, c.found])).toEqual([
      ['gloo', true],
      ['discovery', true],
      ['gatewayProxies.gatewayProxy', true],
    ]);
  });
});

describe('observeInstall: spec.target narrows the Deployments', () => {
  const a = {
    gloo: deployment('gloo-a', 'gloo', { labels: { install: 'a' }, annotations: { [RELEASE]: 'gloo-a' } }),
    proxy: deployment('proxy-a', 'gateway-proxy', {
      labels: { install: 'a' },
      annotations: { [RELEASE]: 'gloo-a' },
    }),
  };
  const b = {
    gloo: deployment('gloo-b', 'gloo', { labels: { install: 'b' }, annotations: { [RELEASE]: 'gloo-b' } }),
    proxy: deployment('proxy-b', 'gateway-proxy', {
      labels: { install: 'b' },
      annotations: { [RELEASE]: 'gloo-b' },
    }),
  };
  const all = [b.gloo, b.proxy, a.gloo, a.proxy];

  it('a matchLabels selector picks one install out of a shared namespace', () => {
    const oa = observeInstall(objs({ deployments: all }), owner, {
      selector: { matchLabels: { install: 'a' } },
    });
    expect(oa.gloo?.name).toBe('gloo-a');
    expect(oa.gatewayProxies.map((d) => d.name)).toEqual(['proxy-a']);
    const ob = observeInstall(objs({ deployments: all }), owner, {
      selector: { matchLabels: { install: 'b' } },
    });
    expect(ob.gloo?.name).toBe('gloo-b');
    expect(ob.gatewayProxies.map((d) => d.name)).toEqual(['proxy-b']);
  });

  it('a matchExpressions selector too', () => {
    const o = observeInstall(objs({ deployments: all }), owner, {
      selector: { matchExpressions: [{ key: 'install', operator: 'NotIn', values: ['b'] }] },
    });
    expect(o.gloo?.name).toBe('gloo-a');
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['proxy-a']);
  });

  it('a helmRelease picks the Deployments annotated with that release', () => {
    const o = observeInstall(objs({ deployments: all }), owner, { helmRelease: 'gloo-b' });
    expect(o.gloo?.name).toBe('gloo-b');
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['proxy-b']);
  });

  it('a selector nothing matches observes no gloo (the reconciler stalls with TargetNotFound)', () => {
    const o = observeInstall(objs({ deployments: all }), owner, {
      selector: { matchLabels: { install: 'c' } },
    });
    expect(o.gloo).toBeUndefined();
    expect(o.gatewayProxies).toEqual([]);
  });

  it('without a target the first gloo Deployment is gloo and the other is offered as a proxy', () => {
    const o = observeInstall(objs({ deployments: all }), owner);
    expect(o.gloo?.name).toBe('gloo-b');
    expect(o.gatewayProxies.map((d) => d.name)).toEqual(['proxy-b', 'gloo-a', 'proxy-a']);
  });
});

describe('inTarget', () => {
  const obj = (labels?: Record<string, string>, annotations?: Record<string, string>) => ({
    metadata: { name: 'x', ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  });
  const labelled = obj({ app: 'gloo', gloo: 'gloo', tier: 'edge' }, { [RELEASE]: 'gloo' });

  it('no target, or an empty one, takes everything', () => {
    expect(inTarget(labelled, undefined)).toBe(true);
    expect(inTarget(labelled, {})).toBe(true);
    expect(inTarget(obj(), {})).toBe(true);
    expect(inTarget(labelled, { namespace: 'elsewhere' })).toBe(true);
  });

  it('an empty selector selects everything', () => {
    expect(inTarget(obj(), { selector: {} })).toBe(true);
  });

  it.each<[string, TargetSpec, boolean]>([
    ['matchLabels that match', { selector: { matchLabels: { tier: 'edge' } } }, true],
    ['matchLabels that all match', { selector: { matchLabels: { tier: 'edge', gloo: 'gloo' } } }, true],
    ['matchLabels with a wrong value', { selector: { matchLabels: { tier: 'core' } } }, false],
    ['matchLabels with one wrong value', { selector: { matchLabels: { tier: 'edge', gloo: 'x' } } }, false],
    ['matchLabels on a missing label', { selector: { matchLabels: { zone: 'a' } } }, false],
    [
      'In',
      { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['core', 'edge'] }] } },
      true,
    ],
    [
      'In, not listed',
      { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['core'] }] } },
      false,
    ],
    [
      'In, label missing',
      { selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
      false,
    ],
    [
      'NotIn',
      { selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['core'] }] } },
      true,
    ],
    [
      'NotIn, listed',
      { selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['edge'] }] } },
      false,
    ],
    ['Exists', { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } }, true],
    ['Exists, missing', { selector: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }, false],
    ['DoesNotExist', { selector: { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] } }, true],
    [
      'DoesNotExist, present',
      { selector: { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] } },
      false,
    ],
    [
      'matchLabels and matchExpressions both hold',
      {
        selector: {
          matchLabels: { gloo: 'gloo' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['edge'] }],
        },
      },
      true,
    ],
    [
      'matchLabels hold but matchExpressions do not',
      {
        selector: {
          matchLabels: { gloo: 'gloo' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['core'] }],
        },
      },
      false,
    ],
    ['the Helm release', { helmRelease: 'gloo' }, true],
    ['another Helm release', { helmRelease: 'gloo-canary' }, false],
    [
      'selector and release both hold',
      { selector: { matchLabels: { tier: 'edge' } }, helmRelease: 'gloo' },
      true,
    ],
    [
      'selector holds, release does not',
      { selector: { matchLabels: { tier: 'edge' } }, helmRelease: 'other' },
      false,
    ],
    [
      'release holds, selector does not',
      { selector: { matchLabels: { tier: 'core' } }, helmRelease: 'gloo' },
      false,
    ],
  ])('%s → %s', (_name, target, expected) => {
    expect(inTarget(labelled, target)).toBe(expected);
  });

  it('a helmRelease excludes an object without the annotation, or without any annotations', () => {
    expect(inTarget(obj({ gloo: 'gloo' }), { helmRelease: 'gloo' })).toBe(false);
    expect(inTarget(obj({ gloo: 'gloo' }, { 'other/annotation': 'gloo' }), { helmRelease: 'gloo' })).toBe(
      false,
    );
  });

  it('a helmRelease is matched on the annotation, not on a label of the same name', () => {
    expect(inTarget(obj({ [RELEASE]: 'gloo' }), { helmRelease: 'gloo' })).toBe(false);
  });

  it('a selector requiring a label excludes an object without labels', () => {
    expect(inTarget(obj(), { selector: { matchLabels: { gloo: 'gloo' } } })).toBe(false);
    expect(
      inTarget(obj(), { selector: { matchExpressions: [{ key: 'gloo', operator: 'DoesNotExist' }] } }),
    ).toBe(true);
  });
});

describe('observeInstall: HPAs', () => {
  it('keeps HPAs that target a Deployment, with their bounds', () => {
    const o = observeInstall(
      objs({
        hpas: [hpa('gateway-proxy', { kind: 'Deployment', name: 'gateway-proxy' }, { min: 2, max: 8 })],
      }),
      owner,
    );
    expect(o.hpas).toEqual([
      { name: 'gateway-proxy', targetName: 'gateway-proxy', minReplicas: 2, maxReplicas: 8, ours: false },
    ]);
  });

  it('ignores HPAs that target something other than a Deployment', () => {
    const o = observeInstall(
      objs({
        hpas: [
          hpa('sts', { kind: 'StatefulSet', name: 'gateway-proxy' }),
          hpa('rs', { kind: 'ReplicaSet', name: 'gateway-proxy' }),
          hpa('dep', { kind: 'Deployment', name: 'gateway-proxy' }),
        ],
      }),
      owner,
    );
    expect(o.hpas.map((h) => h.name)).toEqual(['dep']);
  });

  it('ignores an HPA without a scaleTargetRef', () => {
    const broken = { metadata: { name: 'broken', namespace: NS } } as V2HorizontalPodAutoscaler;
    expect(observeInstall(objs({ hpas: [broken] }), owner).hpas).toEqual([]);
  });

  it('leaves minReplicas undefined when the HPA does not set it', () => {
    const o = observeInstall(objs({ hpas: [hpa('h', { kind: 'Deployment', name: 'd' })] }), owner);
    expect(o.hpas[0]?.minReplicas).toBeUndefined();
  });

  it('marks HPAs carrying this GlooHA’s owner labels as ours, and only those', () => {
    const o = observeInstall(
      objs({
        hpas: [
          hpa('mine', { kind: 'Deployment', name: 'public-gw' }, { labels: ownedLabels() }),
          hpa('chart', { kind: 'Deployment', name: 'gateway-proxy' }, { labels: { app: 'gloo' } }),
          hpa(
            'other-glooha',
            { kind: 'Deployment', name: 'x' },
            { labels: ownedLabels({ name: 'other', namespace: NS, kind: KIND }) },
          ),
          hpa(
            'same-name-other-ns',
            { kind: 'Deployment', name: 'y' },
            { labels: ownedLabels({ name: 'ha', namespace: 'elsewhere', kind: KIND }) },
          ),
        ],
      }),
      owner,
    );
    expect(o.hpas.map((h) => [h.name, h.ours])).toEqual([
      ['mine', true],
      ['chart', false],
      ['other-glooha', false],
      ['same-name-other-ns', false],
    ]);
  });
});

describe('observeInstall: PDBs', () => {
  it('copies selector and budget, and marks ours from the owner labels', () => {
    const o = observeInstall(
      objs({
        pdbs: [
          pdb('gloo-pdb', { gloo: 'gloo' }, { maxUnavailable: 1 }),
          pdb('gateway-proxy-glooha', { gloo: 'gateway-proxy' }, { minAvailable: '50%' }, ownedLabels()),
        ],
      }),
      owner,
    );
    expect(o.pdbs).toEqual([
      { name: 'gloo-pdb', selector: { matchLabels: { gloo: 'gloo' } }, maxUnavailable: 1, ours: false },
      {
        name: 'gateway-proxy-glooha',
        labels: ownedLabels(),
        selector: { matchLabels: { gloo: 'gateway-proxy' } },
        minAvailable: '50%',
        ours: true,
      },
    ]);
    expect(o.pdbs[0]).not.toHaveProperty('minAvailable');
    expect(o.pdbs[1]).not.toHaveProperty('maxUnavailable');
  });

  it('a PDB without a selector selects everything (empty selector)', () => {
    const bare = {
      metadata: { name: 'all', namespace: NS },
      spec: { maxUnavailable: 1 },
    } as V1PodDisruptionBudget;
    expect(observeInstall(objs({ pdbs: [bare] }), owner).pdbs).toEqual([
      { name: 'all', selector: {}, maxUnavailable: 1, ours: false },
    ]);
  });
});

describe('isOwnedBy', () => {
  it('needs both the owner name and namespace labels', () => {
    expect(isOwnedBy({ metadata: { labels: ownedLabels() } }, owner)).toBe(true);
    expect(isOwnedBy({ metadata: { labels: { [LABEL_OWNER_NAME]: 'ha' } } }, owner)).toBe(false);
    expect(isOwnedBy({ metadata: { labels: { [LABEL_OWNER_NAMESPACE]: NS } } }, owner)).toBe(false);
    expect(isOwnedBy({ metadata: {} }, owner)).toBe(false);
    expect(isOwnedBy({}, owner)).toBe(false);
  });

  it("needs the owner's kind in the owner-kind label: the same name of another kind is not the owner", () => {
    expect(isOwnedBy({ metadata: { labels: ownedLabels({ ...owner, kind: KGATEWAY_KIND }) } }, owner)).toBe(
      false,
    );
    expect(isOwnedBy({ metadata: { labels: ownedLabels() } }, { ...owner, kind: KGATEWAY_KIND })).toBe(false);
  });

  it('counts an object an earlier release labelled without owner kind only for a kind that accepts them', () => {
    expect(isOwnedBy({ metadata: { labels: legacyLabels() } }, owner)).toBe(false);
    expect(isOwnedBy({ metadata: { labels: legacyLabels() } }, owner, true)).toBe(true);
    // A labelled object of another kind is never taken for an unlabelled one.
    expect(
      isOwnedBy({ metadata: { labels: ownedLabels({ ...owner, kind: KGATEWAY_KIND }) } }, owner, true),
    ).toBe(false);
  });
});

describe('observeInstall: objects of a GlooHA labelled by an earlier release', () => {
  it('are still its own (no second PDB or HPA is planned beside them)', () => {
    const o = observeInstall(
      objs({
        hpas: [hpa('legacy', { kind: 'Deployment', name: 'public-gw' }, { labels: legacyLabels() })],
        pdbs: [pdb('legacy-pdb', { gloo: 'gateway-proxy' }, { minAvailable: 1 }, legacyLabels())],
      }),
      owner,
    );
    expect(o.hpas.map((h) => [h.name, h.ours])).toEqual([['legacy', true]]);
    expect(o.pdbs.map((p) => [p.name, p.ours])).toEqual([['legacy-pdb', true]]);
  });
});
