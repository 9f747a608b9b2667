// Every shell command the README shows, as written. Each ```sh block is listed below by its exact
// text: the ones that run offline run here through `bash -c` in the checkout (npx glooha included);
// the ones that need a cluster, root or the network name the test or CI step that runs them. A block
// that changes, or a new one, fails this test until the list says how it is checked.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { upgradeCommand } from '../../../src/core/helm-values-yaml.js';
import { GLOO_HELM_CHART } from '../../../src/products/gloo/helm-values.js';
import { validateKgatewayHA } from '../../../src/products/kgateway/validate.js';
import { shellBlocks } from '../../support/readme.js';

const exec = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..', '..');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

type Check =
  | { run: 'offline'; expect: (stdout: string) => void }
  | { run: 'elsewhere'; by: string }
  | { run: 'not here'; why: string };

const HELM_UPGRADE = `kubectl -n gloo-system get configmap gloo-helm-values -o go-template='{{index .data \`values.yaml\`}}' > values-glooha.yaml
helm upgrade gloo gloo/gloo --version 1.22.1 -n gloo-system --reset-then-reuse-values -f values-glooha.yaml`;

const BLOCKS: Record<string, Check> = {
  [`git clone https://github.com/glooha/glooha-operator.git
cd glooha-operator
npm ci`]: {
    run: 'elsewhere',
    by: '.ci/run (npm ci in a fresh checkout); the clone needs the network and the published repository',
  },
  [`npx glooha render -f examples/glooha.yaml -o all
npx glooha migrate kgateway -f examples/glooha.yaml -o helm-values`]: {
    run: 'offline',
    expect: (stdout) => {
      const docs = parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, unknown> | null);
      // render -o all: 11 objects and the Helm values; then migrate's values for kgateway's chart.
      expect(docs.filter((d) => d?.kind === 'PodDisruptionBudget').length).toBeGreaterThan(0);
      expect(docs.at(-1)).toHaveProperty('controller.replicaCount', 3);
    },
  },
  'npm run demo': { run: 'elsewhere', by: '.ci/run, its demo step (needs the test control plane)' },
  [`sudo bash scripts/image/build.sh     # prints the image: localhost/glooha-operator:0.1.0-ci
sudo buildah push localhost/glooha-operator:0.1.0-ci docker://registry.example.com/glooha/glooha-operator:0.1.0`]:
    {
      run: 'not here',
      why: 'root and buildah: npm run check:image (CI) runs scripts/image/build.sh; the push needs your registry',
    },
  [`helm install glooha-operator charts/glooha-operator -n glooha-system --create-namespace \\
  --set image.repository=registry.example.com/glooha/glooha-operator --set image.tag=0.1.0
helm test glooha-operator -n glooha-system`]: {
    run: 'elsewhere',
    by: 'test/integration/chart.test.ts (the chart installed and its helm test pod); npm run check:image (helm test in the built image)',
  },
  [`kubectl apply --server-side -f deploy/install.yaml
kubectl -n glooha-system set image deployment/glooha-operator operator=registry.example.com/glooha/glooha-operator:0.1.0
kubectl -n glooha-system rollout status deployment/glooha-operator`]: {
    run: 'elsewhere',
    by: 'test/integration/chart.test.ts "deploy/install.yaml server-side applies"; the Deployment and container names are checked below',
  },
  'npx glooha check': {
    run: 'elsewhere',
    by: 'test/integration/cli.test.ts "check passes for a healthy install"',
  },
  [`kubectl apply -f examples/glooha.yaml
kubectl -n gloo-system wait glooha/gloo --for=condition=Ready --timeout=5m`]: {
    run: 'elsewhere',
    by: 'test/integration/gloo-chart-rollout.test.ts "the README commands work as written" (bash -c, on Gloo\'s real chart in gloo-system)',
  },
  [`kubectl apply -f examples/kgatewayha.yaml
kubectl -n kgateway-system wait kgatewayha/kgateway --for=condition=Ready --timeout=5m`]: {
    run: 'elsewhere',
    by: 'the example validates below; test/integration/kgateway-ha.test.ts reconciles KgatewayHAs to Ready',
  },
  'npx glooha status -A': {
    run: 'elsewhere',
    by: 'test/integration/cli.test.ts "the README\'s cluster commands, as written" (bash -c against the test control plane)',
  },
  [HELM_UPGRADE]: {
    run: 'elsewhere',
    by: "test/integration/helm-coexistence.test.ts (the values path, Helm 4 and 3); the command is the ConfigMap header's, checked below",
  },
};

describe('README commands', () => {
  const blocks = shellBlocks(readme);

  it('every shell block is listed with how it is checked (a changed command fails here)', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks)
      expect(Object.keys(BLOCKS), `README block not listed:\n${block}`).toContain(block);
    for (const listed of Object.keys(BLOCKS))
      expect(blocks, `listed but not in the README:\n${listed}`).toContain(listed);
  });

  it.each(Object.entries(BLOCKS).filter(([, c]) => c.run === 'offline'))(
    'runs offline as written: %s',
    { timeout: 180_000 },
    async (block, check) => {
      const { stdout } = await exec('bash', ['-c', `set -euo pipefail\n${block}`], {
        cwd: repoRoot,
        env: { ...process.env, npm_config_update_notifier: 'false' },
        maxBuffer: 16 << 20,
      });
      (check as Extract<Check, { run: 'offline' }>).expect(stdout);
    },
  );

  it('the Helm upgrade is the one the ConfigMap header gives, for the example GlooHA', () => {
    // The command the ConfigMap header and the replicas-floor message print, for the example GlooHA,
    // written on two lines instead of joined by &&.
    const expected = upgradeCommand({
      chart: GLOO_HELM_CHART,
      chartVersion: '1.22.1',
      valuesFile: 'values-glooha.yaml',
      release: 'gloo',
      namespace: 'gloo-system',
      configMap: { namespace: 'gloo-system', name: 'gloo-helm-values' },
    });
    // The header leaves the chart overridable (${GLOO_CHART:-gloo/gloo}); the README names its default.
    expect(HELM_UPGRADE.split('\n').join(' && ')).toBe(expected.replace(/\$\{GLOO_CHART:-([^}]+)\}/, '$1'));
  });

  it('the install commands name what deploy/install.yaml holds, and the KgatewayHA example is valid', () => {
    const objects = parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'install.yaml'), 'utf8')).map(
      (d) => d.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string }; spec?: any }, // eslint-disable-line @typescript-eslint/no-explicit-any
    );
    const deploy = objects.find((o) => o?.kind === 'Deployment');
    expect(deploy?.metadata).toMatchObject({ name: 'glooha-operator', namespace: 'glooha-system' });
    expect(deploy?.spec.template.spec.containers[0].name).toBe('operator');
    expect(readme).toContain(
      `ghcr.io/glooha/glooha-operator:${JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version}`,
    );
    const example = parse(readFileSync(join(repoRoot, 'examples', 'kgatewayha.yaml'), 'utf8')) as unknown;
    const result = validateKgatewayHA(example);
    expect(result.ok, JSON.stringify(!result.ok && result.errors)).toBe(true);
  });

  it('is for users: at most ~200 lines, in the order a user reads', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const headings = [...readme.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'Requirements',
      'Try it without a cluster',
      'Install',
      'Your first GlooHA or KgatewayHA',
      'Is it healthy?',
      'Upgrading Gloo or kgateway with Helm',
      'More',
    ]);
  });
});
