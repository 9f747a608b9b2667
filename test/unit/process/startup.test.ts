// The operator process at start-up, against an API server it cannot reach (a real refused TCP
// connection, no mock): it retries API discovery inside the start-up window instead of exiting 1 on
// the first failure, and a SIGTERM while it waits is a clean stop (exit 0), as at any other time.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function kubeconfig(server: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-startup-'));
  dirs.push(dir);
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'x' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return path;
}

describe('operator start-up', () => {
  it('retries API discovery while the API server is unreachable, and exits 0 on SIGTERM meanwhile', async () => {
    const port = await closedPort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', '--metrics-bind-address', '127.0.0.1:0'],
      {
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig(`https://127.0.0.1:${port}`),
          POD_NAMESPACE: 'glooha-system',
          POD_NAME: 'glooha-operator-0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const retrying = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if ((output.match(/API discovery failed; retrying/g) ?? []).length >= 2) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) =>
        reject(new Error(`the operator exited (${code}) before retrying discovery twice:\n${output}`)),
      );
    });
    try {
      await retrying;
      child.kill('SIGTERM');
      const timeout = new Promise<string>((resolve) =>
        setTimeout(() => resolve('no exit within 12 s of SIGTERM'), 12_000).unref(),
      );
      expect(await Promise.race([exited, timeout]), output).toBe(0);
      expect(output).not.toContain('"level":"error"');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
