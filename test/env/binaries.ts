// Finds the tests' binaries: envtest conventions first (TEST_ASSET_<NAME>, then $KUBEBUILDER_ASSETS/
// <name>), so people with setup-envtest reuse theirs; otherwise the per-machine caches that the build
// scripts of test/env fill from the pinned Go wrapper modules (built on first use), each building only
// its own: build-helm.sh Helm 4, Helm 3 and Gloo's chart; build-testbin.sh the control plane;
// build-kgateway.sh kgateway's charts (and controller); build-gloo.sh Gloo's controller.
//
// Each test lane (vitest.config.ts sets GLOOHA_LANE per project) may use only what it is for, so a test
// in the wrong lane fails at once, naming the lane it belongs in, instead of making the unit lane build
// Kubernetes on a fresh machine: see laneMayUse.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BinaryName =
  | 'kube-apiserver'
  | 'etcd'
  | 'kube-controller-manager'
  | 'kube-scheduler'
  | 'kwok'
  | 'kubectl'
  | 'helm'
  | 'helm3';

/**
 * Where each binary sits in the build cache. Helm 3 lives in a directory of its own under the name
 * `helm`: Helm names its field manager after its file name, so both majors write as "helm".
 */
const cachePath: Record<BinaryName, string> = {
  'kube-apiserver': 'kube-apiserver',
  etcd: 'etcd',
  'kube-controller-manager': 'kube-controller-manager',
  'kube-scheduler': 'kube-scheduler',
  kwok: 'kwok',
  kubectl: 'kubectl',
  helm: 'helm',
  helm3: join('helm3', 'helm'),
};

/** Gloo's Helm chart version that build-helm.sh packages (from test/env/tools/gloo/go.mod). */
export function glooChartVersion(): string {
  const goMod = readFileSync(join(here, 'tools', 'gloo', 'go.mod'), 'utf8');
  const v = /^require github\.com\/solo-io\/gloo v([0-9.]+)$/m.exec(goMod)?.[1];
  if (!v) throw new Error('cannot read the Gloo version from test/env/tools/gloo/go.mod');
  return v;
}

export interface Binaries {
  path(name: BinaryName): string;
  /** Directory holding kwok's stage definitions (pod-ready, node-initialize, ...). */
  kwokStagesDir: string;
  /** Gloo's chart, packaged from its Go module by build-helm.sh ($GLOO_CHART overrides). */
  glooChart: string;
  /** Where the binaries came from, for log lines. */
  source: string;
}

const here = dirname(fileURLToPath(import.meta.url));
export const buildScript = join(here, 'build-testbin.sh');
const helmScript = join(here, 'build-helm.sh');

/** What the tests use, by the build that makes it; the lanes of vitest.config.ts are named after them. */
export type Need = 'helm' | 'go tool' | 'control plane' | 'product controller';

/** The lanes (GLOOHA_LANE) and what each may use; outside a lane (scripts, a shell) everything is allowed. */
export const LANE_NEEDS: Readonly<Record<string, readonly Need[]>> = {
  unit: [],
  charts: ['helm', 'go tool'],
  integration: ['helm', 'go tool', 'control plane'],
  products: ['helm', 'go tool', 'control plane', 'product controller'],
};

const LANE_FOR: Record<Need, string> = {
  helm: "charts (Helm and the products' charts)",
  'go tool': "charts (Helm, the products' charts, the linters of tools/)",
  'control plane': 'integration (the test control plane)',
  'product controller': "products (the products' real controllers)",
};

/**
 * Throws, naming the lane the test belongs in, when the current lane (GLOOHA_LANE) is not for `need`:
 * a unit test that reaches for helm would otherwise pass on a warm machine and build Go on a cold one.
 */
export function laneMayUse(need: Need): void {
  const lane = process.env.GLOOHA_LANE;
  if (lane === undefined || lane === '') return;
  const allowed = LANE_NEEDS[lane];
  if (!allowed)
    throw new Error(`GLOOHA_LANE=${lane} is no lane (lanes: ${Object.keys(LANE_NEEDS).join(', ')})`);
  if (!allowed.includes(need))
    throw new Error(
      `this test needs the ${need}, which the ${lane} lane does not build: it belongs in the ${LANE_FOR[need]} lane ` +
        '(its project in vitest.config.ts)',
    );
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    // A directory passes X_OK too: KUBEBUILDER_ASSETS pointed at this cache holds helm3/ (a directory
    // with helm in it), which was spawned as Helm 3 and failed with EACCES.
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Runs a build script of test/env (a no-op when cached) and returns the directory it printed. Each
 * script builds under a lock of its own, so runs started side by side on a cold machine build once.
 */
function runCachedBuild(script: string): string {
  // Once per process: each call runs the script (and its "cached in" line) again, and one demo or test
  // run looks binaries up many times.
  const known = builtDirs.get(script);
  if (known && existsSync(known)) return known;
  const out = execFileSync('bash', [script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const dir = out.trim().split('\n').pop() ?? '';
  if (!dir || !existsSync(dir))
    throw new Error(`${script} printed no output directory (got ${JSON.stringify(out)})`);
  builtDirs.set(script, dir);
  return dir;
}

const builtDirs = new Map<string, string>();

/** The control plane's binaries (build-testbin.sh): their directory. */
export function buildOrFindCachedBinaries(log: (line: string) => void = () => {}): string {
  laneMayUse('control plane');
  const started = Date.now();
  const dir = runCachedBuild(buildScript);
  log(`control plane binaries ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${dir}`);
  return dir;
}

/** Helm 4, Helm 3 and Gloo's chart (build-helm.sh): their directory. */
export function buildOrFindCachedHelm(log: (line: string) => void = () => {}): string {
  laneMayUse('helm');
  const started = Date.now();
  const dir = runCachedBuild(helmScript);
  log(`Helm and Gloo's chart ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${dir}`);
  return dir;
}

const isHelm = (name: BinaryName) => name === 'helm' || name === 'helm3';

export function locateBinaries(log: (line: string) => void = () => {}): Binaries {
  const assets = process.env.KUBEBUILDER_ASSETS;
  let cacheDir: string | undefined;
  let helmDir: string | undefined;
  const cached = () => (cacheDir ??= buildOrFindCachedBinaries(log));
  const cachedHelm = () => (helmDir ??= buildOrFindCachedHelm(log));

  const path = (name: BinaryName): string => {
    laneMayUse(isHelm(name) ? 'helm' : 'control plane');
    const envName = `TEST_ASSET_${name.toUpperCase().replace(/-/g, '_')}`;
    const explicit = process.env[envName];
    if (explicit) {
      if (!isExecutable(explicit)) throw new Error(`${envName}=${explicit} is not an executable file`);
      return explicit;
    }
    if (assets && isExecutable(join(assets, name))) return join(assets, name);
    const dir = isHelm(name) ? cachedHelm() : cached();
    const built = join(dir, cachePath[name]);
    if (!isExecutable(built))
      throw new Error(`test binary ${name} missing in ${dir}; delete that directory to rebuild`);
    return built;
  };

  // kwok's stages ship with our build; setup-envtest has no kwok, so with KUBEBUILDER_ASSETS alone
  // kwok and its stages still come from the cache.
  return {
    path,
    get kwokStagesDir() {
      return join(dirname(path('kwok')), 'kwok-stages');
    },
    get glooChart() {
      laneMayUse('helm');
      const explicit = process.env.GLOO_CHART;
      const chart = explicit || join(cachedHelm(), 'charts', `gloo-${glooChartVersion()}.tgz`);
      if (!existsSync(chart))
        throw new Error(
          `Gloo's chart ${chart} is missing${explicit ? ' (GLOO_CHART)' : `; delete ${cachedHelm()} to rebuild`}`,
        );
      return chart;
    },
    source: assets ? `KUBEBUILDER_ASSETS=${assets} (missing ones built into the cache)` : 'build cache',
  };
}

/** kgateway's charts and the Gateway API CRDs it needs, as test/env/build-kgateway.sh leaves them. */
export interface KgatewayFixtures {
  version: string;
  /** install/helm/kgateway, packaged as kgateway's release packages it. */
  chart: string;
  /** install/helm/kgateway-crds. */
  crdsChart: string;
  /** pkg/kgateway/helm/envoy: the chart kgateway's deployer renders each Gateway's proxy from. */
  proxyChart: string;
  /** Gateway API's standard-channel CRDs at the version kgateway's build selects. */
  gatewayApiCrds: string;
  /** kgateway's controller (./cmd/kgateway), with `controller: true` only. */
  controller?: string;
}

const kgatewayScript = join(here, 'build-kgateway.sh');

/** The kgateway versions the tests pin (test/env/kgateway/<version>/, one wrapper module each), newest first. */
export const KGATEWAY_VERSIONS: readonly string[] = readdirSync(join(here, 'kgateway'))
  .filter((v) => /^v\d+\.\d+\.\d+$/.test(v))
  .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));

/** The current kgateway line, which the tests use unless they name another. */
export const KGATEWAY_VERSION = KGATEWAY_VERSIONS[0] as string;

/**
 * The one pinned version whose controller is built and run (the products lane): the newest. The
 * older pins are charts only (a cold controller build is 12-18 min on 2 cores); the charts lane and
 * the chart-rendering tests cover every pinned version.
 */
export const KGATEWAY_CONTROLLER_VERSION = KGATEWAY_VERSION;

/**
 * Runs build-kgateway.sh for one pinned version (charts: seconds when cold, after Helm; a no-op when
 * cached). With `controller: true` (KGATEWAY_CONTROLLER_VERSION only) it also builds kgateway's
 * controller (~12-18 min cold on 2 cores; cached per machine). It needs Helm only, never the control plane; the script locks each version itself.
 */
export function kgatewayFixtures(
  version: string = KGATEWAY_VERSION,
  opts: { controller?: boolean } = {},
): KgatewayFixtures {
  if (!KGATEWAY_VERSIONS.includes(version))
    throw new Error(`kgateway ${version} is not pinned (pinned: ${KGATEWAY_VERSIONS.join(', ')})`);
  if (opts.controller && version !== KGATEWAY_CONTROLLER_VERSION)
    throw new Error(
      `kgateway ${version}'s controller is not built: only the newest pinned version's is (${KGATEWAY_CONTROLLER_VERSION}); ${version} is charts only`,
    );
  laneMayUse(opts.controller ? 'product controller' : 'helm');
  const out = execFileSync('bash', [kgatewayScript, ...(opts.controller ? ['--controller'] : []), version], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const dir = out.trim().split('\n').pop() ?? '';
  const crds = existsSync(dir)
    ? readdirSync(dir).find((f) => /^gateway-api-v.*-standard\.yaml$/.test(f))
    : undefined;
  if (!crds) throw new Error(`${kgatewayScript} left no Gateway API CRDs in ${JSON.stringify(dir)}`);
  const fixtures: KgatewayFixtures = {
    version,
    chart: join(dir, `kgateway-${version}.tgz`),
    crdsChart: join(dir, `kgateway-crds-${version}.tgz`),
    proxyChart: join(dir, `kgateway-proxy-${version}.tgz`),
    gatewayApiCrds: join(dir, crds),
    ...(opts.controller ? { controller: join(dir, 'kgateway') } : {}),
  };
  for (const [k, f] of Object.entries(fixtures))
    if (k !== 'version' && !existsSync(f)) throw new Error(`build-kgateway.sh left no ${f}`);
  return fixtures;
}

const glooScript = join(here, 'build-gloo.sh');

/**
 * Gloo's controller, the `gloo` binary of ./projects/gloo/cmd at the version test/env/tools/gloo/go.mod
 * pins (the chart's version), built by test/env/build-gloo.sh (~10-25 min cold on 2 cores; cached per
 * machine, a no-op then). $GLOO_CONTROLLER overrides it.
 */
export function glooController(): string {
  laneMayUse('product controller');
  const explicit = process.env.GLOO_CONTROLLER;
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`GLOO_CONTROLLER=${explicit} is not an executable file`);
    return explicit;
  }
  const out = execFileSync('bash', [glooScript], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const binary = join(out.trim().split('\n').pop() ?? '', 'gloo');
  if (!isExecutable(binary)) throw new Error(`${glooScript} left no executable ${binary}`);
  return binary;
}
