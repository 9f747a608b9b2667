// All Prometheus series the operator exports, on ONE prom-client Registry created per call (never the
// global default registry, so tests and multiple in-process instances do not collide).
//
// Names follow the ecosystem so existing dashboards and alerts work unchanged:
// - leader_election_master_status (client-go / controller-runtime)
// - controller_runtime_reconcile_* and workqueue_* (controller-runtime)
// - rest_client_requests_total (client-go)
// The glooha_* series are this operator's own.
//
// The reconciler, the work queue, the elector and the API clients each see only a small typed hook
// (metrics.reconcile, metrics.workqueue(name), metrics.leaderElection, metrics.restClient), never
// prom-client itself.

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
   * (controller-runtime does the same). Optional: observe() creates them too.
   */
  register(controller: string): void;
  /**
   * One reconcile finished: controller_runtime_reconcile_total{controller,result} += 1,
   * controller_runtime_reconcile_time_seconds{controller} observes `seconds`, and for result "error"
   * controller_runtime_reconcile_errors_total{controller} += 1.
   */
  observe(controller: string, result: ReconcileResult, seconds: number): void;
}

export type ReadyState = 'true' | 'false' | 'unknown';

export interface GloohaMetrics {
  /** glooha_resources{ready}: how many GlooHA resources are in each Ready state (set all three each time). */
  setResources(counts: Partial<Record<ReadyState, number>>): void;
  /** glooha_drift_corrections_total{component} += n: the operator reverted a manual change. */
  driftCorrected(component: string, n?: number): void;
}

export interface OperatorMetrics {
  readonly registry: Registry;
  readonly leaderElection: LeaderElectionMetrics;
  readonly reconcile: ReconcileMetrics;
  readonly restClient: RestClientMetrics;
  /** glooha_fenced_writes_total{layer}: writes refused for not coming from the Lease holder. */
  readonly fencing: FenceMetrics;
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
/** client-go's workqueue buckets: 10^-8 … 10^1 seconds. */
export const WORKQUEUE_DURATION_BUCKETS = Array.from({ length: 10 }, (_, i) =>
  Number((1e-8 * 10 ** i).toPrecision(1)),
);
/** Lease renew latency: a renew is one PUT (plus a GET after a conflict). */
export const RENEW_DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** client-go's rest_client_request_duration_seconds buckets. */
export const REST_CLIENT_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export function createMetrics(options: CreateMetricsOptions = {}): OperatorMetrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // --- leader election
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

  // --- reconciles
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
  const reconcile: ReconcileMetrics = {
    register: (controller) => {
      for (const result of RECONCILE_RESULTS) reconcileTotal.inc({ controller, result }, 0);
      reconcileErrors.inc({ controller }, 0);
      reconcileTime.zero({ controller });
    },
    observe: (controller, result, seconds) => {
      reconcileTotal.inc({ controller, result });
      reconcileTime.observe({ controller }, seconds);
      if (result === 'error') reconcileErrors.inc({ controller });
    },
  };

  // --- work queues
  const wqDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const wqAdds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const wqRetries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const wqQueueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name'] as const,
    buckets: WORKQUEUE_DURATION_BUCKETS,
    registers,
  });
  const wqWorkDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: ['name'] as const,
    buckets: WORKQUEUE_DURATION_BUCKETS,
    registers,
  });
  const workqueues = new Map<string, WorkqueueMetrics>();
  const workqueue = (name: string): WorkqueueMetrics => {
    let hooks = workqueues.get(name);
    if (!hooks) {
      const labels = { name };
      wqDepth.set(labels, 0);
      wqAdds.inc(labels, 0);
      wqRetries.inc(labels, 0);
      wqQueueDuration.zero(labels);
      wqWorkDuration.zero(labels);
      hooks = {
        added: (depth) => {
          wqAdds.inc(labels);
          wqDepth.set(labels, depth);
        },
        started: (depth, waitSeconds) => {
          wqDepth.set(labels, depth);
          wqQueueDuration.observe(labels, waitSeconds);
        },
        finished: (workSeconds) => wqWorkDuration.observe(labels, workSeconds),
        retried: () => wqRetries.inc(labels),
      };
      workqueues.set(name, hooks);
    }
    return hooks;
  };

  // --- API requests
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

  // --- fencing (docs/leader-election.md, "The fence's layers")
  const fencedWrites = new Counter({
    name: 'glooha_fenced_writes_total',
    help: 'Writes refused because this replica did not hold the Lease, by the layer that refused them (client, socket, admission).',
    labelNames: ['layer'] as const,
    registers,
  });
  for (const layer of FENCE_LAYERS) fencedWrites.inc({ layer }, 0);
  const fencing: FenceMetrics = { writeRefused: (layer) => fencedWrites.inc({ layer }) };

  // --- glooha
  const resources = new Gauge({
    name: 'glooha_resources',
    help: 'Number of GlooHA resources by the status of their Ready condition.',
    labelNames: ['ready'] as const,
    registers,
  });
  for (const ready of ['true', 'false', 'unknown'] as const) resources.set({ ready }, 0);
  const drift = new Counter({
    name: 'glooha_drift_corrections_total',
    help: 'Number of times the operator reverted a change made outside it, by component.',
    labelNames: ['component'] as const,
    registers,
  });
  const glooha: GloohaMetrics = {
    setResources: (counts) => {
      for (const ready of ['true', 'false', 'unknown'] as const) resources.set({ ready }, counts[ready] ?? 0);
    },
    driftCorrected: (component, n = 1) => drift.inc({ component }, n),
  };

  return {
    registry,
    leaderElection,
    reconcile,
    restClient,
    fencing,
    glooha,
    workqueue,
    expose: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
