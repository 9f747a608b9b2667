// The engine names no product. Every product lives in its own folder under src/products/ and reaches
// the engine, the CLI, the metrics and the chart only through its registration (src/products/registered.ts,
// src/products/cli.ts). So every file outside src/products is checked — all of src/ (its .ts files and
// src/templates), and the chart's hand-written parts — and none may import a product (statically or
// with a dynamic import()) or name one in code: the check splits every identifier, string, template
// text and regular expression into words (camelCase, snake_case, kebab-case, dots and slashes all
// split) and fails on any word of a product's vocabulary. Comments may name products (they explain,
// they do not branch); "glooha" alone is the operator's own name (the glooha.io API group, the
// glooha_* metrics), a different word from "gloo". Every exemption is in EXEMPTIONS, with its reason.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GENERATED_PARTS, PRODUCTS_TPL } from '../../../scripts/gen-chart-parts.js';
import { PRODUCTS } from '../../../src/products/index.js';

/** The operator's own name: a word of its own, not a product's (glooha.io, glooha_*, glooha-operator). */
const OPERATOR_NAME = 'glooha';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PRODUCTS_DIR = join(ROOT, 'src/products');

/**
 * The words that name a product. Each registered product's kind contributes its own (GlooHA: gloo,
 * KgatewayHA: kgateway; the HA suffix is the operator's), so a new product is covered by registering
 * it; the rest are the names the products go by besides their kinds: Solo.io's API groups
 * (gateway.solo.io), kgateway's short name kgw.
 */
export const PRODUCT_WORDS: ReadonlySet<string> = new Set(
  [
    ...PRODUCTS.flatMap((p) => [
      ...words(p.kind).filter((w) => w !== 'ha'),
      // Its resource and controller names as one word (kgatewayhas, kgatewayha), but the
      // operator's own name: GlooHA's controller is called glooha.
      p.plural,
      p.controllerName,
    ]),
    'solo',
    'kgw',
  ].filter((w) => w !== OPERATOR_NAME),
);

/** The lower-case words of an identifier or a text: camelCase, digits, and every non-alphanumeric split. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Whether `text` names a product: one of its words is a product's. */
export function namesProduct(text: string): boolean {
  return words(text).some((w) => PRODUCT_WORDS.has(w));
}

/**
 * Where a file may name a product, each for a reason, in one place: a path, and which of its findings
 * (a regular expression on "line what"; undefined: all). Nothing else is exempt.
 */
export const EXEMPTIONS: readonly { path: string; only?: RegExp; why: string }[] = [
  {
    path: 'src/cli/registry.ts',
    only: /^\d+ imports \.\.\/products\/(index|cli)\.js$/,
    why: "the CLI's composition root, its one door to the registry (as src/main.ts is the operator's): the CLI's tables (commands, flags, help) are built from it",
  },
  {
    path: 'src/main.ts',
    only: /^\d+ imports \.\/products\/index\.js$/,
    why: "the operator's composition root: it hands the registered products to the manager",
  },
  {
    path: 'charts/glooha-operator/templates/prometheusrule.yaml',
    only: /^\d+ gloo in "- alert: GlooHA[A-Za-z]+"$/,
    why: "the alerts' names: GlooHA is the operator's alert prefix since its first release, and users route and silence by the names (renaming them breaks that); the per-product alerts themselves are generated (_products.tpl)",
  },
];

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** What in a TypeScript file names a product: imports of src/products, identifiers, strings, regexps. */
export function productMentions(file: string, text = readFileSync(file, 'utf8')): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Finding[] = [];
  const at = (node: ts.Node, what: string) =>
    out.push({
      file: relative(ROOT, file),
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      what,
    });
  const intoProducts = (specifier: string) => {
    const target = resolve(dirname(file), specifier);
    return target === PRODUCTS_DIR || target.startsWith(PRODUCTS_DIR + '/');
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (intoProducts(node.moduleSpecifier.text)) at(node, `imports ${node.moduleSpecifier.text}`);
      return; // the specifier is a path, judged above
    }
    // import('...'), require('...'), import.meta.resolve('...'): a module named by a string.
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === 'require') ||
        (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve');
      const arg = node.arguments[0]!;
      if (
        loads &&
        (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) &&
        intoProducts(arg.text)
      ) {
        at(node, `imports ${arg.text}`);
        return;
      }
    }
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (namesProduct(node.text)) at(node, `identifier ${node.text}`);
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (namesProduct(node.text)) at(node, `string ${JSON.stringify(node.text)}`);
    } else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (namesProduct(node.text)) at(node, `template text ${JSON.stringify(node.text)}`);
    } else if (ts.isRegularExpressionLiteral(node)) {
      if (namesProduct(node.text)) at(node, `regexp ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * What in a template or chart file (handlebars, Helm templates, YAML, JSON, Lua) names a product,
 * line by line, outside its comments: handlebars and Helm comment blocks, `#` YAML comments, `--` Lua ones.
 */
export function textMentions(file: string, text = readFileSync(file, 'utf8')): Finding[] {
  const blanked = text.replace(/\{\{-?\s*(!--[\s\S]*?--|!.*?|\/\*[\s\S]*?\*\/)\s*-?\}\}/g, (c) =>
    c.replace(/[^\n]/g, ' '),
  );
  const lineComment = file.endsWith('.lua') ? /(^|\s)--.*$/ : file.endsWith('.json') ? /$^/ : /(^|\s)#.*$/;
  return blanked.split('\n').flatMap((line, i) => {
    const code = line.replace(lineComment, '');
    const hits = words(code).filter((w) => PRODUCT_WORDS.has(w));
    return hits.length > 0
      ? [
          {
            file: relative(ROOT, file),
            line: i + 1,
            what: `${[...new Set(hits)].join(', ')} in ${JSON.stringify(code.trim())}`,
          },
        ]
      : [];
  });
}

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(ROOT, dir, f));
}

/**
 * Every file the check reads: src/ outside src/products, the chart's hand-written parts (templates,
 * files/) and the Argo CD health script. The chart's generated part (_products.tpl) is the products'
 * facts rendered from the registry by scripts/gen-chart-parts.ts, which check:generated keeps current.
 */
export function checkedFiles(): string[] {
  const src = walk('src').filter(
    (f) => !f.startsWith(PRODUCTS_DIR + '/') && (f.endsWith('.ts') || f.endsWith('.hbs')),
  );
  const generated = new Set(GENERATED_PARTS.map((g) => join(ROOT, g)));
  const chart = walk('charts/glooha-operator/templates').filter(
    (f) => /\.(ya?ml|tpl|txt)$/.test(f) && !generated.has(f),
  );
  const chartFiles = walk('charts/glooha-operator/files');
  return [...src, ...chart, ...chartFiles, join(ROOT, 'deploy/argocd/health.lua')].sort();
}

export function mentionsIn(file: string): Finding[] {
  return file.endsWith('.ts') ? productMentions(file) : textMentions(file);
}

const exempt = (f: Finding) =>
  EXEMPTIONS.some((e) => e.path === f.file && (e.only === undefined || e.only.test(`${f.line} ${f.what}`)));

describe('nothing outside src/products names a product', () => {
  it('checks all of src/ outside src/products, and the chart templates', () => {
    const files = checkedFiles().map((f) => relative(ROOT, f));
    for (const expected of [
      'src/main.ts',
      'src/core/templates.ts',
      'src/core/findings.ts',
      'src/core/helm-values-yaml.ts',
      'src/metrics/index.ts',
      'src/templates/role.yaml.hbs',
      'charts/glooha-operator/templates/_helpers.tpl',
      'charts/glooha-operator/templates/replicas-floor-policy.yaml',
    ])
      expect(files).toContain(expected);
    expect(files.some((f) => f.startsWith('src/products/'))).toBe(false);
    // Only the generated part is left out: every other template is hand-written, and checked.
    const templates = readdirSync(join(ROOT, 'charts/glooha-operator/templates'), { withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => `charts/glooha-operator/templates/${d.name}`);
    expect(templates.filter((t) => !files.includes(t))).toEqual([PRODUCTS_TPL]);
  });

  it('the real tree: no file imports a product or names one, but for the listed exemptions', () => {
    const found = checkedFiles()
      .flatMap(mentionsIn)
      .filter((f) => !exempt(f));
    expect(found.map((f) => `${f.file}:${f.line} ${f.what}`)).toEqual([]);
  });

  it('every exemption is used (a stale one would hide nothing, and says what is no longer true)', () => {
    const all = checkedFiles().flatMap(mentionsIn);
    for (const e of EXEMPTIONS)
      expect(
        all.some((f) => f.file === e.path && (e.only === undefined || e.only.test(`${f.line} ${f.what}`))),
        `${e.path}: ${e.why}`,
      ).toBe(true);
  });
});

describe('the check itself (synthetic inputs)', () => {
  const file = join(ROOT, 'src/controller/example.ts');
  const mentions = (code: string) => productMentions(file, code).map((f) => f.what);

  it("fails on each of the misses of the word-regex check it replaces (issue 37's list)", () => {
    expect(mentions(`const m = 'glooha_gloo_leader_lease_age_seconds';`)).toEqual([
      'string "glooha_gloo_leader_lease_age_seconds"',
    ]);
    expect(mentions(`const v = 'GLOO_CHART';`)).toEqual(['string "GLOO_CHART"']);
    expect(mentions(`const g = 'gateway.solo.io';`)).toEqual(['string "gateway.solo.io"']);
    expect(mentions(`const short = 'kgw';`)).toEqual(['string "kgw"']);
    expect(mentions(`const r = /gloo/;`)).toEqual(['regexp /gloo/']);
    expect(mentions(`const p = await import('../products/index.js');`)).toEqual([
      'imports ../products/index.js',
    ]);
    // An engine file anywhere in src/ is checked, src/core and new files included.
    expect(checkedFiles().map((f) => relative(ROOT, f))).toContain('src/core/component-planner.ts');
  });

  it('catches each way of naming a product in TypeScript', () => {
    expect(mentions(`import { GLOO } from '../products/gloo/index.js';`)).toEqual([
      'imports ../products/gloo/index.js',
    ]);
    expect(mentions(`export { X } from '../products/kgateway/facts.js';`)).toEqual([
      'imports ../products/kgateway/facts.js',
    ]);
    expect(mentions(`const p = require('../products/cli.js');`)).toEqual(['imports ../products/cli.js']);
    expect(mentions(`const x = g as GlooHA;`)).toEqual(['identifier GlooHA']);
    expect(mentions(`if (g.kind === KGATEWAY_KIND) {}`)).toEqual(['identifier KGATEWAY_KIND']);
    expect(mentions(`const s = { glooHpas: [] };`)).toEqual(['identifier glooHpas']);
    expect(mentions(`const t = new GlooLeaderTracker();`)).toEqual(['identifier GlooLeaderTracker']);
    expect(mentions(`class A { #kgwClient = 1; }`)).toEqual(['identifier #kgwClient']);
    expect(mentions(`if (c.id === 'gloo') {}`)).toEqual([`string "gloo"`]);
    expect(mentions('const m = `no ${x} kgateway install`;')).toEqual(['template text " kgateway install"']);
    expect(mentions(`const l = 'app=gloo';`)).toEqual([`string "app=gloo"`]);
    expect(mentions(`const k = 'KgatewayHA';`)).toEqual([`string "KgatewayHA"`]);
    expect(mentions(`const r = /^Kgateway[A-Z]/i;`)).toEqual(['regexp /^Kgateway[A-Z]/i']);
  });

  it("leaves the operator's own name, other words that merely contain a product's, and comments", () => {
    expect(
      mentions(
        `const g = 'glooha.io'; const m = metrics.glooha; const n = 'glooha_ready'; type T = GloohaMetrics;`,
      ),
    ).toEqual([]);
    expect(mentions(`const igloo = 'igloos'; const s = 'solos';`)).toEqual([]);
    expect(mentions(`// Gloo's chart labels its Deployments app=gloo\nconst x = 1;`)).toEqual([]);
    expect(mentions(`/* kgateway's deployer */ const y = 2;`)).toEqual([]);
  });

  it('reads templates and chart files outside their comments', () => {
    const hits = (name: string, text: string) => textMentions(join(ROOT, name), text).map((f) => f.line);
    const tpl = [
      '{{- /* Gloo and kgateway are the products */}}',
      '# a YAML comment naming gloo',
      "- apiGroups: ['gateway.solo.io']",
      'expr: up{controller=~"glooha|kgatewayha"}',
      "message: 'set GLOO_CHART'",
      'kind: GlooHA',
      'name: {{ include "glooha-operator.fullname" . }}',
    ].join('\n');
    expect(hits('charts/x/templates/a.yaml', tpl)).toEqual([3, 4, 5, 6]);
    expect(
      hits('src/templates/a.yaml.hbs', '{{!-- kgateway --}}\napiVersion: gateway.kgateway.dev/v1alpha1\n'),
    ).toEqual([2]);
    expect(
      hits('deploy/argocd/health.lua', "-- GlooHA's health\nif obj.kind == 'KgatewayHA' then\n"),
    ).toEqual([2]);
  });

  it("a registered product's kind is a product word (a new product is covered by registering it)", () => {
    for (const p of PRODUCTS) expect(namesProduct(p.kind), p.kind).toBe(true);
    expect(words('GlooHAKgatewayLeaderLeaseStale')).toEqual([
      'gloo',
      'ha',
      'kgateway',
      'leader',
      'lease',
      'stale',
    ]);
    expect(words('glooha_gloo_leader')).toEqual(['glooha', 'gloo', 'leader']);
  });
});
