// Writes the chart's and the Argo CD health check's per-product parts from the registered products
// (src/products/index.ts), so that the hand-written templates name no product and a new product reaches
// the chart by registering it:
//   - charts/glooha-operator/templates/_products.tpl  named templates the hand-written ones include: the
//     products' RBAC rules, their kinds, controllers, leader-Lease alerts, install notes and the
//     dashboard's per-product parts
//   - deploy/argocd/argocd-cm.yaml                    deploy/argocd/health.lua under each kind's key
//
//   npx tsx scripts/gen-chart-parts.ts           rewrite whatever is stale
//   npx tsx scripts/gen-chart-parts.ts --check   change nothing; exit 1 listing what is stale (CI)
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GROUP } from '../src/api/constants.js';
import type { Permission } from '../src/controller/permissions.js';
import type { Product } from '../src/controller/product.js';
import { PRODUCTS } from '../src/products/index.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The generated files, relative to a checkout. */
export const PRODUCTS_TPL = 'charts/glooha-operator/templates/_products.tpl';
export const ARGO_CM = 'deploy/argocd/argocd-cm.yaml';
export const HEALTH_SCRIPT = 'deploy/argocd/health.lua';
export const GENERATED_PARTS: readonly string[] = [PRODUCTS_TPL, ARGO_CM];

/**
 * The chart value the leader-Lease alerts wait for (metrics.prometheusRule.glooLeaderStaleFor): named when
 * Gloo was the only product and kept, since users' values files set it; it serves every product's alert.
 */
const LEADER_STALE_FOR_VALUE = 'glooLeaderStaleFor';

/** A Go template string literal (JSON's escapes are Go's for these strings). */
const goString = (s: string): string => JSON.stringify(s);

function checkText(what: string, text: string, forbidden: string[]): string {
  for (const f of forbidden)
    if (text.includes(f))
      throw new Error(`${what} may not contain ${JSON.stringify(f)}: ${JSON.stringify(text)}`);
  return text;
}

/** The products' permissions as RBAC rules: one per (API group, verbs), its resources in order. */
export function productRules(products: readonly Product[]): { kinds: string[]; perm: Permission[] }[] {
  const rules = new Map<string, { kinds: string[]; perm: Permission[] }>();
  for (const p of products)
    for (const perm of p.permissions) {
      const key = `${perm.group} ${perm.verbs.join(',')}`;
      const rule = rules.get(key) ?? { kinds: [], perm: [] };
      if (!rule.kinds.includes(p.kind)) rule.kinds.push(p.kind);
      if (!rule.perm.some((q) => q.resource === perm.resource)) rule.perm.push(perm);
      rules.set(key, rule);
    }
  return [...rules.values()];
}

const json = (v: unknown): string => JSON.stringify(v).replace(/,/g, ', ');

function rulesTpl(products: readonly Product[]): string[] {
  return [
    "{{/* The products' own API use (Product.permissions): their HA kinds in " +
      GROUP +
      ' and what each reads or writes besides the engine. */}}',
    '{{- define "glooha-operator.products.rules" -}}',
    ...productRules(products).flatMap(({ kinds, perm }) => [
      `# ${kinds.join(', ')}`,
      `- apiGroups: ${json([perm[0]!.group])}`,
      `  resources: ${json(perm.map((q) => q.resource))}`,
      `  verbs: ${json(perm[0]!.verbs)}`,
    ]),
    '{{- end }}',
  ];
}

function alertsTpl(products: readonly Product[]): string[] {
  const alerts = products.flatMap((p) => {
    const a = p.chart?.leaderLeaseAlert;
    if (!a) return [];
    const sel = `{{- $.sel }},kind=${goString(p.kind)}`;
    const raw = (what: string, t: string) =>
      `{{ \`${checkText(`${p.kind}'s ${what}`, t, ['`'])}\` | quote }}`;
    return [
      `- alert: ${checkText(`${p.kind}'s alert name`, a.name, ['{', '}', ':', ' '])}`,
      `  # The youngest age any replica saw: one replica that saw a renewal is enough to be fresh.`,
      `  expr: min by (namespace, name) (glooha_product_leader_lease_age_seconds{ ${sel}}) > max by (namespace, name) (glooha_product_leader_lease_duration_seconds{ ${sel}})`,
      `  for: {{ $.r.${LEADER_STALE_FOR_VALUE} }}`,
      '  labels:',
      '    severity: critical',
      '  annotations:',
      `    summary: ${raw('alert summary', a.summary)}`,
      `    description: ${raw('alert description', a.description)}`,
    ];
  });
  return [
    '{{/* Each product\'s leader-Lease alert; called with (dict "sel" <series selector> "r" .Values.metrics.prometheusRule). */}}',
    '{{- define "glooha-operator.products.leaderLeaseAlerts" -}}',
    ...alerts,
    '{{- end }}',
  ];
}

function notesTpl(products: readonly Product[]): string[] {
  const blocks = products
    .filter((p) => p.chart && p.chart.notes.length > 0)
    .map((p) => p.chart!.notes.map((l) => checkText(`${p.kind}'s notes`, l, ['{{', '}}'])).join('\n'));
  return [
    '{{/* How to make an install of each product highly available (the install notes). */}}',
    '{{- define "glooha-operator.products.notes" -}}',
    blocks.join('\n\n'),
    '{{- end }}',
  ];
}

/** The dashboard's per-product parts, replacing its placeholders (files/grafana-dashboard.json). */
function dashboardTpl(products: readonly Product[]): string[] {
  const kinds = products.map((p) => p.kind);
  const replace: [string, string][] = [
    ['@controllers@', products.map((p) => p.controllerName).join('|')],
    ['@kind_list@', kinds.join(',')],
    ['@kinds@', kinds.join(', ')],
    ['"@kind_tags@"', kinds.map((k) => JSON.stringify(k)).join(', ')],
    ['"@kind_options@"', kinds.map((k) => JSON.stringify({ text: k, value: k, selected: false })).join(', ')],
  ];
  return [
    '{{/* The dashboard (files/grafana-dashboard.json, passed as .) with its placeholders filled in from the products. */}}',
    '{{- define "glooha-operator.products.dashboard" -}}',
    `{{- . ${replace.map(([from, to]) => `| replace ${goString(from)} ${goString(to)}`).join(' ')} }}`,
    '{{- end }}',
  ];
}

/** charts/glooha-operator/templates/_products.tpl for these products. */
export function renderProductsTpl(products: readonly Product[]): string {
  const kinds = products.map((p) => p.kind);
  const simple = (name: string, what: string, value: string) => [
    `{{/* ${what} */}}`,
    `{{- define "glooha-operator.products.${name}" -}}`,
    value,
    '{{- end }}',
  ];
  return [
    '{{/*',
    'GENERATED by scripts/gen-chart-parts.ts from the registered products (src/products/index.ts): edit',
    "those (each product's chart.ts and permissions), not this file; `npm run check:generated` fails when",
    'it is stale. The hand-written templates include these, and name no product themselves.',
    '*/}}',
    ...simple('kinds', 'The HA kinds, for prose.', kinds.join(', ')),
    ...simple(
      'plurals',
      'Their resources, for kubectl (comma-separated).',
      products.map((p) => p.plural).join(','),
    ),
    ...simple(
      'controllers',
      "Their controllers' names (the controller label of controller_runtime_*), as a regular expression.",
      products.map((p) => p.controllerName).join('|'),
    ),
    ...rulesTpl(products),
    ...alertsTpl(products),
    ...notesTpl(products),
    ...dashboardTpl(products),
    '',
  ].join('\n');
}

/** deploy/argocd/argocd-cm.yaml: the health script under each kind's key of argocd-cm. */
export function renderArgoCm(products: readonly Product[], script: string): string {
  const body = script
    .trimEnd()
    .split('\n')
    .map((l) => (l === '' ? '' : `    ${l}`))
    .join('\n');
  return [
    '# GENERATED by scripts/gen-chart-parts.ts from deploy/argocd/health.lua and the registered products: edit',
    "# those, not this file. Argo CD health checks for the operator's kinds (docs/health.md), to merge into",
    '# argocd-cm: `kubectl -n argocd patch configmap argocd-cm --patch-file deploy/argocd/argocd-cm.yaml`.',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: argocd-cm',
    '  namespace: argocd',
    '  labels:',
    '    app.kubernetes.io/part-of: argocd',
    'data:',
    ...products.flatMap((p) => [`  resource.customizations.health.${GROUP}_${p.kind}: |`, body]),
    '',
  ].join('\n');
}

/** What each generated file should contain, keyed by its path relative to `root`. */
export function desiredParts(products: readonly Product[], root = repoRoot): Map<string, string> {
  return new Map([
    [PRODUCTS_TPL, renderProductsTpl(products)],
    [ARGO_CM, renderArgoCm(products, readFileSync(join(root, HEALTH_SCRIPT), 'utf8'))],
  ]);
}

/** Brings (or, with check, compares) the generated parts up to date; returns the stale ones. */
export function genChartParts({
  check,
  root = repoRoot,
  products = PRODUCTS,
}: {
  check: boolean;
  root?: string;
  products?: readonly Product[];
}): { stale: string[] } {
  const stale: string[] = [];
  for (const [path, want] of desiredParts(products, root)) {
    const file = join(root, path);
    if ((existsSync(file) ? readFileSync(file, 'utf8') : null) === want) continue;
    stale.push(relative(root, file));
    if (!check) writeFileSync(file, want);
  }
  return { stale };
}

function main(): void {
  const check = process.argv.includes('--check');
  const unknown = process.argv.slice(2).filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`usage: tsx scripts/gen-chart-parts.ts [--check]   (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  const { stale } = genChartParts({ check });
  if (check && stale.length > 0) {
    console.error(
      `gen-chart-parts: stale, regenerate with \`npm run sync:chart\` and commit:\n${stale.map((s) => `  ${s}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log(
    check
      ? "gen-chart-parts: the chart's and Argo CD's per-product parts are up to date"
      : stale.length > 0
        ? `gen-chart-parts: updated ${stale.join(', ')}`
        : 'gen-chart-parts: already up to date',
  );
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
