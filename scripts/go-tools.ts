// The Go tools that tools/build-tools.sh builds from their pinned modules (cached per machine), as the
// scripts and tests that run them find them: an explicit path in the tool's environment variable wins
// (a prebuilt binary), otherwise build-tools.sh is asked for that tool alone (instant when cached; it
// never waits for a tool it was not asked for).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { laneMayUse } from '../test/env/binaries.js';
import { repoRoot } from './sync-chart.js';

export type GoTool = 'actionlint' | 'kube-score' | 'kstatus' | 'argo-health' | 'promtool';

/** Path of `name`: `$<envName>` if set, else the binary tools/build-tools.sh built (or had cached). */
export function goToolPath(name: GoTool, envName: string): string {
  laneMayUse('go tool');
  const explicit = process.env[envName];
  if (explicit) return explicit;
  const out = execFileSync('bash', [join(repoRoot, 'tools', 'build-tools.sh'), name], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return join(out.trim().split('\n').at(-1)!, name);
}
