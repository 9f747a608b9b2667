// `npm run testenv` as a person uses it: it prints KUBECONFIG=<path> once the API server is ready,
// serves kubectl and client-node, and on SIGTERM stops every process and removes its data.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateBinaries } from '../env/binaries.js';
import { eventually } from '../support/wait.js';

const repoRoot = join(import.meta.dirname, '..', '..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run testenv', () => {
  it('prints KUBECONFIG, serves kubectl and client-node, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/env/cli.ts')], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    try {
      const kubeconfig = await eventually(
        'the KUBECONFIG= line',
        async () => /^KUBECONFIG=(.+)$/m.exec(stdout)?.[1],
        (p) => !!p,
        { timeoutMs: 120_000 },
      );
      const dir = dirname(kubeconfig!);
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig!);
      const nodes = await kc.makeApiClient(CoreV1Api).listNode();
      expect(nodes.items.length).toBe(3);
      const kubectl = locateBinaries().path('kubectl');
      expect(
        execFileSync(kubectl, ['--kubeconfig', kubeconfig!, 'get', 'nodes', '-o', 'name'], {
          encoding: 'utf8',
        }),
      ).toContain('node/kwok-node-0');
      const pids = readFileSync(join(dir, 'children.pid'), 'utf8').split('\n').map(Number).filter(Boolean);
      expect(pids.length).toBe(5); // etcd, kube-apiserver, controller-manager, scheduler, kwok

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
      expect(stderr).toContain('stopped; temp data removed');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
