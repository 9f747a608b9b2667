// Running containers of the built image the way a kubelet would run the chart's pods: podman (Debian's,
// daemonless) on the same storage buildah builds into (scripts/image/env.sh), with the flags derived
// from the pod spec the chart renders, not written by hand, so the run proves the chart's settings.
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const envScript = join(import.meta.dirname, 'env.sh');

/** Runs buildah or podman with the project's storage settings; resolves to stdout, rejects with stderr. */
export async function tool(
  name: 'buildah' | 'podman',
  args: string[],
  { timeoutMs = 120_000, withStderr = false } = {},
): Promise<string> {
  try {
    // withStderr: `podman logs` replays a container's stderr on its own stderr.
    const redirect = withStderr ? ' 2>&1' : '';
    const { stdout } = await exec(
      'bash',
      ['-c', `source "${envScript}"; ${name} "$@"${redirect}`, name, ...args],
      { maxBuffer: 64 << 20, timeout: timeoutMs },
    );
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; code?: number; message: string };
    throw new Error(`${name} ${args.slice(0, 3).join(' ')} … failed (${e.code}): ${e.stderr || e.message}`, {
      cause: err,
    });
  }
}

/** Runs a command (e.g. `bash scripts/image/build.sh`), streaming its stderr; resolves to its stdout. */
export function runStreaming(cmd: string, args: string[], log: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    let buf = '';
    child.stderr.on('data', (c: Buffer) => {
      buf += c.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        log(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)),
    );
  });
}

export interface PodContext {
  podName: string;
  namespace: string;
  /** Host directory mounted where a pod's ServiceAccount token, CA and namespace appear. */
  serviceAccountDir?: string;
  /** Environment a pod gets from the cluster (KUBERNETES_SERVICE_HOST/PORT) and test overrides. */
  env: Record<string, string>;
}

/**
 * `podman run` arguments for one container of a pod spec: user and group, read-only root filesystem,
 * dropped capabilities, no privilege escalation, the emptyDir volumes (as tmpfs, with their size
 * limits), the ServiceAccount mount, env with the downward API resolved, command/args. Host network:
 * the test control plane listens on 127.0.0.1.
 */
export function podmanRunArgs(
  pod: V1PodSpec,
  container: V1Container,
  ctx: PodContext,
): { options: string[]; argv: string[] } {
  const sc = { ...pod.securityContext, ...container.securityContext };
  // k8s-file: the default (journald) needs a journal, which a CI container may not run.
  const args = ['--network=host', `--hostname=${ctx.podName}`, '--log-driver=k8s-file', ...currentLimits()];
  const memory = container.resources?.limits?.memory;
  if (memory) args.push(`--memory=${tmpfsSize(String(memory))}`);
  if (sc.runAsUser === undefined) throw new Error(`container ${container.name}: no runAsUser in the chart`);
  args.push(`--user=${sc.runAsUser}:${sc.runAsGroup ?? sc.runAsUser}`);
  if (pod.securityContext?.fsGroup !== undefined) args.push(`--group-add=${pod.securityContext.fsGroup}`);
  // Podman's --read-only also mounts tmpfs on /tmp, /var/tmp and /run unless told not to; a pod gets
  // only the volumes its spec lists.
  if (container.securityContext?.readOnlyRootFilesystem) args.push('--read-only', '--read-only-tmpfs=false');
  for (const cap of container.securityContext?.capabilities?.drop ?? []) args.push(`--cap-drop=${cap}`);
  if (container.securityContext?.allowPrivilegeEscalation === false)
    args.push('--security-opt=no-new-privileges');
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    if (!volume?.emptyDir)
      throw new Error(
        `volume ${mount.name}: only emptyDir volumes can be run here (got ${JSON.stringify(volume)})`,
      );
    const size = volume.emptyDir.sizeLimit ? `,size=${tmpfsSize(String(volume.emptyDir.sizeLimit))}` : '';
    args.push(`--tmpfs=${mount.mountPath}:rw,mode=1777${size}`);
  }
  if (pod.automountServiceAccountToken !== false && ctx.serviceAccountDir)
    args.push(`--volume=${ctx.serviceAccountDir}:/var/run/secrets/kubernetes.io/serviceaccount:ro`);
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (field === 'metadata.name') env[e.name] = ctx.podName;
    else if (field === 'metadata.namespace') env[e.name] = ctx.namespace;
    else if (e.valueFrom)
      throw new Error(`env ${e.name}: unsupported valueFrom ${JSON.stringify(e.valueFrom)}`);
    else env[e.name] = e.value ?? '';
  }
  Object.assign(env, ctx.env);
  for (const [k, v] of Object.entries(env)) args.push(`--env=${k}=${v}`);
  // Kubernetes' `command` replaces the image's ENTRYPOINT, `args` its CMD.
  const [entry, ...rest] = container.command ?? [];
  if (entry) args.push(`--entrypoint=${JSON.stringify([entry])}`);
  return { options: args, argv: [...rest, ...(container.args ?? [])] };
}

/**
 * Explicit open-files and processes limits. Podman running as root otherwise raises both to 1048576,
 * which needs CAP_SYS_RESOURCE, which a CI host that is itself a container may lack (runc then fails
 * with "error setting rlimits"). Open files: this process's own limits. Processes: 4096 (the operator
 * runs a handful of threads), under this process's limit; runc was refused even this machine's own
 * RLIMIT_NPROC value, so no value is copied for it.
 */
export function currentLimits(): string[] {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const read = (label: string) => {
    const m = new RegExp(`^${label}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits);
    const n = (v: string | undefined) => (v === undefined || v === 'unlimited' ? Infinity : Number(v));
    return { soft: n(m?.[1]), hard: n(m?.[2]) };
  };
  const files = read('Max open files');
  const procs = Math.min(4096, read('Max processes').soft);
  const value = (n: number) => (n === Infinity ? '-1' : String(n));
  return [`--ulimit=nofile=${value(files.soft)}:${value(files.hard)}`, `--ulimit=nproc=${procs}:${procs}`];
}

/** A Kubernetes quantity (16Mi, 1Gi, 512Ki or bytes) as a tmpfs size= or --memory value. */
function tmpfsSize(quantity: string): string {
  const m = /^([0-9]+)(Ki|Mi|Gi)?$/.exec(quantity);
  if (!m) throw new Error(`emptyDir.sizeLimit ${quantity}: use a whole number of Ki, Mi or Gi`);
  return `${m[1]}${{ Ki: 'k', Mi: 'm', Gi: 'g' }[m[2] ?? ''] ?? ''}`;
}
