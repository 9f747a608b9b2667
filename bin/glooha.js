#!/usr/bin/env node
// The `glooha` command (package.json "bin"). In a checkout — `npx glooha` after `npm ci` — it runs the
// TypeScript source through tsx (a dev dependency), so it needs no build and never runs a stale one.
// From the package (npm pack, npx --package, npm i -g), which ships no TypeScript, it runs the
// compiled CLI in dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(import.meta.resolve('../src/cli/glooha.ts'));
const tsx = existsSync(source) ? await import('tsx/esm/api').catch(() => undefined) : undefined;
if (tsx) {
  tsx.register();
  await import(pathToFileURL(source).href);
} else {
  await import('../dist/src/cli/glooha.js');
}
