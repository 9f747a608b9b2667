// One file for the operator: esbuild bundles src/main.ts with the parts of its dependencies it uses
// (tree-shaken ESM; client-node's generated models that nothing reaches are left out), so the image
// needs no node_modules and the process loads less code. Layout of OUT (an operator root, as
// `node OUT/dist/src/main.js`):
//   OUT/dist/src/main.js    the bundle
//   OUT/dist/**/*.hbs       the handlebars templates, by their path under src/ (src/core/templates.ts
//                           reads them from ../ of the module: dist/templates/, dist/products/<p>/)
//   OUT/package.json        name, version and "type": "module" (src/version.ts reads it)
//
//   node scripts/bundle.mjs OUT
// (bin/glooha.js bundles the CLI the same way, as OUT/dist/src/glooha.js.)
/* global process, console, URL */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { escapeNonAscii } from './ascii-source.mjs';
import { copyTemplates } from './copy-assets.mjs';

/**
 * Marks the modules whose path matches `pattern` free of side effects (esbuild's `sideEffects: false`,
 * as a package.json could say): an import nothing uses drops the whole module. client-node's package.json
 * does not say it, and its ~700 generated model classes each assign static fields at load time, which
 * esbuild must otherwise keep although the operator uses none of them (it reads plain JSON).
 */
function sideEffectFree(pattern) {
  return {
    name: 'side-effect-free',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === 'side-effect-free') return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'side-effect-free',
        });
        if (r.errors.length > 0 || !pattern.test(r.path)) return undefined;
        return { ...r, sideEffects: false };
      });
    },
  };
}

/**
 * Bundles `entry` (a path from the repository root) into OUT/dist/src/<entry's name>.js, with the
 * templates and a package.json beside it as laid out above. Used by this script for the operator, and
 * by bin/glooha.js for the CLI from a checkout.
 */
export async function bundle(out, entry = 'src/main.ts') {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  mkdirSync(join(out, 'dist/src'), { recursive: true });
  const outJs = join(out, 'dist/src', `${basename(entry).replace(/\.ts$/, '')}.js`);
  const result = await build({
    entryPoints: [join(root, entry)],
    outfile: outJs,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${pkg.engines.node.replace(/^>=\s*/, '')}`,
    treeShaking: true,
    minifySyntax: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [sideEffectFree(/[\\/]node_modules[\\/]@kubernetes[\\/]client-node[\\/]/)],
    // CommonJS dependencies (handlebars, prom-client, ...) call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  writeFileSync(outJs, escapeNonAscii(readFileSync(outJs, 'utf8')));
  copyTemplates(join(root, 'src'), join(out, 'dist'));
  writeFileSync(
    join(out, 'package.json'),
    JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', license: pkg.license }, null, 2) +
      '\n',
  );
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return { file: outJs, bytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node scripts/bundle.mjs OUTDIR');
    process.exit(2);
  }
  const { file, bytes } = await bundle(out);
  console.error(`bundle: ${file} (${(bytes / 2 ** 20).toFixed(1)} MB of JavaScript)`);
}
