// kubectl, as users run it, against the test control plane: the binary test/env builds from the same
// Kubernetes release as the API server. It reads YAML the way users' files are read (YAML 1.1 through
// sigs.k8s.io/yaml), which no JavaScript YAML parser stands in for.
import { spawn } from 'node:child_process';
import { locateBinaries } from '../env/binaries.js';
import { controlPlane } from './cluster.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with the admin kubeconfig; resolves with its exit code (never rejects on non-zero). */
export function kubectl(args: string[], input?: string): Promise<KubectlResult> {
  const bin = locateBinaries().path('kubectl');
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--kubeconfig', controlPlane().kubeconfigPath, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** kubectl that must succeed: its stdout, or an error with its stderr. */
export async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}
