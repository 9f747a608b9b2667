// A managed product's real controller (kgateway's ./cmd/kgateway, built by test/env/build-kgateway.sh;
// Gloo's `gloo`, ./projects/gloo/cmd, built by test/env/build-gloo.sh) running against the test control
// plane, one process per controller pod, as the kubelet would run the pod's container. Product-agnostic:
// the caller names the Deployment whose pods are followed and the container whose env the process gets
// (KGATEWAY_CONTROLLER_POD in kgateway.ts, GLOO_CONTROLLER_POD in gloo-chart.ts).
//  - kwok's pods run nothing; this follows them instead. A pod that is scheduled and not deleting gets a
//    process; a pod deleted (or replaced by one of the same name) gets SIGTERM, then SIGKILL after its
//    terminationGracePeriodSeconds; a process that exits on its own is restarted with a back-off, as a
//    container under restartPolicy Always (controller-runtime exits when it loses its Lease).
//  - its env is the pod's container env resolved as the kubelet resolves it (value, fieldRef,
//    resourceFieldRef, configMapKeyRef, secretKeyRef, envFrom, $(VAR) references), except that a CPU
//    count is capped at this machine's cores (kwok's nodes claim 32); its args are the container's
//    command/args after the binary ($(VAR) expanded). Volumes are not mounted: a caller runs pods whose
//    container reads none (Gloo's with gateway.validation.enabled=false, which drops the only one gloo
//    reads, the webhook's certificate, that no certgen Job makes here);
//  - its credentials are a token bound to the pod (TokenRequest with boundObjectRef, what the kubelet
//    mounts), in a kubeconfig that KUBECONFIG names;
//  - it runs in its own network and UTS namespaces (`unshare --net --uts`): its hostname is the pod's
//    name (controller-runtime's leader identity is `<hostname>_<uuid>`), and each replica binds the same
//    ports (kgateway's xDS 9977, health 9093, metrics 9092; gloo's xDS 9977, validation 9988, probes
//    8765, ...) on its own loopback. The API server's port is reached through the namespace's loopback:
//    socat inside it forwards to a Unix socket (file system paths are shared across network
//    namespaces), and one socat outside forwards that socket to the API server. The TLS session is end
//    to end, to 127.0.0.1:<the API server's port>, as the certificate says. `partition(pod)` takes the
//    namespace's loopback down (its connections to the API server stall, as behind a partition) and
//    `heal(pod)` brings it back; `kill(pod, 'SIGSTOP')`/`'SIGCONT'` pause and resume the process.
//  - with `kubeletTermination`, a pod's deletion ends as the kubelet ends it: the harness holds the pod
//    with a finalizer of its own (kwok would remove it at once), and once the process has exited it
//    reports every container terminated (the kubelet's status write) and only then lets the object go
//    (the kubelet's final delete). `abandon(pod)` stops following a pod as a lost node's kubelet would:
//    its process runs on, and its deletion is never confirmed.
// Every process is in its own process group (the forwarder inside dies with it), SIGKILLed by stop(),
// and by an exit hook if the test process ends first.
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Container,
  type V1EnvVar,
  type V1Pod,
} from '@kubernetes/client-node';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminKubeConfig, controlPlane } from './cluster.js';

/** Which pods run a product's controller, and which container of theirs the process stands for. */
export interface ControllerPod {
  /** The product, in log lines and messages. */
  product: string;
  /** The controller Deployment whose pods are followed. */
  deployment: string;
  /** The container whose env and args the process gets. */
  container: string;
}

export interface ProductControllerOptions extends ControllerPod {
  /** The install's namespace. */
  namespace: string;
  /** The controller binary (kgatewayFixtures(v, { controller: true }).controller, glooController()). */
  binary: string;
  /** How often pods are listed (default 500 ms). */
  pollMs?: number;
  /** Extra env on top of the pod's (e.g. a log level); the pod's own wins on a clash. */
  extraEnv?: Record<string, string>;
  /** End a deleted pod as the kubelet does (see the module comment). Default false. */
  kubeletTermination?: boolean;
  /**
   * Report the container's state as the kubelet does: running (with its container ID, start time and
   * restart count) when a process starts, terminated (exit code, finishedAt) when it exits, the previous
   * instance in lastState after a restart. Default false (kwok's "running" stands).
   */
  kubeletStatus?: boolean;
  admin?: KubeConfig;
}

/** The finalizer that holds a pod until the harness, as its kubelet, has reported it stopped. */
export const KUBELET_FINALIZER = 'glooha.test/kubelet';

/** One process of one pod's container; a restart is a new ControllerProcess for the same pod. */
export interface ControllerProcess {
  pod: string;
  podUid: string;
  pid: number;
  startedAt: Date;
  logPath: string;
  env: Record<string, string>;
  exited?: { code: number | null; signal: NodeJS.Signals | null; at: Date };
}

const live = new Set<ChildProcess>();
let hookInstalled = false;
function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    /* already gone */
  }
}
function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

/** What a kubelet knows of the followed container of one pod. */
interface KubeletContainer {
  podUid: string;
  /** restartCount: instances before the current one. */
  restarts: number;
  containerID: string;
  startedAt: Date;
  /** The last instance that ended, as the kubelet reports it (lastState once another one runs). */
  last?: Record<string, unknown>;
  /** The instance that ended before it (lastState while the last one is the current state). */
  before?: Record<string, unknown>;
}

/** A container ID as a runtime writes it (containerd: 64 hex digits). */
function newContainerID(): string {
  return `containerd://${randomBytes(32).toString('hex')}`;
}

interface Running {
  proc: ControllerProcess;
  child: ChildProcess;
  exited: Promise<void>;
  stopping: boolean;
}

export class ProductControllers {
  private readonly dir: string;
  private readonly socket: string;
  private readonly core: CoreV1Api;
  private readonly running = new Map<string, Running>();
  private readonly history: ControllerProcess[] = [];
  private readonly backoffUntil = new Map<string, number>();
  private forwarder?: ChildProcess;
  private loop?: Promise<void>;
  private stopped = false;
  private lastError = '';
  /** Pods whose kubelet is "lost": their process is left running and their deletion unconfirmed. */
  private readonly abandoned = new Set<string>();
  /** Pods whose termination is being reported (once each). */
  private readonly finalizing = new Set<string>();
  /** Pods cut off from the API server (a restarted container of theirs stays cut off). */
  private readonly partitioned = new Set<string>();
  /**
   * Pods whose kubelet is cut off from the API server: it writes nothing more and sees no deletion,
   * but still restarts a container that exits (from the pod it last saw).
   */
  private readonly cutOff = new Map<string, V1Pod>();
  /** Pods to cut off right after their next reported termination. */
  private readonly cutOffAfterTermination = new Set<string>();
  /** The kubelet's record of each pod's container: instances so far, the current one, the last end. */
  private readonly instances = new Map<string, KubeletContainer>();
  /** The last state of each pod listed (what a kubelet cut off later still believes). */
  private readonly seen = new Map<string, V1Pod>();
  /** Status writes per pod, in order. */
  private readonly statusWrites = new Map<string, Promise<void>>();

  private constructor(
    private readonly opts: Required<Omit<ProductControllerOptions, 'admin'>> & { admin: KubeConfig },
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `glooha-${opts.product}-`));
    this.socket = join(this.dir, 'api.sock');
    this.core = opts.admin.makeApiClient(CoreV1Api);
  }

  /** Starts following the controller Deployment's pods (the Deployment must exist). */
  static async start(options: ProductControllerOptions): Promise<ProductControllers> {
    installExitHook();
    const c = new ProductControllers({
      pollMs: 500,
      extraEnv: {},
      kubeletTermination: false,
      kubeletStatus: false,
      admin: options.admin ?? adminKubeConfig(),
      ...options,
    });
    c.startForwarder();
    c.loop = c.follow();
    return c;
  }

  /** The processes running now, by pod name. */
  processes(): Map<string, ControllerProcess> {
    return new Map([...this.running].map(([pod, r]) => [pod, r.proc]));
  }

  /** Every process started so far, exited ones included. */
  all(): ControllerProcess[] {
    return [...this.history];
  }

  /** The last lines of a pod's current (or last) process's log. */
  tail(pod: string, lines = 40): string {
    const p = this.running.get(pod)?.proc ?? [...this.history].reverse().find((h) => h.pod === pod);
    if (!p) return `(no process for pod ${pod})`;
    try {
      return readFileSync(p.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** All logs' last lines, for a failing assertion's message. */
  describe(lines = 15): string {
    const pods = new Set(this.history.map((h) => h.pod));
    return (
      [...pods].map((p) => `--- ${this.opts.product} in pod ${p}:\n${this.tail(p, lines)}`).join('\n') ||
      '(no process started)'
    );
  }

  /**
   * Signals the pod's container (its process group: the controller and the forwarder beside it). A
   * fatal signal is a crash or the OOM killer (the pod stays; the process is restarted after the
   * back-off, like a container); SIGSTOP and SIGCONT pause and resume the container whole.
   */
  kill(pod: string, signal: NodeJS.Signals = 'SIGKILL'): ControllerProcess {
    const r = this.running.get(pod);
    if (!r)
      throw new Error(
        `no ${this.opts.product} process runs for pod ${pod} (running: ${[...this.running.keys()].join(', ') || 'none'})`,
      );
    killGroup(r.child, signal);
    return r.proc;
  }

  /**
   * Cuts the pod's process off from the API server, as a network partition of its node would: the
   * loopback of its network namespace goes down, so what it sends to the API server (through the
   * forwarder on that loopback) goes nowhere and new connections fail. The process runs on.
   */
  partition(pod: string): ControllerProcess {
    return this.loopback(pod, 'down');
  }

  /** Ends a partition(pod): the loopback comes back up (a container restarting later starts connected). */
  heal(pod: string): ControllerProcess | undefined {
    this.partitioned.delete(pod);
    return this.running.has(pod) ? this.loopback(pod, 'up') : undefined;
  }

  private loopback(pod: string, state: 'up' | 'down'): ControllerProcess {
    const r = this.running.get(pod);
    if (!r?.child.pid) throw new Error(`no ${this.opts.product} process runs for pod ${pod}`);
    if (state === 'down') this.partitioned.add(pod);
    // unshare execs the shell and the shell the controller: the process keeps the namespace's pid.
    execFileSync('nsenter', [`--net=/proc/${r.child.pid}/ns/net`, 'ip', 'link', 'set', 'lo', state], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return r.proc;
  }

  /**
   * The pod's node is lost: its process runs on, nothing stops it when the pod is deleted, and no
   * termination is reported. `end(pod)` kills it later.
   */
  abandon(pod: string): ControllerProcess {
    const r = this.running.get(pod);
    if (!r) throw new Error(`no ${this.opts.product} process runs for pod ${pod}`);
    this.abandoned.add(pod);
    return r.proc;
  }

  /**
   * The pod's kubelet is cut off from the API server (its node partitioned): it writes no status and
   * sees no deletion (the process runs on), but restarts the container when it exits, as it would.
   */
  cutOffKubelet(pod: string): void {
    const seen = this.seen.get(pod);
    if (!seen) throw new Error(`pod ${pod} was never seen`);
    this.cutOff.set(pod, seen);
  }

  /** Cuts the pod's kubelet off right after it reported its container's next termination. */
  cutOffKubeletAfterTermination(pod: string): void {
    this.cutOffAfterTermination.add(pod);
  }

  /** The pod's kubelet reaches the API server again: it reports the container's current state. */
  async reconnectKubelet(pod: string): Promise<void> {
    this.cutOff.delete(pod);
    const r = this.running.get(pod);
    const k = this.instances.get(pod);
    if (r && k) await this.reportState(pod, { running: { startedAt: k.startedAt.toISOString() } }, true);
  }

  /**
   * The kubelet no longer finds the container and says so: `terminated` with reason
   * ContainerStatusUnknown, exit code 137 and no times or container ID (what it writes then). The
   * process is not touched.
   */
  async reportUnknown(pod: string): Promise<void> {
    await this.reportState(
      pod,
      {
        terminated: {
          exitCode: 137,
          reason: 'ContainerStatusUnknown',
          message:
            'The container could not be located when the pod was deleted.  The container used to be Running',
        },
      },
      false,
    );
  }

  /** Lets the pod object go without confirming anything (before a force deletion of an abandoned pod). */
  async unhold(pod: string): Promise<void> {
    await this.dropFinalizer(pod);
  }

  /** SIGKILLs an abandoned pod's process and lets its object go (as a lost node coming back would). */
  async end(pod: string): Promise<void> {
    // Nothing of the pod is reported or restarted any more: its node is gone with it.
    this.abandoned.add(pod);
    this.cutOff.delete(pod);
    const r = this.running.get(pod);
    if (r) {
      r.stopping = true;
      killGroup(r.child, 'SIGKILL');
      await r.exited;
    }
    // Unconfirmed: the object goes before the pod stops being abandoned (else the next sync would
    // confirm its end as its kubelet).
    await this.dropFinalizer(pod).catch(() => undefined);
    this.abandoned.delete(pod);
  }

  /** Stops following pods and kills every process (SIGKILL: nothing of them is under test here). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop?.catch(() => {});
    if (this.opts.kubeletTermination) {
      // No pod may outlive the test held by a finalizer nobody removes.
      const pods = await this.core
        .listNamespacedPod({ namespace: this.opts.namespace })
        .catch(() => undefined);
      for (const p of pods?.items ?? [])
        if (p.metadata?.finalizers?.includes(KUBELET_FINALIZER))
          await this.dropFinalizer(p.metadata.name!).catch(() => undefined);
    }
    await Promise.all(
      [...this.running.values()].map(async (r) => {
        r.stopping = true;
        killGroup(r.child, 'SIGKILL');
        await r.exited;
      }),
    );
    this.running.clear();
    if (this.forwarder) {
      killGroup(this.forwarder, 'SIGKILL');
      live.delete(this.forwarder);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private startForwarder(): void {
    const api = new URL(controlPlane().server);
    const fd = openSync(join(this.dir, 'forwarder.log'), 'a');
    this.forwarder = spawn(
      'socat',
      [`UNIX-LISTEN:${this.socket},fork,mode=600`, `TCP:${api.hostname}:${api.port}`],
      { stdio: ['ignore', fd, fd], detached: true },
    );
    closeSync(fd);
    live.add(this.forwarder);
    this.forwarder.once('error', (err) => (this.lastError = `socat: ${err.message} (is socat installed?)`));
  }

  private async follow(): Promise<void> {
    const { namespace, deployment } = this.opts;
    const apps = this.opts.admin.makeApiClient(AppsV1Api);
    const dep = await apps.readNamespacedDeployment({ name: deployment, namespace });
    const labels = dep.spec?.selector.matchLabels ?? {};
    const selector = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    while (!this.stopped) {
      try {
        const pods = (await this.core.listNamespacedPod({ namespace, labelSelector: selector })).items;
        await this.sync(pods);
        this.lastError = '';
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err);
      }
      await sleep(this.opts.pollMs);
    }
  }

  private async sync(pods: V1Pod[]): Promise<void> {
    const wanted = new Map<string, V1Pod>();
    for (const pod of pods)
      if (!this.cutOff.has(pod.metadata!.name!)) this.seen.set(pod.metadata!.name!, pod);
    // A kubelet cut off from the API server runs the pod as it last saw it (not deleting).
    for (const [name, pod] of this.cutOff) wanted.set(name, pod);
    for (const pod of pods) {
      if (this.cutOff.has(pod.metadata!.name!)) continue;
      // The kubelet runs a pod once it is bound to a node, until it is deleted.
      if (
        pod.spec?.nodeName &&
        !pod.metadata?.deletionTimestamp &&
        pod.status?.phase !== 'Succeeded' &&
        pod.status?.phase !== 'Failed'
      )
        wanted.set(pod.metadata!.name!, pod);
    }
    for (const [name, r] of this.running) {
      if (this.abandoned.has(name) || this.cutOff.has(name)) continue;
      const pod = wanted.get(name);
      if (!pod || pod.metadata?.uid !== r.proc.podUid) {
        const gone = pods.find((p) => p.metadata?.name === name);
        void this.terminate(r, (gone?.spec?.terminationGracePeriodSeconds ?? 30) * 1000).then(() =>
          gone ? this.confirmTermination(gone) : undefined,
        );
      }
    }
    // A deleting pod with no process (it exited before, or never ran): its kubelet confirms at once.
    for (const pod of pods) {
      const name = pod.metadata!.name!;
      if (
        pod.metadata?.deletionTimestamp &&
        !this.running.has(name) &&
        !this.abandoned.has(name) &&
        !this.cutOff.has(name)
      )
        void this.confirmTermination(pod);
    }
    for (const [name, pod] of wanted) {
      if (this.running.has(name) || this.stopped || this.abandoned.has(name)) continue;
      if ((this.backoffUntil.get(name) ?? 0) > Date.now()) continue;
      await this.launch(pod);
    }
  }

  /** SIGTERM, SIGKILL after the grace period; resolves when the process has exited (each caller). */
  private async terminate(r: Running, graceMs: number): Promise<void> {
    if (r.stopping) return r.exited;
    r.stopping = true;
    killGroup(r.child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(r.child, 'SIGKILL'), graceMs);
    await r.exited;
    clearTimeout(timer);
  }

  /**
   * The kubelet's end of a deleted pod: every container reported terminated, then the object let go.
   * Only for pods this harness holds with its finalizer.
   */
  private async confirmTermination(pod: V1Pod): Promise<void> {
    const name = pod.metadata!.name!;
    if (!this.opts.kubeletTermination || !pod.metadata?.finalizers?.includes(KUBELET_FINALIZER)) return;
    if (this.finalizing.has(name) || this.abandoned.has(name)) return;
    this.finalizing.add(name);
    try {
      const k = this.instances.get(name);
      const ran = k?.podUid === pod.metadata?.uid ? k : undefined;
      const state = ran?.last
        ? { terminated: ran.last }
        : // It never ran here: what a kubelet reports for a container that never started.
          { terminated: { exitCode: 0, reason: 'Completed' } };
      await this.writeStatus(pod, state, false, ran);
      await this.dropFinalizer(name);
    } catch (err) {
      this.lastError = `confirming the end of pod ${name}: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.finalizing.delete(name);
    }
  }

  /** A state of the followed container, as the pod's kubelet would write it now (not when cut off). */
  private async reportState(pod: string, state: Record<string, unknown>, ready: boolean): Promise<void> {
    const seen = this.seen.get(pod);
    if (!seen) throw new Error(`pod ${pod} was never seen`);
    const k = this.instances.get(pod);
    await this.writeStatus(seen, state, ready, k?.podUid === seen.metadata?.uid ? k : undefined);
  }

  /**
   * The kubelet's status write for the followed container (the pod's other containers as last seen),
   * in order per pod. `k` gives the container ID, restart count and the previous instance's end.
   */
  private writeStatus(
    pod: V1Pod,
    state: Record<string, unknown>,
    ready: boolean,
    k: KubeletContainer | undefined,
  ): Promise<void> {
    const name = pod.metadata!.name!;
    const running = 'running' in state;
    const lastState = running ? k?.last : k?.before;
    const ours = {
      name: this.opts.container,
      image: pod.spec?.containers.find((c) => c.name === this.opts.container)?.image ?? '',
      imageID: '',
      ready,
      started: running,
      restartCount: k?.restarts ?? 0,
      ...(k && running ? { containerID: k.containerID } : {}),
      state,
      lastState: lastState ? { terminated: lastState } : {},
    };
    const others = (pod.spec?.containers ?? [])
      .filter((c) => c.name !== this.opts.container)
      .map(
        (c) =>
          pod.status?.containerStatuses?.find((x) => x.name === c.name) ?? {
            name: c.name,
            image: c.image ?? '',
            imageID: '',
            ready: true,
            restartCount: 0,
            state: { running: {} },
          },
      );
    const write = async () => {
      await this.core.patchNamespacedPodStatus(
        {
          name,
          namespace: this.opts.namespace,
          body: { status: { containerStatuses: [ours, ...others] } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    };
    const next = (this.statusWrites.get(name) ?? Promise.resolve()).catch(() => undefined).then(write);
    this.statusWrites.set(name, next);
    return next;
  }

  /** The kubelet's report of a process that started (a new container instance). */
  private reportStarted(pod: V1Pod, proc: ControllerProcess): void {
    const name = pod.metadata!.name!;
    const prev = this.instances.get(name);
    const k: KubeletContainer =
      prev?.podUid === proc.podUid
        ? { ...prev, restarts: prev.restarts + 1, containerID: newContainerID(), startedAt: proc.startedAt }
        : { podUid: proc.podUid, restarts: 0, containerID: newContainerID(), startedAt: proc.startedAt };
    this.instances.set(name, k);
    if (this.opts.kubeletStatus && !this.cutOff.has(name))
      void this.writeStatus(pod, { running: { startedAt: proc.startedAt.toISOString() } }, true, k).catch(
        (err: unknown) => (this.lastError = `reporting pod ${name} running: ${String(err)}`),
      );
  }

  /** The end of the current instance, recorded as the kubelet records it; reported after a crash. */
  private reportExited(pod: V1Pod, proc: ControllerProcess, crashed: boolean): void {
    const name = pod.metadata!.name!;
    const k = this.instances.get(name);
    const e = proc.exited;
    if (!k || k.podUid !== proc.podUid || !e) return;
    const exitCode = e.signal === 'SIGKILL' ? 137 : e.signal === 'SIGTERM' ? 143 : (e.code ?? 0);
    k.before = k.last;
    k.last = {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      containerID: k.containerID,
      startedAt: k.startedAt.toISOString(),
      // The runtime's exit time; the API server keeps it to the second (metav1.Time).
      finishedAt: e.at.toISOString(),
    };
    if (!crashed || !this.opts.kubeletStatus || this.cutOff.has(name)) return;
    const cutOffAfter = this.cutOffAfterTermination.delete(name);
    void this.writeStatus(pod, { terminated: k.last }, false, k)
      .catch((err: unknown) => (this.lastError = `reporting pod ${name} terminated: ${String(err)}`))
      .finally(() => {
        if (cutOffAfter) this.cutOff.set(name, this.seen.get(name) ?? pod);
      });
  }

  private async dropFinalizer(name: string): Promise<void> {
    const pod = await this.core.readNamespacedPod({ name, namespace: this.opts.namespace });
    const finalizers = pod.metadata?.finalizers ?? [];
    if (!finalizers.includes(KUBELET_FINALIZER)) return;
    await this.core.patchNamespacedPod(
      {
        name,
        namespace: this.opts.namespace,
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
          {
            op: 'replace',
            path: '/metadata/finalizers',
            value: finalizers.filter((f) => f !== KUBELET_FINALIZER),
          },
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
  }

  private async launch(pod: V1Pod): Promise<void> {
    const name = pod.metadata!.name!;
    if (this.opts.kubeletTermination && !pod.metadata?.finalizers?.includes(KUBELET_FINALIZER))
      // Held until its processes are reported stopped, as the kubelet holds a pod it runs.
      await this.core.patchNamespacedPod(
        {
          name,
          namespace: this.opts.namespace,
          body: [
            { op: 'test', path: '/metadata/uid', value: pod.metadata?.uid },
            ...(pod.metadata?.finalizers
              ? [{ op: 'add', path: '/metadata/finalizers/-', value: KUBELET_FINALIZER }]
              : [{ op: 'add', path: '/metadata/finalizers', value: [KUBELET_FINALIZER] }]),
          ],
        },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      );
    const container = pod.spec?.containers.find((c) => c.name === this.opts.container);
    if (!container)
      throw new Error(`pod ${this.opts.namespace}/${name} has no container ${this.opts.container}`);
    const kubeconfig = join(this.dir, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, kubeconfigYaml(await this.podToken(pod)), { mode: 0o600 });
    const env = {
      ...this.opts.extraEnv,
      ...(await resolveEnv(this.core, pod, container)),
      HOSTNAME: name,
      KUBECONFIG: kubeconfig,
    };
    // The image's entrypoint is the binary: a container `command` names it (its first word) and may add
    // arguments; `args` follow. $(VAR) expands from the container's env, as the kubelet expands them.
    const args = [...(container.command?.slice(1) ?? []), ...(container.args ?? [])].map((a) =>
      expand(a, env),
    );
    const logPath = join(this.dir, `${name}.${this.history.filter((h) => h.pod === name).length}.log`);
    const api = new URL(controlPlane().server);
    // Inside the new namespaces: loopback up, the pod's hostname, the API server's port forwarded to the
    // socket outside, then the controller itself (exec: the group's leader is the controller).
    const script = [
      'set -e',
      'ip link set lo up',
      'hostname "$GLOOHA_POD_NAME"',
      `socat TCP-LISTEN:${api.port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${this.socket} &`,
      // socat listens before the controller dials (it would back off and retry, but not for the first read).
      `for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/${api.port}) 2>/dev/null && break; sleep 0.1; done`,
      // A partitioned pod's restarted container starts cut off as well (its forwarder ready for heal()).
      '[ "$GLOOHA_PARTITIONED" != 1 ] || ip link set lo down',
      'exec "$GLOOHA_BINARY" "$@"',
    ].join('\n');
    const fd = openSync(logPath, 'a');
    const child = spawn('unshare', ['--net', '--uts', 'bash', '-c', script, 'controller', ...args], {
      stdio: ['ignore', fd, fd],
      detached: true,
      env: {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        ...env,
        GLOOHA_POD_NAME: name,
        GLOOHA_BINARY: this.opts.binary,
        GLOOHA_PARTITIONED: this.partitioned.has(name) ? '1' : '0',
      },
    });
    closeSync(fd);
    live.add(child);
    const proc: ControllerProcess = {
      pod: name,
      podUid: pod.metadata!.uid!,
      pid: child.pid ?? -1,
      startedAt: new Date(),
      logPath,
      env,
    };
    const r: Running = {
      proc,
      child,
      stopping: false,
      exited: new Promise((resolve) => {
        const done = (code: number | null, signal: NodeJS.Signals | null) => {
          // The container is gone: so is what ran beside the controller in its group (the forwarder
          // inside the namespace), which outlives a controller that exited on its own.
          killGroup(child, 'SIGKILL');
          live.delete(child);
          proc.exited = { code, signal, at: new Date() };
          this.reportExited(pod, proc, !r.stopping);
          if (this.running.get(name) === r) this.running.delete(name);
          if (!r.stopping) {
            // Restarted by the next sync after a back-off, as the kubelet restarts a container.
            const previous = this.history.filter((h) => h.pod === name && h.exited).length;
            this.backoffUntil.set(name, Date.now() + Math.min(10_000, 1000 * 2 ** Math.min(previous - 1, 4)));
          }
          resolve();
        };
        child.once('exit', done);
        child.once('error', (err) => {
          writeFileSync(logPath, `\nspawn failed: ${err.message}\n`, { flag: 'a' });
          done(-1, null);
        });
      }),
    };
    this.running.set(name, r);
    this.history.push(proc);
    this.reportStarted(pod, proc);
  }

  private async podToken(pod: V1Pod): Promise<string> {
    const ns = pod.metadata!.namespace ?? this.opts.namespace;
    const tr = await this.core.createNamespacedServiceAccountToken({
      name: pod.spec?.serviceAccountName ?? 'default',
      namespace: ns,
      body: {
        spec: {
          audiences: [],
          expirationSeconds: 3600,
          boundObjectRef: {
            apiVersion: 'v1',
            kind: 'Pod',
            name: pod.metadata!.name!,
            uid: pod.metadata!.uid,
          },
        },
      },
    });
    if (!tr.status?.token)
      throw new Error(`TokenRequest for pod ${ns}/${pod.metadata!.name} returned no token`);
    return tr.status.token;
  }
}

function kubeconfigYaml(token: string): string {
  const info = controlPlane();
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'test',
        cluster: { server: info.server, 'certificate-authority': join(info.pkiDir, 'ca.crt') },
      },
    ],
    users: [{ name: 'pod', user: { token } }],
    contexts: [{ name: 'pod', context: { cluster: 'test', user: 'pod' } }],
    'current-context': 'pod',
  });
}

/** Kubernetes quantities as the kubelet divides them for resourceFieldRef (rounded up, at least 1). */
export function quantityToNumber(q: string): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) throw new Error(`unparsable quantity ${q}`);
  const n = Number(m[1]);
  const suffix: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  const f = suffix[m[2] ?? ''];
  if (f === undefined) throw new Error(`unknown quantity suffix in ${q}`);
  return n * f;
}

/**
 * The container's env as the kubelet gives it (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables):
 * envFrom first, then env in order, each value's $(VAR) references expanded from those before it.
 * Service links (FOO_SERVICE_HOST) are left out: their ClusterIPs lead nowhere here.
 */
export async function resolveEnv(
  core: CoreV1Api,
  pod: V1Pod,
  container: V1Container,
): Promise<Record<string, string>> {
  const ns = pod.metadata?.namespace ?? 'default';
  const out: Record<string, string> = {};
  const configMaps = new Map<string, Record<string, string>>();
  const secrets = new Map<string, Record<string, string>>();
  const configMap = async (name: string) => {
    if (!configMaps.has(name))
      configMaps.set(name, (await core.readNamespacedConfigMap({ name, namespace: ns })).data ?? {});
    return configMaps.get(name)!;
  };
  const secret = async (name: string) => {
    if (!secrets.has(name)) {
      const data = (await core.readNamespacedSecret({ name, namespace: ns })).data ?? {};
      secrets.set(
        name,
        Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
        ),
      );
    }
    return secrets.get(name)!;
  };
  for (const from of container.envFrom ?? []) {
    const optional = from.configMapRef?.optional ?? from.secretRef?.optional ?? false;
    const read = from.configMapRef
      ? configMap(from.configMapRef.name!)
      : from.secretRef
        ? secret(from.secretRef.name!)
        : Promise.resolve({});
    const data: Record<string, string> = await read.catch((err: unknown) => {
      if (optional) return {};
      throw err;
    });
    for (const [k, v] of Object.entries(data)) out[`${from.prefix ?? ''}${k}`] = v;
  }
  let node: { allocatable?: Record<string, string> } | undefined;
  for (const e of container.env ?? []) {
    const v = await envValue(e);
    if (v !== undefined) out[e.name] = v;
  }
  return out;

  async function envValue(e: V1EnvVar): Promise<string | undefined> {
    if (e.value !== undefined) return expand(e.value, out);
    const from = e.valueFrom;
    if (!from) return '';
    if (from.fieldRef) return fieldValue(pod, from.fieldRef.fieldPath);
    if (from.resourceFieldRef) {
      const { resource, divisor } = from.resourceFieldRef;
      const [kind, res] = resource.split('.') as ['limits' | 'requests', string];
      const c = from.resourceFieldRef.containerName
        ? pod.spec?.containers.find((k) => k.name === from.resourceFieldRef!.containerName)
        : container;
      let q = c?.resources?.[kind]?.[res];
      // An unset limit reads as the node's allocatable (the kubelet's defaulting).
      if (q === undefined && kind === 'limits') {
        node ??= (await core.readNode({ name: pod.spec!.nodeName! })).status;
        q = node?.allocatable?.[res];
      }
      if (q === undefined) return '0';
      const d = quantityToNumber(String(divisor ?? '1'));
      const value = Math.max(1, Math.ceil(quantityToNumber(String(q)) / d));
      // kwok's nodes claim 32 CPUs: GOMAXPROCS that high on this machine's few cores would only add
      // GC workers fighting for them, so CPU is capped at the cores there are.
      return String(res === 'cpu' && d === 1 ? Math.min(value, availableParallelism()) : value);
    }
    if (from.configMapKeyRef) {
      const data = await configMap(from.configMapKeyRef.name!).catch(
        (err: unknown): Record<string, string> => {
          if (from.configMapKeyRef?.optional) return {};
          throw err;
        },
      );
      return data[from.configMapKeyRef.key];
    }
    if (from.secretKeyRef) {
      const data = await secret(from.secretKeyRef.name!).catch((err: unknown): Record<string, string> => {
        if (from.secretKeyRef?.optional) return {};
        throw err;
      });
      return data[from.secretKeyRef.key];
    }
    return '';
  }
}

/** The downward API's fieldRef paths the kubelet serves for env. */
export function fieldValue(pod: V1Pod, path: string): string {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) return (pod.metadata?.[m[1] as 'labels' | 'annotations'] ?? {})[m[2] as string] ?? '';
  switch (path) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return pod.status?.hostIP ?? '';
    case 'status.podIP':
      return pod.status?.podIP ?? '';
    case 'status.podIPs':
      return (pod.status?.podIPs ?? []).map((p) => p.ip).join(',');
    case 'status.hostIPs':
      return (pod.status?.hostIPs ?? []).map((p) => p.ip).join(',');
    default:
      throw new Error(`fieldRef ${path} is not one the kubelet serves as env`);
  }
}

/** $(VAR) expands from the env defined so far; $$(VAR) escapes; an unknown $(VAR) stays as written. */
export function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name: string | undefined) =>
    all === '$$' ? '$' : name !== undefined && name in env ? (env[name] as string) : all,
  );
}
