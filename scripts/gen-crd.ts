// Writes crds/glooha.io_gloohas.yaml from src/api (schema + rule table). With --check it writes
// nothing and exits 1 when the file on disk differs, so CI catches a rule changed without regenerating.
//
//   npm run gen:crd            regenerate
//   npm run gen:crd -- --check verify (CI)

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdYaml } from '../src/api/crd-yaml.js';

const file = join(import.meta.dirname, '..', 'crds', 'glooha.io_gloohas.yaml');
const wanted = renderCrdYaml();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // a missing file is stale too
  }
  if (current !== wanted) {
    process.stderr.write(`${file} is stale: run npm run gen:crd and commit the result\n`);
    process.exit(1);
  }
  process.stderr.write(`${file} is up to date\n`);
} else {
  writeFileSync(file, wanted);
  process.stderr.write(`wrote ${file}\n`);
}
