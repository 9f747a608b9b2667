// The one line a newcomer on an old Node.js gets, before anything else fails in a less helpful way
// (npm runs this as the package's `preinstall`, on `npm ci` and `npm install`, and `npm test` runs it
// first). Plain JavaScript that any Node.js since 12 runs: it must work on the versions it refuses.
/* global process, console, URL */
import { readFileSync } from 'node:fs';

/** `>=X.Y.Z` from package.json's engines.node, as [X, Y, Z]. */
export function floorOf(range) {
  const m = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(String(range).trim());
  if (!m) throw new Error(`engines.node ${JSON.stringify(range)}: expected ">=X.Y.Z"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** undefined when `version` (process.versions.node) satisfies `range`; else the line to print. */
export function nodeProblem(version, range) {
  const floor = floorOf(range);
  const have = String(version).split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > floor[i]) return undefined;
    if ((have[i] ?? 0) < floor[i]) {
      return (
        `glooha-operator needs Node.js ${floor.join('.')} or newer (this is ${version}): install Node.js 24 or 26 LTS ` +
        `(https://nodejs.org), or use this machine's cached copy: export PATH="$(bash scripts/node.sh image):$PATH"`
      );
    }
  }
  return undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const problem = nodeProblem(process.versions.node, pkg.engines.node);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
