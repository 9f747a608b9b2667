// Copies the non-TypeScript files the operator reads at run time (handlebars templates: the engine's in
// src/templates, each product's in its folder) next to the compiled JavaScript, under their paths
// below src/, so `node dist/src/main.js` finds them where the sources do (src/core/templates.ts reads
// them by their path under src/). scripts/bundle.mjs copies them the same way beside the bundle.
/* global process */
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Copies every .hbs file under `src` to the same path under `to`; returns their paths under src/. */
export function copyTemplates(src, to) {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.hbs'))
    .sort();
  for (const f of files) cpSync(join(src, f), join(to, f));
  return files;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  copyTemplates('src', 'dist/src');
