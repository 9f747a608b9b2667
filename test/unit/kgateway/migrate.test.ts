// `glooha migrate kgateway`: the mapping, and its output fed to kgateway's real charts (v2.4.2, from
// its Go module): the controller chart with the values as `helm install -f` reads them, and the chart
// kgateway's deployer renders each Gateway's proxy from, with the values the deployer derives from
// GatewayParameters. Their objects must carry what the GlooHA asked for, and our selectors must select
// the pods those charts label.
import type { KubernetesObject } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { main } from '../../../src/cli/main.js';
import { selects } from '../../../src/core/selectors.js';
import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { validateKgatewayHA } from '../../../src/products/kgateway/validate.js';
import { migrateToKgateway } from '../../../src/products/kgateway/migrate.js';
import { kgatewayFixtures, type KgatewayFixtures } from '../../env/binaries.js';
import { deployerValues } from '../../support/kgateway.js';
import { helm, parseManifests } from '../chart/helm.js';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..', '..');
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function glooha(args: string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    readFile: (path) => files[path] ?? readFileSync(join(repoRoot, path), 'utf8'),
    readStdin: async () => '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

function glooHA(spec: Obj) {
  const v = validateGlooHA({
    apiVersion: 'glooha.io/v1alpha1',
    kind: 'GlooHA',
    metadata: { name: 'gloo', namespace: 'gloo-system' },
    spec,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.value;
}

/** `helm template` of a packaged chart with a values file holding `valuesText` verbatim. */
async function template(chart: string, release: string, namespace: string, valuesText: string) {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-kgw-'));
  try {
    writeFileSync(join(dir, 'values.yaml'), valuesText);
    const { stdout } = await run(
      helm(),
      ['template', release, chart, '-n', namespace, '-f', join(dir, 'values.yaml')],
      {
        maxBuffer: 32 << 20,
        env: { ...process.env, HELM_CACHE_HOME: join(dir, 'c'), HELM_CONFIG_HOME: join(dir, 'g') },
      },
    );
    return parseManifests(stdout) as Obj[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const one = (objects: Obj[], kind: string) => {
  const hits = objects.filter((o) => o.kind === kind);
  expect(hits.map((o) => o.metadata.name)).toHaveLength(1);
  return hits[0] as Obj;
};

describe('migrateToKgateway', () => {
  it('carries the controller settings into the chart values and reports what does not carry over', () => {
    const m = migrateToKgateway(
      glooHA({
        gloo: {
          replicas: 3,
          antiAffinity: 'required',
          leaderElection: { leaseDuration: '20s', renewDeadline: '15s', retryPeriod: '3s' },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
          ],
        },
        discovery: { replicas: 1 },
      }),
      { release: 'kgw' },
    );
    expect(m.namespace).toBe('gloo-system');
    const selector = {
      matchLabels: {
        kgateway: 'kgateway',
        'app.kubernetes.io/name': 'kgateway',
        'app.kubernetes.io/instance': 'kgw',
      },
    };
    // For kgateway 2.4 (what migrate targets): the controller's own affinity and spread values.
    expect(m.helmValues).toEqual({
      controller: {
        replicaCount: 3,
        extraEnv: { KGW_DISABLE_LEADER_ELECTION: 'false' },
        podDisruptionBudget: { maxUnavailable: 1 },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: selector, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: selector,
          },
        ],
      },
    });
    expect(m.objects).toEqual([]);
    // The KgatewayHA keeps the same settings, which the operator applies, and is valid as printed.
    expect(m.kgatewayHA.spec?.controller).toMatchObject({ replicas: 3, antiAffinity: 'required' });
    expect(m.kgatewayHA.spec?.controller?.topologySpreadConstraints).toHaveLength(1);
    expect(m.kgatewayHA.spec?.target).toEqual({ helmRelease: 'kgw' });
    const valid = validateKgatewayHA(m.kgatewayHA);
    expect(valid.ok ? [] : valid.errors).toEqual([]);
    expect(m.notes.map((n) => `${n.code} ${n.path}`)).toEqual([
      'KgatewayCannotExpress spec.gloo.leaderElection',
      'KgatewayCannotExpress spec.discovery',
    ]);
    expect(m.notes[0]?.message).toContain('15s/10s/2s, not 20s/15s/3s');
  });

  it('turns leader election off for a single controller replica, and says nothing of default timings', () => {
    const m = migrateToKgateway(
      glooHA({ gloo: { replicas: 1, antiAffinity: 'none', leaderElection: { enabled: false } } }),
      {
        release: 'kgateway',
      },
    );
    expect(m.helmValues).toEqual({
      controller: { replicaCount: 1, extraEnv: { KGW_DISABLE_LEADER_ELECTION: 'true' } },
    });
    expect(m.notes).toEqual([]);
  });

  it('gives each gateway proxy GatewayParameters, a PDB, and an HPA without fixed replicas when autoscaled', () => {
    const m = migrateToKgateway(
      glooHA({
        gatewayProxies: {
          gatewayProxy: { replicas: 2, antiAffinity: 'none' },
          publicGw: { autoscaling: { minReplicas: 3, maxReplicas: 9 }, antiAffinity: 'required' },
          single: { replicas: 1, antiAffinity: 'none' },
        },
      }),
      { release: 'kgateway' },
    );
    expect(m.objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'GatewayParameters/gloo-system/gateway-proxy',
      'PodDisruptionBudget/gloo-system/gateway-proxy',
      'GatewayParameters/gloo-system/public-gw',
      'PodDisruptionBudget/gloo-system/public-gw',
      'HorizontalPodAutoscaler/gloo-system/public-gw',
      'GatewayParameters/gloo-system/single',
    ]);
    const [gp, , autoscaled, , hpa, single] = m.objects as Obj[];
    expect(migrateToKgateway(glooHA({}), { release: 'kgw' }).kgatewayHA.spec?.target).toEqual({
      helmRelease: 'kgw',
    });
    expect(gp?.spec).toEqual({ kube: { deployment: { replicas: 2 } } });
    expect(autoscaled?.spec.kube.deployment).toEqual({
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
    });
    expect(hpa?.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'public-gw' },
      minReplicas: 3,
    });
    expect(single?.spec).toEqual({ kube: { deployment: { replicas: 1 } } });
    const refs = m.notes.filter((n) => n.code === 'KgatewayGatewayReference').map((n) => n.message);
    expect(refs[0]).toContain('gloo-system/gateway-proxy');
    expect(refs[0]).toContain('which the PodDisruptionBudget selects)');
    expect(refs[1]).toContain('which the PodDisruptionBudget and the HPA select)');
    expect(refs[2]).toContain('names the proxy Deployment after the Gateway)');
  });
});

describe('glooha migrate kgateway', () => {
  it('prints the manifests by default, the values with -o helm-values, notes on stderr', async () => {
    const manifests = await glooha(['migrate', 'kgateway', '-f', 'examples/glooha.yaml']);
    expect(manifests.code).toBe(0);
    const kinds = parseAllDocuments(manifests.stdout).map((d) => (d.toJS() as Obj).kind);
    expect(kinds).toEqual([
      'KgatewayHA',
      'GatewayParameters',
      'PodDisruptionBudget',
      'GatewayParameters',
      'PodDisruptionBudget',
      'HorizontalPodAutoscaler',
    ]);
    expect(manifests.stderr).toMatch(/^note: gloo-system\/gloo: \[KgatewayCannotExpress\] gloo: /m);
    const values = await glooha(['migrate', 'kgateway', '-f', 'examples/glooha.yaml', '-o', 'helm-values']);
    expect(values.code).toBe(0);
    expect(values.stdout).toContain(
      '# Install: helm install kgateway oci://cr.kgateway.dev/kgateway-dev/charts/kgateway --version v2.4.2 -n gloo-system -f values.yaml',
    );
    expect(values.stdout).toContain('#   [KgatewayCannotExpress] discovery:');
    expect(parse(values.stdout)).toMatchObject({ controller: { replicaCount: 3 } });
    const all = await glooha(['migrate', 'kgateway', '-f', 'examples/glooha.yaml', '-o', 'all']);
    expect(parseAllDocuments(all.stdout)).toHaveLength(7);
  });

  it('writes YAML that YAML 1.1 readers (kubectl, Helm) read back as strings, and completes its target', async () => {
    // A proxy key such as `on` names a Gateway "on", which YAML 1.1 would read as a boolean unquoted.
    const r = await glooha(['migrate', 'kgateway', '-f', 'g.yaml'], {
      'g.yaml':
        'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g, namespace: ns}\nspec: {gatewayProxies: {"on": {replicas: 2}}}\n',
    });
    expect(r.code).toBe(0);
    const names = parseAllDocuments(r.stdout, { version: '1.1' }).map((d) => (d.toJS() as Obj).metadata.name);
    expect(names).toEqual(['g', 'on', 'on']);
    const completion = await glooha(['completion', 'bash']);
    expect(completion.stdout).toMatch(/ {4}migrate\)[\s\S]*?compgen -W "kgateway"/);
  });

  it('refuses an unknown target, a bad release name and invalid input, naming the fix', async () => {
    const target = await glooha(['migrate', 'istio', '-f', 'examples/glooha.yaml']);
    expect(target.code).toBe(2);
    expect(target.stderr).toContain('TARGET must be one of kgateway, not "istio"');
    const release = await glooha(['migrate', 'kgateway', '-f', 'examples/glooha.yaml', '--release', 'KGW']);
    expect(release.code).toBe(2);
    expect(release.stderr).toContain('--release must be a Helm release name');
    const invalid = await glooha(['migrate', 'kgateway', '-f', 'bad.yaml'], {
      'bad.yaml':
        'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g}\nspec: {gloo: {replicas: 0}}\n',
    });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('spec.gloo.replicas');
    expect(invalid.stdout).toBe('');
  });
});

describe("the output in kgateway's real charts", () => {
  let fx: KgatewayFixtures;
  beforeAll(() => {
    fx = kgatewayFixtures();
  }, 600_000);

  it('the controller chart renders the values: replicas, leader election, PDB, anti-affinity selecting its own pods', async () => {
    const values = await glooha([
      'migrate',
      'kgateway',
      '-f',
      'examples/glooha.yaml',
      '-o',
      'helm-values',
      '--release',
      'kgw',
    ]);
    const objects = await template(fx.chart, 'kgw', 'gloo-system', values.stdout);
    const dep = one(objects, 'Deployment');
    expect(dep.metadata.name).toBe('kgw-kgateway');
    expect(dep.spec.replicas).toBe(3);
    expect(dep.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
    });
    const env = dep.spec.template.spec.containers[0].env as { name: string; value?: string }[];
    expect(env).toContainEqual({ name: 'KGW_DISABLE_LEADER_ELECTION', value: 'false' });
    const podLabels = dep.spec.template.metadata.labels as Record<string, string>;
    const term =
      dep.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
    expect(selects(term.labelSelector, podLabels)).toBe(true);
    const pdb = one(objects, 'PodDisruptionBudget');
    expect(pdb.spec).toEqual({ selector: dep.spec.selector, maxUnavailable: 1 });
  });

  it("the deployer's proxy chart, given the GatewayParameters' values, renders Deployments our PDBs, HPAs and selectors match", async () => {
    const out = await glooha(['migrate', 'kgateway', '-f', 'examples/glooha.yaml']);
    const objects = parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
    for (const gp of objects.filter((o) => o.kind === 'GatewayParameters')) {
      const gw = gp.metadata.name as string;
      const kube = gp.spec.kube as Obj;
      const values = deployerValues(gw, 'gloo-system', kube, fx.version);
      const rendered = await template(fx.proxyChart, gw, 'gloo-system', JSON.stringify(values));
      const dep = one(rendered, 'Deployment');
      expect(dep.metadata.name).toBe(gw);
      expect(dep.spec.replicas).toBe(kube.deployment?.replicas);
      const podLabels = dep.spec.template.metadata.labels as Record<string, string>;
      const pod = dep.spec.template.spec as Obj;
      expect(pod.affinity).toEqual(kube.podTemplate.affinity);
      const terms = [
        ...(pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
          (t: Obj) => t.podAffinityTerm,
        ),
        ...(pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution ?? []),
      ];
      for (const t of terms) expect(selects(t.labelSelector, podLabels)).toBe(true);
      for (const t of pod.topologySpreadConstraints ?? [])
        expect(selects(t.labelSelector, podLabels)).toBe(true);
      const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === gw) as Obj;
      expect(pdb.spec.selector).toEqual(dep.spec.selector);
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === gw);
      if (hpa)
        expect(hpa.spec.scaleTargetRef).toEqual({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: dep.metadata.name,
        });
    }
    expect(objects.filter((o) => o.kind === 'GatewayParameters')).toHaveLength(2);
  });
});

export type { KubernetesObject };
