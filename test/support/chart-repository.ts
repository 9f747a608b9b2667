// A Helm chart repository on 127.0.0.1 serving the given packaged charts (index.yaml by `helm repo
// index`), so a test installs and upgrades a product's chart the way users do: by name and --version
// from a repository that offers several versions, where Helm takes the newest unless told otherwise.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { helm } from './gloo-chart.js';

export async function serveChartRepository(
  charts: readonly string[],
): Promise<{ url: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-chart-repo-'));
  for (const c of charts) copyFileSync(c, join(dir, basename(c)));
  const files = new Map(charts.map((c) => [`/${basename(c)}`, join(dir, basename(c))]));
  const server = createServer((req, res) => {
    const path =
      files.get(req.url ?? '') ?? (req.url === '/index.yaml' ? join(dir, 'index.yaml') : undefined);
    if (!path) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200).end(readFileSync(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const indexed = await helm(4, ['repo', 'index', dir, '--url', url]);
  if (!indexed.ok) throw new Error(`helm repo index ${dir} failed: ${indexed.stderr}`);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
