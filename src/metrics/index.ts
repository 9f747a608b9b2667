// All Prometheus series the operator exports, on ONE prom-client Registry created per call (never the
// global default registry, so tests and multiple in-process instances do not collide).
//
// Names, labels, help texts and buckets follow the ecosystem so existing dashboards and alerts work
// unchanged (test/unit/metrics/metrics.test.ts compares them with controller-runtime's list):
// - leader_election_master_status (client-go / controller-runtime)
// - controller_runtime_* (sigs.k8s.io/controller-runtime pkg/internal/controller/metrics)
// - workqueue_* with both `name` and `controller` labels (controller-runtime pkg/metrics/workqueue.go)
// - rest_client_requests_total (client-go)
// The glooha_* series are this operator's own.
//
// The reconciler, the work queue, the elector and the API clients each see only a small typed hook
// (metrics.reconcile, metrics.workqueue(name), metrics.leaderElection, metrics.restClient), never
// prom-client itself. Per-object series (GlooHA and KgatewayHA, told apart by the `kind` label as
// Flux's gotk_* series do) are read from the informer cache when scraped (metrics.glooha.observe), as
// kube-state-metrics does: never a step behind the cache, the same on the leader and on a standby
// (every replica keeps its caches warm).

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FENCE_LAYERS, type FenceMetrics, type RestClientMetrics } from '../kube/client.js';
import type { LeaderElectionMetrics, RenewResult } from '../leader/metrics.js';
import type { WorkqueueMetrics } from '../runtime/workqueue-metrics.js';

/** Result label of controller_runtime_reconcile_total, as controller-runtime spells it. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';
export const RECONCILE_RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

export interface ReconcileMetrics {
  /**
   * Pre-creates the series of a controller at 0 so rate()/increase() work from the first reconcile
   * (controller-runtime does the same) and sets controller_runtime_max_concurrent_reconciles.
   */
  register(controller: string, maxConcurrentReconciles: number): void;
  /**
   * One reconcile finished: controller_runtime_reconcile_total{controller,result} += 1,
   * controller_runtime_reconcile_time_seconds{controller} observes `seconds`, and for result "error"
   * controller_runtime_reconcile_errors_total{controller} += 1.
   */
  observe(controller: string, result: ReconcileResult, seconds: number): void;
  /** Reconciles observed so far, all controllers and results (the idle memory release's measure of work). */
  finished(): number;
  /**
   * controller_runtime_terminal_reconcile_errors_total{controller} += 1: an error retrying cannot fix
   * (controller-runtime's reconcile.TerminalError), here a forbidden or invalid write. It is also an
   * `error` result for observe().
   */
  terminalError(controller: string): void;
  /**
   * controller_runtime_reconcile_panics_total{controller} += 1: the reconciler itself failed (a bug:
   * a TypeError, RangeError, ...), not the API server. controller-runtime counts recovered panics.
   */
  panicked(controller: string): void;
}

export type ReadyState = 'true' | 'false' | 'unknown';
const READY_STATES: readonly ReadyState[] = ['true', 'false', 'unknown'];

/** What the per-object series read of one GlooHA or KgatewayHA, at scrape time. */
export interface ObjectHealth {
  namespace: string;
  name: string;
  ready: ReadyState;
  /** The managed product's leader Lease (Gloo's `gloo`, kgateway's `kgateway-envoy`), when seen. */
  leaderLease?: {
    /** The Lease's name. */
    name: string;
    /** Seconds since this replica last saw the Lease renewed (or its holder change). */
    ageSeconds: number;
    leaseDurationSeconds: number;
  };
}

export interface GloohaMetrics {
  /**
   * Where the per-object series of `kind` (GlooHA, KgatewayHA) read from when scraped (that kind's
   * informer cache): glooha_resources{kind,ready}, glooha_ready{kind,namespace,name} and
   * glooha_product_leader_lease_{age,duration}_seconds{kind,namespace,name,lease}. One source per
   * kind; setting a kind's source again replaces it.
   */
  observe(kind: string, source: () => readonly ObjectHealth[]): void;
  /**
   * glooha_drift_corrections_total{kind,namespace,name,component} += n: the operator reverted a
   * manual change in the install of the HA object kind namespace/name. Per object, so that an alert
   * on one install is not the sum of several (a GlooHA and a KgatewayHA of one name included).
   */
  driftCorrected(
    owner: { kind: string; namespace: string; name: string },
    component: string,
    n?: number,
  ): void;
  /**
   * glooha_product_leaderless_seconds{kind,namespace,name}: one leaderless gap of the managed product
   * of that HA resource, from the previous holder's last renewal this replica saw to the next
   * holder's first record.
   */
  leaderless(owner: { kind: string; namespace: string; name: string }, seconds: number): void;
  /**
   * glooha_product_lease_releases_total{kind,namespace,name}: the operator cleared the product's Lease
   * because the kubelet reported its holder's process ended.
   */
  leaseReleased(owner: { kind: string; namespace: string; name: string }): void;
  /**
   * glooha_events_dropped_total{kind}: a Kubernetes Event about an HA object of `kind` was not sent
   * because MAX_QUEUED_EVENTS were already waiting for a slot (src/controller/actions/events.ts).
   */
  eventDropped(kind: string): void;
}

export interface OperatorMetrics {
  readonly registry: Registry;
  readonly leaderElection: LeaderElectionMetrics;
  readonly reconcile: ReconcileMetrics;
  readonly restClient: RestClientMetrics;
  /** glooha_fenced_writes_total{layer}: writes refused for not coming from the Lease holder. */
  readonly fencing: FenceMetrics;
  /**
   * glooha_fencing_policy_missing: 1 while this replica leads, requires the fencing policy and last
   * found it not enforced (so it runs no controller); 0 otherwise.
   */
  readonly fencingPolicy: { setMissing(missing: boolean): void };
  readonly glooha: GloohaMetrics;
  /** The hooks for the work queue called `name` (label workqueue_*{name}). */
  workqueue(name: string): WorkqueueMetrics;
  /** The exposition text (for /metrics) and its content type. */
  expose(): Promise<{ contentType: string; body: string }>;
}

export interface CreateMetricsOptions {
  /** Node.js process metrics (process_*, nodejs_*). Default true; tests may turn them off. */
  defaultMetrics?: boolean;
  /** Extra labels on every series (e.g. { pod }). */
  defaultLabels?: Record<string, string>;
}

/** controller-runtime's reconcile_time_seconds buckets. */
export const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** controller-runtime's workqueue buckets: prometheus.ExponentialBuckets(10e-9, 10, 12), 10^-8 … 10^3 s. */
export const WORKQUEUE_DURATION_BUCKETS = Array.from({ length: 12 }, (_, i) =>
  Number((1e-8 * 10 ** i).toPrecision(1)),
);
/** Lease renew latency: a renew is one PUT (plus a GET after a conflict). */
export const RENEW_DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Leaderless gaps: a handover at the next retry (seconds) up to an expired Lease and beyond. */
export const LEADERLESS_BUCKETS = [0.5, 1, 2, 3, 4, 5, 7.5, 10, 15, 17.5, 20, 25, 30, 45, 60, 120];
/** client-go's rest_client_request_duration_seconds buckets. */
export const REST_CLIENT_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** leader_election_*: the operator's own election (client-go's names). */
function leaderElectionMetrics(registers: Registry[]) {
  const masterStatus = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'] as const,
    registers,
  });
  const transitions = new Counter({
    name: 'leader_election_transitions_total',
    help: 'Number of times this replica observed the lease change to a new holder (including itself).',
    labelNames: ['name'] as const,
    registers,
  });
  const renewDuration = new Histogram({
    name: 'leader_election_renew_duration_seconds',
    help: 'Latency of lease acquire/renew attempts made while leading or acquiring, by result (success, conflict, error).',
    labelNames: ['name', 'result'] as const,
    buckets: RENEW_DURATION_BUCKETS,
    registers,
  });
  const lastRenew = new Gauge({
    name: 'leader_election_last_renew_timestamp_seconds',
    help: 'Unix time of the last successful lease acquire/renew by this replica.',
    labelNames: ['name'] as const,
    registers,
  });
  const leaderElection: LeaderElectionMetrics = {
    setLeading: (name, leading) => masterStatus.set({ name }, leading ? 1 : 0),
    leaderChanged: (name) => transitions.inc({ name }),
    renewAttempt: (name, result: RenewResult, seconds, wallTime) => {
      renewDuration.observe({ name, result }, seconds);
      if (result === 'success') lastRenew.set({ name }, wallTime.getTime() / 1000);
    },
  };
  return leaderElection;
}

/** controller_runtime_reconcile*: per controller; `controllers` are those set up on this replica. */
function reconcileMetrics(registers: Registry[]) {
  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers,
  });
  const reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'] as const,
    buckets: RECONCILE_TIME_BUCKETS,
    registers,
  });
  const terminalErrors = new Counter({
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const panics = new Counter({
    name: 'controller_runtime_reconcile_panics_total',
    help: 'Total number of reconciliation panics per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const maxConcurrent = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  // Every controller set up on this replica, leading or not: a standby reports 0 active workers.
  const controllers = new Set<string>();
  let finished = 0;
  const reconcile: ReconcileMetrics = {
    register: (controller, maxConcurrentReconciles) => {
      controllers.add(controller);
      for (const result of RECONCILE_RESULTS) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      terminalErrors.inc({ controller }, 0);
      panics.inc({ controller }, 0);
      reconcileTime.zero({ controller });
      maxConcurrent.set({ controller }, maxConcurrentReconciles);
    },
    observe: (controller, result, seconds) => {
      finished++;
      reconcileTotal.inc({ controller, result });
      reconcileTime.observe({ controller }, seconds);
      if (result === 'error') reconcileErrors.inc({ controller });
    },
    finished: () => finished,
    terminalError: (controller) => terminalErrors.inc({ controller }),
    panicked: (controller) => panics.inc({ controller }),
  };
  return { reconcile, controllers };
}

/** workqueue_* and controller_runtime_active_workers. controller-runtime names each queue after its controller and sets both labels. */
function workqueueMetrics(registers: Registry[], controllers: ReadonlySet<string>) {
  const inFlight = new Map<string, () => readonly number[]>();
  const agesOf = (name: string): readonly number[] => inFlight.get(name)?.() ?? [];
  const wqDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue by workqueue and priority',
    labelNames: ['name', 'controller', 'priority'] as const,
    registers,
  });
  const wqAdds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name', 'controller'] as const,
    registers,
  });
  const wqRetries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name', 'controller'] as const,
    registers,
  });
  const wqQueueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name', 'controller'] as const,
    buckets: WORKQUEUE_DURATION_BUCKETS,
    registers,
  });
  const wqWorkDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: ['name', 'controller'] as const,
    buckets: WORKQUEUE_DURATION_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames: ['name', 'controller'] as const,
    registers,
    collect() {
      for (const name of inFlight.keys())
        this.set(
          { name, controller: name },
          agesOf(name).reduce((a, b) => a + b, 0),
        );
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name', 'controller'] as const,
    registers,
    collect() {
      for (const name of inFlight.keys()) this.set({ name, controller: name }, Math.max(0, ...agesOf(name)));
    },
  });
  new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'] as const,
    registers,
    collect() {
      for (const name of new Set([...controllers, ...inFlight.keys()]))
        this.set({ controller: name }, agesOf(name).length);
    },
  });
  const workqueues = new Map<string, WorkqueueMetrics>();
  const workqueue = (name: string): WorkqueueMetrics => {
    let hooks = workqueues.get(name);
    if (!hooks) {
      const labels = { name, controller: name };
      const depthLabels = { ...labels, priority: '' }; // controller-runtime: "" = no priority queue
      wqDepth.set(depthLabels, 0);
      wqAdds.inc(labels, 0);
      wqRetries.inc(labels, 0);
      wqQueueDuration.zero(labels);
      wqWorkDuration.zero(labels);
      inFlight.set(name, () => []);
      hooks = {
        added: (depth) => {
          wqAdds.inc(labels);
          wqDepth.set(depthLabels, depth);
        },
        started: (depth, waitSeconds) => {
          wqDepth.set(depthLabels, depth);
          wqQueueDuration.observe(labels, waitSeconds);
        },
        finished: (workSeconds) => wqWorkDuration.observe(labels, workSeconds),
        retried: () => wqRetries.inc(labels),
        trackInFlight: (ages) => inFlight.set(name, ages),
      };
      workqueues.set(name, hooks);
    }
    return hooks;
  };
  return workqueue;
}

/** rest_client_*: the API requests (client-go's names). */
function restClientMetrics(registers: Registry[]) {
  const restRequests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'] as const,
    registers,
  });
  const restDuration = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds (to response headers), broken down by verb and host. Watches are not included.',
    labelNames: ['verb', 'host'] as const,
    buckets: REST_CLIENT_DURATION_BUCKETS,
    registers,
  });
  const restClient: RestClientMetrics = {
    request: (method, code, host, seconds) => {
      restRequests.inc({ code, method, host });
      if (seconds !== undefined) restDuration.observe({ verb: method, host }, seconds);
    },
  };
  return restClient;
}

/** glooha_fenced_writes_total and glooha_fencing_policy_missing (docs/leader-election.md, "The fence's layers"). */
function fencingMetrics(registers: Registry[]) {
  const fencedWrites = new Counter({
    name: 'glooha_fenced_writes_total',
    help: 'Writes refused because this replica did not hold the Lease, by the layer that refused them (client, socket, admission).',
    labelNames: ['layer'] as const,
    registers,
  });
  for (const layer of FENCE_LAYERS) fencedWrites.inc({ layer }, 0);
  const fencing: FenceMetrics = { writeRefused: (layer) => fencedWrites.inc({ layer }) };
  const policyMissing = new Gauge({
    name: 'glooha_fencing_policy_missing',
    help: 'The leader requires the fencing admission policy but the API server does not enforce it, so it reconciles nothing (1), or not (0).',
    registers,
  });
  policyMissing.set(0);
  const fencingPolicy = { setMissing: (missing: boolean) => policyMissing.set(missing ? 1 : 0) };
  return { fencing, fencingPolicy };
}

/** The per-object glooha_* series, read from the cache when scraped (see the module comment), and the per-object events. */
function objectMetrics(registers: Registry[]) {
  const sources = new Map<string, () => readonly ObjectHealth[]>();
  const each = function* (): Generator<[string, ObjectHealth]> {
    for (const [kind, source] of sources) for (const g of source()) yield [kind, g];
  };
  new Gauge({
    name: 'glooha_resources',
    help: "Number of the operator's HA resources by kind and the status of their Ready condition.",
    labelNames: ['kind', 'ready'] as const,
    registers,
    collect() {
      for (const [kind, source] of sources) {
        const counts: Record<ReadyState, number> = { true: 0, false: 0, unknown: 0 };
        for (const g of source()) counts[g.ready]++;
        for (const ready of READY_STATES) this.set({ kind, ready }, counts[ready]);
      }
    },
  });
  new Gauge({
    name: 'glooha_ready',
    help: "1 when the HA resource's Ready condition is True, 0 when it is False, Unknown or not reported yet.",
    labelNames: ['kind', 'namespace', 'name'] as const,
    registers,
    collect() {
      this.reset(); // a deleted object's series goes with it
      for (const [kind, g] of each())
        this.set({ kind, namespace: g.namespace, name: g.name }, g.ready === 'true' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'glooha_product_leader_lease_age_seconds',
    help: "Seconds since this replica last saw the managed product's leader Lease (named by the lease label) renewed, per HA resource; above glooha_product_leader_lease_duration_seconds no replica of the product leads.",
    labelNames: ['kind', 'namespace', 'name', 'lease'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, g] of each())
        if (g.leaderLease)
          this.set(
            { kind, namespace: g.namespace, name: g.name, lease: g.leaderLease.name },
            g.leaderLease.ageSeconds,
          );
    },
  });
  new Gauge({
    name: 'glooha_product_leader_lease_duration_seconds',
    help: "The managed product's leader Lease leaseDurationSeconds, per HA resource.",
    labelNames: ['kind', 'namespace', 'name', 'lease'] as const,
    registers,
    collect() {
      this.reset();
      for (const [kind, g] of each())
        if (g.leaderLease)
          this.set(
            { kind, namespace: g.namespace, name: g.name, lease: g.leaderLease.name },
            g.leaderLease.leaseDurationSeconds,
          );
    },
  });
  const drift = new Counter({
    name: 'glooha_drift_corrections_total',
    help: 'Number of times the operator reverted a change made outside it, by managed object (kind, namespace, name) and component.',
    labelNames: ['kind', 'namespace', 'name', 'component'] as const,
    registers,
  });
  const leaderless = new Histogram({
    name: 'glooha_product_leaderless_seconds',
    help: "Leaderless gaps of the managed product, per HA resource: seconds from the previous holder's last renewal of the product's leader Lease, as this replica saw it, to the next holder's first record.",
    labelNames: ['kind', 'namespace', 'name'] as const,
    buckets: LEADERLESS_BUCKETS,
    registers,
  });
  const leaseReleases = new Counter({
    name: 'glooha_product_lease_releases_total',
    help: "Times the operator cleared the managed product's leader Lease because its kubelet reported the holder's own process ended (a termination of the elector container after the Lease's acquireTime), per HA resource.",
    labelNames: ['kind', 'namespace', 'name'] as const,
    registers,
  });
  const eventsDropped = new Counter({
    name: 'glooha_events_dropped_total',
    help: 'Kubernetes Events about HA objects of a kind that were not sent because too many were already waiting to be (events are best effort; their writes in flight are bounded by the concurrency).',
    labelNames: ['kind'] as const,
    registers,
  });
  const glooha: GloohaMetrics = {
    eventDropped: (kind) => eventsDropped.inc({ kind }),
    leaderless: (o, seconds) =>
      leaderless.observe({ kind: o.kind, namespace: o.namespace, name: o.name }, seconds),
    leaseReleased: (o) => leaseReleases.inc({ kind: o.kind, namespace: o.namespace, name: o.name }),
    observe: (kind, fn) => void sources.set(kind, fn),
    driftCorrected: (owner, component, n = 1) =>
      drift.inc({ kind: owner.kind, namespace: owner.namespace, name: owner.name, component }, n),
  };
  return glooha;
}

export function createMetrics(options: CreateMetricsOptions = {}): OperatorMetrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // In this order, the order of the exposition.
  const leaderElection = leaderElectionMetrics(registers);
  const { reconcile, controllers } = reconcileMetrics(registers);
  const workqueue = workqueueMetrics(registers, controllers);
  const restClient = restClientMetrics(registers);
  const { fencing, fencingPolicy } = fencingMetrics(registers);
  const glooha = objectMetrics(registers);
  return {
    registry,
    leaderElection,
    reconcile,
    restClient,
    fencing,
    fencingPolicy,
    glooha,
    workqueue,
    expose: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
