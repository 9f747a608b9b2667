// Runs a command line the operator or the docs print, exactly as printed, through a real shell
// (`bash -c`), as a user would paste it: kubectl and helm (the major asked for) on PATH, the test
// cluster's kubeconfig (whose context namespace is `default`, not the install's), Gloo's chart as
// GLOO_CHART (printed commands name `${GLOO_CHART:-gloo/gloo}`), in a fresh working directory.
import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateBinaries } from '../env/binaries.js';
import { controlPlane } from './cluster.js';
import { glooChart, helmBinary, type HelmMajor } from './gloo-chart.js';

export interface ShellRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The working directory's files after the run, by name (e.g. values-glooha.yaml). */
  files: Record<string, string>;
}

export async function runAsPrinted(
  command: string,
  opts: {
    helm: HelmMajor;
    files?: Record<string, string>;
    /** Further environment, as a user's shell has it (KGATEWAY_CHART=<their chart reference>). */
    env?: Record<string, string>;
    /** A command run first, in the same shell environment (a user's `helm repo add`); it must succeed. */
    setup?: string;
  },
): Promise<ShellRun> {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-printed-'));
  const bin = join(dir, '.bin');
  const home = join(dir, '.home');
  mkdirSync(bin, { recursive: true });
  mkdirSync(home, { recursive: true });
  symlinkSync(locateBinaries().path('kubectl'), join(bin, 'kubectl'));
  symlinkSync(helmBinary(opts.helm), join(bin, 'helm'));
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), text);
  const env = {
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    KUBECONFIG: controlPlane().kubeconfigPath,
    GLOO_CHART: glooChart(),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    ...opts.env,
  };
  const bash = (line: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', line], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  try {
    if (opts.setup) {
      const setup = await bash(opts.setup);
      if (setup.code !== 0) throw new Error(`setup ${opts.setup} failed (${setup.code}): ${setup.stderr}`);
    }
    const result = await bash(command);
    const files = Object.fromEntries(
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => [e.name, readFileSync(join(dir, e.name), 'utf8')]),
    );
    return { ...result, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The command a refusal or header prints: from `kubectl -n` up to the end of `-f values-<kind>.yaml`
 * (values-glooha.yaml, values-kgatewayha.yaml).
 */
export function printedValuesPathCommand(text: string): string {
  const m = /kubectl -n \S+ get configmap .*?-f values-[a-z0-9]+\.yaml/s.exec(text);
  if (!m) throw new Error(`no values-path command in: ${text.slice(0, 2000)}`);
  return m[0];
}
