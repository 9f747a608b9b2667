import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formatMicroTime,
  KubeLeaseClient,
  LeaseConflictError,
  type LeaseRecord,
} from '../../../src/leader/lease-client.js';
import { closedPort, MockApiServer } from './mock-apiserver.js';
import { KubeClient } from '../../../src/kube/client.js';

const signal = () => AbortSignal.timeout(5_000);

function rec(holder: string): LeaseRecord {
  const now = formatMicroTime(new Date('2030-01-01T00:00:00.123Z'));
  return {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: 0,
  };
}

describe('KubeLeaseClient (against a mock API server)', () => {
  let api: MockApiServer;
  beforeEach(async () => {
    api = new MockApiServer();
    await api.start();
  });
  afterEach(async () => {
    await api.stop();
  });

  it('formats MicroTime with six fractional digits (the API server rejects three)', () => {
    expect(formatMicroTime(new Date('2030-01-01T00:00:00.123Z'))).toBe('2030-01-01T00:00:00.123000Z');
  });

  it('get → undefined on 404; create; create again → LeaseConflictError; update with a stale version → LeaseConflictError', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    expect(client.description).toBe('ns/lock');
    expect(await client.get(signal())).toBeUndefined();

    const created = await client.create(rec('a'), signal());
    expect(created.record).toEqual(rec('a'));
    expect(created.resourceVersion).toBe('2');
    const post = api.requests.find((r) => r.method === 'POST');
    expect(post?.body).toMatchObject({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock', namespace: 'ns' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2030-01-01T00:00:00.123000Z' },
    });

    await expect(client.create(rec('b'), signal())).rejects.toBeInstanceOf(LeaseConflictError);
    const updated = await client.update(rec('a2'), '2', signal());
    expect(updated.record.holderIdentity).toBe('a2');
    const put = api.requests.find((r) => r.method === 'PUT');
    expect(put?.body).toMatchObject({ metadata: { resourceVersion: '2' } });
    await expect(client.update(rec('b'), '2', signal())).rejects.toBeInstanceOf(LeaseConflictError);
    expect((await client.get(signal()))?.record.holderIdentity).toBe('a2');
  });

  it('update of a deleted Lease is a conflict too (the elector re-reads)', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    await expect(client.update(rec('a'), '7', signal())).rejects.toBeInstanceOf(LeaseConflictError);
  });

  it('passes the AbortSignal to the request', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    api.hangPaths.add(`${api.collection}/lock`);
    const started = performance.now();
    await expect(client.get(AbortSignal.timeout(200))).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('other errors propagate', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig(await closedPort())),
      namespace: 'ns',
      name: 'lock',
    });
    await expect(client.get(signal())).rejects.toThrow();
  });

  it('watches one Lease on the informer loop: GET (no list), then a watch by name from the most recent version; resumes after a close', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    await client.create(rec('a'), signal());
    const events: string[] = [];
    const errors: unknown[] = [];
    const w = client.watch({
      onEvent: (type, lease) =>
        events.push(`${type}:${lease.record.holderIdentity}:${lease.resourceVersion}`),
      onError: (err) => errors.push(err),
    });
    await waitFor(() => events.length === 1 && api.requests.some((r) => r.query.get('watch') === 'true'));
    expect(
      api.requests.some(
        (r) => r.method === 'GET' && r.path === api.collection && r.query.get('watch') !== 'true',
      ),
    ).toBe(false);
    const watchReq = api.requests.find((r) => r.query.get('watch') === 'true');
    expect(watchReq?.path).toBe(api.collection);
    expect(watchReq?.query.get('fieldSelector')).toBe('metadata.name=lock');
    // Not from the GET's resourceVersion, which is as old as the Lease's last write (next test).
    expect(watchReq?.query.get('resourceVersion') ?? '').toBe('');
    api.emit('MODIFIED', {
      metadata: { name: 'lock', namespace: 'ns', resourceVersion: '9' },
      spec: { holderIdentity: '' },
    });
    api.emit('BOOKMARK', { metadata: { resourceVersion: '10' } });
    api.emit('DELETED', {
      metadata: { name: 'lock', namespace: 'ns', resourceVersion: '11' },
      spec: { holderIdentity: 'x' },
    });
    await waitFor(() => events.length === 3);
    expect(events[0]).toBe('ADDED:a:2');
    expect(events[1]).toBe('MODIFIED::9');
    expect(events[2]).toMatch(/^DELETED:/);
    // the server closes the watch: it resumes from the last resourceVersion, silently
    api.endWatches();
    await waitFor(() => api.requests.filter((r) => r.query.get('watch') === 'true').length === 2);
    expect(
      api.requests
        .filter((r) => r.query.get('watch') === 'true')
        .at(-1)
        ?.query.get('resourceVersion'),
    ).toBe('11');
    expect(errors).toEqual([]);
    w.stop();
  });

  it("a Lease idle past the watch cache's window: one GET and one watch, no 410 and no re-list", async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    await client.create(rec('a'), signal());
    // Nothing wrote the Lease since, and the server's watch window has moved past its version.
    api.compactedBelow = 100;
    const events: string[] = [];
    const errors: unknown[] = [];
    const w = client.watch({
      onEvent: (type, lease) => events.push(`${type}:${lease.record.holderIdentity}`),
      onError: (err) => errors.push(err),
    });
    await waitFor(() => events.length === 1 && api.requests.some((r) => r.query.get('watch') === 'true'));
    await new Promise((r) => setTimeout(r, 1_500));
    const reads = api.requests.filter((r) => r.method === 'GET');
    // Before: a watch from the GET's version 2 got 410, the re-read got version 2 again, and so on
    // (143 requests in 5 s against a real API server before the informer backed off on 410).
    expect(reads.map((r) => (r.query.get('watch') === 'true' ? 'watch' : 'get'))).toEqual(['get', 'watch']);
    expect(events).toEqual(['ADDED:a']);
    expect(errors).toEqual([]);
    w.stop();
  });

  it('an ERROR event or a failed connection is reported through onError and the watch keeps going; stop() silences it', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    const errors: unknown[] = [];
    const w = client.watch({ onEvent: () => {}, onError: (err) => errors.push(err) });
    await waitFor(() => api.requests.some((r) => r.query.get('watch') === 'true'));
    api.emit('ERROR', { kind: 'Status', code: 500, message: 'etcd unavailable' });
    await waitFor(() => errors.length === 1);
    expect(String(errors[0])).toContain('etcd unavailable');
    await waitFor(() => api.requests.filter((r) => r.query.get('watch') === 'true').length === 2, 5_000);
    w.stop();

    const dead = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig(await closedPort())),
      namespace: 'ns',
      name: 'lock',
    });
    const deadErrors: unknown[] = [];
    const dw = dead.watch({ onEvent: () => {}, onError: (err) => deadErrors.push(err) });
    await waitFor(() => deadErrors.length > 0);
    dw.stop();
    const n = deadErrors.length;
    await new Promise((r) => setTimeout(r, 1_500));
    expect(deadErrors.length).toBe(n);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
