// `glooha render`, in-process through a fake CliIO, plus the real executable once through tsx.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { parseArgs } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { mergePatches } from '../../../src/cli/merge.js';
import { kubeScoreBinary, loadConfig, score, type Finding } from '../../../scripts/lint-manifests.js';
import { locateBinaries } from '../../env/binaries.js';
import { helm } from '../chart/helm.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  docs: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function glooha(args: string[], files: Record<string, string> = {}, stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    readFile: (path) => {
      if (path in files) return files[path] as string;
      if (path.startsWith('examples/')) return readFileSync(join(repoRoot, path), 'utf8');
      throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    },
    readStdin: async () => stdin,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => (stderr += t),
  });
  const docs =
    code === 0 && stdout ? parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, unknown>) : [];
  return { code, stdout, stderr, docs };
}

const kindsOf = (r: Run) => r.docs.map((d) => `${d.kind}/${d.metadata.name}`);

describe('glooha render, a KgatewayHA (judged by its kind)', () => {
  it('prints the objects it owns, the partial Deployment and GatewayParameters, and the values for its chart', async () => {
    const r = await glooha(['render', '-f', 'examples/kgatewayha.yaml', '-o', 'all']);
    expect(r.stderr).not.toMatch(/problem|unknown field/);
    expect(r.code).toBe(0);
    expect(r.docs.map((d) => `${d.kind}/${d.metadata?.name}`)).toEqual([
      'PodDisruptionBudget/kgateway-glooha',
      'ConfigMap/kgateway-kgateway-helm-values',
      'Deployment/kgateway',
      'GatewayParameters/http',
      'undefined/undefined', // the values overlay
    ]);
    const params = r.docs[3]!;
    expect(params.apiVersion).toBe('gateway.kgateway.dev/v1alpha1');
    expect(params.spec.kube.deployment).toEqual({ replicas: 3 });
    expect(params.spec.kube.podDisruptionBudget.spec.maxUnavailable).toBe(1);
    const dep = r.docs[2]!;
    expect(dep.spec.replicas).toBe(3);
    expect(dep.spec.template.spec.containers[0].env[0]).toEqual({
      name: 'KGW_DISABLE_LEADER_ELECTION',
      value: 'false',
    });
    const values = r.docs[4]!;
    expect(values.controller.replicaCount).toBe(3);
    expect(values.controller.podDisruptionBudget).toEqual({ maxUnavailable: 1 });
    // Its header: kgateway's release and chart, the file named for the kind; no version is known offline.
    expect(r.stdout).toContain(
      '#   helm upgrade kgateway ${KGATEWAY_CHART:-oci://cr.kgateway.dev/kgateway-dev/charts/kgateway} -n kgateway-system --reset-then-reuse-values -f values-kgatewayha.yaml\n# Add --version',
    );
  });

  it('judges each document of a mixed stream by its kind, and names the fields of that kind', async () => {
    const gloo = readFileSync(join(repoRoot, 'examples/glooha.yaml'), 'utf8');
    const kgw = readFileSync(join(repoRoot, 'examples/kgatewayha.yaml'), 'utf8');
    const both = await glooha(['render', '-f', 'both.yaml', '-o', 'helm-values'], {
      'both.yaml': `${gloo}\n---\n${kgw}`,
    });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain('from GlooHA gloo-system/gloo');
    expect(both.stdout).toContain('from KgatewayHA kgateway-system/kgateway');
    // A KgatewayHA's unknown field is reported against the KgatewayHA's fields, not a GlooHA's.
    const bad = await glooha(['render', '-f', 'bad.yaml'], {
      'bad.yaml':
        'apiVersion: glooha.io/v1alpha1\nkind: KgatewayHA\nmetadata: {name: k}\nspec: {gloo: {replicas: 2}}\n',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/spec\.gloo: unknown field \(known fields: [^)]*controller/);
    expect(bad.stderr).not.toMatch(/known fields: target, gloo/);
  });

  it("refuses a GlooHA's --install for a stream that holds a KgatewayHA", async () => {
    const r = await glooha(['render', '-f', 'examples/kgatewayha.yaml', '--install', 'i.yaml'], {
      'i.yaml': '{}',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--install is for a GlooHA only; the input holds KgatewayHA too');
  });
});

describe('glooha render', () => {
  it('prints the owned objects and the partial applies of the production example', async () => {
    const r = await glooha(['render', '-f', 'examples/glooha.yaml']);
    expect(r.code).toBe(0);
    expect(kindsOf(r)).toEqual([
      'ConfigMap/gloo-helm-values',
      'Role/glooha-gloo-leader-election',
      'RoleBinding/glooha-gloo-leader-election',
      'PodDisruptionBudget/gloo-glooha',
      'PodDisruptionBudget/gateway-proxy-glooha',
      'PodDisruptionBudget/public-gw-glooha',
      'HorizontalPodAutoscaler/public-gw-glooha',
      'Deployment/gloo',
      'Deployment/discovery',
      'Deployment/gateway-proxy',
      'Deployment/public-gw',
    ]);
    expect(r.stdout).toContain('# Partial Deployment gloo-system/gloo: server-side apply only');
    expect(r.stderr).not.toMatch(/^(warning|problem):/m);
    expect(r.stderr).toContain('no metadata.uid (offline render)');
  });

  it('renders the small example without warnings', async () => {
    const r = await glooha(['render', '-f', 'examples/glooha-small.yaml']);
    expect(r.code).toBe(0);
    expect(kindsOf(r)).toContain('PodDisruptionBudget/gateway-proxy-glooha');
    expect(r.stderr).not.toMatch(/^(warning|problem):/m);
  });

  it('prints only the Helm values with -o helm-values, with notes on stderr', async () => {
    const r = await glooha(['render', '-f', 'examples/glooha.yaml', '--output', 'helm-values']);
    expect(r.code).toBe(0);
    expect(r.docs).toHaveLength(1);
    expect(Object.keys(r.docs[0] ?? {})).toEqual(['gloo', 'discovery', 'gatewayProxies']);
    expect(r.docs[0]?.gloo.deployment.replicas).toBe(3);
    expect(r.stderr).toMatch(/^note: gloo-system\/gloo: \[HelmCannotExpress\]/m);
  });

  it('prints both with -o all, the Helm values last', async () => {
    const r = await glooha(['render', '-f', 'examples/glooha.yaml', '-o=all']);
    expect(r.code).toBe(0);
    expect(r.docs).toHaveLength(12);
    expect(r.docs[11]).toHaveProperty('gatewayProxies.publicGw.horizontalPodAutoscaler.maxReplicas', 12);
  });

  it('reads stdin with -f - and defaults the namespace', async () => {
    const yaml = stringify({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'GlooHA',
      metadata: { name: 'edge' },
      spec: { gloo: { replicas: 3 } },
    });
    const r = await glooha(['render', '-f', '-', '-n', 'edge-system'], {}, yaml);
    expect(r.code).toBe(0);
    expect(r.docs.every((d) => d.metadata.namespace === 'edge-system')).toBe(true);
  });

  it('renders several GlooHAs from one stream', async () => {
    const one = (name: string) =>
      stringify({
        apiVersion: 'glooha.io/v1alpha1',
        kind: 'GlooHA',
        metadata: { name, namespace: name },
        spec: {},
      });
    const r = await glooha(['render', '-f', 'two.yaml'], { 'two.yaml': `${one('a')}---\n${one('b')}` });
    expect(r.code).toBe(0);
    expect(r.docs.filter((d) => d.kind === 'ConfigMap').map((d) => d.metadata.name)).toEqual([
      'a-helm-values',
      'b-helm-values',
    ]);
  });

  it('prints warnings for weak settings on stderr and still exits 0', async () => {
    const yaml = stringify({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'GlooHA',
      metadata: { name: 'dev' },
      spec: { gloo: { replicas: 1 } },
    });
    const r = await glooha(['render', '-f', 'dev.yaml'], { 'dev.yaml': yaml });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: default/dev: [SingleReplica] gloo: gloo runs a single replica');
    expect(r.stderr).toContain('warning: default/dev: [NoPodDisruptionBudget] gloo:');
  });

  it('uses an observed install from --install and prints the problems it shows', async () => {
    const install = stringify({
      namespace: 'gloo-system',
      gloo: {
        name: 'gloo',
        selector: { matchLabels: { gloo: 'gloo' } },
        containers: [{ name: 'gloo' }],
        serviceAccountName: 'gloo',
      },
      gatewayProxies: [],
      pdbs: [{ name: 'gloo-pdb', selector: { matchLabels: { gloo: 'gloo' } }, minAvailable: 1 }],
    });
    const r = await glooha(['render', '-f', 'examples/glooha-small.yaml', '--install', 'install.yaml'], {
      'install.yaml': install,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'problem: gloo-system/gloo: [GatewayProxyNotFound] gatewayProxies.gatewayProxy:',
    );
    expect(r.stderr).toContain('[ForeignPodDisruptionBudget]');
    expect(kindsOf(r)).not.toContain('PodDisruptionBudget/gloo-glooha');
  });

  describe('invalid input exits 2 and lists every problem, without a stack trace', () => {
    it('spec problems, as path: message', async () => {
      const yaml = stringify({
        apiVersion: 'glooha.io/v1alpha1',
        kind: 'GlooHA',
        metadata: { name: 'bad' },
        spec: {
          gloo: { replicas: 3, leaderElection: { enabled: false, leaseDuration: '15' } },
          discovery: { replicas: 2 },
          gatewayProxies: { gatewayProxy: { replicas: 2, autoscaling: { minReplicas: 3, maxReplicas: 2 } } },
        },
      });
      const r = await glooha(['render', '-f', 'bad.yaml'], { 'bad.yaml': yaml });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toEqual([
        'glooha: bad.yaml is invalid:',
        expect.stringMatching(
          /^ {2}spec\.gloo\.leaderElection\.enabled: leaderElection\.enabled must be true when replicas is more than 1/,
        ),
        expect.stringMatching(
          /^ {2}spec\.gloo\.leaderElection\.leaseDuration: leaseDuration must be a positive Go duration/,
        ),
        expect.stringMatching(/^ {2}spec\.discovery\.replicas: discovery\.replicas must be 0 or 1/),
        expect.stringMatching(
          /^ {2}spec\.gatewayProxies\[gatewayProxy\]: set replicas or autoscaling for the proxy, not both/,
        ),
        expect.stringMatching(
          /^ {2}spec\.gatewayProxies\[gatewayProxy\]\.autoscaling\.maxReplicas: autoscaling\.maxReplicas must be at least/,
        ),
        '',
      ]);
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    });

    it('YAML syntax errors', async () => {
      const r = await glooha(['render', '-f', 'broken.yaml'], {
        'broken.yaml': 'apiVersion: glooha.io/v1alpha1\nspec: [unclosed\n',
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^glooha: broken.yaml is invalid:\n {2}YAML: /);
    });

    it('an object of no kind glooha renders, a GlooHA of the wrong apiVersion, and an empty file', async () => {
      const cm = await glooha(['render', '-f', 'cm.yaml'], {
        'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\nmetadata: {name: y}\n',
      });
      expect(cm.code).toBe(2);
      expect(cm.stderr).toBe(
        'glooha: cm.yaml is invalid:\n' +
          '  document 1: kind: "ConfigMap" is not a kind glooha renders (known kinds: GlooHA, KgatewayHA)\n' +
          '  document 2: kind: missing (known kinds: GlooHA, KgatewayHA)\n',
      );
      const v1 = await glooha(['render', '-f', 'v1.yaml'], {
        'v1.yaml': 'apiVersion: v1\nkind: GlooHA\nmetadata: {name: x}\n',
      });
      expect(v1.code).toBe(2);
      expect(v1.stderr).toContain('apiVersion: must be glooha.io/v1alpha1, not "v1"');
      const empty = await glooha(['render', '-f', 'empty.yaml'], { 'empty.yaml': '' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('no GlooHA or KgatewayHA found');
    });

    it('a file that cannot be read', async () => {
      const r = await glooha(['render', '-f', 'missing.yaml']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('glooha: missing.yaml is invalid:\n  cannot read missing.yaml: no such file\n');
    });

    it('an invalid --install file', async () => {
      const r = await glooha(['render', '-f', 'examples/glooha-small.yaml', '--install', 'i.yaml'], {
        'i.yaml': 'gloo: {name: 7}\nextra: 1\n',
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('  namespace: must be a non-empty string');
      expect(r.stderr).toContain('  gloo.name: must be a non-empty string');
      expect(r.stderr).toContain('  extra: unknown field');
    });

    it.each([
      [['render'], 'missing -f FILE'],
      [
        ['render', '-f', 'x', '-o', 'json'],
        '--output must be one of manifests, helm-values, all, not "json"',
      ],
      [['render', '-f', 'x', '--dry-run'], 'unknown flag --dry-run'],
      [['render', '-f'], 'flag -f needs a value'],
      [['apply', '-f', 'x'], 'unknown command "apply"'],
    ])('usage error %j', async (args, message) => {
      const r = await glooha(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`glooha: ${message}`);
      expect(r.stderr).toContain(
        args[0] === 'render' ? "Run 'glooha render --help' for usage." : "Run 'glooha --help' for usage.",
      );
    });
  });

  it('prints help and version', async () => {
    const help = await glooha(['render', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--output WHAT');
    expect((await glooha([])).stdout).toContain('Usage:');
    expect((await glooha(['--version'])).stdout).toMatch(/^glooha \d+\.\d+\.\d+\n$/);
  });

  it('parses flags the kubectl way', () => {
    expect(
      parseArgs(['render', '--filename=a.yaml', '-o', 'all', '--install', 'i.yaml', '--namespace=ns']),
    ).toEqual({
      command: 'render',
      filename: 'a.yaml',
      output: 'all',
      namespace: 'ns',
      flags: { install: 'i.yaml' },
    });
  });
});

describe('the glooha executable', () => {
  const exec = promisify(execFile);
  const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');

  // Two tsx cold starts: 30 s was not enough in a CI run beside the integration lanes on 2 busy cores.
  it('renders an example and exits 2 on invalid input', { timeout: 90_000 }, async () => {
    const ok = await exec(tsx, ['src/cli/glooha.ts', 'render', '-f', 'examples/glooha.yaml'], {
      cwd: repoRoot,
    });
    expect(parseAllDocuments(ok.stdout)).toHaveLength(11);
    const bad = await exec(tsx, ['src/cli/glooha.ts', 'render', '-f', 'package.json'], {
      cwd: repoRoot,
    }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in bad && bad.code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/^glooha: package\.json is invalid:/);
  });
});

describe('glooha render --merge-into', () => {
  const chartYaml = () =>
    execFileSync(helm(), [
      'template',
      'gloo',
      locateBinaries().glooChart,
      '-n',
      'gloo-system',
      '--set',
      'gateway.validation.webhook.enabled=false',
    ]).toString();
  const glooHA = stringify({
    apiVersion: 'glooha.io/v1alpha1',
    kind: 'GlooHA',
    metadata: { name: 'gloo', namespace: 'gloo-system' },
    spec: {
      gloo: { replicas: 3, antiAffinity: 'preferred' },
      gatewayProxies: { gatewayProxy: { replicas: 2, antiAffinity: 'preferred' } },
    },
  });

  it('merges the partial bodies as server-side apply does: env before the shared entry, values kept', () => {
    const live = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', labels: { gloo: 'gloo' } },
      spec: {
        replicas: 1,
        template: {
          spec: {
            containers: [
              {
                name: 'gloo',
                image: 'gloo:1',
                env: [
                  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  { name: 'START_STATS_SERVER', value: 'true' },
                ],
              },
            ],
          },
        },
      },
    };
    const patch = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gloo', namespace: 'gloo-system', annotations: { 'glooha.io/min-replicas': '3' } },
      spec: {
        replicas: 3,
        template: {
          spec: {
            affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
            containers: [
              {
                name: 'gloo',
                env: [{ name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' }, { name: 'POD_NAMESPACE' }],
              },
            ],
          },
        },
      },
    };
    const other = { ...patch, metadata: { name: 'missing', namespace: 'gloo-system' } };
    const { merged, unmatched } = mergePatches([live as never], [patch, other]);
    expect(unmatched).toEqual([other]);
    const d = merged[0] as unknown as typeof live & typeof patch;
    expect(d.spec.replicas).toBe(3);
    expect(d.metadata.labels).toEqual({ gloo: 'gloo' });
    expect(d.metadata.annotations).toEqual({ 'glooha.io/min-replicas': '3' });
    expect(d.spec.template.spec.affinity).toEqual(patch.spec.template.spec.affinity);
    const c = d.spec.template.spec.containers[0]!;
    expect(c.image).toBe('gloo:1');
    expect(c.env).toEqual([
      { name: 'LEADER_ELECTION_LEASE_DURATION', value: '15s' },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'START_STATS_SERVER', value: 'true' },
    ]);
  });

  it("merges list-maps as the served schema types them: a chart's own spread constraint stays beside ours", () => {
    const host = {
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { gloo: 'gateway-proxy' } },
    };
    const zone = { ...host, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' };
    const dep = (constraints: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gateway-proxy', namespace: 'gloo-system' },
      spec: { template: { spec: { topologySpreadConstraints: constraints } } },
    });
    const { merged } = mergePatches([dep([host])], [dep([zone])]);
    expect(
      (merged[0] as unknown as ReturnType<typeof dep>).spec.template.spec.topologySpreadConstraints,
    ).toEqual([host, zone]);
  });

  it("prints Gloo's chart with the operator's changes merged in, then the objects it owns", async () => {
    const chart = chartYaml();
    const r = await glooha(['render', '-f', 'ha.yaml', '--merge-into', 'gloo.yaml'], {
      'ha.yaml': glooHA,
      'gloo.yaml': chart,
    });
    expect(r.code, r.stderr).toBe(0);
    const chartDocs = parseAllDocuments(chart)
      .map((d) => d.toJS())
      .filter(Boolean);
    expect(r.docs.length).toBe(chartDocs.length + 5); // + 2 PDBs, Role, RoleBinding, values ConfigMap
    const gloo = r.docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'gloo')!;
    expect(gloo.spec.replicas).toBe(3);
    expect(gloo.spec.template.spec.containers[0].image).toMatch(/gloo/); // the chart's container, whole
    expect(gloo.spec.template.spec.affinity.podAntiAffinity).toBeDefined();
    expect(kindsOf(r)).toContain('PodDisruptionBudget/gloo-glooha');
    expect(
      (
        await glooha(['render', '-f', 'ha.yaml', '--merge-into', 'x', '--install', 'y'], {
          'ha.yaml': glooHA,
        })
      ).stderr,
    ).toMatch(/--install or --merge-into, not both/);
  }, 120_000);

  it('lints as what it is: kube-score finds nothing the chart itself does not, and fewer HA gaps', async () => {
    const kubeScore = kubeScoreBinary();
    const config = { ...loadConfig(), deliberate: [] }; // the optional checks CI enables, none waived
    const chart = chartYaml();
    const files = { 'ha.yaml': glooHA, 'gloo.yaml': chart };
    const merged = (await glooha(['render', '-f', 'ha.yaml', '--merge-into', 'gloo.yaml'], files)).stdout;
    const partial = (await glooha(['render', '-f', 'ha.yaml'], files)).stdout;
    const key = (f: Finding) => `${f.object} ${f.check} ${f.message}`;
    const of = (text: string) => new Set(score(kubeScore, 'x', text, config).map(key));
    const [own, withOperator, patchesAlone] = [of(chart), of(merged), of(partial)];
    // Merged: no finding the chart's own render does not have (the operator adds no problem) ...
    expect([...withOperator].filter((f) => !own.has(f))).toEqual([]);
    // ... and the HA checks it fixes are gone for the Deployments it manages.
    const gone = [...own].filter((f) => !withOperator.has(f));
    for (const dep of ['gloo', 'gateway-proxy'])
      expect(gone, dep).toContainEqual(
        expect.stringMatching(new RegExp(`/gloo-system/${dep} deployment-replicas `)),
      );
    // The partial bodies alone look like broken Deployments to a linter: why the merged output exists.
    expect([...patchesAlone].some((f) => /No containers defined|selector labels not matching/.test(f))).toBe(
      true,
    );
  }, 300_000);
});
