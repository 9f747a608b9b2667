#!/usr/bin/env node
// The `glooha` command (package.json "bin"). From the package (npm pack, npx --package, npm i -g) it
// runs the compiled CLI in dist/. In a checkout (`npx glooha` after `npm ci`) it runs a bundle of the
// TypeScript source, built on first use with esbuild (a dev dependency, ~1 s of CPU) and cached in
// node_modules/.cache/glooha-cli/ under a hash of everything the bundle is made from (src/,
// package-lock.json, the bundle script): a changed source makes a new bundle, so it never runs a
// stale one, and each later call only hashes and loads (~0.3 s, where transpiling every module on
// each call through tsx took 5-10 s). If the bundle cannot be built, the source runs through tsx.
/* global process, URL */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src', 'cli', 'glooha.ts');

/** A hash of the files the bundle is made from, in a stable order. */
function sourceHash() {
  const hash = createHash('sha256');
  const add = (path) =>
    hash
      .update(`${path}\0`)
      .update(readFileSync(join(root, path)))
      .update('\0');
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  walk('src');
  for (const f of ['package-lock.json', 'scripts/bundle.mjs', 'scripts/ascii-source.mjs']) add(f);
  return hash.digest('hex').slice(0, 16);
}

/** The cached bundle's path, built if missing; undefined if it cannot be built. */
async function cachedBundle() {
  const dir = join(root, 'node_modules', '.cache', 'glooha-cli');
  const out = join(dir, sourceHash());
  const entry = join(out, 'dist', 'src', 'glooha.js');
  if (existsSync(entry)) return entry;
  const building = `${out}.${process.pid}`;
  try {
    mkdirSync(dir, { recursive: true });
    const { bundle } = await import('../scripts/bundle.mjs');
    await bundle(building, 'src/cli/glooha.ts');
    // Whole or not at all: another call may be building the same bundle; the first rename wins.
    renameSync(building, out);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(entry) ? entry : undefined;
}

if (!existsSync(source)) {
  await import('../dist/src/cli/glooha.js');
} else {
  const entry = await cachedBundle();
  if (entry) await import(pathToFileURL(entry).href);
  else {
    const tsx = await import('tsx/esm/api');
    tsx.register();
    await import(pathToFileURL(source).href);
  }
}
