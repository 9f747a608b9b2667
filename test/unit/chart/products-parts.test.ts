// The chart's per-product parts come from the registry (scripts/gen-chart-parts.ts): a product added to
// the registration reaches the chart's RBAC, alerts, dashboard, install notes and the Argo CD health
// keys with no hand-written template changed. Proven with a third, test-only product rendered by the real
// Helm from a scratch copy of the chart, and --check proven to notice a stale or missing part.
import type { KubernetesObject, V1ClusterRole } from '@kubernetes/client-node';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARGO_CM,
  GENERATED_PARTS,
  HEALTH_SCRIPT,
  PRODUCTS_TPL,
  genChartParts,
  productRules,
  renderProductsTpl,
} from '../../../scripts/gen-chart-parts.js';
import { renderKubeVersion, repoRoot } from '../../../scripts/sync-chart.js';
import type { Product } from '../../../src/controller/product.js';
import { PRODUCTS } from '../../../src/products/index.js';
import { WIDGET as WIDGET_PRODUCT } from '../../fixtures/products/widget/index.js';
import { find, helm, helmBuildTimeoutMs, parseManifests, runHelm } from './helm.js';

/**
 * A third product, test-only: Widget (test/fixtures/products/widget/, which
 * test/integration/third-product.test.ts runs under the operator and the CLI), reading one more kind of
 * another API group here, so that the RBAC rules group by API group.
 */
const WIDGET: Product = {
  ...WIDGET_PRODUCT,
  permissions: [
    ...WIDGET_PRODUCT.permissions,
    { group: 'widgets.example.com', resource: 'cogs', verbs: ['get', 'list', 'watch'] },
  ],
};
const THREE = [...PRODUCTS, WIDGET];

const scratches: string[] = [];
/** A scratch checkout holding what gen-chart-parts reads and writes: the chart and deploy/argocd. */
function scratchRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'glooha-chart-parts-'));
  scratches.push(root);
  cpSync(join(repoRoot, 'charts'), join(root, 'charts'), { recursive: true });
  mkdirSync(join(root, 'deploy', 'argocd'), { recursive: true });
  cpSync(join(repoRoot, HEALTH_SCRIPT), join(root, HEALTH_SCRIPT));
  cpSync(join(repoRoot, ARGO_CM), join(root, ARGO_CM));
  return root;
}
afterAll(() => {
  for (const s of scratches) rmSync(s, { recursive: true, force: true });
});

async function renderChart(root: string, values: Record<string, unknown>): Promise<KubernetesObject[]> {
  const args = ['template', 'r', join(root, 'charts', 'glooha-operator'), '--namespace', 'ops'];
  const res = await runHelm([...args, '--kube-version', renderKubeVersion(), '--skip-tests'], values);
  if (!res.ok) throw new Error(`helm template failed: ${res.stderr}`);
  return parseManifests(res.stdout);
}

describe("the chart's per-product parts (scripts/gen-chart-parts.ts)", () => {
  beforeAll(() => void helm(), helmBuildTimeoutMs);

  it('are up to date in the tree (npm run check:generated)', () => {
    expect(genChartParts({ check: true }).stale).toEqual([]);
  });

  it('group the permissions into one rule per (API group, verbs), each resource once', () => {
    expect(
      productRules(THREE).map((r) => [r.perm[0]!.group, r.perm.map((p) => p.resource), r.kinds]),
    ).toEqual([
      ['glooha.io', ['gloohas', 'kgatewayhas', 'widgethas'], ['GlooHA', 'KgatewayHA', 'WidgetHA']],
      [
        'glooha.io',
        ['gloohas/status', 'kgatewayhas/status', 'widgethas/status'],
        ['GlooHA', 'KgatewayHA', 'WidgetHA'],
      ],
      ['glooha.io', ['gloohas/finalizers', 'kgatewayhas/finalizers'], ['GlooHA', 'KgatewayHA']],
      ['gateway.networking.k8s.io', ['gateways'], ['KgatewayHA']],
      ['gateway.kgateway.dev', ['gatewayparameters'], ['KgatewayHA']],
      ['scheduling.k8s.io', ['priorityclasses'], ['KgatewayHA']],
      ['widgets.example.com', ['cogs'], ['WidgetHA']],
    ]);
  });

  it('a third registered product reaches the RBAC, alerts, dashboard, notes and Argo CD keys', async () => {
    const root = scratchRoot();
    expect(genChartParts({ check: false, root, products: THREE }).stale).toEqual([PRODUCTS_TPL, ARGO_CM]);
    const objects = await renderChart(root, {
      metrics: { prometheusRule: { enabled: true }, grafanaDashboard: { enabled: true } },
    });

    const rules = find<V1ClusterRole>(objects, 'ClusterRole', 'r-glooha-operator').rules ?? [];
    const grants = (group: string, resource: string, verb: string) =>
      rules.some(
        (r) => r.apiGroups?.includes(group) && r.resources?.includes(resource) && r.verbs.includes(verb),
      );
    expect(grants('glooha.io', 'widgethas', 'watch')).toBe(true);
    expect(grants('glooha.io', 'widgethas/status', 'update')).toBe(true);
    expect(grants('widgets.example.com', 'cogs', 'list')).toBe(true);
    expect(grants('widgets.example.com', 'cogs', 'patch')).toBe(false);
    expect(grants('glooha.io', 'gloohas', 'patch')).toBe(true); // the registered ones stay

    const alerts = find<
      KubernetesObject & {
        spec: {
          groups: {
            rules: { alert: string; expr: string; for?: string; annotations?: Record<string, string> }[];
          }[];
        };
      }
    >(objects, 'PrometheusRule').spec.groups[0]!.rules;
    const widget = alerts.find((a) => a.alert === 'GlooHAWidgetLeaderLeaseStale');
    expect(widget?.expr).toContain(
      'glooha_product_leader_lease_age_seconds{job="r-glooha-operator-metrics",kind="WidgetHA"}',
    );
    expect(widget?.for).toBe('1m');
    expect(widget?.annotations?.summary).toBe(
      'Widget has no leader in WidgetHA {{ $labels.namespace }}/{{ $labels.name }}',
    );
    expect(alerts.find((a) => a.alert === 'GlooHAReconcileErrors')?.expr).toContain(
      'controller=~"glooha|kgatewayha|widgetha"',
    );
    expect(alerts.find((a) => a.alert === 'GlooHAOperatorNoLeader')?.annotations?.description).toContain(
      '(GlooHA, KgatewayHA, WidgetHA)',
    );

    const cm = find<KubernetesObject & { data: Record<string, string> }>(
      objects,
      'ConfigMap',
      'r-glooha-operator-dashboard',
    );
    const dashboard = JSON.parse(cm.data['glooha-operator.json']!) as {
      tags: string[];
      templating: { list: { name: string; query: unknown; options?: { value: string }[] }[] };
      panels: { title: string }[];
    };
    const kind = dashboard.templating.list.find((v) => v.name === 'kind')!;
    expect(kind.query).toBe('GlooHA,KgatewayHA,WidgetHA');
    expect(kind.options?.map((o) => o.value)).toEqual(['GlooHA', 'KgatewayHA', 'WidgetHA']);
    expect(dashboard.tags).toEqual(['glooha', 'GlooHA', 'KgatewayHA', 'WidgetHA']);
    expect(dashboard.panels.map((p) => p.title)).toContain('Ready, by kind (GlooHA, KgatewayHA, WidgetHA)');
    expect(cm.data['glooha-operator.json']).not.toMatch(/@[a-z_]+@/);

    const tpl = readFileSync(join(root, PRODUCTS_TPL), 'utf8');
    expect(tpl).toContain('Make a Widget install highly available: apply a WidgetHA.');
    expect(tpl).toContain('gloohas,kgatewayhas,widgethas');
    const argo = parse(readFileSync(join(root, ARGO_CM), 'utf8')) as { data: Record<string, string> };
    expect(Object.keys(argo.data)).toEqual([
      'resource.customizations.health.glooha.io_GlooHA',
      'resource.customizations.health.glooha.io_KgatewayHA',
      'resource.customizations.health.glooha.io_WidgetHA',
    ]);
    const script = readFileSync(join(repoRoot, HEALTH_SCRIPT), 'utf8');
    for (const body of Object.values(argo.data)) expect(body).toBe(script);
  });

  it('--check reports a stale or missing part, writes nothing, and passes once regenerated', () => {
    const root = scratchRoot();
    // The tree's parts are for the registered products: with a third one registered both are stale.
    const before = readFileSync(join(root, PRODUCTS_TPL), 'utf8');
    expect(genChartParts({ check: true, root, products: THREE }).stale).toEqual([PRODUCTS_TPL, ARGO_CM]);
    expect(readFileSync(join(root, PRODUCTS_TPL), 'utf8'), '--check writes nothing').toBe(before);
    // A hand edit of a generated part, and a changed health script (the source of the Argo CD keys).
    writeFileSync(join(root, PRODUCTS_TPL), before.replace('glooha|kgatewayha', 'glooha'));
    expect(genChartParts({ check: true, root }).stale).toEqual([PRODUCTS_TPL]);
    writeFileSync(join(root, HEALTH_SCRIPT), `${readFileSync(join(root, HEALTH_SCRIPT), 'utf8')}-- more\n`);
    expect(genChartParts({ check: true, root }).stale).toEqual([PRODUCTS_TPL, ARGO_CM]);
    rmSync(join(root, ARGO_CM));
    expect(genChartParts({ check: true, root }).stale).toEqual([PRODUCTS_TPL, ARGO_CM]);
    expect(genChartParts({ check: false, root }).stale).toEqual([PRODUCTS_TPL, ARGO_CM]);
    expect(genChartParts({ check: true, root }).stale).toEqual([]);
    expect(GENERATED_PARTS).toEqual([PRODUCTS_TPL, ARGO_CM]);
  });

  it('refuses chart facts that would break out of the template they are rendered into', () => {
    const withAlert = (summary: string): Product[] => [
      {
        ...WIDGET,
        chart: { ...WIDGET.chart!, leaderLeaseAlert: { ...WIDGET.chart!.leaderLeaseAlert, summary } },
      },
    ];
    expect(() => renderProductsTpl(withAlert('a `quoted` word'))).toThrow(
      /WidgetHA's alert summary may not contain "`"/,
    );
    expect(() =>
      renderProductsTpl([{ ...WIDGET, chart: { ...WIDGET.chart!, notes: ['see {{ .Values.x }}'] } }]),
    ).toThrow(/WidgetHA's notes may not contain "\{\{"/);
    expect(() =>
      renderProductsTpl([
        {
          ...WIDGET,
          chart: { ...WIDGET.chart!, leaderLeaseAlert: { ...WIDGET.chart!.leaderLeaseAlert, name: 'A: b' } },
        },
      ]),
    ).toThrow(/WidgetHA's alert name may not contain ":"/);
  });
});
