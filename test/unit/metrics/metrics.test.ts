import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics, type ObjectHealth } from '../../../src/metrics/index.js';

/**
 * controller-runtime's series, written down from its source (v0.20-v0.22):
 * pkg/internal/controller/metrics/metrics.go (controller_runtime_*), pkg/metrics/workqueue.go
 * (workqueue_*: labels name and controller, depth also priority; buckets ExponentialBuckets(10e-9, 10,
 * 12)), pkg/metrics/leaderelection.go and client_go_adapter.go (leader_election_master_status,
 * rest_client_requests_total). The operator must export each with the same type, labels and buckets.
 */
const WQ_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const CONTROLLER_RUNTIME_METRICS: Array<{
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  labels: string[];
  buckets?: number[];
}> = [
  { name: 'controller_runtime_reconcile_total', type: 'counter', labels: ['controller', 'result'] },
  { name: 'controller_runtime_reconcile_errors_total', type: 'counter', labels: ['controller'] },
  { name: 'controller_runtime_terminal_reconcile_errors_total', type: 'counter', labels: ['controller'] },
  { name: 'controller_runtime_reconcile_panics_total', type: 'counter', labels: ['controller'] },
  {
    name: 'controller_runtime_reconcile_time_seconds',
    type: 'histogram',
    labels: ['controller'],
    buckets: RECONCILE_BUCKETS,
  },
  { name: 'controller_runtime_max_concurrent_reconciles', type: 'gauge', labels: ['controller'] },
  { name: 'controller_runtime_active_workers', type: 'gauge', labels: ['controller'] },
  { name: 'workqueue_depth', type: 'gauge', labels: ['name', 'controller', 'priority'] },
  { name: 'workqueue_adds_total', type: 'counter', labels: ['name', 'controller'] },
  {
    name: 'workqueue_queue_duration_seconds',
    type: 'histogram',
    labels: ['name', 'controller'],
    buckets: WQ_BUCKETS,
  },
  {
    name: 'workqueue_work_duration_seconds',
    type: 'histogram',
    labels: ['name', 'controller'],
    buckets: WQ_BUCKETS,
  },
  { name: 'workqueue_unfinished_work_seconds', type: 'gauge', labels: ['name', 'controller'] },
  { name: 'workqueue_longest_running_processor_seconds', type: 'gauge', labels: ['name', 'controller'] },
  { name: 'workqueue_retries_total', type: 'counter', labels: ['name', 'controller'] },
  { name: 'leader_election_master_status', type: 'gauge', labels: ['name'] },
  { name: 'rest_client_requests_total', type: 'counter', labels: ['code', 'method', 'host'] },
];

/** The value of one sample line, e.g. sample(text, 'workqueue_adds_total{name="glooha"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('createMetrics', () => {
  it('exposes the leader-election series', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.leaderElection.setLeading('glooha-operator', true);
    m.leaderElection.leaderChanged('glooha-operator');
    m.leaderElection.renewAttempt('glooha-operator', 'success', 0.004, new Date('2030-01-01T00:00:00Z'));
    m.leaderElection.renewAttempt('glooha-operator', 'error', 2, new Date('2030-01-01T00:00:05Z'));
    const { body, contentType } = await m.expose();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('# TYPE leader_election_master_status gauge');
    expect(sample(body, 'leader_election_master_status{name="glooha-operator"}')).toBe(1);
    expect(sample(body, 'leader_election_transitions_total{name="glooha-operator"}')).toBe(1);
    expect(
      sample(body, 'leader_election_renew_duration_seconds_count{name="glooha-operator",result="success"}'),
    ).toBe(1);
    expect(
      sample(
        body,
        'leader_election_renew_duration_seconds_bucket{le="0.005",name="glooha-operator",result="success"}',
      ),
    ).toBe(1);
    expect(
      sample(body, 'leader_election_renew_duration_seconds_count{name="glooha-operator",result="error"}'),
    ).toBe(1);
    // only successes move the timestamp
    expect(sample(body, 'leader_election_last_renew_timestamp_seconds{name="glooha-operator"}')).toBe(
      1893456000,
    );
    m.leaderElection.setLeading('glooha-operator', false);
    expect(sample((await m.expose()).body, 'leader_election_master_status{name="glooha-operator"}')).toBe(0);
  });

  it('counts reconciles by result, errors separately, and times them', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.reconcile.register('glooha', 4);
    let body = (await m.expose()).body;
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(sample(body, `controller_runtime_reconcile_total{controller="glooha",result="${result}"}`)).toBe(
        0,
      );
    }
    expect(sample(body, 'controller_runtime_reconcile_errors_total{controller="glooha"}')).toBe(0);
    expect(sample(body, 'controller_runtime_terminal_reconcile_errors_total{controller="glooha"}')).toBe(0);
    expect(sample(body, 'controller_runtime_reconcile_panics_total{controller="glooha"}')).toBe(0);
    expect(sample(body, 'controller_runtime_max_concurrent_reconciles{controller="glooha"}')).toBe(4);
    expect(sample(body, 'controller_runtime_reconcile_time_seconds_count{controller="glooha"}')).toBe(0);

    m.reconcile.observe('glooha', 'success', 0.12);
    m.reconcile.observe('glooha', 'success', 0.3);
    m.reconcile.observe('glooha', 'error', 1.5);
    m.reconcile.observe('glooha', 'requeue_after', 0.01);
    m.reconcile.terminalError('glooha');
    m.reconcile.panicked('glooha');
    m.reconcile.panicked('glooha');
    body = (await m.expose()).body;
    expect(sample(body, 'controller_runtime_terminal_reconcile_errors_total{controller="glooha"}')).toBe(1);
    expect(sample(body, 'controller_runtime_reconcile_panics_total{controller="glooha"}')).toBe(2);
    expect(sample(body, 'controller_runtime_reconcile_total{controller="glooha",result="success"}')).toBe(2);
    expect(sample(body, 'controller_runtime_reconcile_total{controller="glooha",result="error"}')).toBe(1);
    expect(
      sample(body, 'controller_runtime_reconcile_total{controller="glooha",result="requeue_after"}'),
    ).toBe(1);
    expect(sample(body, 'controller_runtime_reconcile_errors_total{controller="glooha"}')).toBe(1);
    expect(sample(body, 'controller_runtime_reconcile_time_seconds_count{controller="glooha"}')).toBe(4);
    expect(sample(body, 'controller_runtime_reconcile_time_seconds_sum{controller="glooha"}')).toBeCloseTo(
      1.93,
    );
    expect(
      sample(body, 'controller_runtime_reconcile_time_seconds_bucket{le="60",controller="glooha"}'),
    ).toBe(4);
  });

  it('backs the WorkqueueMetrics hooks with workqueue_* series labelled name and controller', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const q = m.workqueue('glooha');
    expect(m.workqueue('glooha')).toBe(q);
    q.added(1);
    q.added(2);
    q.started(1, 0.002);
    q.retried();
    q.finished(0.05);
    q.started(0, 700); // waited 700 s: still inside a bucket below +Inf
    const body = (await m.expose()).body;
    const l = 'name="glooha",controller="glooha"';
    expect(sample(body, `workqueue_depth{${l},priority=""}`)).toBe(0);
    expect(sample(body, `workqueue_adds_total{${l}}`)).toBe(2);
    expect(sample(body, `workqueue_retries_total{${l}}`)).toBe(1);
    expect(sample(body, `workqueue_queue_duration_seconds_count{${l}}`)).toBe(2);
    expect(sample(body, `workqueue_work_duration_seconds_sum{${l}}`)).toBeCloseTo(0.05);
    expect(sample(body, `workqueue_queue_duration_seconds_bucket{le="1e-8",${l}}`)).toBe(0);
    expect(sample(body, `workqueue_queue_duration_seconds_bucket{le="10",${l}}`)).toBe(1);
    expect(sample(body, `workqueue_queue_duration_seconds_bucket{le="1000",${l}}`)).toBe(2);
  });

  it('reads in-flight work when scraped: unfinished seconds, longest running, active workers', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const q = m.workqueue('glooha');
    let body = (await m.expose()).body;
    const l = 'name="glooha",controller="glooha"';
    expect(sample(body, `workqueue_unfinished_work_seconds{${l}}`)).toBe(0);
    expect(sample(body, `workqueue_longest_running_processor_seconds{${l}}`)).toBe(0);
    expect(sample(body, 'controller_runtime_active_workers{controller="glooha"}')).toBe(0);
    let ages = [3, 40];
    q.trackInFlight(() => ages);
    body = (await m.expose()).body;
    expect(sample(body, `workqueue_unfinished_work_seconds{${l}}`)).toBe(43);
    expect(sample(body, `workqueue_longest_running_processor_seconds{${l}}`)).toBe(40);
    expect(sample(body, 'controller_runtime_active_workers{controller="glooha"}')).toBe(2);
    ages = [];
    body = (await m.expose()).body;
    expect(sample(body, 'controller_runtime_active_workers{controller="glooha"}')).toBe(0);
    expect(sample(body, `workqueue_longest_running_processor_seconds{${l}}`)).toBe(0);
  });

  it('counts API requests by code, method and host', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.restClient.request('PUT', '200', '127.0.0.1:6443', 0.003);
    m.restClient.request('PUT', '409', '127.0.0.1:6443', 0.002);
    m.restClient.request('GET', '<error>', '127.0.0.1:6443', 1);
    m.restClient.request('GET', '200', '127.0.0.1:6443'); // a watch: no duration
    const body = (await m.expose()).body;
    expect(sample(body, 'rest_client_requests_total{code="200",method="PUT",host="127.0.0.1:6443"}')).toBe(1);
    expect(sample(body, 'rest_client_requests_total{code="409",method="PUT",host="127.0.0.1:6443"}')).toBe(1);
    expect(
      sample(body, 'rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:6443"}'),
    ).toBe(1);
    expect(sample(body, 'rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"}')).toBe(1);
    expect(sample(body, 'rest_client_request_duration_seconds_count{verb="GET",host="127.0.0.1:6443"}')).toBe(
      1,
    );
  });

  it("reads the per-object gauges from each kind's source when scraped, labelled by kind", async () => {
    const m = createMetrics({ defaultMetrics: false });
    let body = (await m.expose()).body;
    expect(sample(body, 'glooha_resources{kind="GlooHA",ready="true"}')).toBeUndefined(); // no controller yet
    let gloo: ObjectHealth[] = [
      {
        namespace: 'a',
        name: 'one',
        ready: 'true',
        leaderLease: { name: 'gloo', ageSeconds: 1.5, leaseDurationSeconds: 15 },
      },
      { namespace: 'a', name: 'two', ready: 'true' },
      { namespace: 'b', name: 'one', ready: 'false' },
      { namespace: 'b', name: 'new', ready: 'unknown' },
    ];
    // A KgatewayHA may share a GlooHA's namespace and name: the kind keeps their series apart.
    const kgateway: ObjectHealth[] = [
      {
        namespace: 'a',
        name: 'one',
        ready: 'false',
        leaderLease: { name: 'kgateway-envoy', ageSeconds: 20, leaseDurationSeconds: 15 },
      },
    ];
    m.glooha.observe('GlooHA', () => gloo);
    m.glooha.observe('KgatewayHA', () => kgateway);
    m.glooha.driftCorrected({ kind: 'GlooHA', namespace: 'team-a', name: 'gloo' }, 'gloo');
    m.glooha.driftCorrected({ kind: 'GlooHA', namespace: 'team-b', name: 'gloo' }, 'gloo');
    m.glooha.driftCorrected({ kind: 'GlooHA', namespace: 'team-a', name: 'gloo' }, 'gateway-proxy', 2);
    // A KgatewayHA of the same name and namespace has its own series.
    m.glooha.driftCorrected({ kind: 'KgatewayHA', namespace: 'team-a', name: 'gloo' }, 'controller', 5);
    m.glooha.eventDropped('GlooHA');
    m.glooha.eventDropped('GlooHA');
    body = (await m.expose()).body;
    expect(sample(body, 'glooha_events_dropped_total{kind="GlooHA"}')).toBe(2);
    expect(sample(body, 'glooha_resources{kind="GlooHA",ready="true"}')).toBe(2);
    expect(sample(body, 'glooha_resources{kind="GlooHA",ready="false"}')).toBe(1);
    expect(sample(body, 'glooha_resources{kind="GlooHA",ready="unknown"}')).toBe(1);
    expect(sample(body, 'glooha_resources{kind="KgatewayHA",ready="true"}')).toBe(0);
    expect(sample(body, 'glooha_resources{kind="KgatewayHA",ready="false"}')).toBe(1);
    expect(sample(body, 'glooha_ready{kind="GlooHA",namespace="a",name="one"}')).toBe(1);
    expect(sample(body, 'glooha_ready{kind="KgatewayHA",namespace="a",name="one"}')).toBe(0);
    expect(sample(body, 'glooha_ready{kind="GlooHA",namespace="b",name="one"}')).toBe(0);
    expect(sample(body, 'glooha_ready{kind="GlooHA",namespace="b",name="new"}')).toBe(0);
    expect(
      sample(
        body,
        'glooha_product_leader_lease_age_seconds{kind="GlooHA",namespace="a",name="one",lease="gloo"}',
      ),
    ).toBe(1.5);
    expect(
      sample(
        body,
        'glooha_product_leader_lease_age_seconds{kind="KgatewayHA",namespace="a",name="one",lease="kgateway-envoy"}',
      ),
    ).toBe(20);
    expect(
      sample(
        body,
        'glooha_product_leader_lease_duration_seconds{kind="KgatewayHA",namespace="a",name="one",lease="kgateway-envoy"}',
      ),
    ).toBe(15);
    // The GlooHA-only names of these two (deprecated for one release) are gone: one family per
    // series, the product told by its kind label.
    expect(body).not.toMatch(/^(# (HELP|TYPE) )?glooha_gloo_/m);
    expect(body.match(/^glooha_product_leader_lease_age_seconds\{/gm)).toHaveLength(2);
    // per install: one counter per GlooHA, not one summed across installs
    expect(
      sample(
        body,
        'glooha_drift_corrections_total{kind="GlooHA",namespace="team-a",name="gloo",component="gloo"}',
      ),
    ).toBe(1);
    expect(
      sample(
        body,
        'glooha_drift_corrections_total{kind="GlooHA",namespace="team-b",name="gloo",component="gloo"}',
      ),
    ).toBe(1);
    expect(
      sample(
        body,
        'glooha_drift_corrections_total{kind="GlooHA",namespace="team-a",name="gloo",component="gateway-proxy"}',
      ),
    ).toBe(2);
    // A status-only change shows at the next scrape; a deleted GlooHA's series go.
    gloo = [{ namespace: 'a', name: 'two', ready: 'false' }];
    body = (await m.expose()).body;
    expect(sample(body, 'glooha_resources{kind="GlooHA",ready="true"}')).toBe(0);
    expect(sample(body, 'glooha_ready{kind="GlooHA",namespace="a",name="two"}')).toBe(0);
    expect(sample(body, 'glooha_ready{kind="GlooHA",namespace="a",name="one"}')).toBeUndefined();
    expect(sample(body, 'glooha_ready{kind="KgatewayHA",namespace="a",name="one"}')).toBe(0);
    expect(
      sample(
        body,
        'glooha_product_leader_lease_age_seconds{kind="GlooHA",namespace="a",name="one",lease="gloo"}',
      ),
    ).toBeUndefined();
  });

  it('matches controller-runtime metric for metric: name, type, labels, buckets', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.reconcile.register('glooha', 1);
    m.workqueue('glooha');
    for (const want of CONTROLLER_RUNTIME_METRICS) {
      const got = m.registry.getSingleMetric(want.name) as unknown as
        { labelNames: string[]; upperBounds?: number[]; type?: string } | undefined;
      expect(got, want.name).toBeDefined();
      const json = (await m.registry.getMetricsAsJSON()).find((x) => x.name === want.name);
      expect(json?.type, want.name).toBe(want.type);
      expect([...(got?.labelNames ?? [])].sort(), want.name).toEqual([...want.labels].sort());
      if (want.buckets) expect(got?.upperBounds, want.name).toEqual(want.buckets);
    }
  });

  it('includes Node.js default metrics unless disabled, and never touches the global registry', async () => {
    const before = (await globalRegistry.getMetricsAsJSON()).length;
    const a = createMetrics();
    const b = createMetrics({ defaultLabels: { pod: 'op-1' } });
    a.reconcile.observe('glooha', 'success', 0.1);
    const aBody = (await a.expose()).body;
    const bBody = (await b.expose()).body;
    expect(aBody).toContain('process_cpu_seconds_total');
    expect(aBody).toContain('nodejs_eventloop_lag_seconds');
    expect(aBody).toContain('controller_runtime_reconcile_total{controller="glooha",result="success"} 1');
    expect(bBody).not.toContain('controller_runtime_reconcile_total{controller="glooha"');
    expect(bBody).toContain('pod="op-1"');
    expect((await createMetrics({ defaultMetrics: false }).expose()).body).not.toContain(
      'process_cpu_seconds_total',
    );
    expect((await globalRegistry.getMetricsAsJSON()).length).toBe(before);
  });
});
