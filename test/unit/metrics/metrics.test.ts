import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics/index.js';

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
    m.reconcile.register('glooha');
    let body = (await m.expose()).body;
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(sample(body, `controller_runtime_reconcile_total{controller="glooha",result="${result}"}`)).toBe(
        0,
      );
    }
    expect(sample(body, 'controller_runtime_reconcile_errors_total{controller="glooha"}')).toBe(0);
    expect(sample(body, 'controller_runtime_reconcile_time_seconds_count{controller="glooha"}')).toBe(0);

    m.reconcile.observe('glooha', 'success', 0.12);
    m.reconcile.observe('glooha', 'success', 0.3);
    m.reconcile.observe('glooha', 'error', 1.5);
    m.reconcile.observe('glooha', 'requeue_after', 0.01);
    body = (await m.expose()).body;
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

  it('backs the WorkqueueMetrics hooks with workqueue_* series', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const q = m.workqueue('glooha');
    expect(m.workqueue('glooha')).toBe(q);
    q.added(1);
    q.added(2);
    q.started(1, 0.002);
    q.retried();
    q.finished(0.05);
    const body = (await m.expose()).body;
    expect(sample(body, 'workqueue_depth{name="glooha"}')).toBe(1);
    expect(sample(body, 'workqueue_adds_total{name="glooha"}')).toBe(2);
    expect(sample(body, 'workqueue_retries_total{name="glooha"}')).toBe(1);
    expect(sample(body, 'workqueue_queue_duration_seconds_count{name="glooha"}')).toBe(1);
    expect(sample(body, 'workqueue_work_duration_seconds_sum{name="glooha"}')).toBeCloseTo(0.05);
    expect(body).toContain('workqueue_queue_duration_seconds_bucket{le="1e-8",name="glooha"} 0');
    expect(body).toContain('workqueue_queue_duration_seconds_bucket{le="10",name="glooha"} 1');
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

  it('exposes the glooha gauges', async () => {
    const m = createMetrics({ defaultMetrics: false });
    let body = (await m.expose()).body;
    expect(sample(body, 'glooha_resources{ready="true"}')).toBe(0);
    m.glooha.setResources({ true: 3, false: 1 });
    m.glooha.driftCorrected('gloo');
    m.glooha.driftCorrected('gateway-proxy', 2);
    body = (await m.expose()).body;
    expect(sample(body, 'glooha_resources{ready="true"}')).toBe(3);
    expect(sample(body, 'glooha_resources{ready="false"}')).toBe(1);
    expect(sample(body, 'glooha_resources{ready="unknown"}')).toBe(0);
    expect(sample(body, 'glooha_drift_corrections_total{component="gloo"}')).toBe(1);
    expect(sample(body, 'glooha_drift_corrections_total{component="gateway-proxy"}')).toBe(2);
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
