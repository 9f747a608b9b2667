// Writes each product's CRD (crds/glooha.io_<plural>.yaml) from its kind's description in the registry
// (schema + rule table). With --check it writes nothing and exits 1 when a file on disk differs, so CI
// catches a rule changed without regenerating.
//
//   npm run gen:crd            regenerate
//   npm run gen:crd -- --check verify (CI)

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crdFileOf, renderCrdYaml } from '../src/api/crd-yaml.js';
import { PRODUCTS } from '../src/products/index.js';

let stale = false;
for (const { api } of PRODUCTS) {
  const file = join(import.meta.dirname, '..', 'crds', crdFileOf(api));
  const wanted = renderCrdYaml(api);
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
