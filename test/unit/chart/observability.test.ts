// The chart's optional PrometheusRule and Grafana dashboard, as Helm renders them: off by default,
// every alert there when on, thresholds from values, and every series the rules and the dashboard
// query is one the operator exports (a renamed metric fails here, not silently in Grafana).
// promtool checks and unit-tests the rules themselves: npm run check:rules.
import type { KubernetesObject } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics/index.js';
import { find, helm, helmBuildTimeoutMs, render, renderError } from './helm.js';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
}

const rulesOf = (objects: KubernetesObject[]): Rule[] =>
  (
    find(objects, 'PrometheusRule') as unknown as { spec: { groups: Array<{ rules: Rule[] }> } }
  ).spec.groups.flatMap((g) => g.rules);

/** Metric names in a PromQL expression (identifiers followed by `{`). */
const metricNames = (expr: string): string[] =>
  [...expr.matchAll(/([a-z_:][a-z0-9_:]*)\{/g)].map((m) => m[1]!);

async function exportedNames(): Promise<Set<string>> {
  const m = createMetrics({ defaultMetrics: false });
  m.reconcile.register('glooha', 1);
  m.workqueue('glooha');
  const names = new Set<string>();
  for (const metric of await m.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const s of ['_bucket', '_sum', '_count']) names.add(metric.name + s);
  }
  return names;
}

describe('chart: alerts and dashboard', () => {
  beforeAll(() => void helm(), helmBuildTimeoutMs);

  it('renders neither by default', async () => {
    const kinds = (await render()).map((o) => `${o.kind}/${o.metadata?.name}`);
    expect(kinds.filter((k) => k.startsWith('PrometheusRule/') || k.endsWith('-dashboard'))).toEqual([]);
  });

  it('renders the seven alerts, with the thresholds from values, over series the operator exports', async () => {
    const rules = rulesOf(
      await render({
        values: {
          metrics: { prometheusRule: { enabled: true, notReadyFor: '30m', driftCorrectionsPerHour: 7 } },
        },
      }),
    );
    expect(rules.map((r) => r.alert)).toEqual([
      'GlooHAOperatorNoLeader',
      'GlooHAOperatorFencingPolicyMissing',
      'GlooHANotReady',
      'GlooHAGlooLeaderLeaseStale',
      'GlooHAKgatewayLeaderLeaseStale',
      'GlooHADriftCorrections',
      'GlooHAReconcileErrors',
    ]);
    expect(rules.find((r) => r.alert === 'GlooHANotReady')?.for).toBe('30m');
    expect(rules.find((r) => r.alert === 'GlooHADriftCorrections')?.expr).toMatch(/> 7$/);
    for (const r of rules) expect(r.expr, r.alert).toContain('job="glooha-operator-metrics"');
    const exported = await exportedNames();
    for (const r of rules)
      for (const name of metricNames(r.expr).filter((n) => !['absent', 'sum', 'max', 'min'].includes(n))) {
        expect(exported, `${r.alert}: ${name}`).toContain(name);
      }
  });

  it('leaves out the no-leader alert without leader election, and takes a custom selector', async () => {
    const rules = rulesOf(
      await render({
        values: {
          replicaCount: 1,
          leaderElection: { enabled: false },
          podDisruptionBudget: { enabled: false },
          metrics: { prometheusRule: { enabled: true, selector: 'namespace="ops"' } },
        },
      }),
    );
    expect(rules.map((r) => r.alert)).not.toContain('GlooHAOperatorNoLeader');
    expect(rules.map((r) => r.alert)).not.toContain('GlooHAOperatorFencingPolicyMissing');
    for (const r of rules) expect(r.expr).toContain('{namespace="ops"');
  });

  it('ships a dashboard whose every query names an exported series', async () => {
    const cm = find<KubernetesObject & { data: Record<string, string> }>(
      await render({ values: { metrics: { grafanaDashboard: { enabled: true, namespace: 'monitoring' } } } }),
      'ConfigMap',
      'glooha-operator-dashboard',
    );
    expect(cm.metadata?.namespace).toBe('monitoring');
    expect(cm.metadata?.labels?.grafana_dashboard).toBe('1');
    const dashboard = JSON.parse(cm.data['glooha-operator.json']!) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const exported = await exportedNames();
    expect(dashboard.panels.length).toBeGreaterThan(5);
    for (const p of dashboard.panels)
      for (const t of p.targets)
        for (const name of metricNames(t.expr)) {
          expect(exported, `${p.title}: ${name}`).toContain(name);
        }
    // Both kinds: the per-object panels split by kind, and none is titled for GlooHAs alone.
    const perObject = dashboard.panels.filter((p) =>
      p.targets.some((t) => /glooha_(ready|resources|product)/.test(t.expr)),
    );
    expect(perObject.length).toBeGreaterThan(2);
    for (const p of perObject) {
      if (/GlooHA/.test(p.title)) expect(p.title).toMatch(/KgatewayHA/);
      for (const t of p.targets) expect(t.expr, p.title).toMatch(/by \(kind|kind=|\$kind/);
    }
  });

  it('the schema rejects a threshold that is not a duration', async () => {
    const err = await renderError({
      values: { metrics: { prometheusRule: { enabled: true, notReadyFor: '15 minutes' } } },
    });
    expect(err).toContain('notReadyFor');
  });
});
