// `glooha render --merge-into` on real chart renders: `helm template … --include-crds` of Gloo's chart
// (2.76 MB, 73 documents, 125,000 YAML nodes; refused before with "more than 16000 YAML nodes") and of
// kgateway's charts with the Gateway API CRDs it needs, read in full within render's stated bound
// (test/unit/api/kube-yaml-bounds.test.ts: peak memory < 64 MiB above the process's own, a few
// seconds of CPU). No control plane: helm renders offline, and render runs in a child process so that
// its peak resident memory can be read (test/support/yaml-cost.ts, through yaml-cost-process.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { kgatewayFixtures } from '../env/binaries.js';
import { glooChart, helmBinary } from '../support/gloo-chart.js';
import { measureYamlCost, type YamlCost } from '../support/yaml-cost-process.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'glooha-render-charts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function template(release: string, chart: string, namespace: string): Promise<string> {
  const { stdout } = await run(
    helmBinary(4),
    ['template', release, chart, '-n', namespace, '--include-crds'],
    { maxBuffer: 64 * MiB, timeout: 120_000 },
  );
  return stdout;
}

async function renderCost(manifests: string): Promise<YamlCost> {
  const path = join(dir, `manifests-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, manifests);
  return measureYamlCost(`file:${path}`);
}

/** Rendered with --merge-into within the bound: exit 0, no YAML problem, every document printed again. */
async function expectReadInFull(manifests: string): Promise<void> {
  const c = await renderCost(manifests);
  const about = JSON.stringify({ ...c, outcome: c.outcome.slice(0, 500) });
  expect(c.code, about).toBe(0);
  expect(c.outcome, about).not.toMatch(/YAML:|invalid/);
  // Every document printed again, the CRDs with them.
  expect(c.stdoutBytes, about).toBeGreaterThan(manifests.length * 0.9);
  expect(c.peakBytes, about).toBeLessThan(64 * MiB);
  expect(c.cpuMs, about).toBeLessThan(10_000);
}

describe('glooha render --merge-into reads real chart renders within its bound', { timeout: 300_000 }, () => {
  it("Gloo's chart with --include-crds: read in full and written back", async () => {
    const manifests = await template('gloo', glooChart(), 'gloo-system');
    expect(manifests.length).toBeGreaterThan(2 * MiB); // the size the 16,000-node limit refused
    await expectReadInFull(manifests);
  });

  it("kgateway's charts with the Gateway API CRDs: read in full", async () => {
    const k = kgatewayFixtures();
    const manifests = [
      readFileSync(k.gatewayApiCrds, 'utf8'),
      await template('kgateway-crds', k.crdsChart, 'kgateway-system'),
      await template('kgateway', k.chart, 'kgateway-system'),
    ].join('\n---\n');
    await expectReadInFull(manifests);
  });
});
