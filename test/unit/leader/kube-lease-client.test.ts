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

  it('watches one Lease by name and reports events and the close', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    await client.create(rec('a'), signal());
    const events: string[] = [];
    let closed: { err: unknown } | undefined;
    const w = client.watch(
      {
        onEvent: (type, lease) =>
          events.push(`${type}:${lease.record.holderIdentity}:${lease.resourceVersion}`),
        onClose: (err) => (closed = { err }),
      },
      42,
    );
    await waitFor(() => events.length === 1);
    const watchReq = api.requests.find((r) => r.query.get('watch') === 'true');
    expect(watchReq?.query.get('fieldSelector')).toBe('metadata.name=lock');
    expect(watchReq?.query.get('timeoutSeconds')).toBe('42');
    api.emit('MODIFIED', { metadata: { name: 'lock', resourceVersion: '9' }, spec: { holderIdentity: '' } });
    api.emit('BOOKMARK', { metadata: { resourceVersion: '10' } });
    api.emit('DELETED', { metadata: { name: 'lock', resourceVersion: '11' }, spec: { holderIdentity: 'x' } });
    await waitFor(() => events.length === 3);
    expect(events).toEqual(['ADDED:a:2', 'MODIFIED::9', 'DELETED:x:11']);
    api.endWatches();
    await waitFor(() => closed !== undefined);
    expect(closed?.err).toBeFalsy();
    w.stop();
  });

  it('an ERROR event or a failed connection closes the watch with an error; stop() silences it', async () => {
    const client = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig()),
      namespace: 'ns',
      name: 'lock',
    });
    let closed: { err: unknown } | undefined;
    client.watch({ onEvent: () => {}, onClose: (err) => (closed = { err }) }, 60);
    await waitFor(() => api.requests.some((r) => r.query.get('watch') === 'true'));
    api.emit('ERROR', { kind: 'Status', code: 410, message: 'too old resource version' });
    await waitFor(() => closed !== undefined);
    expect(String(closed?.err)).toContain('too old resource version');

    const dead = new KubeLeaseClient({
      client: new KubeClient(api.kubeConfig(await closedPort())),
      namespace: 'ns',
      name: 'lock',
    });
    let deadClosed: { err: unknown } | undefined;
    dead.watch({ onEvent: () => {}, onClose: (err) => (deadClosed = { err }) }, 60);
    await waitFor(() => deadClosed !== undefined);
    expect(deadClosed?.err).toBeTruthy();

    let stoppedClose = false;
    const w = client.watch({ onEvent: () => {}, onClose: () => (stoppedClose = true) }, 60);
    await new Promise((r) => setTimeout(r, 50));
    w.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(stoppedClose).toBe(false);
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
