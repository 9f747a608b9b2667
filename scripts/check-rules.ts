// `npm run check:rules`: the chart's PrometheusRule, rendered by Helm with the default values, checked
// and unit-tested by promtool (the Prometheus project's own tool, pinned in tools/promtool):
//   promtool check rules  - the rules parse and their PromQL is valid
//   promtool test rules   - test/promtool/alerts.test.yaml: each alert fires on the state it is for,
//                           and not on the healthy state next to it
// promtool comes from tools/build-tools.sh (cached per machine), or $PROMTOOL.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { goToolPath } from './go-tools.js';
import { repoRoot } from './sync-chart.js';
import { find, render } from '../test/unit/chart/helm.js';

/** What the rules are rendered with; test/promtool/alerts.test.yaml expects these labels. */
export const RULES_RELEASE = { release: 'glooha-operator', namespace: 'glooha-system' };

export function promtoolBinary(): string {
  return goToolPath('promtool', 'PROMTOOL');
}

/** The rule groups of the rendered PrometheusRule, as a Prometheus rule file. */
export async function renderedRuleFile(values: Record<string, unknown> = {}): Promise<string> {
  const objects = await render({
    ...RULES_RELEASE,
    values: { ...values, metrics: { prometheusRule: { enabled: true } } },
  });
  const rule = find(objects, 'PrometheusRule', 'glooha-operator') as unknown as {
    spec: { groups: unknown[] };
  };
  return stringify({ groups: rule.spec.groups });
}

async function main(): Promise<void> {
  const promtool = promtoolBinary();
  const dir = mkdtempSync(join(tmpdir(), 'glooha-rules-'));
  try {
    writeFileSync(join(dir, 'glooha-rules.yaml'), await renderedRuleFile());
    copyFileSync(join(repoRoot, 'test', 'promtool', 'alerts.test.yaml'), join(dir, 'alerts.test.yaml'));
    for (const args of [
      ['check', 'rules', 'glooha-rules.yaml'],
      ['test', 'rules', 'alerts.test.yaml'],
    ]) {
      process.stdout.write(`$ promtool ${args.join(' ')}\n`);
      execFileSync(promtool, args, { cwd: dir, stdio: 'inherit' });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`check:rules: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
