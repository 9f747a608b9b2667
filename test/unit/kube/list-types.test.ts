// List types from an OpenAPI v3 document (what /openapi/v3/apis/<group>/<version> serves), the
// server-side-apply merge they drive, and their loader (one fetch per group version, retried later).
import { describe, expect, it } from 'vitest';
import { kindKey, listTypesFromOpenAPI, mergeApplied } from '../../../src/kube/list-types.js';
import { RETRY_AFTER_MS, SCHEMA_CHECK_MS, ServedListTypes } from '../../../src/kube/openapi-list-types.js';
import { servedFieldsFromOpenAPI } from '../../../src/kube/served-fields.js';
import { SERVED_LIST_TYPES } from '../../../src/kube/served-list-types.js';

// The shape the API server serves: the kind's root carries x-kubernetes-group-version-kind, fields
// refer to other schemas through allOf [{ $ref }], and list extensions sit on the referring field.
const doc = {
  components: {
    schemas: {
      'io.k8s.api.apps.v1.Deployment': {
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
        properties: { spec: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }] } },
      },
      'io.k8s.api.apps.v1.DeploymentSpec': {
        properties: {
          template: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }] },
        },
      },
      'io.k8s.api.core.v1.PodSpec': {
        properties: {
          containers: {
            type: 'array',
            items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }] },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
          },
          topologySpreadConstraints: {
            type: 'array',
            items: { type: 'object' },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
          },
          tolerations: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
          oldStyle: {
            type: 'array',
            items: { type: 'object' },
            'x-kubernetes-patch-merge-key': 'key',
            'x-kubernetes-patch-strategy': 'merge',
          },
          finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        },
      },
      'io.k8s.api.core.v1.Container': {
        properties: {
          env: {
            type: 'array',
            items: { type: 'object' },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
          },
        },
      },
      'io.k8s.api.apps.v1.StatefulSet': {
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'StatefulSet' }],
        properties: {},
      },
    },
  },
};

describe('listTypesFromOpenAPI', () => {
  it('follows references to every map and set list of the asked kinds, by path', () => {
    expect(listTypesFromOpenAPI(doc, ['apps/v1/Deployment'])).toEqual({
      'apps/v1/Deployment': {
        'spec.template.containers': { type: 'map', keys: ['name'] },
        'spec.template.containers[].env': { type: 'map', keys: ['name'] },
        'spec.template.topologySpreadConstraints': {
          type: 'map',
          keys: ['topologyKey', 'whenUnsatisfiable'],
        },
        // No list type: the strategic-merge key is what server-side apply merges by.
        'spec.template.oldStyle': { type: 'map', keys: ['key'] },
        'spec.template.finalizers': { type: 'set' },
      },
    });
  });

  it('the bundled snapshot has the lists the operator writes', () => {
    const dep = SERVED_LIST_TYPES[kindKey('apps/v1', 'Deployment')]!;
    expect(dep['spec.template.spec.containers']).toEqual({ type: 'map', keys: ['name'] });
    expect(dep['spec.template.spec.containers[].env']).toEqual({ type: 'map', keys: ['name'] });
    expect(dep['spec.template.spec.topologySpreadConstraints']).toEqual({
      type: 'map',
      keys: ['topologyKey', 'whenUnsatisfiable'],
    });
    // Affinity terms and tolerations are atomic: not listed.
    expect(dep['spec.template.spec.tolerations']).toBeUndefined();
    expect(
      dep['spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution'],
    ).toBeUndefined();
    expect(Object.keys(SERVED_LIST_TYPES).sort()).toEqual([
      'apps/v1/Deployment',
      'autoscaling/v2/HorizontalPodAutoscaler',
      'policy/v1/PodDisruptionBudget',
      'rbac.authorization.k8s.io/v1/Role',
      'rbac.authorization.k8s.io/v1/RoleBinding',
    ]);
  });
});

describe('mergeApplied (server-side apply of our fields onto a live object)', () => {
  const lists = SERVED_LIST_TYPES['apps/v1/Deployment'];
  const zone = {
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'ScheduleAnyway',
    maxSkew: 1,
  };
  const host = { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1 };
  const spec = (podSpec: Record<string, unknown>) => ({ spec: { template: { spec: podSpec } } });

  it("keeps another manager's spread constraint and merges ours by its keys", () => {
    const merged = mergeApplied(
      spec({ topologySpreadConstraints: [host, { ...zone, maxSkew: 3 }] }),
      spec({ topologySpreadConstraints: [zone] }),
      lists,
    );
    expect(merged).toEqual(spec({ topologySpreadConstraints: [host, zone] }));
  });

  it('replaces atomic lists whole (affinity terms) and places a new env item before the first shared one', () => {
    const terms = (w: number) => ({
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: w }] },
    });
    expect(mergeApplied(spec({ affinity: terms(1) }), spec({ affinity: terms(100) }), lists)).toEqual(
      spec({ affinity: terms(100) }),
    );
    const live = spec({
      containers: [{ name: 'gloo', env: [{ name: 'X' }, { name: 'POD_NAMESPACE', value: 'v' }] }],
    });
    const applied = spec({
      containers: [{ name: 'gloo', env: [{ name: 'A', value: '1' }, { name: 'POD_NAMESPACE' }] }],
    });
    expect(mergeApplied(live, applied, lists)).toEqual(
      spec({
        containers: [
          {
            name: 'gloo',
            env: [{ name: 'X' }, { name: 'A', value: '1' }, { name: 'POD_NAMESPACE', value: 'v' }],
          },
        ],
      }),
    );
  });
});

describe('ServedListTypes', () => {
  const fakeClient = (answer: (path: string) => unknown) => {
    const paths: string[] = [];
    return {
      paths,
      request: <T>(_m: string, path: string) => {
        paths.push(path);
        const a = answer(path);
        return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T);
      },
    };
  };
  const kinds = [
    { group: 'apps', version: 'v1', kind: 'Deployment' },
    { group: 'apps', version: 'v1', kind: 'StatefulSet' },
    { group: 'gateway.kgateway.dev', version: 'v1alpha1', kind: 'GatewayParameters' },
  ];

  it('fetches each group version once, concurrent callers included; a kind it does not describe is all atomic', async () => {
    const client = fakeClient((p) =>
      p === '/openapi/v3/apis/apps/v1' ? doc : Object.assign(new Error('nf'), { code: 404 }),
    );
    const warnings: unknown[] = [];
    const served = new ServedListTypes(client, kinds, { warn: (m: string) => warnings.push(m) }, () => 0);
    const [a, b] = await Promise.all([served.get(), served.get()]);
    expect(a).toBe(b);
    expect(client.paths.filter((p) => p.endsWith('apps/v1'))).toHaveLength(1);
    expect(a['apps/v1/Deployment']?.['spec.template.containers']).toEqual({ type: 'map', keys: ['name'] });
    expect(a['apps/v1/StatefulSet']).toEqual({});
    // A CRD not served is no warning, and not in the facts (the comparer falls back for it).
    expect(a['gateway.kgateway.dev/v1alpha1/GatewayParameters']).toBeUndefined();
    expect(warnings).toEqual([]);
    await served.get();
    expect(client.paths.filter((p) => p.endsWith('apps/v1'))).toHaveLength(1);
  });

  it('a failed fetch is logged and asked again only after RETRY_AFTER_MS', async () => {
    let now = 0;
    let fail = true;
    const client = fakeClient(() => (fail ? new Error('connection refused') : doc));
    const warnings: string[] = [];
    const served = new ServedListTypes(
      client,
      kinds.slice(0, 1),
      { warn: (m: string) => warnings.push(m) },
      () => now,
    );
    expect(await served.get()).toEqual({});
    expect(warnings).toHaveLength(1);
    fail = false;
    now = RETRY_AFTER_MS - 1;
    expect(await served.get()).toEqual({});
    const fetches = () => client.paths.filter((p) => p !== '/openapi/v3');
    expect(fetches()).toHaveLength(1);
    now = RETRY_AFTER_MS;
    expect(Object.keys(await served.get())).toEqual(['apps/v1/Deployment']);
    expect(fetches()).toHaveLength(2);
  });
});

// A CRD's schema as the API server serves it, before and after an upgrade of the CRDs: without the
// fields (CRDs older than the installed kgateway, which a chart upgrade leaves behind), and with them.
const gatewayParameters = (withCovers: boolean) => ({
  components: {
    schemas: {
      'dev.kgateway.gateway.v1alpha1.GatewayParameters': {
        'x-kubernetes-group-version-kind': [
          { group: 'gateway.kgateway.dev', version: 'v1alpha1', kind: 'GatewayParameters' },
        ],
        properties: {
          spec: {
            properties: {
              kube: {
                properties: {
                  deployment: { properties: { replicas: { type: 'integer' } } },
                  ...(withCovers
                    ? {
                        podDisruptionBudget: {
                          properties: {
                            spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                          },
                        },
                        horizontalPodAutoscaler: { properties: { spec: { type: 'object' } } },
                      }
                    : {}),
                },
              },
            },
          },
        },
      },
    },
  },
});
const COVERS = ['spec.kube.podDisruptionBudget', 'spec.kube.horizontalPodAutoscaler'];
const GP = 'gateway.kgateway.dev/v1alpha1/GatewayParameters';

describe('servedFieldsFromOpenAPI', () => {
  it('names the asked fields the schema has, through references, and leaves out kinds it does not describe', () => {
    expect(servedFieldsFromOpenAPI(gatewayParameters(true), { [GP]: [...COVERS, 'spec.kube.nope'] })).toEqual(
      {
        [GP]: COVERS,
      },
    );
    expect(servedFieldsFromOpenAPI(gatewayParameters(false), { [GP]: COVERS })).toEqual({ [GP]: [] });
    expect(
      servedFieldsFromOpenAPI(doc, {
        'apps/v1/Deployment': ['spec.template.containers', 'spec.template.nope', 'spec'],
        [GP]: COVERS,
      }),
    ).toEqual({ 'apps/v1/Deployment': ['spec.template.containers', 'spec'] });
  });
});

describe('ServedListTypes: a CRD upgraded under a running operator', () => {
  it('fetches a group version again when the /openapi/v3 index names it with a new hash, at most every SCHEMA_CHECK_MS', async () => {
    let now = 0;
    let release = 'old';
    const paths: string[] = [];
    const client = {
      request: <T>(_m: string, path: string) => {
        paths.push(path);
        if (path === '/openapi/v3')
          return Promise.resolve({
            paths: {
              'apis/gateway.kgateway.dev/v1alpha1': {
                serverRelativeURL: `/openapi/v3/apis/gateway.kgateway.dev/v1alpha1?hash=${release}`,
              },
            },
          } as T);
        return Promise.resolve(gatewayParameters(release !== 'old') as T);
      },
    };
    const served = new ServedListTypes(
      client,
      [
        {
          group: 'gateway.kgateway.dev',
          version: 'v1alpha1',
          kind: 'GatewayParameters',
          servedFields: COVERS,
        },
      ],
      { warn: () => {} },
      () => now,
    );
    const docFetches = () => paths.filter((p) => p !== '/openapi/v3').length;
    await served.get();
    expect(served.servedFields()).toEqual({ [GP]: [] });
    release = 'new';
    now = SCHEMA_CHECK_MS - 1;
    await served.get();
    expect(docFetches()).toBe(1);
    expect(served.servedFields()).toEqual({ [GP]: [] });
    now = SCHEMA_CHECK_MS;
    // refresh() says the served fields changed: the poll then reconciles the products' objects again.
    expect(await served.refresh()).toBe(true);
    expect(docFetches()).toBe(2);
    expect(served.servedFields()).toEqual({ [GP]: COVERS });
    // Unchanged since: no fetch, however often asked.
    now = 3 * SCHEMA_CHECK_MS;
    expect(await served.refresh()).toBe(false);
    expect(docFetches()).toBe(2);
    expect(paths.filter((p) => p === '/openapi/v3')).toHaveLength(3);
  });
});
