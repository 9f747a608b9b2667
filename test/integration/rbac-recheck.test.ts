// RBAC for the cluster-scoped reads, re-asked while the operator runs (src/controller/cluster-reads.ts),
// against the real API server as the chart's ServiceAccount in namespaced mode (no
// rbac.clusterWideReads: PriorityClasses are not readable). With --rbac-recheck-period=1s:
//  - a ClusterRoleBinding granting PriorityClasses, applied after start, starts their watch in the SAME
//    in-process operator (same instance, same Lease holder, no leader transition, no restart): the
//    KgatewayHA's PriorityClassesUnreadable clears and its priorityClassName is written; removing the
//    binding stops the watch and the status reports it again;
//  - an access review that fails at start-up (503 from a proxy in front of the API server, for this
//    operator's SelfSubjectAccessReviews only) leaves the kind unwatched, and is picked up once they work.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  AppsV1Api,
  CoordinationV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  SchedulingV1Api,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_NAME } from '../../src/leader/config.js';
import type { KgatewayHA } from '../../src/products/kgateway/types.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { createKgatewayHA, getKgatewayHA } from '../support/glooha.js';
import {
  installOperatorRbac,
  metricValue,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
  writeKubeconfig,
} from '../support/operator.js';
import { KGATEWAY_CONTROLLER_VERSION } from '../env/binaries.js';
import { kgatewayControllerDeployment } from '../support/kgateway.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const leases = admin.makeApiClient(CoordinationV1Api);
const scheduling = admin.makeApiClient(SchedulingV1Api);

/** How long a grant or a revocation may take to show in the status: a 1 s re-check, plus a reconcile. */
const PICKED_UP_MS = 30_000;

const stalled = (k: KgatewayHA) => k.status?.conditions?.find((c) => c.type === 'Stalled');
const unreadable = (k: KgatewayHA) =>
  stalled(k)?.status === 'True' && stalled(k)?.reason === 'PriorityClassesUnreadable';
const templatePriorityClass = (d: V1Deployment) => d.spec?.template?.spec?.priorityClassName;
const logs = (op: InProcessOperator) => op.logs.map((l) => JSON.parse(l) as { msg?: string; kind?: string });

describe('RBAC for PriorityClasses re-checked at runtime: watched without a restart', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  const priorityClass = `rbac-recheck-${randomBytes(3).toString('hex')}`;

  /** A namespace with kgateway's controller Deployment and a KgatewayHA naming the PriorityClass. */
  async function install(prefix: string): Promise<string> {
    const ns = await createNamespace(prefix);
    await apps.createNamespacedDeployment({
      namespace: ns,
      fieldManager: 'helm',
      body: kgatewayControllerDeployment(ns, { version: KGATEWAY_CONTROLLER_VERSION, replicas: 2 }),
    });
    await createKgatewayHA(ns, 'kgateway', { controller: { replicas: 2, priorityClassName: priorityClass } });
    return ns;
  }

  /** A ClusterRole reading PriorityClasses bound to the operator's ServiceAccount; returns the binding's name. */
  async function grantPriorityClasses(id: OperatorIdentity): Promise<string> {
    const name = `rbac-recheck-pc-${randomBytes(3).toString('hex')}`;
    await rbac.createClusterRole({
      body: {
        metadata: { name },
        rules: [
          {
            apiGroups: ['scheduling.k8s.io'],
            resources: ['priorityclasses'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
    });
    cleanup.push(() => rbac.deleteClusterRole({ name }));
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name: id.serviceAccount, namespace: id.namespace }],
      },
    });
    cleanup.push(() => rbac.deleteClusterRoleBinding({ name }));
    return name;
  }

  async function start(id: OperatorIdentity, ns: string): Promise<InProcessOperator> {
    const op = await startOperatorInProcess(id, {
      args: [`--watch-namespaces=${ns}`, '--rbac-recheck-period=1s'],
    });
    cleanup.push(() => op.shutdown('test end'));
    return op;
  }

  const reportsUnreadable = (ns: string, what: string) =>
    eventually(
      `${ns}: the KgatewayHA Stalled with PriorityClassesUnreadable (${what})`,
      () => getKgatewayHA(ns, 'kgateway'),
      unreadable,
      { timeoutMs: PICKED_UP_MS },
    );

  /** The PriorityClass used: written to the controller's pod template, and no longer reported unreadable. */
  async function usesPriorityClass(ns: string, what: string): Promise<void> {
    await eventually(
      `${ns}: priorityClassName ${priorityClass} written to the controller's pod template (${what})`,
      () => apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns }),
      (d) => templatePriorityClass(d) === priorityClass,
      { timeoutMs: PICKED_UP_MS },
    );
    const k = await eventually(
      `${ns}: PriorityClassesUnreadable cleared (${what})`,
      () => getKgatewayHA(ns, 'kgateway'),
      (g) => !unreadable(g) && stalled(g)?.observedGeneration === g.metadata?.generation,
      { timeoutMs: PICKED_UP_MS },
    );
    expect(stalled(k)?.reason).not.toBe('PriorityClassNotFound');
  }

  /** Who holds the operator's Lease, and how often it changed hands. */
  async function lease(id: OperatorIdentity) {
    const l = await leases.readNamespacedLease({ name: DEFAULT_LEASE_NAME, namespace: id.namespace });
    return { holder: l.spec?.holderIdentity, transitions: l.spec?.leaseTransitions ?? 0 };
  }

  it('a binding granted after start starts the watch in the same process, leadership kept; revoked, it stops and is reported again', async () => {
    await scheduling.createPriorityClass({ body: { metadata: { name: priorityClass }, value: 1000 } });
    cleanup.push(() => scheduling.deletePriorityClass({ name: priorityClass }));
    const opNs = await createNamespace('rbac-recheck-op');
    const ns = await install('rbac-recheck');
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    const op = await start(id, ns);
    const unread = await reportsUnreadable(ns, 'not granted at start');
    expect(stalled(unread)?.message).toContain('--rbac-recheck-period');
    expect(
      (await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns })).spec?.template?.spec,
    ).not.toHaveProperty('priorityClassName');
    const leading = await eventually(
      'this operator to lead',
      () => lease(id),
      (l) => Boolean(l.holder),
    );

    const granted = Date.now();
    const binding = await grantPriorityClasses(id);
    await usesPriorityClass(ns, 'granted while running');
    const grantMs = Date.now() - granted;
    // The same in-process operator, never restarted, still leading under the same term.
    expect(await lease(id)).toEqual(leading);
    expect(await metricValue(op.metricsUrl, 'leader_election_master_status')).toBe(1);
    const seen = logs(op).map((l) => l.msg ?? '');
    expect(seen.some((m) => m.startsWith('RBAC now lets the operator list and watch priorityclasses'))).toBe(
      true,
    );
    expect(seen.filter((m) => m === 'started leading: starting the controllers')).toHaveLength(1);
    expect(seen.some((m) => /restarting|shutting down/.test(m))).toBe(false);

    const revoked = Date.now();
    await rbac.deleteClusterRoleBinding({ name: binding });
    await reportsUnreadable(ns, 'binding removed while running');
    const revokeMs = Date.now() - revoked;
    expect(
      logs(op).some(
        (l) => l.kind === 'PriorityClass' && l.msg?.includes('stopped watching it and dropped its cache'),
      ),
    ).toBe(true);
    // The pods keep the class they run with (dropping it would roll them); leadership still unchanged.
    const dep = await apps.readNamespacedDeployment({ name: 'kgateway', namespace: ns });
    expect(templatePriorityClass(dep)).toBe(priorityClass);
    expect(await lease(id)).toEqual(leading);
    console.log(`rbac-recheck: grant picked up in ${grantMs} ms, revocation in ${revokeMs} ms (re-check 1s)`);
  });

  it('an access review failing at start-up keeps the kind unwatched, and is picked up once reviews work', async () => {
    await scheduling
      .createPriorityClass({ body: { metadata: { name: priorityClass }, value: 1000 } })
      .catch((err: { code?: number }) => {
        if (err.code !== 409) throw err;
      });
    const opNs = await createNamespace('rbac-review-op');
    const ns = await install('rbac-review');
    const id = await installOperatorRbac(opNs, { watchNamespaces: [ns] });
    await grantPriorityClasses(id); // RBAC allows it: only the question fails
    const proxy = new ReviewRefusingProxy(id);
    const proxied = await proxy.start();
    cleanup.push(() => proxy.stop()); // after the operator's shutdown (cleanups run in reverse)
    const op = await start(proxied, ns);
    await reportsUnreadable(ns, 'the access review failed at start-up');
    expect(proxy.refused).toBeGreaterThanOrEqual(2); // list and watch asked, both failed
    expect(
      logs(op).some(
        (l) =>
          l.kind === 'PriorityClass' && l.msg?.startsWith('could not ask whether RBAC lets the operator'),
      ),
    ).toBe(true);
    const failing = proxy.refused;
    // Reviews failing longer than a re-check period keep it unwatched (no guess from a failure).
    await eventually(
      'another failed re-check',
      async () => proxy.refused,
      (n) => n > failing + 2,
    );
    expect(unreadable(await getKgatewayHA(ns, 'kgateway'))).toBe(true);
    proxy.refusing = false;
    await usesPriorityClass(ns, 'access reviews answered again');
    expect(logs(op).filter((l) => l.msg === 'started leading: starting the controllers')).toHaveLength(1);
  });
});

/**
 * A plain-HTTP proxy in front of the real API server for `id` (TLS and the ServiceAccount's token on
 * the way up) that fails every SelfSubjectAccessReview with 503 while `refusing`, as an API server that
 * is restarting or overloaded does, and passes everything else through, watches included. (RBAC cannot
 * take the reviews away from one user: every authenticated user may ask.)
 */
class ReviewRefusingProxy {
  refusing = true;
  refused = 0;
  private readonly server: Server;

  constructor(private readonly id: OperatorIdentity) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.refusing && req.method === 'POST' && req.url?.includes('/selfsubjectaccessreviews')) {
      this.refused++;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'ServiceUnavailable',
          message: 'test: access reviews unavailable',
          code: 503,
        }),
      );
      return;
    }
    const target = new URL(this.id.kubeConfig.getCurrentCluster()!.server);
    const opts: RequestOptions = {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    };
    await this.id.kubeConfig.applyToHTTPSOptions(opts);
    const up = httpsRequest(opts, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  }

  /** Starts listening; returns `id` with a kubeconfig that goes through the proxy. */
  async start(): Promise<OperatorIdentity> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(readFileSync(this.id.kubeconfigPath, 'utf8'));
    kubeConfig.clusters = kubeConfig.clusters.map((c) => ({
      ...c,
      server: `http://127.0.0.1:${port}`,
      // Plain HTTP to the local proxy (client-node wants it said); the proxy verifies the API server.
      skipTLSVerify: true,
      caData: undefined,
      caFile: undefined,
    }));
    const kubeconfigPath = writeKubeconfig('glooha-op-proxy-', kubeConfig.exportConfig());
    return { ...this.id, kubeConfig, kubeconfigPath };
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
