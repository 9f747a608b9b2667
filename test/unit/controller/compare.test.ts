// isSubset decides "does the live object already hold what we would apply?" (no write when it does);
// stableHash/canonicalJson name what was last applied and compare statuses without caring about key order.
import { describe, expect, it } from 'vitest';
import { canonicalJson, isSubset, stableHash } from '../../../src/controller/compare.js';
import { SERVED_LIST_TYPES } from '../../../src/kube/served-list-types.js';

describe('isSubset: scalars', () => {
  it.each([
    [1, 1, true],
    ['50%', '50%', true],
    [true, true, true],
    [false, false, true],
    [1, 2, false],
    [1, '1', false],
    ['a', 'b', false],
    [true, 'true', false],
    [0, false, false],
    [3, undefined, false],
    [3, null, false],
    ['x', { x: 1 }, false],
  ])('isSubset(%j, %j) = %s', (desired, live, expected) => {
    expect(isSubset(desired, live)).toBe(expected);
  });
});

describe('isSubset: null and undefined in desired', () => {
  it('null or undefined desired is satisfied by a missing or null live value', () => {
    expect(isSubset(null, null)).toBe(true);
    expect(isSubset(null, undefined)).toBe(true);
    expect(isSubset(undefined, undefined)).toBe(true);
    expect(isSubset(undefined, null)).toBe(true);
  });

  it('null or undefined desired is not satisfied by a present value', () => {
    expect(isSubset(null, 0)).toBe(false);
    expect(isSubset(null, '')).toBe(false);
    expect(isSubset(null, {})).toBe(false);
    expect(isSubset(undefined, 3)).toBe(false);
  });

  it('a field desired as null (e.g. replicas removed) must be absent or null live', () => {
    expect(isSubset({ spec: { replicas: null } }, { spec: {} })).toBe(true);
    expect(isSubset({ spec: { replicas: null } }, { spec: { replicas: null } })).toBe(true);
    expect(isSubset({ spec: { replicas: null } }, { spec: { replicas: 2 } })).toBe(false);
  });

  it('a desired object against a missing or null live value is not a subset', () => {
    expect(isSubset({ a: 1 }, undefined)).toBe(false);
    expect(isSubset({ a: 1 }, null)).toBe(false);
    expect(isSubset({ a: 1 }, [{ a: 1 }])).toBe(false);
    expect(isSubset({ a: 1 }, 'a')).toBe(false);
  });
});

describe('isSubset: objects', () => {
  const live = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'gloo',
      namespace: 'gloo-system',
      resourceVersion: '123',
      labels: { app: 'gloo', gloo: 'gloo', 'helm.sh/chart': 'gloo-1.18.0' },
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { gloo: 'gloo' } },
      template: { spec: { serviceAccountName: 'gloo', terminationGracePeriodSeconds: 30 } },
    },
    status: { readyReplicas: 3 },
  };

  it('allows extra live fields (defaults, other managers, status)', () => {
    expect(isSubset({ spec: { replicas: 3 } }, live)).toBe(true);
    expect(isSubset({ metadata: { name: 'gloo', labels: { gloo: 'gloo' } } }, live)).toBe(true);
    expect(isSubset({}, live)).toBe(true);
  });

  it('detects a changed value, however deep', () => {
    expect(isSubset({ spec: { replicas: 2 } }, live)).toBe(false);
    expect(isSubset({ metadata: { labels: { gloo: 'discovery' } } }, live)).toBe(false);
    expect(isSubset({ spec: { template: { spec: { serviceAccountName: 'other' } } } }, live)).toBe(false);
  });

  it('detects a field missing live', () => {
    expect(isSubset({ spec: { minReadySeconds: 5 } }, live)).toBe(false);
    expect(isSubset({ metadata: { labels: { 'glooha.io/owner-name': 'ha' } } }, live)).toBe(false);
  });

  it('does not treat extra desired fields as optional', () => {
    expect(isSubset({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(isSubset({ a: 1 }, { a: 1, b: 2 })).toBe(true);
  });

  it('does not mutate its arguments', () => {
    const d = { spec: { replicas: 3 } };
    const before = structuredClone(live);
    isSubset(d, live);
    expect(live).toEqual(before);
    expect(d).toEqual({ spec: { replicas: 3 } });
  });
});

describe('isSubset: lists of named objects are matched by name (as server-side apply merges them)', () => {
  const liveContainers = [
    {
      name: 'sidecar',
      image: 'envoy:1',
      env: [{ name: 'X', value: '1' }],
    },
    {
      name: 'gloo',
      image: 'quay.io/solo-io/gloo:1.18.0',
      env: [
        { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' },
        { name: 'LEADER_ELECTION_RENEW_PERIOD', value: '10s' },
        { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '2s' },
      ],
    },
  ];

  it('finds a container by name whatever its position, and ignores other containers and env vars', () => {
    const desired = [
      {
        name: 'gloo',
        env: [
          { name: 'LEADER_ELECTION_RETRY_PERIOD', value: '2s' },
          { name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' },
        ],
      },
    ];
    expect(isSubset(desired, liveContainers)).toBe(true);
  });

  it('detects a changed env value inside the named container', () => {
    const desired = [{ name: 'gloo', env: [{ name: 'LEADER_ELECTION_LEASE_DURATION', value: '20s' }] }];
    expect(isSubset(desired, liveContainers)).toBe(false);
  });

  it('detects a named env var that is missing live', () => {
    const desired = [{ name: 'gloo', env: [{ name: 'DISABLE_LEADER_ELECTION', value: 'true' }] }];
    expect(isSubset(desired, liveContainers)).toBe(false);
  });

  it('detects a named container that is missing live', () => {
    expect(isSubset([{ name: 'discovery' }], liveContainers)).toBe(false);
    expect(isSubset([{ name: 'gloo' }], [])).toBe(false);
  });

  it('does not match a same-named item in another container', () => {
    // X=1 lives in the sidecar, not in gloo.
    expect(isSubset([{ name: 'gloo', env: [{ name: 'X', value: '1' }] }], liveContainers)).toBe(false);
    expect(isSubset([{ name: 'sidecar', env: [{ name: 'X', value: '1' }] }], liveContainers)).toBe(true);
  });

  it('works nested inside a whole Deployment patch', () => {
    const live = { spec: { template: { spec: { containers: liveContainers } } } };
    const ok = {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'gloo', env: [{ name: 'LEADER_ELECTION_RENEW_PERIOD', value: '10s' }] }],
          },
        },
      },
    };
    const drifted = structuredClone(ok);
    drifted.spec.template.spec.containers[0]!.env[0]!.value = '5s';
    expect(isSubset(ok, live)).toBe(true);
    expect(isSubset(drifted, live)).toBe(false);
  });
});

describe('isSubset: other lists must match element for element', () => {
  it('equal lists match', () => {
    expect(isSubset(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(isSubset([1, 2, 3], [1, 2, 3])).toBe(true);
    expect(isSubset([], [])).toBe(true);
  });

  it('order matters', () => {
    expect(isSubset(['a', 'b'], ['b', 'a'])).toBe(false);
  });

  it('a live list with more (or fewer) elements is different', () => {
    expect(isSubset(['a'], ['a', 'b'])).toBe(false);
    expect(isSubset(['a', 'b'], ['a'])).toBe(false);
  });

  it('an empty desired list is only satisfied by an empty live list', () => {
    expect(isSubset([], ['a'])).toBe(false);
    expect(isSubset([], [{ name: 'x' }])).toBe(false);
  });

  it('a list against a non-list is different', () => {
    expect(isSubset(['a'], 'a')).toBe(false);
    expect(isSubset([], {})).toBe(false);
  });

  it('an empty desired list or object matches a missing field (the API server omits empty ones)', () => {
    expect(isSubset([], undefined)).toBe(true);
    expect(isSubset({ a: [] }, {})).toBe(true);
    expect(isSubset({ a: {} }, {})).toBe(true);
    expect(isSubset({ a: [] }, { a: ['x'] })).toBe(false);
  });

  it('unnamed objects are compared position by position, each allowed extra live fields', () => {
    const desired = [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' },
    ];
    const live = desired.map((c) => ({ ...c, labelSelector: { matchLabels: { gloo: 'gloo' } } }));
    expect(isSubset(desired, live)).toBe(true);
    expect(isSubset(desired, [...live].reverse())).toBe(false);
    expect(isSubset(desired, [live[0]])).toBe(false);
  });

  it('a desired list of named objects is compared by position when the live items have no name', () => {
    // Not every live item is named, so the by-name matching does not apply.
    expect(isSubset([{ name: 'a' }], [{ name: 'a' }, { other: 1 }])).toBe(false);
    expect(isSubset([{ name: 'a' }], [{ name: 'a', extra: 1 }])).toBe(true);
  });

  it('compares lists of lists and label-selector expressions exactly', () => {
    const expr = [{ key: 'gloo', operator: 'In', values: ['gloo', 'discovery'] }];
    expect(isSubset(expr, [{ key: 'gloo', operator: 'In', values: ['gloo', 'discovery'] }])).toBe(true);
    expect(isSubset(expr, [{ key: 'gloo', operator: 'In', values: ['discovery', 'gloo'] }])).toBe(false);
    expect(isSubset(expr, [{ key: 'gloo', operator: 'In', values: ['gloo'] }])).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('is independent of key order, at every depth', () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'x' } };
    const b = { a: { x: 'x', y: [1, { p: 2, q: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":"x","y":[1,{"p":2,"q":1}]},"b":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson([2, 1])).toBe('[2,1]');
  });

  it('drops undefined fields, like JSON.stringify', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ nested: { gone: undefined } })).toBe('{"nested":{}}');
  });

  it('keeps null (a null field is not an absent field)', () => {
    expect(canonicalJson({ a: null })).toBe('{"a":null}');
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });

  it('is valid JSON that parses back to an equal value', () => {
    const value = {
      z: 'quote " and \\ backslash',
      'weird key "': true,
      n: 1.5,
      neg: -3,
      list: [null, false, 'x', { k: [] }],
      empty: {},
    };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('encodes scalars like JSON.stringify', () => {
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(3)).toBe('3');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
  });

  it('tells different values apart', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: [1] })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({})).not.toBe(canonicalJson([]));
  });
});

describe('stableHash', () => {
  const obj = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'gloo-glooha', namespace: 'gloo-system', labels: { a: '1', b: '2' } },
    spec: { maxUnavailable: 1, selector: { matchLabels: { gloo: 'gloo' } } },
  };

  it('is 16 lowercase hex characters', () => {
    expect(stableHash(obj)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is deterministic and independent of key order', () => {
    const reordered = {
      spec: { selector: { matchLabels: { gloo: 'gloo' } }, maxUnavailable: 1 },
      metadata: { labels: { b: '2', a: '1' }, namespace: 'gloo-system', name: 'gloo-glooha' },
      kind: 'PodDisruptionBudget',
      apiVersion: 'policy/v1',
    };
    expect(stableHash(obj)).toBe(stableHash(structuredClone(obj)));
    expect(stableHash(reordered)).toBe(stableHash(obj));
  });

  it('ignores undefined fields', () => {
    expect(stableHash({ ...obj, status: undefined })).toBe(stableHash(obj));
  });

  it('changes when any value changes', () => {
    const changed = structuredClone(obj);
    changed.spec.maxUnavailable = 2;
    expect(stableHash(changed)).not.toBe(stableHash(obj));
    const relabelled = structuredClone(obj);
    relabelled.metadata.labels.b = '3';
    expect(stableHash(relabelled)).not.toBe(stableHash(obj));
  });

  it('tells a list from its reordering', () => {
    expect(stableHash(['a', 'b'])).not.toBe(stableHash(['b', 'a']));
  });
});

// Lists as server-side apply merges them, from the served schema (kube/served-list-types.ts, a
// snapshot of Kubernetes' OpenAPI v3). The policy-engine case: our apply holds one topology spread
// constraint; another manager adds a hostname one beside it; server-side apply keeps both (the list
// is a map keyed by topologyKey + whenUnsatisfiable), so nothing of ours changed.
describe('isSubset: lists by the served schema', () => {
  const deployment = SERVED_LIST_TYPES['apps/v1/Deployment'];
  const hpa = SERVED_LIST_TYPES['autoscaling/v2/HorizontalPodAutoscaler'];
  const zone = {
    maxSkew: 1,
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: { gloo: 'gloo' } },
  };
  const hostname = { ...zone, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' };
  const dep = (constraints: unknown[], extra: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { template: { spec: { topologySpreadConstraints: constraints, ...extra } } },
  });

  it('topologySpreadConstraints is a list-map keyed by topologyKey and whenUnsatisfiable in the served schema', () => {
    expect(deployment?.['spec.template.spec.topologySpreadConstraints']).toEqual({
      type: 'map',
      keys: ['topologyKey', 'whenUnsatisfiable'],
    });
  });

  it("another manager's constraint beside ours is no drift, in either order", () => {
    expect(isSubset(dep([zone]), dep([zone, hostname]), deployment)).toBe(true);
    expect(isSubset(dep([zone]), dep([hostname, zone]), deployment)).toBe(true);
  });

  it('our constraint changed (same keys, other skew) or gone is drift', () => {
    expect(isSubset(dep([zone]), dep([{ ...zone, maxSkew: 2 }, hostname]), deployment)).toBe(false);
    expect(isSubset(dep([zone]), dep([hostname]), deployment)).toBe(false);
  });

  it('atomic lists (affinity terms) must match element for element: another writer replaced them', () => {
    const term = { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } };
    const affinity = (terms: unknown[]) => ({
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: terms } },
    });
    expect(isSubset(dep([], affinity([term])), dep([], affinity([term])), deployment)).toBe(true);
    expect(
      isSubset(dep([], affinity([term])), dep([], affinity([term, { ...term, weight: 1 }])), deployment),
    ).toBe(false);
  });

  it('env and containers merge by name; HPA metrics are atomic', () => {
    const env = (e: unknown[]) => ({ containers: [{ name: 'gloo', env: e }] });
    const ours = [{ name: 'A', value: '1' }];
    const theirs = [{ name: 'POD_NAMESPACE' }, { name: 'A', value: '1' }];
    expect(isSubset(dep([], env(ours)), dep([], env(theirs)), deployment)).toBe(true);
    const metric = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } };
    const h = (metrics: unknown[]) => ({ spec: { metrics } });
    expect(isSubset(h([metric]), h([metric]), hpa)).toBe(true);
    expect(isSubset(h([metric]), h([metric, { ...metric, resource: { name: 'memory' } }]), hpa)).toBe(false);
  });

  it('without schema facts, lists of unnamed items stay element for element (the fallback)', () => {
    expect(isSubset(dep([zone]), dep([zone, hostname]))).toBe(false);
  });
});
