// `npm run lint:manifests`: kube-score on deploy/install.yaml and on the chart rendered with each value
// set in lint/kube-score.yaml. Fails on any finding that file does not record as deliberate, and on a
// deliberate entry that no longer matches a finding (so the list cannot rot).
//
//   npx tsx scripts/lint-manifests.ts          lint; exit 1 on a new or stale finding
//   npx tsx scripts/lint-manifests.ts --all    also print the deliberate findings (the "before" view)
//
// kube-score comes from tools/build-tools.sh (pinned Go module, cached per machine), or $KUBE_SCORE.
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { goToolPath } from './go-tools.js';
import { installManifestPath, renderKubeVersion, repoRoot } from './sync-chart.js';
import { chartDir, runHelm } from '../test/unit/chart/helm.js';

export interface LintConfig {
  optional: string[];
  variants: Record<string, Record<string, unknown>>;
  deliberate: { check: string; targets: string[]; reason: string }[];
}

export interface Finding {
  target: string; // install.yaml or a variant name
  object: string; // Kind/namespace/name
  check: string; // kube-score check id; a missing CPU limit is `container-cpu-limit`
  grade: 'WARNING' | 'CRITICAL';
  message: string;
}

export function loadConfig(root = repoRoot): LintConfig {
  return parse(readFileSync(join(root, 'lint', 'kube-score.yaml'), 'utf8')) as LintConfig;
}

export function kubeScoreBinary(): string {
  return goToolPath('kube-score', 'KUBE_SCORE');
}

interface KubeScoreObject {
  object_name: string;
  checks: {
    check: { id: string };
    grade: number;
    skipped: boolean;
    comments: { path: string; summary: string }[] | null;
  }[];
}

/** kube-score's grades: 1 critical, 5 warning, 7 "almost OK" (still a warning), 10 OK. */
function gradeName(grade: number): Finding['grade'] | undefined {
  if (grade >= 10) return undefined;
  return grade <= 1 ? 'CRITICAL' : 'WARNING';
}

/** Every finding kube-score reports on one manifest stream, with no check ignored. */
export function score(kubeScore: string, target: string, manifests: string, config: LintConfig): Finding[] {
  const kubeVersion = /^v(\d+\.\d+)/.exec(renderKubeVersion())![1];
  const args = ['score', '-o', 'json', `--kubernetes-version=v${kubeVersion}`, '-'];
  for (const test of config.optional) args.splice(1, 0, `--enable-optional-test=${test}`);
  let out: string;
  try {
    out = execFileSync(kubeScore, args, { input: manifests, encoding: 'utf8', maxBuffer: 32 << 20 });
  } catch (err) {
    // kube-score exits 1 when it finds something critical; its JSON is on stdout all the same.
    out = (err as { stdout?: string }).stdout ?? '';
    if (!out.trim().startsWith('[')) throw err;
  }
  const findings: Finding[] = [];
  for (const obj of JSON.parse(out) as KubeScoreObject[]) {
    for (const c of obj.checks) {
      const grade = gradeName(c.grade);
      if (c.skipped || !grade) continue;
      for (const comment of c.comments ?? [{ path: '', summary: '' }]) {
        const cpuLimit = c.check.id === 'container-resources' && /CPU limit is not set/.test(comment.summary);
        findings.push({
          target,
          object: obj.object_name,
          check: cpuLimit ? 'container-cpu-limit' : c.check.id,
          grade,
          message: `${comment.path ? `(${comment.path}) ` : ''}${comment.summary}`,
        });
      }
    }
  }
  return findings;
}

export async function renderVariant(values: Record<string, unknown>): Promise<string> {
  const res = await runHelm(
    [
      'template',
      'glooha-operator',
      chartDir,
      '--namespace',
      'glooha-system',
      '--skip-tests',
      '--kube-version',
      renderKubeVersion(),
    ],
    values,
  );
  if (!res.ok) throw new Error(`helm template failed: ${res.stderr}`);
  return res.stdout;
}

export interface LintResult {
  findings: Finding[];
  unexpected: Finding[];
  stale: LintConfig['deliberate'];
}

export async function lintManifests(
  kubeScore = kubeScoreBinary(),
  config = loadConfig(),
): Promise<LintResult> {
  const findings = score(kubeScore, 'install.yaml', readFileSync(installManifestPath, 'utf8'), config);
  for (const [name, values] of Object.entries(config.variants))
    findings.push(...score(kubeScore, name, await renderVariant(values), config));
  const deliberate = (f: Finding) =>
    config.deliberate.some((d) => d.check === f.check && d.targets.includes(f.target));
  const stale = config.deliberate.filter(
    (d) => !d.targets.every((t) => findings.some((f) => f.check === d.check && f.target === t)),
  );
  return { findings, unexpected: findings.filter((f) => !deliberate(f)), stale };
}

async function main(): Promise<void> {
  const all = process.argv.includes('--all');
  const config = loadConfig();
  const { findings, unexpected, stale } = await lintManifests(kubeScoreBinary(), config);
  const targets = ['install.yaml', ...Object.keys(config.variants)];
  for (const t of targets) {
    const mine = findings
      .filter((f) => f.target === t)
      .sort((a, b) => `${a.object} ${a.check}`.localeCompare(`${b.object} ${b.check}`));
    const bad = mine.filter((f) => unexpected.includes(f));
    console.log(`kube-score ${t}: ${bad.length} new, ${mine.length - bad.length} deliberate`);
    for (const f of all ? mine : bad)
      console.log(
        `  [${f.grade}] ${f.object}: ${f.check} ${f.message}${bad.includes(f) ? '' : ' (deliberate)'}`,
      );
  }
  for (const d of stale)
    console.log(
      `stale: lint/kube-score.yaml lists ${d.check} for ${d.targets.join(', ')}, but kube-score no longer reports it everywhere there: remove or narrow the entry`,
    );
  if (unexpected.length > 0 || stale.length > 0) {
    console.error(
      `lint:manifests: ${unexpected.length} finding(s) not recorded as deliberate, ${stale.length} stale entr${stale.length === 1 ? 'y' : 'ies'} (lint/kube-score.yaml)`,
    );
    process.exit(1);
  }
  console.log(
    `lint:manifests: ${targets.length} targets clean (${findings.length} deliberate findings, each with its reason in lint/kube-score.yaml)`,
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
