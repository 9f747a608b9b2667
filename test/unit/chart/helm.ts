// Runs the real Helm (the pinned build from test/env, or $HELM) against charts/glooha-operator and
// parses what it renders. Shared by the chart unit tests and test/integration/chart.test.ts.
import type { KubernetesObject } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { chartDir, helmBinary, renderKubeVersion } from '../../../scripts/sync-chart.js';

export { chartDir };

const run = promisify(execFile);

/** Seconds a cold build of the test binaries (helm included) may take: the first run builds them. */
export const helmBuildTimeoutMs = 60 * 60_000;

let cached: string | undefined;
/** Path of the helm binary; builds the test binaries on first use when the cache is empty. */
export function helm(): string {
  return (cached ??= helmBinary());
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
  values?: Record<string, unknown>;
  includeCrds?: boolean;
  /** Also render the `helm test` hook pod (templates/tests), which `helm template` includes unless told. */
  includeTests?: boolean;
}

export interface HelmResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs helm with the given values (written to a temporary values file); never throws on exit status. */
export async function runHelm(args: string[], values?: Record<string, unknown>): Promise<HelmResult> {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-helm-'));
  const started = performance.now();
  try {
    const extra: string[] = [];
    if (values) {
      const file = join(dir, 'values.json');
      writeFileSync(file, JSON.stringify(values));
      extra.push('--values', file);
    }
    const { stdout, stderr } = await run(helm(), [...args, ...extra], {
      maxBuffer: 32 << 20,
      env: { ...process.env, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config') },
    });
    return { ok: true, stdout, stderr, ms: performance.now() - started };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return {
      ok: false,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? e.message,
      ms: performance.now() - started,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function templateArgs({
  release = 'glooha-operator',
  namespace = 'glooha-system',
  includeCrds = false,
  includeTests = false,
}: RenderOptions) {
  return [
    'template',
    release,
    chartDir,
    '--namespace',
    namespace,
    '--kube-version',
    renderKubeVersion(),
    ...(includeCrds ? ['--include-crds'] : []),
    ...(includeTests ? [] : ['--skip-tests']),
  ];
}

export function parseManifests(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`invalid YAML rendered: ${d.errors[0]?.message}`);
      return d.toJS() as KubernetesObject | null;
    })
    .filter((o): o is KubernetesObject => o !== null && typeof o === 'object');
}

/** `helm template` → parsed objects; throws with helm's message when rendering fails. */
export async function render(opts: RenderOptions = {}): Promise<KubernetesObject[]> {
  const res = await runHelm(templateArgs(opts), opts.values);
  if (!res.ok) throw new Error(`helm template failed: ${res.stderr}`);
  return parseManifests(res.stdout);
}

/** `helm template` that is expected to fail: resolves to helm's error output (throws if it rendered). */
export async function renderError(opts: RenderOptions): Promise<string> {
  const res = await runHelm(templateArgs(opts), opts.values);
  if (res.ok) throw new Error(`helm template unexpectedly succeeded with ${JSON.stringify(opts.values)}`);
  return res.stderr;
}

export function find<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
  name?: string,
  namespace?: string,
): T {
  const hits = objects.filter(
    (o) =>
      o.kind === kind &&
      (name === undefined || o.metadata?.name === name) &&
      (namespace === undefined || o.metadata?.namespace === namespace),
  );
  if (hits.length !== 1) {
    const seen = objects
      .map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`)
      .join(', ');
    throw new Error(
      `expected one ${kind} ${name ?? ''} ${namespace ?? ''}, found ${hits.length} among: ${seen}`,
    );
  }
  return hits[0] as T;
}
