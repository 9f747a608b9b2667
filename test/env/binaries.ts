// Finds the test control plane's binaries: envtest conventions first (TEST_ASSET_<NAME>, then
// $KUBEBUILDER_ASSETS/<name>), so people with setup-envtest reuse theirs; otherwise the per-machine
// cache that test/env/build-testbin.sh fills from the pinned Go wrapper modules (built on first use).
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type BinaryName =
  'kube-apiserver' | 'etcd' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok' | 'kubectl' | 'helm';

export interface Binaries {
  path(name: BinaryName): string;
  /** Directory holding kwok's stage definitions (pod-ready, node-initialize, ...). */
  kwokStagesDir: string;
  /** Where the binaries came from, for log lines. */
  source: string;
}

const here = dirname(fileURLToPath(import.meta.url));
export const buildScript = join(here, 'build-testbin.sh');

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs the build script (a no-op when cached) and returns the directory it printed. */
export function buildOrFindCachedBinaries(log: (line: string) => void = () => {}): string {
  const started = Date.now();
  const out = execFileSync('bash', [buildScript], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const dir = out.trim().split('\n').pop() ?? '';
  if (!dir || !existsSync(dir))
    throw new Error(`build-testbin.sh printed no binary directory (got ${JSON.stringify(out)})`);
  log(`test binaries ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${dir}`);
  return dir;
}

export function locateBinaries(log: (line: string) => void = () => {}): Binaries {
  const assets = process.env.KUBEBUILDER_ASSETS;
  let cacheDir: string | undefined;
  const cached = () => (cacheDir ??= buildOrFindCachedBinaries(log));

  const path = (name: BinaryName): string => {
    const envName = `TEST_ASSET_${name.toUpperCase().replace(/-/g, '_')}`;
    const explicit = process.env[envName];
    if (explicit) {
      if (!isExecutable(explicit)) throw new Error(`${envName}=${explicit} is not an executable file`);
      return explicit;
    }
    if (assets && isExecutable(join(assets, name))) return join(assets, name);
    const built = join(cached(), name);
    if (!isExecutable(built))
      throw new Error(`test binary ${name} missing in ${cached()}; delete that directory to rebuild`);
    return built;
  };

  // kwok's stages ship with our build; setup-envtest has no kwok, so with KUBEBUILDER_ASSETS alone
  // kwok and its stages still come from the cache.
  return {
    path,
    get kwokStagesDir() {
      return join(dirname(path('kwok')), 'kwok-stages');
    },
    source: assets ? `KUBEBUILDER_ASSETS=${assets} (missing ones built into the cache)` : 'build cache',
  };
}
