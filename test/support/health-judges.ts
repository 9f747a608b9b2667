// What GitOps tools make of a GlooHA, computed by their own code rather than by a re-implementation:
// kstatus (sigs.k8s.io/cli-utils, the library Flux's health checks and kpt use) and Argo CD's Lua
// interpreter (gopher-lua) running deploy/argocd/health.lua. Both are small Go programs under tools/
// built by tools/build-tools.sh (cached per machine); $KSTATUS and $ARGO_HEALTH point at prebuilt ones.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { goToolPath } from '../../scripts/go-tools.js';
import { repoRoot } from './operator.js';

export type KstatusStatus = 'InProgress' | 'Failed' | 'Current' | 'Terminating' | 'NotFound' | 'Unknown';
export type ArgoHealth = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';

export interface Verdict<S> {
  status: S;
  message: string;
}

export const ARGO_HEALTH_SCRIPT = join(repoRoot, 'deploy', 'argocd', 'health.lua');

const paths = new Map<string, string>();
function tool(name: 'kstatus' | 'argo-health', envName: string): string {
  let path = paths.get(name);
  if (path === undefined) paths.set(name, (path = goToolPath(name, envName)));
  return path;
}

/** Builds (or finds cached) both judges; call it in beforeAll, where a cold build has time. */
export function buildHealthJudges(): void {
  tool('kstatus', 'KSTATUS');
  tool('argo-health', 'ARGO_HEALTH');
}

/** kstatus' verdict on each object; `null` stands for a deleted object (NotFound). */
export function kstatus(objects: (object | null)[]): Verdict<KstatusStatus>[] {
  const out = execFileSync(tool('kstatus', 'KSTATUS'), { input: JSON.stringify(objects), encoding: 'utf8' });
  return JSON.parse(out) as Verdict<KstatusStatus>[];
}

/** Argo CD's health of each object, from deploy/argocd/health.lua run as Argo CD runs it. */
export function argoHealth(objects: object[], script = ARGO_HEALTH_SCRIPT): Verdict<ArgoHealth>[] {
  const out = execFileSync(tool('argo-health', 'ARGO_HEALTH'), [script], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return JSON.parse(out) as Verdict<ArgoHealth>[];
}
