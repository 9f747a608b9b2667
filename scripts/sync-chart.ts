// Keeps the Helm chart and the kubectl install manifest generated from their single sources:
//   - crds/*.yaml (the GlooHA CRD)       → charts/glooha-operator/crds/ (byte-identical copies)
//   - package.json's version              → charts/glooha-operator/Chart.yaml appVersion (and version)
//   - `helm template` of the chart        → deploy/install.yaml (Namespace + CRD + operator, glooha-system)
//
//   npx tsx scripts/sync-chart.ts           rewrite whatever is stale
//   npx tsx scripts/sync-chart.ts --check   change nothing; exit 1 listing what is stale (CI)
//
// Helm: $HELM if set, else the pinned helm the test control plane build provides (test/env/binaries.ts,
// which honours TEST_ASSET_HELM and builds the cache on first use), so every machine renders the same bytes.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { locateBinaries } from '../test/env/binaries.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const chartDir = join(repoRoot, 'charts', 'glooha-operator');
export const installManifestPath = join(repoRoot, 'deploy', 'install.yaml');
export const installNamespace = 'glooha-system';
export const installReleaseName = 'glooha-operator';

/** The files sync-chart reads and writes, relative to a checkout (tests point it at a scratch copy). */
function layout(root: string) {
  const chart = join(root, 'charts', 'glooha-operator');
  return {
    root,
    chart,
    crdSource: join(root, 'crds'),
    chartCrds: join(chart, 'crds'),
    chartYaml: join(chart, 'Chart.yaml'),
    packageJson: join(root, 'package.json'),
    installManifest: join(root, 'deploy', 'install.yaml'),
  };
}
type Layout = ReturnType<typeof layout>;

/**
 * The Kubernetes version `helm template` renders for: the test control plane's (the version the chart
 * is proven against). Helm built from its Go module without the release ldflags otherwise assumes
 * v1.20.0, below the chart's kubeVersion; the templates do not branch on it, so it only feeds that check.
 */
export function renderKubeVersion(root = repoRoot): string {
  const goMod = readFileSync(join(root, 'test', 'env', 'tools', 'kubernetes', 'go.mod'), 'utf8');
  const version = /^require k8s\.io\/kubernetes (v[0-9.]+)$/m.exec(goMod)?.[1];
  if (!version) throw new Error('cannot read the Kubernetes version from test/env/tools/kubernetes/go.mod');
  return version;
}

export function helmBinary(): string {
  return (
    process.env.HELM || locateBinaries((line) => process.stderr.write(`sync-chart: ${line}\n`)).path('helm')
  );
}

/** What a file should contain, keyed by path; null means the file should not exist. */
type Desired = Map<string, string | null>;

function yamlFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
        .sort()
    : [];
}

function desiredCrdCopies(l: Layout): Desired {
  const want: Desired = new Map();
  for (const f of yamlFiles(l.chartCrds)) want.set(join(l.chartCrds, f), null);
  for (const f of yamlFiles(l.crdSource))
    want.set(join(l.chartCrds, f), readFileSync(join(l.crdSource, f), 'utf8'));
  return want;
}

/** Chart.yaml with appVersion and version equal to package.json's version (comments kept). */
function desiredChartYaml(l: Layout): string {
  const version = (JSON.parse(readFileSync(l.packageJson, 'utf8')) as { version: string }).version;
  const text = readFileSync(l.chartYaml, 'utf8');
  const doc = parseDocument(text);
  if (doc.get('appVersion') === version && doc.get('version') === version) return text;
  doc.set('version', version);
  doc.set('appVersion', version);
  return doc.toString({ singleQuote: true, lineWidth: 0 });
}

const namespaceManifest = `apiVersion: v1
kind: Namespace
metadata:
  name: ${installNamespace}
  labels:
    app.kubernetes.io/name: glooha-operator
    app.kubernetes.io/part-of: glooha
    # The operator's pods meet the "restricted" Pod Security Standard; enforce it.
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: latest
`;

/** `helm template` of a chart directory; the chart's crds/ must already be in place. */
export function renderInstallManifest(helm: string, chart = chartDir): string {
  const rendered = execFileSync(
    helm,
    [
      'template',
      installReleaseName,
      chart,
      '--namespace',
      installNamespace,
      '--include-crds',
      // The chart's `helm test` pod is for `helm test`, not for a kubectl install.
      '--skip-tests',
      '--kube-version',
      renderKubeVersion(),
    ],
    { encoding: 'utf8', maxBuffer: 32 << 20, env: { ...process.env, HELM_NAMESPACE: installNamespace } },
  );
  const header = [
    '# glooha-operator install manifest: `kubectl apply --server-side -f deploy/install.yaml`.',
    '# GENERATED by `npm run sync:chart` from charts/glooha-operator (default values, namespace',
    `# ${installNamespace}) and crds/ — edit those, not this file; CI fails when it is stale.`,
  ].join('\n');
  return `${header}\n---\n${namespaceManifest}${rendered.startsWith('---') ? '' : '---\n'}${rendered}`;
}

function differs(path: string, want: string | null): boolean {
  const have = existsSync(path) ? readFileSync(path, 'utf8') : null;
  return have !== want;
}

function apply(path: string, want: string | null): void {
  if (want === null) rmSync(path, { force: true });
  else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, want);
  }
}

export interface SyncResult {
  stale: string[];
}

/**
 * Brings (or, with check, compares) the generated files up to date. The install manifest is rendered
 * from the chart as it will be after the CRD and Chart.yaml updates, so one run is always enough.
 */
export function syncChart({
  check,
  helm = helmBinary(),
  root = repoRoot,
}: {
  check: boolean;
  helm?: string;
  root?: string;
}): SyncResult {
  const l = layout(root);
  if (yamlFiles(l.crdSource).length === 0) throw new Error(`no CRD manifest in ${l.crdSource}`);
  const stale: string[] = [];
  const staged: Desired = new Map([...desiredCrdCopies(l), [l.chartYaml, desiredChartYaml(l)]]);
  for (const [path, want] of staged) if (differs(path, want)) stale.push(path);

  // In check mode render from a scratch copy of the chart with the desired inputs, so a stale CRD copy
  // is reported once (as itself) and the manifest comparison is still meaningful.
  let chart = l.chart;
  let scratch: string | undefined;
  if (check && stale.length > 0) {
    scratch = mkdtempSync(join(tmpdir(), 'glooha-sync-chart-'));
    chart = join(scratch, 'glooha-operator');
    cpSync(l.chart, chart, { recursive: true });
    for (const [path, want] of staged) apply(join(chart, path.slice(l.chart.length)), want);
  } else if (!check) {
    for (const [path, want] of staged) if (differs(path, want)) apply(path, want);
  }
  try {
    const manifest = renderInstallManifest(helm, chart);
    if (differs(l.installManifest, manifest)) {
      stale.push(l.installManifest);
      if (!check) apply(l.installManifest, manifest);
    }
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
  return { stale: stale.map((p) => relative(root, p)) };
}

function main(): void {
  const check = process.argv.includes('--check');
  const unknown = process.argv.slice(2).filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`usage: tsx scripts/sync-chart.ts [--check]   (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  if (yamlFiles(join(repoRoot, 'crds')).length === 0) {
    console.error('sync-chart: crds/ holds no CRD manifest (expected crds/glooha.io_gloohas.yaml)');
    process.exit(1);
  }
  const { stale } = syncChart({ check });
  if (check) {
    if (stale.length > 0) {
      console.error(
        `sync-chart: stale, regenerate with \`npm run sync:chart\` and commit:\n${stale.map((s) => `  ${s}`).join('\n')}`,
      );
      process.exit(1);
    }
    console.log('sync-chart: chart CRDs, Chart.yaml appVersion and deploy/install.yaml are up to date');
  } else {
    console.log(
      stale.length > 0 ? `sync-chart: updated ${stale.join(', ')}` : 'sync-chart: already up to date',
    );
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
