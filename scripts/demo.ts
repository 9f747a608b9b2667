// `npm run demo`: the operator's main job, end to end, on a local Kubernetes control plane.
//
//   npm run demo              run it (about a minute once the control-plane binaries are built)
//   npm run demo -- --ci      the same output without colours, and the full operator logs on failure
//
// What it does: starts the test control plane (real etcd, kube-apiserver, controller-manager, scheduler
// and kwok with 3 simulated nodes), installs the GlooHA CRD and the Helm chart's ServiceAccount and RBAC,
// creates a simulated Gloo install in gloo-system (as Gloo's chart lays it out) with a simulated Gloo
// leader renewing the `gloo` Lease, starts two operator replicas as the chart's ServiceAccount, applies
// examples/glooha.yaml, shows what the operator did, corrects a manual `kubectl scale`, stops the
// leading replica to show the standby take over, and stops everything. Exit status: 0 on success,
// 1 when a step fails (the message says which, with the operator's log tail), 130 when interrupted.
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  AutoscalingV2Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  loadAllYaml,
  setHeaderOptions,
  V1MicroTime,
  type KubeConfig,
  type KubernetesObject,
  type V1Deployment,
  type V1Lease,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GROUP, VERSION } from '../src/api/constants.js';
import { PLURAL } from '../src/products/gloo/api.js';
import type { Condition, ComponentStatus } from '../src/api/types.js';
import type { GlooHA } from '../src/products/gloo/types.js';
import { main as glooha } from '../src/cli/main.js';
import { upgradeCommand, valuesFileOf } from '../src/core/helm-values-yaml.js';
import { GLOO_HELM_CHART } from '../src/products/gloo/helm-values.js';
import { formatMicroTime } from '../src/leader/lease-client.js';
import { locateBinaries } from '../test/env/binaries.js';
import { startControlPlane, type ControlPlane } from '../test/env/controlplane.js';
import { adminKubeConfig, installCrds, setControlPlane } from '../test/support/cluster.js';
import { createGlooInstall } from '../test/support/gloo-install.js';
import {
  boundToPod,
  installOperatorRbac,
  metricValue,
  repoRoot,
  spawnOperator,
  type OperatorIdentity,
  type OperatorProcess,
} from '../test/support/operator.js';

const OPERATOR_NAMESPACE = 'glooha-system';
const OPERATOR_RELEASE = 'glooha-operator';
const OPERATOR_LEASE = 'glooha-operator';
const GLOO_NAMESPACE = 'gloo-system';
const GLOO_LEADER = 'gloo-5d8f7c9b4-x7k2p';
const GLOO_LEASE_SECONDS = 15; // Gloo's default leaseDuration
const GLOO_RENEW_MS = 2000; // Gloo's default retryPeriod: the leader renews this often
const NODES = 3;
const EXAMPLE = 'examples/glooha.yaml';
const MANAGED = 'app.kubernetes.io/managed-by=glooha-operator';
const STEPS = 9;

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface DemoOptions {
  /** Where output lines go (default: stdout). */
  out?: (line: string) => void;
  /** No colours, full operator logs on failure. */
  ci?: boolean;
  /** Aborting it (Ctrl-C) stops the demo at the next wait and cleans up. */
  signal?: AbortSignal;
}

/** Exit status of a run: 0 success, 1 a step failed, 130 interrupted. */
export type DemoResult = 0 | 1 | 130;

class DemoFailure extends Error {}
class Interrupted extends Error {}

// ---------------------------------------------------------------------------------------------------
// Output

interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
}

function makeStyle(color: boolean): Style {
  const wrap = (code: string) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { bold: wrap('1'), dim: wrap('2'), green: wrap('32'), yellow: wrap('33'), red: wrap('31') };
}

/** Rows as aligned columns (plain text: no colour codes inside cells, they would break the padding). */
function table(headers: string[], rows: string[][], indent = '    '): string[] {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map(
    (r) =>
      indent +
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('   ')
        .trimEnd(),
  );
}

function fmtMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A value as a person reads it: a string as is, anything else as JSON. */
const show = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

function budget(pdb: { minAvailable?: unknown; maxUnavailable?: unknown } | undefined): string {
  if (!pdb) return '-';
  if (pdb.minAvailable !== undefined) return `minAvailable ${show(pdb.minAvailable)}`;
  if (pdb.maxUnavailable !== undefined) return `maxUnavailable ${show(pdb.maxUnavailable)}`;
  return '-';
}

function selectorText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

function rulesText(rules: V1PolicyRule[] | undefined): string[][] {
  return (rules ?? []).map((r) => [
    (r.apiGroups ?? []).map((g) => g || '(core)').join(', '),
    (r.resources ?? []).join(', '),
    r.resourceNames?.length ? r.resourceNames.join(', ') : '(any)',
    (r.verbs ?? []).join(', '),
  ]);
}
const RULE_HEADERS = ['API GROUP', 'RESOURCES', 'NAMES', 'VERBS'];

/** One operator JSON log record as a readable line: `12:00:01.123 info  msg  key=value ...`. */
function formatLogRecord(r: Record<string, unknown>): string {
  if (r.raw) return String(r.msg);
  const { ts, level, msg, logger: _logger, pod: _pod, ...rest } = r;
  const time = typeof ts === 'string' ? ts.slice(11, 23) : '';
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${show(level ?? '').padEnd(5)} ${String(msg)}${fields ? `  ${fields}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// The simulated Gloo leader: a gloo pod holding the `gloo` Lease and renewing it every 2 s, as Gloo does.

class GlooLeaderSimulation {
  renewals = 0;
  readonly errors: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leases: CoordinationV1Api,
    readonly namespace: string,
    readonly holder: string,
  ) {}

  async start(): Promise<void> {
    // Typed bodies take V1MicroTime (serialized with 6 fractional digits, as the API server requires).
    const now = new V1MicroTime(formatMicroTime(new Date()));
    await this.leases.createNamespacedLease({
      namespace: this.namespace,
      body: {
        metadata: { name: 'gloo' },
        spec: {
          holderIdentity: this.holder,
          leaseDurationSeconds: GLOO_LEASE_SECONDS,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        },
      },
    });
    this.timer = setInterval(() => void this.renew(), GLOO_RENEW_MS);
  }

  private async renew(): Promise<void> {
    try {
      await this.leases.patchNamespacedLease(
        {
          name: 'gloo',
          namespace: this.namespace,
          body: { spec: { renewTime: formatMicroTime(new Date()) } },
        },
        mergePatch,
      );
      this.renewals++;
    } catch (err) {
      if (this.timer) this.errors.push(err instanceof Error ? err.message : String(err));
    }
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// The demo

interface Replica {
  name: string;
  proc: OperatorProcess;
  identity: string;
  metricsUrl: string;
  /** Set before the demo stops it on purpose; an exit without it is a failure. */
  stopping: boolean;
  exitCode: number | null | undefined;
}

interface Clients {
  kc: KubeConfig;
  apps: AppsV1Api;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  policy: PolicyV1Api;
  rbac: RbacAuthorizationV1Api;
  autoscaling: AutoscalingV2Api;
  leases: CoordinationV1Api;
  authz: AuthorizationV1Api;
  admission: AdmissionregistrationV1Api;
  objects: KubernetesObjectApi;
}

class Demo {
  private readonly s: Style;
  private readonly out: (line: string) => void;
  private readonly started = performance.now();
  private step = 0;
  private stepTitle = '';
  private plane: ControlPlane | undefined;
  private id: OperatorIdentity | undefined;
  private c: Clients | undefined;
  private gloo: GlooLeaderSimulation | undefined;
  private readonly replicas: Replica[] = [];
  private readonly before = new Map<string, string>();

  constructor(private readonly opts: DemoOptions) {
    this.out = opts.out ?? ((line) => process.stdout.write(line + '\n'));
    const color = !opts.ci && !process.env.NO_COLOR && process.stdout.isTTY === true;
    this.s = makeStyle(color);
  }

  // --- output helpers -------------------------------------------------------------------------------

  private print(...lines: string[]): void {
    for (const l of lines) this.out(l);
  }

  private heading(title: string): void {
    this.step++;
    this.stepTitle = title;
    const elapsed = `+${fmtMs(performance.now() - this.started)}`;
    const left = `[${this.step}/${STEPS}] ${title}`;
    this.print(
      '',
      this.s.bold(`${left}${' '.repeat(Math.max(2, 96 - left.length - elapsed.length))}`) +
        this.s.dim(elapsed),
    );
    this.print(this.s.dim('-'.repeat(96)));
  }

  private sub(title: string): void {
    this.print('', `  ${this.s.bold(title)}`);
  }

  private ok(text: string): void {
    this.print(`  ${this.s.green('✓')} ${text}`);
  }

  private info(text: string): void {
    this.print(`  ${text}`);
  }

  private warn(text: string): void {
    this.print(`  ${this.s.yellow('!')} ${text}`);
  }

  private clients(): Clients {
    if (!this.c) throw new Error('no control plane yet');
    return this.c;
  }

  // --- health and waiting ---------------------------------------------------------------------------

  /** Throws when Ctrl-C was pressed, an operator replica died, or a control-plane process died. */
  private check(): void {
    if (this.opts.signal?.aborted) throw new Interrupted('interrupted');
    for (const r of this.replicas) {
      if (r.exitCode !== undefined && !r.stopping)
        throw new DemoFailure(`operator replica ${r.name} exited unexpectedly (exit code ${r.exitCode})`);
    }
    const failures = this.plane?.failures() ?? [];
    if (failures.length) throw new DemoFailure(`a control-plane process failed:\n${failures.join('\n')}`);
  }

  private async waitFor<T>(
    what: string,
    probe: () => Promise<T>,
    accept: (v: T) => boolean,
    opts: { timeoutMs: number; intervalMs?: number; describe?: (v: T) => string; onValue?: (v: T) => void },
  ): Promise<T> {
    const deadline = performance.now() + opts.timeoutMs;
    let last: string;
    for (;;) {
      this.check();
      try {
        const v = await probe();
        opts.onValue?.(v);
        if (accept(v)) return v;
        last = opts.describe ? opts.describe(v) : JSON.stringify(v);
      } catch (err) {
        last = `error: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (performance.now() > deadline)
        throw new DemoFailure(
          `timed out after ${fmtMs(opts.timeoutMs)} waiting for ${what}; last seen: ${last}`,
        );
      await sleep(opts.intervalMs ?? 200);
    }
  }

  // --- reads ----------------------------------------------------------------------------------------

  private async glooHA(): Promise<GlooHA> {
    return (await this.clients().custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: GLOO_NAMESPACE,
      plural: PLURAL,
      name: 'gloo',
    })) as GlooHA;
  }

  private deployment(name: string): Promise<V1Deployment> {
    return this.clients().apps.readNamespacedDeployment({ name, namespace: GLOO_NAMESPACE });
  }

  private operatorLease(): Promise<V1Lease> {
    return this.clients().leases.readNamespacedLease({ name: OPERATOR_LEASE, namespace: OPERATOR_NAMESPACE });
  }

  private async leading(r: Replica): Promise<number> {
    return metricValue(r.metricsUrl, 'leader_election_master_status').catch(() => -1);
  }

  private replicaOf(holder: string | undefined): Replica | undefined {
    return this.replicas.find((r) => r.identity === holder);
  }

  private async driftCorrections(r: Replica): Promise<number> {
    // A labelled counter has no series until its first increment.
    return metricValue(r.metricsUrl, 'glooha_drift_corrections_total').catch(() => 0);
  }

  private condition(g: GlooHA, type: string): Condition | undefined {
    return g.status?.conditions?.find((c) => c.type === type);
  }

  private async waitReady(timeoutMs: number, progress: boolean): Promise<GlooHA> {
    let shown = '';
    return this.waitFor(
      'GlooHA gloo-system/gloo to become Ready=True',
      () => this.glooHA(),
      (g) =>
        this.condition(g, 'Ready')?.status === 'True' &&
        g.status?.observedGeneration === g.metadata.generation,
      {
        timeoutMs,
        intervalMs: 250,
        describe: (g) => {
          const r = this.condition(g, 'Ready');
          return r ? `Ready=${r.status} (${r.reason}): ${r.message}` : 'no Ready condition yet';
        },
        onValue: (g) => {
          const r = this.condition(g, 'Ready');
          const line = r ? `Ready=${r.status} (${r.reason}): ${r.message}` : '';
          if (progress && line && line !== shown && r?.status !== 'True') {
            shown = line;
            this.print(this.s.dim(`    … ${line}`));
          }
        },
      },
    );
  }

  // --- steps ----------------------------------------------------------------------------------------

  async run(): Promise<DemoResult> {
    const s = this.s;
    this.print(
      s.bold('glooha-operator demo'),
      'Makes a (simulated) Gloo install in gloo-system highly available, on a local Kubernetes control plane.',
    );
    let result: DemoResult = 0;
    try {
      await this.startCluster();
      await this.createGloo();
      await this.startOperators();
      await this.applyGlooHA();
      await this.show();
      await this.drift();
      await this.failover();
      await this.cliReport();
    } catch (err) {
      result = this.reportFailure(err);
    }
    const cleanedUp = await this.cleanup(result === 0, result === 1);
    if (result === 0 && !cleanedUp) result = 1;
    const total = fmtMs(performance.now() - this.started);
    if (result === 0)
      this.print('', s.green(s.bold(`Demo finished in ${total}: everything worked and was stopped.`)));
    else if (result === 130)
      this.print('', s.yellow(`Demo interrupted after ${total}; everything was stopped.`));
    else this.print('', s.red(s.bold(`Demo FAILED after ${total} (exit status 1).`)));
    return result;
  }

  private async startCluster(): Promise<void> {
    this.heading('Start a local Kubernetes control plane; install the CRD and the operator RBAC');
    this.info(
      'etcd, kube-apiserver (RBAC on, real ServiceAccount tokens), kube-controller-manager, kube-scheduler',
    );
    this.info(`and kwok with ${NODES} simulated nodes whose pods become Running and Ready.`);
    this.warn(
      'The first run on a machine builds these from pinned Go modules: that can take ~25 minutes. Later runs reuse the cache.',
    );
    const t0 = performance.now();
    this.plane = await startControlPlane({
      nodes: NODES,
      log: (line) => this.print(this.s.dim(`    · ${line.split('\n')[0]}`)),
    });
    this.check();
    const { failures: _f, stop: _s, ...info } = this.plane;
    setControlPlane(info);
    const kc = adminKubeConfig();
    this.c = {
      kc,
      apps: kc.makeApiClient(AppsV1Api),
      core: kc.makeApiClient(CoreV1Api),
      custom: kc.makeApiClient(CustomObjectsApi),
      policy: kc.makeApiClient(PolicyV1Api),
      rbac: kc.makeApiClient(RbacAuthorizationV1Api),
      autoscaling: kc.makeApiClient(AutoscalingV2Api),
      leases: kc.makeApiClient(CoordinationV1Api),
      authz: kc.makeApiClient(AuthorizationV1Api),
      admission: kc.makeApiClient(AdmissionregistrationV1Api),
      objects: KubernetesObjectApi.makeApiClient(kc),
    };
    const nodes = (await this.c.core.listNode()).items;
    this.ok(`control plane ready in ${fmtMs(performance.now() - t0)} at ${this.plane.server}`);
    this.print(
      ...table(
        ['NODE', 'ZONE', 'READY'],
        nodes.map((n) => [
          n.metadata?.name ?? '',
          n.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '',
          n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '?',
        ]),
      ),
    );
    this.print(this.s.dim(`    (admin kubeconfig while the demo runs: ${this.plane.kubeconfigPath})`));

    await installCrds();
    this.ok(`CRD gloohas.${GROUP} applied from crds/ and Established`);

    for (const name of [OPERATOR_NAMESPACE, GLOO_NAMESPACE])
      await this.c.core.createNamespace({ body: { metadata: { name } } });
    // The RBAC comes from the chart as `helm template` renders it (helm is built with the control plane).
    process.env.HELM ||= locateBinaries().path('helm');
    // What the chart installs: the RBAC, the server-side fencing policy (waited for until enforced)
    // and the replicas-floor policies, each ValidatingAdmissionPolicy with its binding.
    this.id = await installOperatorRbac(OPERATOR_NAMESPACE, {
      release: OPERATOR_RELEASE,
      fencingPolicy: true,
    });
    const role = await this.c.rbac.readClusterRole({ name: OPERATOR_RELEASE });
    this.ok(
      `operator RBAC from charts/glooha-operator (release ${OPERATOR_RELEASE}): ServiceAccount ` +
        `${OPERATOR_NAMESPACE}/${this.id.serviceAccount}, ClusterRole and ClusterRoleBinding ${OPERATOR_RELEASE}`,
    );
    const policies = (await this.c.admission.listValidatingAdmissionPolicy()).items
      .map((p) => p.metadata?.name ?? '')
      .filter((n) => n.startsWith(`${OPERATOR_RELEASE}-`))
      .sort();
    this.ok(
      `admission policies from the chart, bound and enforced: ${policies.join(', ')} ` +
        "(fencing: only the Lease holder's pod writes; replicas floor: Deployment writes and kubectl scale)",
    );
    const rules = role.rules ?? [];
    const broad = rules.some((r) =>
      [...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs].some((x) => x === '*' || x === 'secrets'),
    );
    this.info(
      `ClusterRole ${OPERATOR_RELEASE} grants exactly this` +
        (broad ? ' (WARNING: a wildcard or secrets access):' : ' (no wildcards, no secrets):'),
    );
    this.print(...table(RULE_HEADERS, rulesText(role.rules), '      '));
  }

  private async createGloo(): Promise<void> {
    this.heading(`Create a simulated Gloo install in ${GLOO_NAMESPACE}, as Gloo's Helm chart lays it out`);
    const c = this.clients();
    await createGlooInstall(c.kc, {
      namespace: GLOO_NAMESPACE,
      discovery: true,
      proxies: ['gateway-proxy', 'public-gw'],
      autoscaled: { 'public-gw': { minReplicas: 2, maxReplicas: 5 } },
    });
    const names = ['gloo', 'discovery', 'gateway-proxy', 'public-gw'];
    await this.waitFor(
      'the Gloo Deployments to be available',
      () => Promise.all(names.map((n) => this.deployment(n))),
      (ds) => ds.every((d) => (d.status?.availableReplicas ?? 0) >= 1),
      {
        timeoutMs: 60_000,
        describe: (ds) =>
          ds.map((d) => `${d.metadata?.name} ${d.status?.availableReplicas ?? 0} available`).join(', '),
      },
    );
    const hpa = await c.autoscaling.readNamespacedHorizontalPodAutoscaler({
      name: 'public-gw-hpa',
      namespace: GLOO_NAMESPACE,
    });
    const rows: string[][] = [];
    for (const n of names) {
      const d = await this.deployment(n);
      const replicas =
        n === 'public-gw'
          ? `HPA ${hpa.spec?.minReplicas}..${hpa.spec?.maxReplicas}`
          : String(d.spec?.replicas ?? '-');
      this.before.set(n, replicas);
      rows.push([
        n,
        replicas,
        d.spec?.template.spec?.serviceAccountName ?? '-',
        selectorText(d.spec?.selector?.matchLabels),
        'none',
      ]);
    }
    this.ok('Deployments, ServiceAccounts and an HPA created with field manager "helm":');
    this.print(...table(['DEPLOYMENT', 'REPLICAS', 'SERVICE ACCOUNT', 'SELECTOR', 'PDB'], rows));
    this.info(
      'This is the HA gap the operator closes: single replicas, no PodDisruptionBudgets, no anti-affinity.',
    );

    this.gloo = new GlooLeaderSimulation(c.leases, GLOO_NAMESPACE, GLOO_LEADER);
    await this.gloo.start();
    this.ok(
      `simulated Gloo leader ${GLOO_LEADER} holds Lease ${GLOO_NAMESPACE}/gloo ` +
        `(leaseDuration ${GLOO_LEASE_SECONDS} s) and renews it every ${GLOO_RENEW_MS / 1000} s`,
    );
  }

  private async startOperators(): Promise<void> {
    this.heading("Start two operator replicas as the chart's ServiceAccount (leader election on)");
    const id = this.id;
    if (!id) throw new Error('operator RBAC not installed');
    for (const name of ['glooha-operator-0', 'glooha-operator-1']) {
      // The fencing policy admits the operator's writes only with a token bound to the Lease holder's
      // pod, as in a cluster: each process gets one bound to its (kwok) pod, and requires the policy,
      // as the chart's Deployment sets it.
      const proc = spawnOperator(await boundToPod(id, name), {
        podName: name,
        env: { LEADER_ELECT_REQUIRE_FENCING_POLICY: 'true' },
      });
      const replica: Replica = {
        name,
        proc,
        identity: '',
        metricsUrl: '',
        stopping: false,
        exitCode: undefined,
      };
      void proc.exited.then((code) => (replica.exitCode = code));
      this.replicas.push(replica);
    }
    for (const r of this.replicas) {
      let url = '';
      void r.proc.metricsUrl.then((u) => (url = u));
      await this.waitFor(
        `${r.name} to serve /metrics`,
        () => Promise.resolve(url),
        (u) => u !== '',
        { timeoutMs: 60_000, intervalMs: 100, describe: () => 'not listening yet' },
      );
      r.metricsUrl = url;
      const started = r.proc.logs.find((l) => l.msg === 'starting') as
        { leaderElection?: { identity?: string } } | undefined;
      r.identity = started?.leaderElection?.identity ?? '';
      if (!r.identity) throw new DemoFailure(`${r.name} did not log its leader-election identity`);
    }
    this.info(
      `Each runs src/main.ts in its own process with a token of ${OPERATOR_NAMESPACE}/${id.serviceAccount}` +
        ' and competes for the Lease glooha-system/glooha-operator.',
    );
    const lease = await this.waitFor(
      'one operator replica to acquire the glooha-operator Lease',
      () => this.operatorLease(),
      (l) => this.replicaOf(l.spec?.holderIdentity) !== undefined,
      { timeoutMs: 60_000, describe: (l) => `holder "${l.spec?.holderIdentity ?? ''}"` },
    );
    const leader = this.replicaOf(lease.spec?.holderIdentity);
    await this.waitFor(
      `${leader?.name} to report leader_election_master_status 1`,
      () => Promise.all(this.replicas.map((r) => this.leading(r))),
      (v) => v.filter((x) => x === 1).length === 1 && v.filter((x) => x === 0).length === 1,
      { timeoutMs: 30_000, describe: (v) => v.join(', ') },
    );
    await this.printReplicas();
  }

  private async printReplicas(): Promise<void> {
    const lease = await this.operatorLease();
    const rows: string[][] = [];
    for (const r of this.replicas) {
      const running = r.exitCode === undefined;
      const m = running ? await this.leading(r) : -1;
      rows.push([
        r.name,
        r.identity,
        !running
          ? `stopped (exit ${r.exitCode})`
          : lease.spec?.holderIdentity === r.identity
            ? 'LEADER'
            : 'standby',
        running ? String(m) : '-',
        running ? r.metricsUrl + '/metrics' : '-',
      ]);
    }
    this.print(
      ...table(
        ['REPLICA', 'IDENTITY (Lease holder)', 'ROLE', 'leader_election_master_status', 'METRICS'],
        rows,
      ),
    );
    this.print(
      this.s.dim(
        `    Lease ${OPERATOR_NAMESPACE}/${OPERATOR_LEASE}: holder ${lease.spec?.holderIdentity || '(none)'}, ` +
          `leaseDuration ${lease.spec?.leaseDurationSeconds} s, transitions ${lease.spec?.leaseTransitions ?? 0}`,
      ),
    );
  }

  private async applyGlooHA(): Promise<void> {
    this.heading(`Apply ${EXAMPLE} (kubectl apply --server-side) and wait for Ready`);
    const c = this.clients();
    const docs = loadAllYaml(readFileSync(join(repoRoot, EXAMPLE), 'utf8')) as (KubernetesObject | null)[];
    for (const doc of docs) {
      if (!doc) continue;
      await c.objects.patch(doc, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);
      this.ok(`${doc.kind} ${doc.metadata?.namespace}/${doc.metadata?.name} applied`);
    }
    this.info(
      'It asks for: gloo 3 replicas with leader election (20s/15s/3s), PDB maxUnavailable 1, required anti-affinity;',
    );
    this.info(
      'gatewayProxy 3 replicas, PDB minAvailable 2; publicGw autoscaled 3..12, PDB minAvailable 2, zone spread; drift enforced.',
    );
    const t0 = performance.now();
    await this.waitReady(180_000, true);
    this.ok(`GlooHA gloo-system/gloo is Ready=True ${fmtMs(performance.now() - t0)} after it was applied`);

    // Ready means every component has its desired ready replicas; surge pods of the rollouts may still be
    // terminating. Let them go, so the tables below show the settled state.
    const names = ['gloo', 'discovery', 'gateway-proxy', 'public-gw'];
    const settled = (d: V1Deployment) =>
      (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
      [d.status?.replicas, d.status?.updatedReplicas, d.status?.readyReplicas].every(
        (n) => n === d.spec?.replicas,
      );
    const ds = await this.waitFor(
      'the rollouts to finish',
      () => Promise.all(names.map((n) => this.deployment(n))),
      (list) => list.every(settled),
      {
        timeoutMs: 90_000,
        describe: (list) =>
          list
            .filter((d) => !settled(d))
            .map(
              (d) =>
                `${d.metadata?.name}: ${d.status?.updatedReplicas ?? 0} updated, ${d.status?.readyReplicas ?? 0} ready, ` +
                `${d.status?.replicas ?? 0} total of ${d.spec?.replicas}`,
            )
            .join('; '),
      },
    );
    this.ok(
      `rollouts finished: ${ds.map((d) => `${d.metadata?.name} ${d.status?.readyReplicas}/${d.spec?.replicas}`).join(', ')}`,
    );
    // The status follows the Deployments' status; give it a moment to catch up (display only).
    await this.waitFor(
      'the GlooHA status to show the settled replicas',
      () => this.glooHA(),
      (g) => {
        const c = g.status?.components;
        const all = [c?.gloo, c?.discovery, ...Object.values(c?.gatewayProxies ?? {})];
        return all.every((x) => x !== undefined && x.replicas === x.readyReplicas);
      },
      { timeoutMs: 15_000, describe: () => 'status not caught up' },
    ).catch((err: unknown) => {
      if (!(err instanceof DemoFailure)) throw err;
    });
  }

  private async show(): Promise<void> {
    this.heading('What the operator did, and what it reports');
    const g = await this.glooHA();
    await this.showDeployments();
    await this.showPdbs();
    await this.showGlooRbac();
    await this.showHpas();
    await this.showHelmValues(g);
    this.printStatus(g);
    this.sub('Which operator replica leads');
    await this.printReplicas();
  }

  private async showDeployments(): Promise<void> {
    const c = this.clients();
    const ns = GLOO_NAMESPACE;
    this.sub(`Deployments in ${ns} (patched by server-side apply as field manager glooha-operator)`);
    const hpas = (await c.autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items;
    const rows: string[][] = [];
    for (const n of ['gloo', 'discovery', 'gateway-proxy', 'public-gw']) {
      const d = await this.deployment(n);
      const hpa = hpas.find((h) => h.spec?.scaleTargetRef.name === n);
      const aa = d.spec?.template.spec?.affinity?.podAntiAffinity;
      const now = hpa
        ? `HPA ${hpa.spec?.minReplicas}..${hpa.spec?.maxReplicas}`
        : String(d.spec?.replicas ?? '-');
      rows.push([
        n,
        `${this.before.get(n) ?? '?'} -> ${now}`,
        `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
        aa?.requiredDuringSchedulingIgnoredDuringExecution
          ? 'required'
          : aa?.preferredDuringSchedulingIgnoredDuringExecution
            ? 'preferred'
            : 'none',
        (d.spec?.template.spec?.topologySpreadConstraints ?? [])
          .map((t) => `${t.topologyKey.split('/').pop()} skew ${t.maxSkew} ${t.whenUnsatisfiable}`)
          .join('; ') || '-',
      ]);
    }
    this.print(
      ...table(['DEPLOYMENT', 'REPLICAS (before -> now)', 'READY', 'ANTI-AFFINITY', 'SPREAD'], rows),
    );

    const gloo = await this.deployment('gloo');
    const env = (gloo.spec?.template.spec?.containers.find((x) => x.name === 'gloo')?.env ?? []).filter((e) =>
      e.name.startsWith('LEADER_ELECTION_'),
    );
    this.info("gloo container env for Gloo's leader election (Gloo reads these at start):");
    for (const e of env) this.info(`    ${e.name}=${e.value}`);

    const nodes = new Map(
      (await c.core.listNode()).items.map((n) => [
        n.metadata?.name ?? '',
        n.metadata?.labels?.['topology.kubernetes.io/zone'] ?? '',
      ]),
    );
    const pods = (await c.core.listNamespacedPod({ namespace: ns, labelSelector: 'gloo=gloo' })).items.filter(
      (p) => !p.metadata?.deletionTimestamp,
    );
    this.info('gloo pods and where they run:');
    this.print(
      ...table(
        ['POD', 'NODE', 'ZONE', 'PHASE'],
        pods.map((p) => [
          p.metadata?.name ?? '',
          p.spec?.nodeName ?? '(pending)',
          nodes.get(p.spec?.nodeName ?? '') ?? '',
          p.status?.phase ?? '',
        ]),
        '      ',
      ),
    );
    this.warnAntiAffinityRollout(gloo, nodes.size);
  }

  /**
   * Required anti-affinity allows one gloo pod per node, so a rolling update that adds a pod before it
   * removes one needs a spare node. The operator sets maxSurge 0 / maxUnavailable 1 (in place); show it.
   */
  private warnAntiAffinityRollout(gloo: V1Deployment, nodeCount: number): void {
    const replicas = gloo.spec?.replicas ?? 0;
    if (!gloo.spec?.template.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution)
      return;
    const pods = (v: string | number | undefined, round: (x: number) => number) =>
      typeof v === 'number' ? v : round((replicas * parseInt(v ?? '25%', 10)) / 100);
    const surge = pods(gloo.spec.strategy?.rollingUpdate?.maxSurge, Math.ceil);
    const unavailable = pods(gloo.spec.strategy?.rollingUpdate?.maxUnavailable, Math.floor);
    const need = replicas + surge - unavailable;
    this.info(
      `required anti-affinity: one gloo pod per node; rollouts use maxSurge ${surge} / maxUnavailable ${unavailable}`,
    );
    const line =
      nodeCount >= need
        ? `    so ${replicas} replicas need ${Math.max(need, replicas)} nodes for the pods and ${need} to roll out: this cluster has ${nodeCount}, rollouts finish.`
        : `    so ${replicas} replicas need ${need} nodes to roll out, and this cluster has only ${nodeCount}: the next rollout stalls.`;
    if (nodeCount >= need) this.info(line);
    else this.warn(line.trim());
  }

  private async showPdbs(): Promise<void> {
    const c = this.clients();
    const ns = GLOO_NAMESPACE;
    this.sub('PodDisruptionBudgets (owned by the GlooHA: deleted with it)');
    const pdbs = (await c.policy.listNamespacedPodDisruptionBudget({ namespace: ns, labelSelector: MANAGED }))
      .items;
    this.print(
      ...table(
        ['PDB', 'SELECTOR', 'BUDGET', 'HEALTHY / NEEDED', 'ALLOWED DISRUPTIONS'],
        pdbs.map((p) => [
          p.metadata?.name ?? '',
          selectorText(p.spec?.selector?.matchLabels),
          budget(p.spec),
          `${p.status?.currentHealthy ?? '?'} / ${p.status?.desiredHealthy ?? '?'}`,
          String(p.status?.disruptionsAllowed ?? '?'),
        ]),
      ),
    );
  }

  private async showGlooRbac(): Promise<void> {
    const c = this.clients();
    const ns = GLOO_NAMESPACE;
    const gloo = await this.deployment('gloo');
    this.sub("Role and RoleBinding for Gloo's leader election (least privilege: only the gloo Lease)");
    const roles = (await c.rbac.listNamespacedRole({ namespace: ns, labelSelector: MANAGED })).items;
    const bindings = (await c.rbac.listNamespacedRoleBinding({ namespace: ns, labelSelector: MANAGED }))
      .items;
    for (const r of roles) {
      this.info(`Role ${r.metadata?.name}:`);
      this.print(...table(RULE_HEADERS, rulesText(r.rules), '      '));
    }
    for (const b of bindings)
      this.info(
        `RoleBinding ${b.metadata?.name}: Role ${b.roleRef.name} -> ` +
          (b.subjects ?? []).map((x) => `${x.kind} ${x.namespace}/${x.name}`).join(', '),
      );
    const sa = gloo.spec?.template.spec?.serviceAccountName ?? 'default';
    const checks: [string, string, string, string | undefined][] = [
      ['get', 'coordination.k8s.io', 'leases', 'gloo'],
      ['update', 'coordination.k8s.io', 'leases', 'gloo'],
      ['create', 'coordination.k8s.io', 'leases', undefined],
      ['update', 'coordination.k8s.io', 'leases', 'some-other-lease'],
      ['delete', 'coordination.k8s.io', 'leases', 'gloo'],
      ['get', '', 'secrets', undefined],
    ];
    const answers: string[][] = [];
    for (const [verb, group, resource, name] of checks) {
      const review = await c.authz.createSubjectAccessReview({
        body: {
          spec: {
            user: `system:serviceaccount:${ns}:${sa}`,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
            resourceAttributes: { namespace: ns, verb, group, resource, ...(name ? { name } : {}) },
          },
        },
      });
      answers.push([`${verb} ${resource}${name ? `/${name}` : ''}`, review.status?.allowed ? 'yes' : 'no']);
    }
    this.info(`kubectl auth can-i --as=system:serviceaccount:${ns}:${sa} -n ${ns} ...`);
    this.print(...table(['REQUEST', 'ALLOWED'], answers, '      '));
  }

  private async showHpas(): Promise<void> {
    const c = this.clients();
    const ns = GLOO_NAMESPACE;
    const hpas = (await c.autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace: ns })).items;
    this.sub("HorizontalPodAutoscalers (the chart's own, bounds set by the operator)");
    this.print(
      ...table(
        ['HPA', 'TARGET', 'MIN', 'MAX', 'CURRENT'],
        hpas.map((h) => [
          h.metadata?.name ?? '',
          `Deployment/${h.spec?.scaleTargetRef.name}`,
          String(h.spec?.minReplicas ?? '-'),
          String(h.spec?.maxReplicas ?? '-'),
          String(h.status?.currentReplicas ?? '-'),
        ]),
      ),
    );
    this.info(
      "The operator leaves public-gw's replica count to the HPA: it does not set spec.replicas there.",
    );
  }

  private async showHelmValues(g: GlooHA): Promise<void> {
    const c = this.clients();
    const ns = GLOO_NAMESPACE;
    const cmName = g.status?.helmValuesConfigMap ?? 'gloo-helm-values';
    this.sub(`Helm values for Gloo's chart (ConfigMap ${ns}/${cmName})`);
    const cm = await c.core.readNamespacedConfigMap({ name: cmName, namespace: ns });
    for (const [key, text] of Object.entries(cm.data ?? {})) {
      this.info(this.s.dim(`# ${key}`));
      for (const line of text.trimEnd().split('\n')) this.info(`    ${line}`);
    }
    this.info(
      this.s.dim(
        `Keep Helm in agreement: ${upgradeCommand({ chart: GLOO_HELM_CHART, valuesFile: valuesFileOf('GlooHA'), release: 'gloo', namespace: ns, configMap: { namespace: ns, name: cmName } })}`,
      ),
    );
  }

  private printStatus(g: GlooHA): void {
    const st = g.status ?? {};
    this.sub(
      `GlooHA ${GLOO_NAMESPACE}/gloo status (generation ${g.metadata.generation}, observed ${st.observedGeneration})`,
    );
    this.print(
      ...table(
        ['CONDITION', 'STATUS', 'REASON', 'MESSAGE'],
        (st.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message]),
      ),
    );
    const comp = (name: string, cs: ComponentStatus | undefined): string[] => [
      name,
      cs?.deploymentName ?? '-',
      cs?.autoscaling
        ? `HPA ${cs.autoscaling.minReplicas}..${cs.autoscaling.maxReplicas}`
        : String(cs?.desiredReplicas ?? '-'),
      `${cs?.readyReplicas ?? 0}/${cs?.replicas ?? 0}`,
      String(cs?.availableReplicas ?? 0),
      cs?.podDisruptionBudget
        ? `${budget(cs.podDisruptionBudget)}, ${cs.podDisruptionBudget.disruptionsAllowed ?? '?'} allowed`
        : '-',
    ];
    const rows = [comp('gloo', st.components?.gloo), comp('discovery', st.components?.discovery)];
    for (const [k, v] of Object.entries(st.components?.gatewayProxies ?? {}))
      rows.push(comp(`gatewayProxies.${k}`, v));
    this.print('');
    this.print(...table(['COMPONENT', 'DEPLOYMENT', 'DESIRED', 'READY', 'AVAILABLE', 'PDB'], rows));
    const l = st.leader;
    this.print('');
    this.info(
      `Gloo leader (Lease ${GLOO_NAMESPACE}/gloo): ${l?.holder ?? '(none)'}, ` +
        `${l?.fresh ? 'renewing (fresh)' : 'NOT renewing (stale)'}, leaseDuration ${l?.leaseDurationSeconds ?? '?'} s, ` +
        `transitions ${l?.leaseTransitions ?? 0}, holder since ${l?.lastTransitionTime ?? '?'}`,
    );
    if (st.warnings?.length) {
      this.info('Warnings:');
      for (const w of st.warnings)
        this.warn(`${w.code}${w.component ? ` (${w.component})` : ''}: ${w.message}`);
    } else this.info('Warnings: none');
  }

  private async drift(): Promise<void> {
    this.heading('Drift: someone runs `kubectl scale deployment gloo` (to 1, then to 5)');
    const c = this.clients();
    const leader = this.replicaOf((await this.operatorLease()).spec?.holderIdentity);
    if (!leader) throw new DemoFailure('no operator replica holds the Lease');
    const corrections = await this.driftCorrections(leader);
    const scaleGloo = (replicas: number) =>
      c.apps.patchNamespacedDeploymentScale(
        {
          name: 'gloo',
          namespace: GLOO_NAMESPACE,
          body: { spec: { replicas } },
          fieldManager: 'kubectl-scale',
        },
        mergePatch,
      );
    // Below the floor: the chart's scale policy refuses it before any pod goes.
    const refused = await scaleGloo(1).then(
      () => undefined,
      (err: unknown) => err,
    );
    const body = (refused as { body?: unknown } | undefined)?.body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string } | undefined;
    if (!status?.message?.includes('is below 3, the floor that GlooHA'))
      throw new DemoFailure(
        `kubectl scale below the floor was not refused by the replicas-floor policy: ${show(status?.message ?? refused ?? 'accepted')}`,
      );
    this.ok('kubectl scale deployment gloo --replicas=1: refused by the replicas floor, no pod deleted');
    this.info(status.message.replace(/^.*denied request: /, ''));
    await scaleGloo(5);
    const t0 = performance.now();
    this.info('gloo scaled to 5 with field manager "kubectl-scale" (above the floor: admitted).');
    await this.waitFor(
      'the operator to restore gloo to 3 replicas',
      () => this.deployment('gloo'),
      (d) => d.spec?.replicas === 3,
      { timeoutMs: 20_000, intervalMs: 25, describe: (d) => `spec.replicas ${d.spec?.replicas}` },
    );
    this.ok(`${leader.name} restored spec.replicas to 3 after ${fmtMs(performance.now() - t0)}`);
    const g = await this.waitFor(
      'the Drifted condition to report the correction',
      () => this.glooHA(),
      (x) => this.condition(x, 'Drifted')?.reason === 'DriftCorrected',
      {
        timeoutMs: 20_000,
        describe: (x) => {
          const d = this.condition(x, 'Drifted');
          return d ? `Drifted=${d.status} (${d.reason}): ${d.message}` : 'no Drifted condition';
        },
      },
    );
    const d = this.condition(g, 'Drifted');
    this.info(`Drifted=${d?.status} (${d?.reason}): ${d?.message}`);
    const events = (await c.core.listNamespacedEvent({ namespace: GLOO_NAMESPACE })).items.filter(
      (e) => e.reason === 'DriftCorrected',
    );
    for (const e of events.slice(-1))
      this.info(
        `Event: ${e.type} ${e.reason} ${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message}`,
      );
    this.info(
      `glooha_drift_corrections_total on ${leader.name}: ${corrections} -> ${await this.driftCorrections(leader)}`,
    );
    await this.waitReady(90_000, false);
    this.ok('gloo is back to 3 ready replicas; the GlooHA is Ready=True again');
  }

  private async failover(): Promise<void> {
    this.heading('Stop the leading operator replica (SIGTERM) and watch the standby take over');
    const c = this.clients();
    const lease0 = await this.operatorLease();
    const leader = this.replicaOf(lease0.spec?.holderIdentity);
    const standby = this.replicas.find((r) => r !== leader && r.exitCode === undefined);
    if (!leader || !standby) throw new DemoFailure('expected one leading and one standby operator replica');
    const transitions0 = lease0.spec?.leaseTransitions ?? 0;
    const timeline: [number, string][] = [];
    leader.stopping = true;
    const t0 = performance.now();
    leader.proc.kill('SIGTERM');
    timeline.push([0, `SIGTERM sent to ${leader.name} (leader)`]);
    void leader.proc.exited.then((code) =>
      timeline.push([performance.now() - t0, `${leader.name} exited with code ${code}`]),
    );
    let released = false;
    let acquired: number | undefined;
    let transitions = transitions0;
    await this.waitFor(
      `${standby.name} to take over the Lease`,
      () => this.operatorLease(),
      (l) => {
        const holder = l.spec?.holderIdentity ?? '';
        if (!released && holder === '') {
          released = true;
          timeline.push([performance.now() - t0, `${leader.name} released the Lease (holder cleared)`]);
        }
        if (holder === standby.identity && acquired === undefined) {
          acquired = performance.now() - t0;
          transitions = l.spec?.leaseTransitions ?? 0;
          timeline.push([
            acquired,
            `${standby.name} holds the Lease (transitions ${transitions0} -> ${transitions})`,
          ]);
        }
        return acquired !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 10, describe: (l) => `holder "${l.spec?.holderIdentity ?? ''}"` },
    );
    await this.waitFor(
      `${standby.name} to report leader_election_master_status 1`,
      () => this.leading(standby),
      (v) => v === 1,
      { timeoutMs: 10_000, intervalMs: 10, describe: (v) => String(v) },
    );
    timeline.push([performance.now() - t0, `${standby.name} reports leader_election_master_status 1`]);
    const code = await Promise.race([leader.proc.exited, sleep(15_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') throw new DemoFailure(`${leader.name} did not exit within 15 s of SIGTERM`);
    await sleep(0);
    if (code !== 0)
      throw new DemoFailure(`${leader.name} exited with code ${code} after SIGTERM (expected 0)`);
    timeline.sort((a, b) => a[0] - b[0]);
    this.print(
      ...table(
        ['AFTER', 'EVENT'],
        timeline.map(([t, e]) => [`+${fmtMs(t)}`, e]),
      ),
    );
    this.ok(`handover took ${fmtMs(acquired ?? 0)} (SIGTERM to the new holder in the Lease)`);
    this.info(
      this.s.dim(
        `A leader that releases the Lease on SIGTERM hands over at once. A crashed one cannot: the standby then waits out\n` +
          `  leaseDuration (${lease0.spec?.leaseDurationSeconds} s) from the last renewal it saw. See docs/leader-election.md.`,
      ),
    );
    await this.printReplicas();

    this.sub(`The new leader reconciles: kubectl scale deployment gateway-proxy --replicas=5`);
    const before = await this.driftCorrections(standby);
    await c.apps.patchNamespacedDeploymentScale(
      {
        name: 'gateway-proxy',
        namespace: GLOO_NAMESPACE,
        body: { spec: { replicas: 5 } },
        fieldManager: 'kubectl-scale',
      },
      mergePatch,
    );
    const t1 = performance.now();
    await this.waitFor(
      'the new leader to restore gateway-proxy to 3 replicas',
      () => this.deployment('gateway-proxy'),
      (d) => d.spec?.replicas === 3,
      { timeoutMs: 20_000, intervalMs: 25, describe: (d) => `spec.replicas ${d.spec?.replicas}` },
    );
    const restoredAfter = performance.now() - t1;
    const after = await this.waitFor(
      `${standby.name}'s glooha_drift_corrections_total to count it`,
      () => this.driftCorrections(standby),
      (v) => v > before,
      { timeoutMs: 10_000, describe: (v) => String(v) },
    );
    this.ok(
      `${standby.name} restored gateway-proxy to 3 after ${fmtMs(restoredAfter)} ` +
        `(its glooha_drift_corrections_total ${before} -> ${after})`,
    );
    const g = await this.waitReady(90_000, false);
    this.ok(
      `GlooHA still Ready=True; Gloo leader ${g.status?.leader?.holder} ${g.status?.leader?.fresh ? 'renewing' : 'stale'}`,
    );
  }

  /** What a user runs next: `glooha status` and `glooha check`, against the demo's cluster. */
  private async cliReport(): Promise<void> {
    this.heading('What glooha status and glooha check say now');
    const c = this.clients();
    // `glooha check` finds the operator by its Deployment, as the chart labels it. The two replicas
    // here are processes on this machine, so the chart's Deployment is applied for check to find
    // (kwok runs its pods as stand-ins; the Lease it checks is the one the processes hold).
    const labels = {
      'app.kubernetes.io/name': 'glooha-operator',
      'app.kubernetes.io/instance': OPERATOR_RELEASE,
    };
    await c.apps.createNamespacedDeployment({
      namespace: OPERATOR_NAMESPACE,
      body: {
        metadata: { name: OPERATOR_RELEASE, namespace: OPERATOR_NAMESPACE, labels },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              serviceAccountName: this.id!.serviceAccount,
              containers: [
                {
                  name: 'operator',
                  image: 'ghcr.io/glooha/glooha-operator:demo',
                  // As the chart's Deployment (and the two processes) set it: check reads it here.
                  env: [{ name: 'LEADER_ELECT_REQUIRE_FENCING_POLICY', value: 'true' }],
                },
              ],
            },
          },
        },
      },
    });
    await this.waitFor(
      "the operator Deployment's stand-in pods to be ready",
      () => c.apps.readNamespacedDeployment({ name: OPERATOR_RELEASE, namespace: OPERATOR_NAMESPACE }),
      (d) => (d.status?.readyReplicas ?? 0) === 2,
      { timeoutMs: 60_000, describe: (d) => `${d.status?.readyReplicas ?? 0}/2 ready` },
    );
    const env = { KUBECONFIG: this.plane!.kubeconfigPath };
    for (const args of [
      ['status', '-n', GLOO_NAMESPACE],
      ['check', '--operator-namespace', OPERATOR_NAMESPACE],
    ]) {
      this.sub(`npx glooha ${args.join(' ')}`);
      let out = '';
      const code = await glooha(
        args,
        {
          readFile: () => '',
          readStdin: () => Promise.resolve(''),
          stdout: (t) => void (out += t),
          stderr: (t) => void (out += t),
        },
        env,
      );
      for (const line of out.trimEnd().split('\n')) this.print(`    ${line}`);
      if (code !== 0) throw new Error(`glooha ${args[0]} exited ${code}`);
    }
    this.ok('both exit 0: every object Ready, every check passed (warnings allowed)');
  }

  // --- failure and cleanup --------------------------------------------------------------------------

  private reportFailure(err: unknown): DemoResult {
    const s = this.s;
    if (err instanceof Interrupted || this.opts.signal?.aborted) {
      this.print('', s.yellow(`Interrupted during step ${this.step}/${STEPS} (${this.stepTitle}).`));
      return 130;
    }
    const msg =
      err instanceof Error
        ? err instanceof DemoFailure
          ? err.message
          : (err.stack ?? err.message)
        : String(err);
    this.print(
      '',
      s.red(s.bold(`FAILED at step ${this.step}/${STEPS}: ${this.stepTitle}`)),
      s.red(
        msg
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      ),
    );
    const lines = this.opts.ci ? 200 : 25;
    for (const r of this.replicas) {
      this.print(
        '',
        `  Last ${lines} log lines of operator replica ${r.name}` +
          (r.exitCode !== undefined ? ` (exited with code ${r.exitCode})` : '') +
          ':',
      );
      const tail = r.proc.logs.slice(-lines);
      if (!tail.length) this.print('    (no output)');
      for (const rec of tail) this.print(`    ${formatLogRecord(rec)}`);
    }
    for (const f of this.plane?.failures() ?? []) this.print('', `  ${f}`);
    return 1;
  }

  /** Stops everything that was started; true when it all stopped cleanly. */
  private async cleanup(showHeading: boolean, failed: boolean): Promise<boolean> {
    if (showHeading) this.heading('Stop everything');
    else this.print('', this.s.bold('Cleaning up'));
    let clean = true;
    if (this.gloo) {
      this.gloo.stop();
      const errors = this.gloo.errors.length;
      if (errors) clean = false;
      (errors ? this.warn.bind(this) : this.ok.bind(this))(
        `simulated Gloo leader stopped after ${this.gloo.renewals} Lease renewals` +
          (errors ? `, ${errors} failed: ${this.gloo.errors[0]}` : ', none failed'),
      );
    }
    const holder = this.c
      ? await this.operatorLease().then(
          (l) => l.spec?.holderIdentity ?? '',
          () => '',
        )
      : '';
    for (const r of this.replicas) {
      if (r.exitCode !== undefined) continue;
      r.stopping = true;
      r.proc.kill('SIGTERM');
      const code = await Promise.race([r.proc.exited, sleep(15_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') {
        r.proc.kill('SIGKILL');
        await r.proc.exited;
        this.warn(`${r.name} did not stop within 15 s of SIGTERM: killed`);
        clean = false;
      } else if (code !== 0) {
        this.warn(`${r.name} exited with code ${code} after SIGTERM`);
        clean = false;
      } else
        this.ok(
          `${r.name} stopped (SIGTERM, exit code 0${r.identity === holder ? ', released the Lease' : ''})`,
        );
    }
    if (this.id) rmSync(dirname(this.id.kubeconfigPath), { recursive: true, force: true });
    if (failed && this.plane) {
      // The control plane's directory goes with it: keep the logs for whoever debugs the failure.
      const keep = mkdtempSync(join(tmpdir(), 'glooha-demo-logs-'));
      for (const f of readdirSync(this.plane.dir).filter((x) => x.endsWith('.log')))
        copyFileSync(join(this.plane.dir, f), join(keep, f));
      for (const r of this.replicas)
        writeFileSync(
          join(keep, `${r.name}.log`),
          r.proc.logs.map((l) => JSON.stringify(l)).join('\n') + '\n',
        );
      this.info(`logs kept in ${keep} (control plane, audit log, operator replicas)`);
    }
    if (this.plane) {
      const failures = this.plane.failures();
      try {
        await this.plane.stop();
        this.ok(`control plane stopped and ${this.plane.dir} removed`);
      } catch (err) {
        this.warn(`stopping the control plane failed: ${err instanceof Error ? err.message : String(err)}`);
        clean = false;
      }
      if (failures.length) clean = false;
      setControlPlane(undefined);
    }
    return clean;
  }
}

/** Runs the demo; never throws. Resolves with the exit status. */
export async function runDemo(opts: DemoOptions = {}): Promise<DemoResult> {
  return new Demo(opts).run();
}

const USAGE = `usage: npm run demo [-- --ci]

Runs glooha-operator end to end on a local control plane (see docs/demo.md).
  --ci     no colours; on failure print the last 200 operator log lines (default 25)
  --help   this text
Exit status: 0 success, 1 a step failed, 130 interrupted (Ctrl-C).`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const unknown = args.filter((a) => a !== '--ci');
  if (unknown.length) {
    process.stderr.write(`demo: unknown argument ${unknown[0]}\n${USAGE}\n`);
    process.exit(2);
  }
  const abort = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`\n${sig} again: exiting now; the next run reaps leftover processes.\n`);
      process.exit(130);
    }
    process.stdout.write(`\n${sig}: stopping the demo, then cleaning up (again to exit at once)...\n`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await runDemo({ ci: args.includes('--ci'), signal: abort.signal });
  // Keep-alive sockets and the like would keep the event loop alive: everything is stopped, so exit.
  process.exit(code);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
