// One file for the operator: esbuild bundles src/main.ts with the parts of its dependencies it uses
// (tree-shaken ESM; client-node's generated models that nothing reaches are left out), so the image
// needs no node_modules and the process loads less code. Layout of OUT (an operator root, as
// `node OUT/dist/src/main.js`):
//   OUT/dist/src/main.js    the bundle
//   OUT/dist/templates/     the handlebars templates (src/core/templates.ts reads ../templates/)
//   OUT/package.json        name, version and "type": "module" (src/version.ts reads it)
//
//   node scripts/bundle.mjs OUT
/* global process, console */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/bundle.mjs OUTDIR');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
mkdirSync(join(out, 'dist/src'), { recursive: true });
const result = await build({
  entryPoints: ['src/main.ts'],
  outfile: join(out, 'dist/src/main.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${pkg.engines.node.replace(/^>=\s*/, '')}`,
  treeShaking: true,
  minifySyntax: true,
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
  // CommonJS dependencies (handlebars, prom-client, ...) call require(): give the ESM bundle one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
cpSync('src/templates', join(out, 'dist/templates'), { recursive: true });
writeFileSync(
  join(out, 'package.json'),
  JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', license: pkg.license }, null, 2) +
    '\n',
);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.error(`bundle: ${join(out, 'dist/src/main.js')} (${(bytes / 2 ** 20).toFixed(1)} MB of JavaScript)`);
