import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import {
  errorStatus,
  FENCING_DENIAL_MARKER,
  IDLE_CONNECTION_TIMEOUT_MS,
  KubeClient,
  linkedSignal,
  withSignal,
} from '../../../src/kube/client.js';
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

describe('KubeClient: the one transport (counted, pooled, fenced)', () => {
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
    const coord = new KubeClient(api.kubeConfig(), {
      fence: () => {
        calls++;
        if (failAtSocket && calls % 2 === 0) throw new NotLeaderError('renew deadline passed while paused');
      },
    }).api(CoordinationV1Api);
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
    const coord = new KubeClient(api.kubeConfig(), { metrics: metrics.restClient }).api(CoordinationV1Api);
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

    const dead = new KubeClient(api.kubeConfig(await closedPort()), { metrics: metrics.restClient }).api(
      CoordinationV1Api,
    );
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

  it('the fence refuses mutating requests only, before they reach the network; fenced: false skips it', async () => {
    let leading = false;
    const client = new KubeClient(api.kubeConfig(), {
      fence: () => {
        if (!leading) throw new NotLeaderError('test');
      },
    });
    const coord = client.api(CoordinationV1Api);
    const unfenced = client.api(CoordinationV1Api, { fenced: false });
    await expect(client.request('POST', api.collection, { body: lease })).rejects.toBeInstanceOf(
      NotLeaderError,
    );
    await expect(coord.createNamespacedLease({ namespace: 'ns', body: lease })).rejects.toBeInstanceOf(
      NotLeaderError,
    );
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await expect(coord.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
      code: 404,
    });
    await unfenced.createNamespacedLease({ namespace: 'ns', body: lease });
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    leading = true;
    await coord.replaceNamespacedLease({
      name: 'lock',
      namespace: 'ns',
      body: { ...lease, metadata: { ...lease.metadata, resourceVersion: '2' } },
    });
    expect(api.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('a 403 from the fencing policy is a NotLeaderError and is counted; other 403s are not', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const client = new KubeClient(api.kubeConfig(), { fence: () => {}, fenceMetrics: metrics.fencing });
    const admission = async () =>
      sample((await metrics.expose()).body, 'glooha_fenced_writes_total{layer="admission"}');
    expect(await admission()).toBe(0);
    api.denyWrites =
      "ValidatingAdmissionPolicy 'r-glooha-operator-fencing' with binding 'r-glooha-operator-fencing' " +
      `denied request: ${FENCING_DENIAL_MARKER}pod op-a does not hold Lease ns/lock (held by op-b_1a2b3c4d)`;
    const err = await client.request('POST', api.collection, { body: lease }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotLeaderError);
    expect((err as Error).message).toContain("the API server's fencing policy refused POST");
    expect(errorStatus((err as Error).cause)).toBe(403);
    expect(await admission()).toBe(1);
    api.denyWrites = 'leases.coordination.k8s.io is forbidden: User "x" cannot create resource "leases"';
    const rbac = await client.request('POST', api.collection, { body: lease }).catch((e: unknown) => e);
    expect(rbac).not.toBeInstanceOf(NotLeaderError);
    expect(errorStatus(rbac)).toBe(403);
    expect(await admission()).toBe(1);
  });

  it('counts refusals of its own fence by layer: before sending (client) and at the socket (socket)', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let calls = 0;
    let failFrom = Infinity;
    const client = new KubeClient(api.kubeConfig(), {
      fenceMetrics: metrics.fencing,
      fence: () => {
        if (++calls >= failFrom) throw new NotLeaderError('test');
      },
    });
    const count = async (layer: string) =>
      sample((await metrics.expose()).body, `glooha_fenced_writes_total{layer="${layer}"}`);
    await client.request('POST', api.collection, { body: lease });
    failFrom = calls + 2; // the check before sending passes, the one at the socket fails
    // (node-fetch reports the destroyed request as a FetchError carrying the fence's message)
    await expect(client.request('POST', api.collection, { body: lease })).rejects.toThrow(
      /not the leader: test/,
    );
    failFrom = calls + 1; // the first check fails
    await expect(client.request('POST', api.collection, { body: lease })).rejects.toBeInstanceOf(
      NotLeaderError,
    );
    expect(await count('socket')).toBe(1);
    expect(await count('client')).toBe(1);
    expect(await count('admission')).toBe(0);
  });

  it("the caller's signal aborts an in-flight request; timeoutMs bounds every request", async () => {
    const client = new KubeClient(api.kubeConfig(), { timeoutMs: 300 });
    const coord = client.api(CoordinationV1Api);
    const term = new AbortController();
    api.hangPaths.add(api.collection);
    const write = coord.createNamespacedLease({ namespace: 'ns', body: lease }, withSignal(term.signal));
    await new Promise((r) => setTimeout(r, 50));
    term.abort(new NotLeaderError('term over'));
    await expect(write).rejects.toThrow();

    api.hangPaths.add(`${api.collection}/lock`);
    const started = performance.now();
    // a signal that never fires does not lift the timeout
    await expect(
      coord.readNamespacedLease({ name: 'lock', namespace: 'ns' }, withSignal(new AbortController().signal)),
    ).rejects.toThrow();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3_000);
  });

  it('leaves no listener on a long-lived signal after its requests finish (no AbortSignal.any leak)', async () => {
    const client = new KubeClient(api.kubeConfig());
    const term = new AbortController();
    for (let i = 0; i < 20; i++) {
      await expect(
        client.request('GET', `${api.collection}/lock`, { signal: term.signal }),
      ).rejects.toMatchObject({
        code: 404,
      });
    }
    await client.request('POST', api.collection, { body: lease, signal: term.signal });
    expect(getEventListeners(term.signal, 'abort')).toHaveLength(0);
    const link = linkedSignal(term.signal, 10_000);
    expect(getEventListeners(term.signal, 'abort')).toHaveLength(1);
    link.dispose();
    expect(getEventListeners(term.signal, 'abort')).toHaveLength(0);
    term.abort(new Error('x'));
    expect(linkedSignal(term.signal, undefined).signal.aborted).toBe(true);
  });

  it('close() destroys the pooled connections', async () => {
    const client = new KubeClient(api.kubeConfig());
    await expect(client.request('GET', `${api.collection}/lock`)).rejects.toMatchObject({ code: 404 });
    expect(client.pooledAgents()).toBe(1);
    client.close();
    expect(client.pooledAgents()).toBe(0);
  });

  it('reuses connections (keep-alive) unless told not to', async () => {
    // undici opens one more connection when a request is sent in the same tick as the previous
    // response ended (it first checks the idle socket for a FIN the server sent meanwhile,
    // GHSA-35p6-xmwp-9g52); after that, back-to-back requests take turns on the same two.
    const pooled = new KubeClient(api.kubeConfig()).api(CoordinationV1Api);
    for (let i = 0; i < 10; i++) {
      await expect(pooled.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
        code: 404,
      });
    }
    expect(api.connections).toBeLessThanOrEqual(2);
    const reused = api.connections;
    const fresh = new KubeClient(api.kubeConfig(), { reuseConnections: false }).api(CoordinationV1Api);
    for (let i = 0; i < 5; i++) {
      await expect(fresh.readNamespacedLease({ name: 'lock', namespace: 'ns' })).rejects.toMatchObject({
        code: 404,
      });
    }
    expect(api.connections).toBe(reused + 5);
  });

  it("keeps an idle connection past undici's default 4 s: a request after a quiet stretch needs no new handshake", async () => {
    // What is measured is an idle stretch, so the test waits one out: 4.5 s, past undici's default.
    const client = new KubeClient(api.kubeConfig());
    await expect(client.request('GET', `${api.collection}/lock`)).rejects.toMatchObject({ code: 404 });
    const opened = api.connections;
    await new Promise((r) => setTimeout(r, 4_500));
    await expect(client.request('GET', `${api.collection}/lock`)).rejects.toMatchObject({ code: 404 });
    expect(api.connections).toBe(opened);
    expect(IDLE_CONNECTION_TIMEOUT_MS).toBeLessThan(90_000); // the API server's own idle timeout
    client.close();
  });

  it('counts watch requests as GET with their status, on the pooled connection', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const w = new KubeClient(api.kubeConfig(), { metrics: metrics.restClient });
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
    expect(w.pooledAgents()).toBe(1);
    const deadWatch = new KubeClient(api.kubeConfig(await closedPort()), { metrics: metrics.restClient });
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
