// The package version, for `--version` of both binaries and the start-up log line. package.json sits
// one level above src/ when run from source, and two above dist/src/ when built: walk up from this
// module until a package.json named glooha-operator turns up.
import { readFileSync } from 'node:fs';

export function version(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'glooha-operator' && pkg.version) return pkg.version;
    } catch {
      /* try the next location */
    }
  }
  return 'unknown';
}
