// Writes crds/glooha.io_gloohas.yaml and crds/glooha.io_kgatewayhas.yaml from src/api (schemas + rule table). With --check it writes
// nothing and exits 1 when the file on disk differs, so CI catches a rule changed without regenerating.
//
//   npm run gen:crd            regenerate
//   npm run gen:crd -- --check verify (CI)

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_FILES, renderCrdYaml } from '../src/api/crd-yaml.js';
import type { HAKind } from '../src/api/crd.js';

let stale = false;
for (const [kind, name] of Object.entries(CRD_FILES) as [HAKind, string][]) {
  const file = join(import.meta.dirname, '..', 'crds', name);
  const wanted = renderCrdYaml(kind);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // a missing file is stale too
    }
    if (current !== wanted) {
      process.stderr.write(`${file} is stale: run npm run gen:crd and commit the result\n`);
      stale = true;
    } else {
      process.stderr.write(`${file} is up to date\n`);
    }
  } else {
    writeFileSync(file, wanted);
    process.stderr.write(`wrote ${file}\n`);
  }
}
if (stale) process.exit(1);
