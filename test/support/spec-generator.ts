// A seeded generator of GlooHA inputs aimed at the boundaries of every rule, for the differential test
// (test/integration/differential.test.ts): the same text goes to `glooha render`'s reader and validator
// and, through kubectl's YAML-to-JSON conversion, to the real API server; they must agree.
//
// Two kinds of case:
//  - json: a valid base spec with 0-3 mutations, each setting one field to a value at or across a
//    rule's boundary (durations, int32 limits, int-or-percent, PDB both/none, autoscaling bounds,
//    proxy keys and Deployment names, topology keys, unknown/null/prototype-named fields). Sent as
//    JSON text: exactly what a client sends.
//  - file: YAML 1.1 text (booleans, octal, merge keys, duplicate keys, keys that are booleans) that
//    only kubectl can say how to read, applied the way users apply files.

export type CaseKind = 'GlooHA' | 'KgatewayHA';

export interface GeneratedCase {
  /** Stable within a seed: `json-17`, `yaml-3`, `kgateway-json-4`, `object-9`. */
  id: string;
  /** The object's kind: which validator and which API resource judge it. */
  object: CaseKind;
  /** json: sent as is, as an API client sends it; file: a file applied with kubectl (YAML or JSON). */
  kind: 'json' | 'file';
  /** The whole GlooHA document, as the user (or client) would write it. */
  text: string;
  /**
   * JSON that kubectl and Helm never send as written: duplicate keys, or a float literal (3.0, 1e0)
   * where an integer belongs. They re-encode what they read (the last duplicate, the number 3), so
   * as a json case it is raw JSON only an API client sends.
   */
  rawJson?: true;
}

/** mulberry32: small, fast, and the same sequence on every platform for a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const chance = (r: Rand, p: number) => r() < p;

type Json = Record<string, unknown>;

/** Sets an own property, also for `__proto__` (plain assignment would change the prototype). */
function put(o: Json, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Sets `value` at `path` (keys), creating objects on the way. */
function setPath(root: Json, path: readonly string[], value: unknown): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) put(node, key, {});
    node = node[key] as Json;
  }
  put(node, path[path.length - 1] as string, value);
}

const DURATIONS = [
  '15s',
  '10s',
  '2s',
  '0s',
  '',
  '15',
  '1d',
  '-1s',
  '1.0.0s',
  '15S',
  '15 s',
  '199ms',
  '200ms',
  '999ms',
  '1s',
  '1000ms',
  '2400ms',
  '2401ms',
  '9500ms',
  '10m',
  '10m1s',
  '9m59.999s',
  '1m30s',
  '1.5s',
  '0.5ms',
  '999999h',
  '512410h',
  '508080h',
  '999999h999999h99999h',
  '9999999h',
  '15.5555s',
  'abc',
  5,
  true,
  null,
] as const;
const INT32 = [
  0,
  1,
  2,
  3,
  5,
  -1,
  2147483647,
  2147483648,
  -2147483648,
  -2147483649,
  4294967296,
  1.5,
  '3',
  null,
] as const;
const INT_OR_PERCENT = [
  0,
  1,
  2,
  3,
  '0%',
  '1%',
  '50%',
  '99%',
  '100%',
  '101%',
  '5',
  'abc',
  -1,
  1.5,
  '😀😀😀😀',
  '10000',
  '00%',
] as const;
const PROXY_KEYS = [
  'gatewayProxy',
  'publicGw',
  'public-gw',
  'gloo',
  'discovery',
  'GatewayProxy',
  'a',
  'true',
  'gateway_proxy',
  'proxy-',
  `p${'x'.repeat(62)}`,
  `p${'x'.repeat(63)}`,
  'edge',
  'glooEdge',
  'HTTPGateway',
  'httpGateway',
] as const;
const DEPLOYMENT_NAMES = [
  'edge',
  'gateway-proxy',
  'public-gw',
  'gloo',
  'discovery',
  'Bad_Name',
  'edge.gw',
  `e${'x'.repeat(239)}`,
  `e${'x'.repeat(240)}`,
  '',
  '-edge',
] as const;
const TOPOLOGY_KEYS = [
  'zone',
  'topology.kubernetes.io/zone',
  'kubernetes.io/hostname',
  '',
  'a b',
  'zone-',
  `x/${'a'.repeat(63)}`,
  `x/${'a'.repeat(64)}`,
  `${'a'.repeat(253)}/z`,
  `${'a'.repeat(254)}/z`,
  'Zone',
  '/zone',
  'a/b/c',
] as const;
const MATCH_LABEL_KEYS = [
  ['pod-template-hash'],
  ['gloo'],
  ['gateway-proxy-id'],
  ['a b'],
  [''],
  ['app.kubernetes.io/version'],
  [`${'a'.repeat(254)}/v`],
  ['pod-template-hash', 'pod-template-hash'],
  [],
] as const;
const UNKNOWN_NAMES = [
  'foo',
  'replica',
  'constructor',
  'toString',
  'hasOwnProperty',
  '__proto__',
  'valueOf',
] as const;
const UNKNOWN_VALUES = [1, null, {}, 'x', { gloo: { replicas: 0 } }] as const;

function baseSpec(r: Rand): Json {
  const spec: Json = {};
  if (chance(r, 0.7)) {
    const gloo: Json = {};
    if (chance(r, 0.7)) gloo.replicas = pick(r, [1, 2, 3, 5]);
    if (gloo.replicas === 1 && chance(r, 0.5)) gloo.leaderElection = { enabled: false };
    else if (chance(r, 0.4))
      gloo.leaderElection = { leaseDuration: '20s', renewDeadline: '15s', retryPeriod: '3s' };
    if (chance(r, 0.3)) gloo.podDisruptionBudget = { maxUnavailable: 1 };
    if (chance(r, 0.3)) gloo.antiAffinity = pick(r, ['none', 'preferred', 'required']);
    spec.gloo = gloo;
  }
  if (chance(r, 0.3)) spec.discovery = chance(r, 0.5) ? {} : { replicas: pick(r, [0, 1]) };
  if (chance(r, 0.6)) {
    const proxies: Json = {};
    proxies.gatewayProxy = { replicas: pick(r, [1, 2, 3]) };
    if (chance(r, 0.5)) proxies.publicGw = { autoscaling: { minReplicas: 2, maxReplicas: 6 } };
    spec.gatewayProxies = proxies;
  }
  if (chance(r, 0.3)) spec.driftPolicy = pick(r, ['enforce', 'warn', 'ignore']);
  if (chance(r, 0.2)) spec.target = { namespace: 'gloo-system' };
  return spec;
}

type Mutation = (r: Rand, spec: Json, doc: Json) => void;

const LE = ['gloo', 'leaderElection'];
const GP = ['gatewayProxies', 'gatewayProxy'];
const spread = (r: Rand, t: Json): Json => ({
  maxSkew: 1,
  topologyKey: 'zone',
  whenUnsatisfiable: pick(r, ['DoNotSchedule', 'ScheduleAnyway']),
  ...t,
});

const MUTATIONS: Mutation[] = [
  // durations and the timing rules
  (r, s) =>
    setPath(s, [...LE, pick(r, ['leaseDuration', 'renewDeadline', 'retryPeriod'])], pick(r, DURATIONS)),
  (r, s) =>
    setPath(s, LE, {
      leaseDuration: pick(r, DURATIONS),
      renewDeadline: pick(r, DURATIONS),
      retryPeriod: pick(r, DURATIONS),
    }),
  (r, s) => setPath(s, [...LE, 'enabled'], pick(r, [true, false, 'yes', null, 0])),
  // int32 and replica rules
  (r, s) => setPath(s, ['gloo', 'replicas'], pick(r, INT32)),
  (r, s) => setPath(s, ['discovery', 'replicas'], pick(r, INT32)),
  (r, s) => setPath(s, [...GP, 'replicas'], pick(r, INT32)),
  (r, s) =>
    setPath(s, [...GP, 'autoscaling'], {
      minReplicas: pick(r, INT32),
      maxReplicas: pick(r, INT32),
    }),
  (r, s) => setPath(s, [...GP, 'autoscaling'], { minReplicas: pick(r, [1, 2, 3]) }),
  // PDBs: int-or-percent, both/none, against replicas and minReplicas
  (r, s) =>
    setPath(s, chance(r, 0.5) ? ['gloo', 'podDisruptionBudget'] : [...GP, 'podDisruptionBudget'], {
      [pick(r, ['minAvailable', 'maxUnavailable'])]: pick(r, INT_OR_PERCENT),
    }),
  (r, s) =>
    setPath(s, ['gloo', 'podDisruptionBudget'], pick(r, [{}, { minAvailable: 1, maxUnavailable: 1 }, null])),
  (r, s) =>
    setPath(s, ['gatewayProxies', 'publicGw'], {
      autoscaling: { minReplicas: pick(r, [1, 2, 3]), maxReplicas: 4 },
      podDisruptionBudget: { minAvailable: pick(r, INT_OR_PERCENT) },
    }),
  // proxies: keys, Deployment names, replicas xor autoscaling, nulls
  (r, s) => setPath(s, ['gatewayProxies', pick(r, PROXY_KEYS)], { replicas: 2 }),
  (r, s) =>
    setPath(s, ['gatewayProxies', pick(r, PROXY_KEYS)], {
      replicas: 2,
      deploymentName: pick(r, DEPLOYMENT_NAMES),
    }),
  (r, s) =>
    setPath(
      s,
      [...GP],
      pick(r, [{}, { replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 3 } }, null]),
    ),
  (r, s) => setPath(s, ['gatewayProxies'], pick(r, [null, {}, []])),
  // topology spread
  (r, s) =>
    setPath(s, ['gloo', 'topologySpreadConstraints'], [spread(r, { topologyKey: pick(r, TOPOLOGY_KEYS) })]),
  (r, s) =>
    setPath(
      s,
      [...GP, 'topologySpreadConstraints'],
      [spread(r, { matchLabelKeys: [...pick(r, MATCH_LABEL_KEYS)] })],
    ),
  (r, s) =>
    setPath(
      s,
      ['gloo', 'topologySpreadConstraints'],
      [
        spread(r, {
          maxSkew: pick(r, INT32),
          minDomains: pick(r, [undefined, 1, 0, 3]),
          whenUnsatisfiable: pick(r, ['DoNotSchedule', 'ScheduleAnyway', 'Whatever']),
          nodeAffinityPolicy: pick(r, [undefined, 'Honor', 'ignore']),
        }),
      ],
    ),
  (_r, s) =>
    setPath(
      s,
      ['gloo', 'topologySpreadConstraints'],
      [
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
      ],
    ),
  // enums and the target
  (r, s) =>
    setPath(s, ['driftPolicy'], pick(r, ['enforce', 'warn', 'ignore', 'off', false, 'revert', 'Enforce'])),
  (r, s) => setPath(s, ['gloo', 'antiAffinity'], pick(r, ['none', 'preferred', 'required', 'sometimes', ''])),
  (r, s) =>
    setPath(s, ['target', 'namespace'], pick(r, ['gloo-system', 'Gloo', `n${'x'.repeat(63)}`, '', 'a.b'])),
  (r, s) =>
    setPath(
      s,
      ['target', 'helmRelease'],
      pick(r, ['gloo', `r${'x'.repeat(52)}`, `r${'x'.repeat(53)}`, 'Gloo']),
    ),
  (r, s) =>
    setPath(
      s,
      ['target', 'selector', 'matchLabels', 'app'],
      pick(r, ['gloo', 'x'.repeat(63), 'x'.repeat(64), `a${'😀'.repeat(62)}`, `a${'😀'.repeat(63)}`]),
    ),
  // unknown, null and prototype-named fields, at several depths
  (r, s) => setPath(s, [pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  (r, s) => setPath(s, ['gloo', pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  (r, s) => setPath(s, [...GP, pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  (r, s) => setPath(s, [...LE, pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  // the object itself
  (r, _s, doc) => put(doc.metadata as Json, 'name', pick(r, ['x'.repeat(63), 'x'.repeat(64)])),
];

function jsonCase(r: Rand, index: number): GeneratedCase {
  const spec = baseSpec(r);
  const doc: Json = { apiVersion: 'glooha.io/v1alpha1', kind: 'GlooHA', metadata: { name: `json-${index}` } };
  const n = pick(r, [0, 1, 1, 2, 2, 3]);
  for (let i = 0; i < n; i++) pick(r, MUTATIONS)(r, spec, doc);
  put(doc, 'spec', spec);
  return { id: `json-${index}`, object: 'GlooHA', kind: 'json', text: JSON.stringify(doc) };
}

// ---- YAML 1.1 -----------------------------------------------------------------------------------

const YAML_INTS = [
  '010',
  '08',
  '0o10',
  '0x10',
  '1_0',
  '3.0',
  '1e1',
  '2E0',
  '+3',
  '.5',
  '3',
  '~',
  '"3"',
  'yes',
  '0b11',
  '1:20',
  '2147483648',
];
const YAML_BOOLS = ['off', 'on', 'yes', 'no', 'y', 'n', 'true', 'False', 'OFF', '"false"', '1', '~'];
const YAML_DURATIONS = ['15s', '1:20', '"1:20"', '10m', '0x10s', '2001-12-14', '~', '20s'];
const YAML_POLICIES = ['off', '"off"', 'ignore', 'warn', 'enforce', 'no', 'Off', '~', 'on'];
const YAML_KEYS = ['on', 'n', 'yes', 'y', 'off', 'gatewayProxy', '"on"', 'true', '1', '010', 'NO'];
const YAML_STRINGS = ['2001-12-14', 'gloo', '010', '1e3', 'null', 'no'];

type Fragment = (r: Rand) => string;

const FRAGMENTS: Fragment[] = [
  (r) => `  gloo:\n    replicas: ${pick(r, YAML_INTS)}\n`,
  (r) =>
    `  gloo:\n    replicas: ${pick(r, ['1', '2', '3'])}\n    leaderElection:\n      enabled: ${pick(r, YAML_BOOLS)}\n`,
  (r) => `  gloo:\n    leaderElection:\n      leaseDuration: ${pick(r, YAML_DURATIONS)}\n`,
  (r) => `  driftPolicy: ${pick(r, YAML_POLICIES)}\n`,
  (r) => `  gatewayProxies:\n    ${pick(r, YAML_KEYS)}: {replicas: ${pick(r, YAML_INTS)}}\n`,
  (r) =>
    `  gatewayProxies:\n    gatewayProxy: &p {replicas: ${pick(r, ['2', '3', '010'])}}\n    publicGw:\n      <<: *p\n${chance(r, 0.5) ? `      replicas: ${pick(r, ['4', '0'])}\n` : ''}`,
  (r) =>
    `  gatewayProxies:\n    publicGw:\n${chance(r, 0.5) ? `      replicas: ${pick(r, ['4', '0'])}\n` : ''}      <<: {replicas: ${pick(r, ['2', '5'])}, antiAffinity: required}\n`,
  (r) => `  gloo:\n    replicas: ${pick(r, YAML_INTS)}\n    replicas: ${pick(r, ['1', '3', '0'])}\n`,
  (r) => `  driftPolicy: ${pick(r, YAML_POLICIES)}\n  driftPolicy: ${pick(r, YAML_POLICIES)}\n`,
  (r) => `  target:\n    helmRelease: ${pick(r, YAML_STRINGS)}\n`,
  (r) => `  discovery:\n    replicas: ${pick(r, YAML_INTS)}\n`,
  (r) =>
    `  gloo:\n    podDisruptionBudget:\n      ${pick(r, ['minAvailable', 'maxUnavailable'])}: ${pick(r, ['50%', '1', '010', '"1"', '1.0', '0x1', '~'])}\n`,
  (r) => `  gloo:\n    antiAffinity: ${pick(r, ['none', 'preferred', 'No', '~'])}\n`,
];

function yamlCase(r: Rand, index: number): GeneratedCase {
  const n = pick(r, [1, 1, 2]);
  const parts = Array.from({ length: n }, () => pick(r, FRAGMENTS)(r));
  // Two fragments with the same top-level key are duplicate keys too: kubectl keeps the last.
  const text = `apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata:\n  name: yaml-${index}\nspec:\n${parts.join('')}`;
  return { id: `yaml-${index}`, object: 'GlooHA', kind: 'file', text };
}

const doc = (name: string, spec: string) =>
  `{"apiVersion":"glooha.io/v1alpha1","kind":"GlooHA","metadata":{"name":"${name}"},"spec":${spec}}`;
const yamlDoc = (name: string, spec: string) =>
  `apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
const zone = '"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"';

/** The inputs issue 11 reported, as written there: always run, whatever the seed. */
const REPORTED: [string, 'json' | 'file', string][] = [
  ['null-proxy', 'json', '{"gatewayProxies":{"x":null}}'],
  ['null-proxy-beside-one', 'json', '{"gatewayProxies":{"gatewayProxy":{"replicas":2},"x":null}}'],
  [
    'proto-smuggle',
    'json',
    `{"__proto__":{"gloo":{"replicas":3,"topologySpreadConstraints":[{"maxSkew":-5,"topologyKey":"zone","whenUnsatisfiable":"Whatever"}]}}}`,
  ],
  ['replicas-int32', 'json', '{"gloo":{"replicas":2147483648}}'],
  ['max-skew-int32', 'json', `{"gloo":{"topologySpreadConstraints":[{"maxSkew":4294967296,${zone}}]}}`],
  ['unknown-constructor', 'json', '{"gloo":{"constructor":1}}'],
  ['unknown-tostring', 'json', '{"toString":{"replicas":1}}'],
  ['unknown-hasownproperty', 'json', '{"gloo":{"leaderElection":{"hasOwnProperty":"x"}}}'],
  ['unknown-null', 'json', '{"gloo":{"foo":null}}'],
  // A JSON file with float literals, applied with kubectl: kubectl decodes it and sends 2 and 3, so
  // render reads them as integers too. (Sent as is by an API client, the server's CEL evaluation
  // rejects a float: the CRD test pins that separately.)
  ['float-2e0', 'file', '{"gloo":{"replicas":2E0}}'],
  ['float-3.0', 'file', '{"gloo":{"replicas":3.0}}'],
  ['float-3.5', 'file', '{"gloo":{"replicas":3.5}}'],
  ['code-points', 'json', `{"target":{"selector":{"matchLabels":{"app":"a${'😀'.repeat(62)}"}}}}`],
  ['code-points-over', 'json', `{"target":{"selector":{"matchLabels":{"app":"a${'😀'.repeat(63)}"}}}}`],
  [
    'renew-overflow',
    'json',
    '{"gloo":{"leaderElection":{"leaseDuration":"999999h","renewDeadline":"512410h"}}}',
  ],
  [
    'tiny-leases',
    'json',
    '{"gloo":{"leaderElection":{"leaseDuration":"3ms","renewDeadline":"2ms","retryPeriod":"1ms"}}}',
  ],
  ['58-year-lease', 'json', '{"gloo":{"leaderElection":{"leaseDuration":"508080h"}}}'],
  ['publicgw-twice', 'json', '{"gatewayProxies":{"publicGw":{"replicas":2},"public-gw":{"replicas":2}}}'],
  [
    'same-deployment-name',
    'json',
    '{"gatewayProxies":{"a":{"replicas":2,"deploymentName":"edge"},"b":{"replicas":2,"deploymentName":"edge"}}}',
  ],
  [
    'empty-topology-key',
    'json',
    '{"gloo":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"","whenUnsatisfiable":"DoNotSchedule"}]}}',
  ],
  [
    'match-label-key-space',
    'json',
    `{"gloo":{"topologySpreadConstraints":[{"maxSkew":1,${zone},"matchLabelKeys":["a b"]}]}}`,
  ],
  [
    'match-label-key-selector',
    'json',
    `{"gloo":{"topologySpreadConstraints":[{"maxSkew":1,${zone},"matchLabelKeys":["gloo"]}]}}`,
  ],
  ['drift-off-quoted', 'json', '{"driftPolicy":"off"}'],
  ['drift-ignore', 'json', '{"driftPolicy":"ignore"}'],
  ['drift-off-yaml', 'file', '  driftPolicy: off\n'],
  ['drift-ignore-yaml', 'file', '  driftPolicy: ignore\n'],
  ['enabled-yes', 'file', '  gloo:\n    replicas: 3\n    leaderElection: {enabled: yes}\n'],
  ['enabled-off', 'file', '  gloo:\n    replicas: 3\n    leaderElection: {enabled: off}\n'],
  ['octal-replicas', 'file', '  gloo:\n    replicas: 010\n'],
  [
    'boolean-keys',
    'file',
    '  gatewayProxies:\n    n: {replicas: 2}\n    on: {replicas: 2}\n    yes: {replicas: 3}\n',
  ],
  [
    'merge-key',
    'file',
    '  gatewayProxies:\n    gatewayProxy: &p {replicas: 3}\n    publicGw:\n      replicas: 5\n      <<: *p\n',
  ],
  ['duplicate-keys', 'file', '  gloo:\n    replicas: 0\n    replicas: 2\n'],
];

export function reportedCases(): GeneratedCase[] {
  return REPORTED.map(([name, kind, spec]) => ({
    id: `reported-${name}`,
    object: 'GlooHA' as const,
    kind,
    text: spec.startsWith('{') ? doc(`reported-${name}`, spec) : yamlDoc(`reported-${name}`, spec),
  }));
}

// ---- KgatewayHA ---------------------------------------------------------------------------------

const GATEWAY_KEYS = [
  'http',
  'gw',
  'kgateway',
  'Http',
  'a_b',
  '-x',
  'x-',
  '1',
  'true',
  'public.gw',
  `g${'x'.repeat(62)}`,
  `g${'x'.repeat(63)}`,
] as const;

function kgatewayBaseSpec(r: Rand): Json {
  const spec: Json = {};
  if (chance(r, 0.7)) {
    const controller: Json = {};
    if (chance(r, 0.7)) controller.replicas = pick(r, [1, 2, 3, 5]);
    if (controller.replicas === 1 && chance(r, 0.5)) controller.leaderElection = { enabled: false };
    else if (chance(r, 0.3)) controller.leaderElection = { enabled: true };
    if (chance(r, 0.3)) controller.podDisruptionBudget = { maxUnavailable: 1 };
    if (chance(r, 0.3)) controller.antiAffinity = pick(r, ['none', 'preferred', 'required']);
    spec.controller = controller;
  }
  if (chance(r, 0.6)) {
    const gateways: Json = { http: { replicas: pick(r, [1, 2, 3]) } };
    if (chance(r, 0.5)) gateways.public = { autoscaling: { minReplicas: 2, maxReplicas: 6 } };
    spec.gateways = gateways;
  }
  if (chance(r, 0.3)) spec.driftPolicy = pick(r, ['enforce', 'warn', 'ignore']);
  if (chance(r, 0.2)) spec.target = { namespace: 'kgateway-system' };
  if (chance(r, 0.1)) spec.suspend = pick(r, [true, false]);
  return spec;
}

const CTL = ['controller'];
const GW = ['gateways', 'http'];

const KGATEWAY_MUTATIONS: Mutation[] = [
  // the controller: replicas, leader election, PDB
  (r, s) => setPath(s, [...CTL, 'replicas'], pick(r, INT32)),
  (r, s) => setPath(s, [...CTL, 'leaderElection', 'enabled'], pick(r, [true, false, 'yes', null, 0])),
  (r, s) =>
    setPath(s, CTL, {
      replicas: pick(r, [1, 2, 3]),
      leaderElection: pick(r, [{ enabled: false }, { enabled: true }, {}, null]),
    }),
  (r, s) =>
    setPath(s, chance(r, 0.5) ? [...CTL, 'podDisruptionBudget'] : [...GW, 'podDisruptionBudget'], {
      [pick(r, ['minAvailable', 'maxUnavailable'])]: pick(r, INT_OR_PERCENT),
    }),
  (r, s) =>
    setPath(s, [...CTL, 'podDisruptionBudget'], pick(r, [{}, { minAvailable: 1, maxUnavailable: 1 }, null])),
  (r, s) => setPath(s, [...CTL, 'antiAffinity'], pick(r, ['none', 'preferred', 'required', 'sometimes'])),
  // a controller-only leader election: no timings here (kgateway has no setting for them)
  (r, s) => setPath(s, [...CTL, 'leaderElection', pick(r, ['leaseDuration', 'retryPeriod'])], '15s'),
  // gateways: keys, replicas xor autoscaling, PDB against replicas and minReplicas
  (r, s) => setPath(s, ['gateways', pick(r, GATEWAY_KEYS)], { replicas: 2 }),
  (r, s) => setPath(s, [...GW, 'replicas'], pick(r, INT32)),
  (r, s) =>
    setPath(s, [...GW, 'autoscaling'], {
      minReplicas: pick(r, INT32),
      maxReplicas: pick(r, INT32),
    }),
  (r, s) =>
    setPath(s, GW, pick(r, [{}, { replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 3 } }, null])),
  (r, s) =>
    setPath(s, ['gateways', 'public'], {
      autoscaling: { minReplicas: pick(r, [1, 2, 3]), maxReplicas: 4 },
      podDisruptionBudget: { minAvailable: pick(r, INT_OR_PERCENT) },
    }),
  (r, s) =>
    setPath(s, ['gateways', 'edge'], {
      replicas: pick(r, [1, 2, 3]),
      podDisruptionBudget: { minAvailable: pick(r, INT_OR_PERCENT) },
    }),
  (r, s) => setPath(s, ['gateways'], pick(r, [null, {}, []])),
  // GlooHA's fields do not exist here
  (r, s) => setPath(s, [pick(r, ['gloo', 'gatewayProxies', 'discovery'])], { replicas: 2 }),
  (_r, s) => setPath(s, [...GW, 'deploymentName'], 'edge'),
  (_r, s) => setPath(s, ['target', 'selector'], { matchLabels: { app: 'kgateway' } }),
  // topology spread
  (r, s) =>
    setPath(
      s,
      chance(r, 0.5) ? [...CTL, 'topologySpreadConstraints'] : [...GW, 'topologySpreadConstraints'],
      [
        spread(r, {
          topologyKey: pick(r, TOPOLOGY_KEYS),
          maxSkew: pick(r, [1, 2, 0, -1]),
          minDomains: pick(r, [undefined, 1, 0, 3]),
          matchLabelKeys: pick(r, [undefined, ...MATCH_LABEL_KEYS.map((k) => [...k])]),
        }),
      ],
    ),
  // enums, the target, suspend
  (r, s) => setPath(s, ['driftPolicy'], pick(r, ['enforce', 'warn', 'ignore', 'off', false, 'Enforce'])),
  (r, s) =>
    setPath(s, ['target', 'namespace'], pick(r, ['kgateway-system', 'Kgw', `n${'x'.repeat(63)}`, '', 'a.b'])),
  (r, s) =>
    setPath(s, ['target', 'helmRelease'], pick(r, ['kgateway', `r${'x'.repeat(52)}`, `r${'x'.repeat(53)}`])),
  (r, s) => setPath(s, ['suspend'], pick(r, [true, false, 'true', 1, null])),
  // unknown, null and prototype-named fields
  (r, s) => setPath(s, [pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  (r, s) => setPath(s, [...CTL, pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  (r, s) => setPath(s, [...GW, pick(r, UNKNOWN_NAMES)], pick(r, UNKNOWN_VALUES)),
  // the object itself
  (r, _s, doc) => put(doc.metadata as Json, 'name', pick(r, ['k'.repeat(63), 'k'.repeat(64)])),
];

function kgatewayJsonCase(r: Rand, index: number): GeneratedCase {
  const spec = kgatewayBaseSpec(r);
  const id = `kgateway-json-${index}`;
  const doc: Json = { apiVersion: 'glooha.io/v1alpha1', kind: 'KgatewayHA', metadata: { name: id } };
  const n = pick(r, [0, 1, 1, 2, 2, 3]);
  for (let i = 0; i < n; i++) pick(r, KGATEWAY_MUTATIONS)(r, spec, doc);
  put(doc, 'spec', spec);
  return { id, object: 'KgatewayHA', kind: 'json', text: JSON.stringify(doc) };
}

const KGATEWAY_FRAGMENTS: Fragment[] = [
  (r) => `  controller:\n    replicas: ${pick(r, YAML_INTS)}\n`,
  (r) =>
    `  controller:\n    replicas: ${pick(r, ['1', '2', '3'])}\n    leaderElection:\n      enabled: ${pick(r, YAML_BOOLS)}\n`,
  (r) => `  driftPolicy: ${pick(r, YAML_POLICIES)}\n`,
  (r) => `  suspend: ${pick(r, YAML_BOOLS)}\n`,
  (r) => `  gateways:\n    ${pick(r, YAML_KEYS)}: {replicas: ${pick(r, YAML_INTS)}}\n`,
  (r) =>
    `  gateways:\n    http: &p {replicas: ${pick(r, ['2', '3', '010'])}}\n    public:\n      <<: *p\n${chance(r, 0.5) ? `      replicas: ${pick(r, ['4', '0'])}\n` : ''}`,
  (r) => `  controller:\n    replicas: ${pick(r, YAML_INTS)}\n    replicas: ${pick(r, ['1', '3', '0'])}\n`,
  (r) => `  target:\n    helmRelease: ${pick(r, YAML_STRINGS)}\n`,
  (r) =>
    `  controller:\n    podDisruptionBudget:\n      ${pick(r, ['minAvailable', 'maxUnavailable'])}: ${pick(r, ['50%', '1', '010', '"1"', '1.0', '0x1', '~'])}\n`,
  (r) => `  controller:\n    antiAffinity: ${pick(r, ['none', 'preferred', 'No', '~'])}\n`,
];

function kgatewayYamlCase(r: Rand, index: number): GeneratedCase {
  const n = pick(r, [1, 1, 2]);
  const parts = Array.from({ length: n }, () => pick(r, KGATEWAY_FRAGMENTS)(r));
  const id = `kgateway-yaml-${index}`;
  const text = `apiVersion: glooha.io/v1alpha1\nkind: KgatewayHA\nmetadata:\n  name: ${id}\nspec:\n${parts.join('')}`;
  return { id, object: 'KgatewayHA', kind: 'file', text };
}

// ---- the object around the spec: status, metadata, integers past 2^53 ----------------------------

/**
 * Integers as written (JSON text, so they reach the server exactly): 2^53 + 1 (the first integer a
 * JavaScript number cannot hold), int64's maximum and one past it, uint64's maximum, one past that
 * (a float for go-yaml), and a negative one past int64's minimum.
 */
const BIG_INTS = [
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551615',
  '18446744073709551616',
  '-9223372036854775809',
  '2147483648',
] as const;

const STATUS_VALUES = [
  '{"bogus":1}',
  '{"bogus":null}',
  '{"observedGeneration":5}',
  '{"observedGeneration":"x"}',
  '{"conditions":[{"type":"Ready"}]}',
  '{"conditions":[{"type":"Ready","bogus":1}]}',
  '{"conditions":{"bogus":1}}',
  '[{"bogus":1}]',
  '5',
  'null',
  '{"components":{"gloo":{"readyReplicas":2,"bogus":true}}}',
  '{"components":{"controller":{"readyReplicas":2}}}',
  '{"leader":{"holder":"x","fresh":true}}',
] as const;

/** A spec field, per kind, that holds an int32 and one that holds an int-or-string. */
const INT_FIELDS: Record<CaseKind, { int: string; intOrString: string; base: string }> = {
  GlooHA: {
    int: '{"gloo":{"replicas":N}}',
    intOrString: '{"gloo":{"replicas":3,"podDisruptionBudget":{"maxUnavailable":N}}}',
    base: '{"gloo":{"replicas":2}}',
  },
  KgatewayHA: {
    int: '{"controller":{"replicas":N}}',
    intOrString: '{"controller":{"replicas":3,"podDisruptionBudget":{"maxUnavailable":N}}}',
    base: '{"controller":{"replicas":2}}',
  },
};

type ObjectMutation = (r: Rand, kind: CaseKind) => { spec?: string; status?: string; meta?: string };

const OBJECT_MUTATIONS: ObjectMutation[] = [
  (r) => ({ status: pick(r, STATUS_VALUES) }),
  (r, k) => ({ spec: INT_FIELDS[k].int.replace('N', pick(r, BIG_INTS)) }),
  (r, k) => ({ spec: INT_FIELDS[k].intOrString.replace('N', pick(r, BIG_INTS)) }),
  (r) => ({ status: `{"observedGeneration":${pick(r, BIG_INTS)}}` }),
  (r) => ({
    meta: `,"${pick(r, ['generation', 'deletionGracePeriodSeconds'])}":${pick(r, [...BIG_INTS, '"x"', '1.5', '3'])}`,
  }),
  (r) => ({
    meta: `,"${pick(r, ['labels', 'annotations'])}":{"n":${pick(r, ['1', 'true', '"x"', 'null', BIG_INTS[0]])}}`,
  }),
  // a value of the wrong shape: a map where a number belongs, a list where a map belongs
  (r, k) => ({
    spec: (k === 'GlooHA' ? '{"gloo":X}' : '{"controller":X}').replace(
      'X',
      pick(r, ['{"replicas":{"a":1}}', '[{"replicas":1}]', '{"replicas":[1]}', '[]']),
    ),
  }),
];

function objectCase(r: Rand, index: number): GeneratedCase {
  const kind: CaseKind = chance(r, 0.5) ? 'GlooHA' : 'KgatewayHA';
  const n = pick(r, [1, 1, 2]);
  let spec = INT_FIELDS[kind].base;
  let status: string | undefined;
  let meta = '';
  for (let i = 0; i < n; i++) {
    const m = pick(r, OBJECT_MUTATIONS)(r, kind);
    if (m.spec !== undefined) spec = m.spec;
    if (m.status !== undefined) status = m.status;
    if (m.meta !== undefined) meta += m.meta;
  }
  const id = `object-${index}`;
  const json = `{"apiVersion":"glooha.io/v1alpha1","kind":"${kind}","metadata":{"name":"${id}"${meta}},"spec":${spec}${status === undefined ? '' : `,"status":${status}`}}`;
  // Every fourth one as a file applied with kubectl (kubectl reads JSON through YAML as well).
  return { id, object: kind, kind: index % 4 === 3 ? 'file' : 'json', text: json };
}

// ---- ObjectMeta beyond labels, the request size, and raw JSON ------------------------------------

const OWNER =
  '{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"7d0c0a1e-0000-4000-8000-000000000001"';
const MiB = 1024 * 1024;

/** Metadata fragments (after `"metadata":{`), each at or across one of ValidateObjectMeta's lines. */
const META_VALUES: readonly string[] = [
  // finalizers: qualified names, at most 63 characters of name, a prefix of at most 253
  '"finalizers":["a b"]',
  `"finalizers":["${'f'.repeat(63)}"]`,
  `"finalizers":["${'f'.repeat(64)}"]`,
  `"finalizers":["example.com/${'f'.repeat(63)}"]`,
  `"finalizers":["${'p'.repeat(253)}/f"]`,
  `"finalizers":["${'p'.repeat(254)}/f"]`,
  '"finalizers":["Example.com/f"]',
  '"finalizers":["/f"]',
  '"finalizers":[null]',
  '"finalizers":["orphan","foregroundDeletion"]',
  '"finalizers":["orphan","glooha.io/handover","glooha.io/handover"]',
  // ownerReferences: a version, kind, name and uid each; one controller; no Event owner
  `"ownerReferences":[${OWNER}}]`,
  `"ownerReferences":[${OWNER.replace(/,"uid":"[^"]*"/, '')}}]`,
  `"ownerReferences":[${OWNER.replace('"name":"owner"', '"name":""')}}]`,
  `"ownerReferences":[${OWNER.replace('"name":"owner"', '"name":"Bad Name!"')}}]`,
  `"ownerReferences":[${OWNER},"controller":true},${OWNER.replace('"owner"', '"other"')},"controller":true}]`,
  `"ownerReferences":[${OWNER},"controller":true},${OWNER.replace('"owner"', '"other"')},"controller":false}]`,
  `"ownerReferences":[${OWNER.replace('"v1"', '"apps/"')}}]`,
  `"ownerReferences":[${OWNER.replace('"v1"', '"a/b/c"')}}]`,
  `"ownerReferences":[${OWNER.replace('"ConfigMap"', '"Event"')}}]`,
  `"ownerReferences":[${OWNER.replace('"ConfigMap"', '""')}}]`,
  `"ownerReferences":[${OWNER},"controller":"yes"}]`,
  `"ownerReferences":[${OWNER},"bogus":1}]`,
  '"ownerReferences":[null]',
  '"ownerReferences":["x"]',
  // labels and annotations at their lines
  `"labels":{"${'p'.repeat(253)}/${'n'.repeat(63)}":"${'v'.repeat(63)}"}`,
  `"labels":{"${'p'.repeat(254)}/n":"v"}`,
  `"labels":{"n":"${'v'.repeat(64)}"}`,
  `"annotations":{"a":"${'v'.repeat(256 * 1024 - 1)}"}`,
  `"annotations":{"a":"${'v'.repeat(256 * 1024)}"}`,
  // the request: the API server refuses a body over 3 MiB (413) before it decodes it
  `"annotations":{"a":"${'v'.repeat(3 * MiB - 4_000)}"}`,
  `"annotations":{"a":"${'v'.repeat(3 * MiB + 100)}"}`,
  // raw JSON: a duplicate key
  '"labels":{"a":"1","a":"2"}',
];

/** generateName with or without a name (the API server makes one from it). */
const GENERATE_NAMES = ['gen-', 'gen', 'Gen-', 'a.', '-a', 'a..b', 'g'.repeat(100), 'g'.repeat(254)] as const;

/** Specs as raw JSON writes them: float literals where integers belong, duplicate keys. */
const RAW_SPECS: Record<CaseKind, readonly string[]> = {
  GlooHA: [
    '{"gloo":{"replicas":3.0,"leaderElection":{"enabled":true}}}',
    '{"gloo":{"replicas":1e0}}',
    '{"gloo":{"replicas":1.5}}',
    '{"gloo":{"replicas":2,"replicas":1}}',
    '{"gloo":{"replicas":1},"gloo":{"replicas":"x"}}',
  ],
  KgatewayHA: [
    '{"controller":{"replicas":2.0}}',
    '{"controller":{"replicas":2E0}}',
    '{"controller":{"replicas":2,"replicas":1}}',
  ],
};

/** A case about ObjectMeta, the request size or raw JSON, of either kind, as JSON or as a kubectl file. */
function metaCase(r: Rand, index: number): GeneratedCase {
  const kind: CaseKind = chance(r, 0.5) ? 'GlooHA' : 'KgatewayHA';
  const id = `meta-${index}`;
  let spec = INT_FIELDS[kind].base;
  let meta = `"name":"${id}"`;
  const which = r();
  if (which < 0.6) meta += `,${pick(r, META_VALUES)}`;
  else if (which < 0.8) {
    const generateName = `"generateName":"${pick(r, GENERATE_NAMES)}"`;
    meta = chance(r, 0.75) ? generateName : `${meta},${generateName}`;
  } else spec = pick(r, RAW_SPECS[kind]);
  const json = `{"apiVersion":"glooha.io/v1alpha1","kind":"${kind}","metadata":{${meta}},"spec":${spec}}`;
  const raw = spec !== INT_FIELDS[kind].base || meta.includes('"a":"1","a":"2"');
  return {
    id,
    object: kind,
    kind: index % 3 === 2 ? 'file' : 'json',
    text: json,
    ...(raw ? { rawJson: true as const } : {}),
  };
}

/**
 * The reported inputs, then `count` JSON cases and count/5 YAML cases (each YAML case costs a kubectl
 * run) of GlooHA, from `seed`; then as many KgatewayHA cases, and count/5 cases about the object around
 * the spec (status, metadata, integers beyond 2^53) of either kind, and count/3 about ObjectMeta, the
 * request size and raw JSON (meta-N), each from its own sequence, so
 * that GlooHA's cases for a seed stay the ones earlier runs measured.
 */
export function generateCases(seed: number, count: number): GeneratedCase[] {
  const r = prng(seed);
  const cases: GeneratedCase[] = reportedCases();
  for (let i = 0; i < count; i++) cases.push(jsonCase(r, i));
  for (let i = 0; i < Math.max(1, Math.round(count / 5)); i++) cases.push(yamlCase(r, i));
  const k = prng(seed ^ 0x6b677779);
  for (let i = 0; i < count; i++) cases.push(kgatewayJsonCase(k, i));
  for (let i = 0; i < Math.max(1, Math.round(count / 5)); i++) cases.push(kgatewayYamlCase(k, i));
  const o = prng(seed ^ 0x0b1ec7);
  for (let i = 0; i < Math.max(1, Math.round(count / 5)); i++) cases.push(objectCase(o, i));
  const m = prng(seed ^ 0x3e7a);
  for (let i = 0; i < Math.max(1, Math.round(count / 3)); i++) cases.push(metaCase(m, i));
  return cases;
}

/** How many rule-boundary mutations and YAML fragments exist, for the report. */
export const GENERATOR_SIZE = {
  mutations: MUTATIONS.length,
  yamlFragments: FRAGMENTS.length,
  kgatewayMutations: KGATEWAY_MUTATIONS.length,
  kgatewayYamlFragments: KGATEWAY_FRAGMENTS.length,
  objectMutations: OBJECT_MUTATIONS.length,
  metaValues: META_VALUES.length,
};
