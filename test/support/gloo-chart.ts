// Gloo's real chart (install/helm/gloo, packaged from the github.com/solo-io/gloo module by
// test/env/build-helm.sh) installed and upgraded with the real Helm 4 or Helm 3, as users run them.
//
// No --wait: the chart's proxies are LoadBalancer Services, which never get an address here, so Helm's
// wait would never end. Helm still waits for the chart's hook Jobs (certgen, resource rollout/check),
// which the control plane's Job controller runs and kwok completes. The validating webhook is off
// (gateway.validation.webhook.enabled=false): it points at the gloo Service's validation port, and no
// Gloo process serves it here, so with it on every write of a Gloo resource would wait on a dead
// endpoint (failurePolicy Ignore still costs a timeout each time).
import { BatchV1Api, CoreV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { locateBinaries } from '../env/binaries.js';
import { adminKubeConfig, controlPlane } from './cluster.js';
import type { ControllerPod } from './product-controller.js';

const run = promisify(execFile);

/** Gloo's controller pods as its chart makes them: Deployment gloo, container gloo. */
export const GLOO_CONTROLLER_POD: ControllerPod = { product: 'gloo', deployment: 'gloo', container: 'gloo' };

export type HelmMajor = 4 | 3;
export const HELM_MAJORS: HelmMajor[] = [4, 3];

/**
 * Values every test install uses: the webhook nothing serves is off (see above), and the chart's
 * gloo-resource-rollout Job (a plain Job, not a hook) is removed as soon as it finishes instead of after
 * the chart's 300 s: a Job's template is immutable, so Helm cannot upgrade the release while it is still
 * there (`field is immutable`), with either major — a real install hits that only within 5 minutes.
 */
export const BASE_VALUES = {
  gateway: { validation: { webhook: { enabled: false } }, rolloutJob: { ttlSecondsAfterFinished: 0 } },
};

export function helmBinary(major: HelmMajor): string {
  return locateBinaries().path(major === 4 ? 'helm' : 'helm3');
}

export function glooChart(): string {
  return locateBinaries().glooChart;
}

export interface HelmRun {
  ok: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * How long Helm itself waits for a chart's hook Jobs (its --timeout, on installGloo and upgradeGloo).
 * Helm's default, 5 min, ran out in a cold CI run at load 6-9 while Gloo's pre-upgrade hook Job
 * gloo-resource-migration was still in progress (the Job controller and kwok, on a loaded machine, take
 * their time): a loaded machine is slow, not stuck.
 */
export const HOOK_WAIT = '10m0s';

/** How long one helm command may take before the harness kills it: past Helm's own hook wait, so Helm's message comes first. */
export const HELM_TIMEOUT_MS = 11 * 60_000;

/**
 * Runs helm against the test control plane as the admin; never throws on a non-zero exit. A command
 * killed at its timeout says so, and leaves no pending release behind (see clearPendingRelease).
 */
export async function helm(
  major: HelmMajor,
  args: string[],
  opts: { timeoutMs?: number } = {},
): Promise<HelmRun> {
  const timeoutMs = opts.timeoutMs ?? HELM_TIMEOUT_MS;
  const home = mkdtempSync(join(tmpdir(), `glooha-helm${major}-`));
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(helmBinary(major), args, {
      maxBuffer: 64 << 20,
      timeout: timeoutMs,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        KUBECONFIG: controlPlane().kubeconfigPath,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
    return { ok: true, stdout, stderr, ms: performance.now() - started };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string; killed?: boolean };
    const timedOut = e.killed === true;
    const hooks = await unfinishedHookJobs(args);
    return {
      ok: false,
      stdout: e.stdout ?? '',
      stderr:
        (timedOut
          ? `helm ${major} ${args.slice(0, 2).join(' ')} did not finish within ${timeoutMs / 1000} s and was killed ` +
            `(waiting for the API server's replies, or for the chart's hook Jobs); ${await clearPendingRelease(args)}` +
            (e.stderr ? `\nits output so far:\n${e.stderr}` : '')
          : e.stderr || e.message) + hooks,
      ms: performance.now() - started,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * After a helm install/upgrade/rollback killed mid-way: removes the release revision it left
 * pending-install/-upgrade/-rollback (Helm's record, a Secret labelled owner=helm), so that the next
 * command on the release is not refused with "another operation (install/upgrade/rollback) is in
 * progress" and the release is back at its last finished revision. Only the harness runs helm here, so
 * a pending revision of a killed command is the harness's own leftover. Returns what it did.
 */
export async function clearPendingRelease(args: string[]): Promise<string> {
  const [command, release] = args;
  const namespace = namespaceOf(args);
  if (!['install', 'upgrade', 'rollback'].includes(command ?? '') || !release || !namespace)
    return 'no release record to clear';
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const records = await core.listNamespacedSecret({
    namespace,
    labelSelector: `owner=helm,name=${release}`,
  });
  const pending = records.items.filter((r) => r.metadata?.labels?.status?.startsWith('pending-'));
  for (const r of pending) await core.deleteNamespacedSecret({ name: r.metadata!.name!, namespace });
  return pending.length === 0
    ? `release ${namespace}/${release} has no pending revision`
    : `removed its ${pending.map((r) => `${r.metadata?.labels?.status} revision ${r.metadata?.labels?.version}`).join(', ')} of release ${namespace}/${release}, which is back at its last finished revision`;
}

function namespaceOf(args: string[]): string | undefined {
  const at = args.findIndex((a) => a === '-n' || a === '--namespace');
  return at >= 0 ? args[at + 1] : undefined;
}

/**
 * After a failed install/upgrade/rollback: the release namespace's hook Jobs (annotation helm.sh/hook)
 * that have not completed, each with its pods' phase and the condition holding them, so a hook wait
 * that ran out says which Job and pod it waited for. Empty when every hook Job completed.
 */
export async function unfinishedHookJobs(args: string[]): Promise<string> {
  const namespace = namespaceOf(args);
  if (!['install', 'upgrade', 'rollback'].includes(args[0] ?? '') || !namespace) return '';
  try {
    const kc = adminKubeConfig();
    const jobs = (await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items.filter(
      (j) => j.metadata?.annotations?.['helm.sh/hook'] && !jobCompleted(j),
    );
    if (jobs.length === 0) return '';
    const pods = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items;
    const lines = jobs.map((j) =>
      describeHookJob(
        j,
        pods.filter((p) => p.metadata?.labels?.['job-name'] === j.metadata?.name),
      ),
    );
    return `\nhook Jobs not completed when helm gave up:\n${lines.join('\n')}`;
  } catch (err) {
    return `\n(could not list the hook Jobs in ${namespace}: ${err instanceof Error ? err.message : String(err)})`;
  }
}

function jobCompleted(j: V1Job): boolean {
  return (j.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
}

function describeHookJob(j: V1Job, pods: V1Pod[]): string {
  const st = j.status ?? {};
  const conditions = (st.conditions ?? [])
    .filter((c) => c.status === 'True')
    .map((c) => `${c.type}${c.message ? `: ${c.message}` : ''}`);
  const podText = pods.length
    ? pods
        .map((p) => {
          const waiting = (p.status?.conditions ?? [])
            .filter((c) => c.status !== 'True')
            .map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`);
          return `${p.metadata?.name} ${p.status?.phase ?? 'no phase'}${waiting.length ? `, ${waiting.join(', ')}` : ''}`;
        })
        .join('; ')
    : 'none yet';
  return (
    `  Job ${j.metadata?.namespace}/${j.metadata?.name} (${j.metadata?.annotations?.['helm.sh/hook']} hook): ` +
    `active ${st.active ?? 0}, succeeded ${st.succeeded ?? 0}, failed ${st.failed ?? 0}` +
    `${conditions.length ? `, ${conditions.join('; ')}` : ''}; pods: ${podText}`
  );
}

/** Writes values files for one helm call; removed by the returned cleanup. */
export function valuesFiles(...values: (Record<string, unknown> | string)[]): {
  args: string[];
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-values-'));
  const args = values.flatMap((v, i) => {
    const file = join(dir, `values-${i}.yaml`);
    writeFileSync(file, typeof v === 'string' ? v : JSON.stringify(v));
    return ['-f', file];
  });
  return { args, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function helmWithValues(
  major: HelmMajor,
  args: string[],
  values: (Record<string, unknown> | string)[],
): Promise<HelmRun> {
  const files = valuesFiles(...values);
  try {
    return await helm(major, [...args, ...files.args]);
  } finally {
    files.cleanup();
  }
}

/** `helm install <release> <gloo chart> -n <ns> -f <values>...`; throws with Helm's output on failure. */
export async function installGloo(
  major: HelmMajor,
  namespace: string,
  release: string,
  ...values: (Record<string, unknown> | string)[]
): Promise<HelmRun> {
  const res = await helmWithValues(
    major,
    ['install', release, glooChart(), '-n', namespace, '--timeout', HOOK_WAIT],
    [BASE_VALUES, ...values],
  );
  if (!res.ok) throw new Error(`helm ${major} install failed: ${res.stderr}`);
  return res;
}

/**
 * `helm upgrade <release> <gloo chart> -n <ns> [extra flags] -f <base values> -f <values>...` (the base
 * values are part of every test user's own values file); resolves with the
 * outcome (a failed upgrade is a result here: Helm 4's conflicts are part of the contract).
 */
export async function upgradeGloo(
  major: HelmMajor,
  namespace: string,
  release: string,
  flags: string[],
  ...values: (Record<string, unknown> | string)[]
): Promise<HelmRun> {
  return helmWithValues(
    major,
    ['upgrade', release, glooChart(), '-n', namespace, '--timeout', HOOK_WAIT, ...flags],
    [BASE_VALUES, ...values],
  );
}
