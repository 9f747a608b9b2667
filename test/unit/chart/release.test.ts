// What ships besides the code: one version everywhere (scripts/check-versions.ts), the chart pieces the
// linters and `helm test` rely on (ephemeral storage, the optional NetworkPolicy, the test pod), the
// kube-score configuration, and the container flags check:image derives from the chart's pod spec.
import type { V1Deployment, V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkVersions } from '../../../scripts/check-versions.js';
import { podmanRunArgs } from '../../../scripts/image/containers.js';
import {
  kubeScoreBinary,
  lintManifests,
  loadConfig,
  renderVariant,
} from '../../../scripts/lint-manifests.js';
import { installManifestPath, repoRoot } from '../../../scripts/sync-chart.js';
import { find, helm, helmBuildTimeoutMs, parseManifests, render } from './helm.js';

beforeAll(() => {
  helm();
}, helmBuildTimeoutMs);

describe('versions come from package.json', () => {
  const scratches: string[] = [];
  afterEach(() => scratches.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  /** A copy of the files checkVersions reads, with one of them edited. */
  function copyWith(file: string, edit: (text: string) => string): string {
    const dir = mkdtempSync(join(tmpdir(), 'glooha-versions-'));
    scratches.push(dir);
    for (const f of [
      'package.json',
      'CHANGELOG.md',
      'deploy/install.yaml',
      'charts/glooha-operator/Chart.yaml',
      'charts/glooha-operator/values.yaml',
    ])
      cpSync(join(repoRoot, f), join(dir, f));
    writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
    return dir;
  }

  it('agree in this checkout: Chart.yaml, the install.yaml image, CHANGELOG.md', () => {
    const { problems, version, image } = checkVersions();
    expect(problems).toEqual([]);
    expect(image).toBe(`ghcr.io/glooha/glooha-operator:${version}`);
    expect(checkVersions(repoRoot, `v${version}`).problems).toEqual([]);
  });

  it('fail on a release tag that is not v<package.json version>', () => {
    expect(checkVersions(repoRoot, 'v9.9.9').problems).toEqual([
      expect.stringMatching(/the tag v9\.9\.9 ≠ v\d+\.\d+\.\d+ \(package\.json\)/),
    ]);
  });

  it('fail when Chart.yaml, install.yaml, values.yaml or CHANGELOG.md drift', () => {
    const drifted = (file: string, from: RegExp, to: string) =>
      checkVersions(copyWith(file, (t) => t.replace(from, to))).problems;
    expect(drifted('charts/glooha-operator/Chart.yaml', /^appVersion: .*$/m, "appVersion: '9.9.9'")).toEqual([
      expect.stringMatching(/Chart\.yaml appVersion 9\.9\.9 ≠ package\.json/),
    ]);
    expect(drifted('deploy/install.yaml', /glooha-operator:\d+\.\d+\.\d+/, 'glooha-operator:9.9.9')).toEqual([
      expect.stringMatching(/deploy\/install\.yaml runs ghcr\.io\/glooha\/glooha-operator:9\.9\.9/),
    ]);
    expect(drifted('charts/glooha-operator/values.yaml', /^ {2}tag: ''$/m, "  tag: '9.9.9'")).toEqual([
      expect.stringMatching(/image\.tag and image\.digest must stay empty/),
    ]);
    expect(drifted('CHANGELOG.md', /^## \[\d+\.\d+\.\d+\]/m, '## [9.9.9]')).toEqual([
      expect.stringMatching(/CHANGELOG\.md has no "## \[\d+\.\d+\.\d+\]" section/),
    ]);
  });
});

describe('chart pieces the linters and helm test rely on', () => {
  it('requests and limits ephemeral storage, and sets no CPU limit (lint/kube-score.yaml says why)', async () => {
    const deploy = find<V1Deployment>(await render(), 'Deployment');
    const resources = deploy.spec!.template.spec!.containers[0]!.resources!;
    expect(resources.requests).toEqual({ cpu: '50m', memory: '160Mi', 'ephemeral-storage': '64Mi' });
    expect(resources.limits).toEqual({ memory: '384Mi', 'ephemeral-storage': '128Mi' });
  });

  it('renders the NetworkPolicy only when enabled: metrics ingress, API-server egress, nothing else', async () => {
    expect((await render()).some((o) => o.kind === 'NetworkPolicy')).toBe(false);
    const objects = await render({
      values: {
        networkPolicy: {
          enabled: true,
          apiServer: { cidrs: ['10.0.0.1/32'], ports: [6443] },
          metrics: { from: [{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }] },
        },
      },
    });
    const policy = find<V1NetworkPolicy>(objects, 'NetworkPolicy');
    const deploy = find<V1Deployment>(objects, 'Deployment');
    expect(policy.spec!.podSelector!.matchLabels).toEqual(deploy.spec!.selector.matchLabels);
    expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec!.ingress).toEqual([
      {
        ports: [{ port: 'metrics', protocol: 'TCP' }],
        from: [{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }],
      },
    ]);
    expect(policy.spec!.egress).toEqual([
      { to: [{ ipBlock: { cidr: '10.0.0.1/32' } }], ports: [{ port: 6443, protocol: 'TCP' }] },
    ]);
  });

  it('has a helm test pod: the operator image, its ServiceAccount, the restricted security context', async () => {
    const objects = await render({ includeTests: true });
    const test = find<V1Pod>(objects, 'Pod', 'glooha-operator-test');
    const deploy = find<V1Deployment>(objects, 'Deployment');
    const operator = deploy.spec!.template.spec!.containers[0]!;
    const c = test.spec!.containers[0]!;
    expect(test.metadata?.annotations?.['helm.sh/hook']).toBe('test');
    expect(test.spec!.restartPolicy).toBe('Never');
    expect(test.spec!.serviceAccountName).toBe(deploy.spec!.template.spec!.serviceAccountName);
    expect(c.image).toBe(operator.image);
    expect(c.securityContext).toEqual(operator.securityContext);
    expect(c.command?.slice(0, 2)).toEqual(['node', '-e']);
    expect(Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]))).toEqual({
      OPERATOR_URL: 'http://glooha-operator-metrics.glooha-system.svc:8080',
      LEASE_NAME: 'glooha-operator',
      LEASE_NAMESPACE: 'glooha-system',
      LEASE_HOLDER_PREFIX: 'glooha-operator-',
    });
    // Without leader election it checks /readyz only; without the metrics Service there is no test.
    const single = await render({
      includeTests: true,
      values: { replicaCount: 1, leaderElection: { enabled: false } },
    });
    const env = find<V1Pod>(single, 'Pod').spec!.containers[0]!.env ?? [];
    expect(env.find((e) => e.name === 'LEASE_NAME')?.value).toBe('');
    const noService = await render({
      includeTests: true,
      values: { metrics: { service: { enabled: false } } },
    });
    expect(noService.some((o) => o.kind === 'Pod')).toBe(false);
  });

  it('keeps the test pod out of deploy/install.yaml (kubectl would run it once, as a plain pod)', () => {
    const objects = parseManifests(readFileSync(installManifestPath, 'utf8'));
    expect(objects.some((o) => o.kind === 'Pod')).toBe(false);
  });
});

describe('lint/kube-score.yaml', () => {
  const config = loadConfig();
  const targets = ['install.yaml', ...Object.keys(config.variants)];

  it('gives every deliberate finding a reason and only known targets', () => {
    for (const d of config.deliberate) {
      expect(d.reason.length, d.check).toBeGreaterThan(40);
      expect(targets, d.check).toEqual(expect.arrayContaining(d.targets));
    }
  });

  it('lists value sets the chart accepts (each renders a Deployment)', async () => {
    for (const [name, values] of Object.entries(config.variants)) {
      const objects = parseManifests(await renderVariant(values));
      expect(
        objects.filter((o) => o.kind === 'Deployment'),
        name,
      ).toHaveLength(1);
    }
  });
});

describe('lint:manifests (the real kube-score)', () => {
  let kubeScore: string;
  beforeAll(() => {
    kubeScore = kubeScoreBinary(); // tools/build-tools.sh: built on a cold cache, instant afterwards
  }, helmBuildTimeoutMs);

  it('passes with lint/kube-score.yaml as committed', async () => {
    const { unexpected, stale, findings } = await lintManifests(kubeScore);
    expect({ unexpected, stale }).toEqual({ unexpected: [], stale: [] });
    expect(findings.length).toBeGreaterThan(0);
  }, 60_000);

  it('fails on a finding not recorded as deliberate, and on a deliberate entry that matches nothing', async () => {
    const config = loadConfig();
    const withoutPullPolicy = {
      ...config,
      deliberate: config.deliberate.filter((d) => d.check !== 'container-image-pull-policy'),
    };
    const { unexpected } = await lintManifests(kubeScore, withoutPullPolicy);
    expect(new Set(unexpected.map((f) => `${f.target} ${f.check}`))).toEqual(
      new Set(
        ['install.yaml', ...Object.keys(config.variants)].map((t) => `${t} container-image-pull-policy`),
      ),
    );
    const withBogus = {
      ...config,
      deliberate: [...config.deliberate, { check: 'deployment-replicas', targets: ['default'], reason: 'x' }],
    };
    expect((await lintManifests(kubeScore, withBogus)).stale.map((d) => d.check)).toEqual([
      'deployment-replicas',
    ]);
  }, 60_000);
});

describe('check:image runs the chart pod spec as container flags', () => {
  it('maps the security context, the /tmp emptyDir, the memory limit, the token mount and the env', async () => {
    const deploy = find<V1Deployment>(await render(), 'Deployment');
    const pod = deploy.spec!.template.spec!;
    const { options, argv } = podmanRunArgs(pod, pod.containers[0]!, {
      podName: 'glooha-operator-abc',
      namespace: 'ns1',
      serviceAccountDir: '/tmp/sa',
      env: { KUBERNETES_SERVICE_HOST: '127.0.0.1' },
    });
    expect(options).toEqual(
      expect.arrayContaining([
        '--network=host',
        '--user=65532:65532',
        '--read-only',
        '--read-only-tmpfs=false',
        '--cap-drop=ALL',
        '--security-opt=no-new-privileges',
        '--tmpfs=/tmp:rw,mode=1777,size=16m',
        '--memory=384m',
        '--volume=/tmp/sa:/var/run/secrets/kubernetes.io/serviceaccount:ro',
        '--env=POD_NAME=glooha-operator-abc',
        '--env=POD_NAMESPACE=ns1',
        '--env=LEADER_ELECT=true',
        '--env=KUBERNETES_SERVICE_HOST=127.0.0.1',
      ]),
    );
    expect(options.some((o) => o.startsWith('--entrypoint'))).toBe(false);
    expect(argv).toEqual([]);
  });

  it("replaces the image's entry point with a pod's command, as Kubernetes does", async () => {
    const test = find<V1Pod>(await render({ includeTests: true }), 'Pod');
    const { options, argv } = podmanRunArgs(test.spec!, test.spec!.containers[0]!, {
      podName: 't',
      namespace: 'ns1',
      env: {},
    });
    expect(options).toContain('--entrypoint=["node"]');
    expect(argv[0]).toBe('-e');
    expect(options.some((o) => o.startsWith('--volume'))).toBe(false);
  });
});
