import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstrumentedWatch, makeApiClient } from '../../../src/kube/instrumented.js';
import { NotLeaderError } from '../../../src/leader/leadership.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { closedPort, MockApiServer } from '../leader/mock-apiserver.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'lock', namespace: 'ns' },
};

describe('instrumented client-node clients', () => {
  let api: MockApiServer;
  beforeEach(async () => {
    api = new MockApiServer();
    await api.start();
  });
  afterEach(async () => {
    await api.stop();
  });

  it('re-checks the write fence when the request gets its socket, and sends nothing if it fails there', async () => {
    // The first check (in send) passes and the one at socket time fails: what a replica frozen
    // between the two would see on waking after its renew deadline.
    let calls = 0;
    let failAtSocket = false;
    const coord = makeApiClient(api.kubeConfig(), CoordinationV1Api, {
      beforeWrite: () => {
        calls++;
        if (failAtSocket && calls % 2 === 0) throw new NotLeaderError('renew deadline passed while paused');
      },
    });
    await coord.createNamespacedLease({ namespace: 'ns', body: lease }); // warms a kept-alive socket
    expect(calls).toBe(2);
    const before = api.requests.length;
    failAtSocket = true;
    await expect(
      coord.replaceNamespacedLease({ name: 'lock', namespace: 'ns', body: lease }),
    ).rejects.toThrow(/renew deadline passed while paused/);
    expect(calls).toBe(4);
    expect(api.requests.length).toBe(before);
  });

  it('count every request into rest_client_requests_total by code and method, including transport errors', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const coord = makeApiClient(api.kubeConfig(), CoordinationV1Api, { metrics: metrics.restClient });
    const host = `127.0.0.1:${api.port}`;

    await expect(coord.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
      code: 404,
    });
    await coord.createNamespacedLease({ namespace: 'ns', body: lease });
    await expect(coord.createNamespacedLease({ namespace: 'ns', body: lease })).rejects.toMatchObject({
      code: 409,
    });
    const got = await coord.readNamespacedLease({ name: 'lock', namespace: 'ns' });
    expect(got.metadata?.name).toBe('lock');
    // the token from the kubeconfig is still applied (auth goes through KubeConfig as with makeApiClient)
    expect(api.requests.every((r) => r.authorization === 'Bearer test-token')).toBe(true);

    const dead = makeApiClient(api.kubeConfig(await closedPort()), CoordinationV1Api, {
      metrics: metrics.restClient,
    });
    await expect(dead.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toThrow();

    const body = (await metrics.expose()).body;
    expect(sample(body, `rest_client_requests_total{code="404",method="GET",host="${host}"}`)).toBe(1);
    expect(sample(body, `rest_client_requests_total{code="200",method="GET",host="${host}"}`)).toBe(1);
    expect(sample(body, `rest_client_requests_total{code="201",method="POST",host="${host}"}`)).toBe(1);
    expect(sample(body, `rest_client_requests_total{code="409",method="POST",host="${host}"}`)).toBe(1);
    expect(body).toMatch(
      /rest_client_requests_total\{code="<error>",method="GET",host="127\.0\.0\.1:\d+"\} 1/,
    );
    expect(sample(body, `rest_client_request_duration_seconds_count{verb="GET",host="${host}"}`)).toBe(2);
  });

  it('beforeWrite fences mutating requests only, before they reach the network', async () => {
    let leading = false;
    const coord = makeApiClient(api.kubeConfig(), CoordinationV1Api, {
      beforeWrite: () => {
        if (!leading) throw new NotLeaderError('test');
      },
    });
    await expect(coord.createNamespacedLease({ namespace: 'ns', body: lease })).rejects.toBeInstanceOf(
      NotLeaderError,
    );
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await expect(coord.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
      code: 404,
    });
    leading = true;
    await coord.createNamespacedLease({ namespace: 'ns', body: lease });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('writeSignal aborts in-flight writes when the term ends; timeoutMs bounds requests without a signal', async () => {
    const term = new AbortController();
    const coord = makeApiClient(api.kubeConfig(), CoordinationV1Api, {
      writeSignal: () => term.signal,
      timeoutMs: 300,
    });
    api.hangPaths.add(api.collection);
    const write = coord.createNamespacedLease({ namespace: 'ns', body: lease });
    await new Promise((r) => setTimeout(r, 50));
    term.abort(new NotLeaderError('term over'));
    await expect(write).rejects.toThrow();

    api.hangPaths.add(`${api.collection}/lock`);
    const started = performance.now();
    await expect(coord.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toThrow();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3_000);
  });

  it('reuses connections (keep-alive) unless told not to', async () => {
    const pooled = makeApiClient(api.kubeConfig(), CoordinationV1Api);
    for (let i = 0; i < 5; i++) {
      await expect(pooled.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
        code: 404,
      });
    }
    expect(api.connections).toBe(1);
    const fresh = makeApiClient(api.kubeConfig(), CoordinationV1Api, { reuseConnections: false });
    for (let i = 0; i < 5; i++) {
      await expect(fresh.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
        code: 404,
      });
    }
    expect(api.connections).toBe(6);
  });

  it('InstrumentedWatch counts watch requests as GET with their status', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const w = new InstrumentedWatch(api.kubeConfig(), metrics.restClient);
    const c = await w.watch(
      api.collection,
      {},
      () => {},
      () => {},
    );
    c.abort();
    const bad = await w.watch(
      '/nope',
      {},
      () => {},
      () => {},
    );
    bad.abort();
    const deadWatch = new InstrumentedWatch(api.kubeConfig(await closedPort()), metrics.restClient);
    await deadWatch.watch(
      api.collection,
      {},
      () => {},
      () => {},
    );
    const body = (await metrics.expose()).body;
    const host = `127.0.0.1:${api.port}`;
    expect(sample(body, `rest_client_requests_total{code="200",method="GET",host="${host}"}`)).toBe(1);
    expect(sample(body, `rest_client_requests_total{code="404",method="GET",host="${host}"}`)).toBe(1);
    expect(body).toMatch(
      /rest_client_requests_total\{code="<error>",method="GET",host="127\.0\.0\.1:\d+"\} 1/,
    );
  });
});
