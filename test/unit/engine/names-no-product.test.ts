// The engine names no product. Every product lives in its own folder under src/products/ and reaches
// the engine only through the Product interface (src/controller/product.ts); the engine's folders
// must neither import a product nor name one in code: no identifier and no string literal naming
// Gloo, kgateway or their kinds (GlooHA, KgatewayHA). Comments may (they explain, they do not branch).
// "glooha" alone is the operator's own name (the glooha.io API group, the glooha_* metrics), not
// Gloo's: it is allowed where nothing more follows it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The engine: the manager, the runtime (informers, queues), the reconciler, plan and actions, the
 * transport, leader election, status, health and metrics, the API machinery every kind is built with
 * (src/api), the CLI, and the parts of the pure core every product's desired state is planned with.
 */
export const ENGINE = [
  'src/controller',
  'src/runtime',
  'src/manager',
  'src/kube',
  'src/leader',
  'src/http',
  'src/metrics',
  'src/process',
  'src/api',
  'src/log.ts',
  'src/cli',
  'src/core/component.ts',
  'src/core/component-planner.ts',
  'src/core/observed.ts',
  'src/core/ownership.ts',
  'src/core/rollout-strategy.ts',
  'src/core/scheduling.ts',
  'src/core/selectors.ts',
];

/**
 * Files of the engine's folders that may import the product registry (src/products/index.ts,
 * src/products/cli.ts) and nothing else of src/products, each for a reason; they are otherwise
 * checked as every engine file is:
 *  - src/cli/registry.ts: the CLI's composition root, its one door to the registry (as src/main.ts is
 *    the operator's): the CLI's module-level tables (commands, flags, help) are built from it.
 */
export const REGISTRY_DOORS = new Set(['src/cli/registry.ts']);

const PRODUCTS_DIR = join(ROOT, 'src/products');

/**
 * Whether an identifier names a product: kgateway in any case; gloo in any case unless "ha" follows
 * (glooha, GloohaMetrics: the operator's own name); the kind GlooHA, whatever the case of its G.
 */
function identifierNamesProduct(name: string): boolean {
  return /kgateway/i.test(name) || /gloo(?!ha)/i.test(name) || /[Gg]looHA/.test(name);
}

/** The same for the text of a string literal, where gloo must stand alone (glooha_gloo_... is a metric). */
function textNamesProduct(text: string): boolean {
  return /kgateway/i.test(text) || /\bgloo\b/i.test(text) || /[Gg]looHA/.test(text);
}

/**
 * Identifiers allowed despite the rule, each for a reason:
 *  - GloohaMetrics: the interface of the glooha_* metric families (the operator's name, as `glooha`).
 */
const ALLOWED_IDENTIFIERS = new Set(['GloohaMetrics']);

function files(path: string): string[] {
  const abs = join(ROOT, path);
  if (statSync(abs).isFile()) return [abs];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(abs, f));
}

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** What in `file` names a product: imports from src/products, identifiers, string literals. */
export function productMentions(file: string, text = readFileSync(file, 'utf8')): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Finding[] = [];
  const at = (node: ts.Node, what: string) =>
    out.push({
      file: relative(ROOT, file),
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      what,
    });
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = resolve(dirname(file), node.moduleSpecifier.text);
      if (target === PRODUCTS_DIR || target.startsWith(PRODUCTS_DIR + '/'))
        at(node, `imports ${node.moduleSpecifier.text}`);
      return; // the specifier's text is a path, judged above
    }
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      const name = node.text;
      if (identifierNamesProduct(name) && !ALLOWED_IDENTIFIERS.has(name)) at(node, `identifier ${name}`);
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (textNamesProduct(node.text)) at(node, `string ${JSON.stringify(node.text)}`);
    } else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (textNamesProduct(node.text)) at(node, `template text ${JSON.stringify(node.text)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the engine names no product', () => {
  it('no engine file imports a product or names one in code', () => {
    const throughDoor = (f: Finding) =>
      REGISTRY_DOORS.has(f.file) && /^imports \.\.\/products\/(index|cli)\.js$/.test(f.what);
    const found = ENGINE.flatMap(files)
      .flatMap((f) => productMentions(f))
      .filter((f) => !throughDoor(f));
    expect(found.map((f) => `${f.file}:${f.line} ${f.what}`)).toEqual([]);
  });

  it('the check catches each way of naming a product', () => {
    const file = join(ROOT, 'src/controller/example.ts');
    const mentions = (code: string) => productMentions(file, code).map((f) => f.what);
    expect(mentions(`import { GLOO } from '../products/gloo/index.js';`)).toEqual([
      'imports ../products/gloo/index.js',
    ]);
    expect(mentions(`import { PRODUCTS } from '../products/index.js';`)).toEqual([
      'imports ../products/index.js',
    ]);
    expect(mentions(`const x = g as GlooHA;`)).toEqual(['identifier GlooHA']);
    expect(mentions(`if (g.kind === KGATEWAY_KIND) {}`)).toEqual(['identifier KGATEWAY_KIND']);
    expect(mentions(`const s = { glooHpas: [] };`)).toEqual(['identifier glooHpas']);
    expect(mentions(`const t = new GlooLeaderTracker();`)).toEqual(['identifier GlooLeaderTracker']);
    expect(mentions(`if (c.id === 'gloo') {}`)).toEqual([`string "gloo"`]);
    expect(mentions('const m = `no ${x} kgateway install`;')).toEqual(['template text " kgateway install"']);
    expect(mentions(`const l = 'app=gloo';`)).toEqual([`string "app=gloo"`]);
    expect(mentions(`const o = s.glooHA;`)).toEqual(['identifier glooHA']);
    expect(mentions(`const k = 'KgatewayHA';`)).toEqual([`string "KgatewayHA"`]);
    // The operator's own name is not a product's.
    expect(mentions(`const g = 'glooha.io'; const m = metrics.glooha; const n = 'glooha_ready';`)).toEqual(
      [],
    );
    // Comments explain; they do not branch.
    expect(mentions(`// Gloo's chart labels its Deployments app=gloo\nconst x = 1;`)).toEqual([]);
  });
});
