// Runs a benchmarked process under a memory limit, as the kubelet runs a container with
// `resources.limits.memory`: in a memory cgroup of its own. Node sizes V8's heap from that limit
// (process.constrainedMemory(): on this machine 4,192 MB of heap limit unconstrained, 268 MB under
// the chart's 384Mi), so a process measured without it is not the process the chart deploys.
//
// A `limit=SIZE` token in bench/scale.ts's --node-flags asks for it; SIZE is a Kubernetes quantity
// (384Mi, 1Gi) or `chart`, the operator chart's default limits.memory. Needs root and a memory cgroup
// (v2, or v1's memory controller).
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** A --node-flags token naming a memory limit (`limit=384Mi`, `limit=chart`), not a flag for node. */
export const isLimitToken = (t: string) => t.startsWith('limit=');

const UNITS: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  '': 1,
};

/** Bytes of a `limit=` token's size: a quantity, or `chart` (charts/glooha-operator/values.yaml). */
export function limitBytes(token: string, repoRoot: string): number {
  let size = token.slice('limit='.length);
  if (size === 'chart') {
    const values = parse(readFileSync(join(repoRoot, 'charts/glooha-operator/values.yaml'), 'utf8')) as {
      resources?: { limits?: { memory?: string } };
    };
    size = values.resources?.limits?.memory ?? '';
  }
  const m = /^([0-9]+)(Ki|Mi|Gi|K|M|G|)$/.exec(size);
  if (!m) throw new Error(`${token}: the size must be a quantity such as 384Mi or 1Gi, or "chart"`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export interface MemoryCgroup {
  /** The command that joins the cgroup, then execs `argv` (the same pid: its /proc figures stay its own). */
  wrap(argv: string[]): { command: string; args: string[] };
  /** Removes the cgroup once its process has exited. */
  remove(): void;
}

/** A new memory cgroup limited to `bytes` (v2 when the unified hierarchy is mounted at the root, else v1). */
export function memoryCgroup(name: string, bytes: number): MemoryCgroup {
  const v2 = existsSync(join(CGROUP_ROOT, 'cgroup.controllers'));
  const dir = v2 ? join(CGROUP_ROOT, name) : join(CGROUP_ROOT, 'memory', name);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(bytes));
  } catch (err) {
    rmdirSync(dir);
    throw new Error(
      `cannot limit ${dir} to ${bytes} bytes (${err instanceof Error ? err.message : String(err)}): ` +
        "limit= needs root and the memory controller (on cgroup v2, enabled in the parent's cgroup.subtree_control)",
      { cause: err },
    );
  }
  const procs = join(dir, 'cgroup.procs');
  return {
    wrap: (argv) => ({
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', procs, ...argv],
    }),
    remove: () => rmdirSync(dir),
  };
}
