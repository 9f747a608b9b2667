// A real Kubernetes control plane for tests: etcd, kube-apiserver (RBAC on, real ServiceAccount
// tokens, an audit log), kube-controller-manager (garbage collector, namespaces, service accounts,
// deployments/replicasets, disruption budgets), kube-scheduler and kwok (simulated nodes whose pods
// become Running and Ready). Everything listens on random 127.0.0.1 ports and lives in one temp dir
// that stop() removes. Startup waits on readiness endpoints with deadlines, never on fixed sleeps.
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { locateBinaries, type Binaries } from './binaries.js';
import { createClientCert, createPki, type Pki } from './pki.js';
import { ManagedProcess, RUN_DIR_PREFIX, freePort, reapStaleControlPlanes, waitFor } from './processes.js';

export interface ControlPlaneOptions {
  /** Simulated nodes kwok keeps Ready (default 3). */
  nodes?: number;
  /**
   * Run the Deployment and ReplicaSet controllers (default true). The scale benchmark turns them off:
   * its installs are Deployments without pods, so hundreds of them measure the operator, not kwok.
   */
  workloads?: boolean;
  log?: (line: string) => void;
}

/** What a test process needs to reach the control plane (serialisable: passed from global setup). */
export interface ControlPlaneInfo {
  dir: string;
  server: string;
  kubeconfigPath: string;
  auditLogPath: string;
  etcdUrl: string;
  pkiDir: string;
  nodes: string[];
}

export interface ControlPlane extends ControlPlaneInfo {
  /** Processes that exited without being asked to, with the tail of their logs. */
  failures: () => string[];
  stop: () => Promise<void>;
}

const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    // Reads are the bulk of the traffic and say nothing about who changed what.
    { level: 'None', verbs: ['get', 'list', 'watch'] },
    { level: 'Metadata' },
  ],
};

export function writeKubeconfig(
  path: string,
  server: string,
  caCert: string,
  user: Record<string, string>,
): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server, 'certificate-authority': caCert } }],
    users: [{ name: 'user', user }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'user' } }],
    'current-context': 'test',
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
}

function httpOk(url: string, tls?: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(url, { ...tls, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export interface ApiServerOptions {
  binaries: Binaries;
  pki: Pki;
  dir: string;
  etcdUrl: string;
  port: number;
  name?: string;
  auditLogPath?: string;
  onUnexpectedExit: (proc: ManagedProcess, code: number | null) => void;
  pidFile?: string;
  /** Client certificate for the /readyz probe (default: admin.crt and admin.key in `dir`). */
  adminCert?: { cert: string; key: string };
}

/**
 * Starts one kube-apiserver and waits for /readyz. Exported so a fault-injection test can run a second
 * API server on the same etcd and kill and restart it on the same port without disturbing the rest.
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ManagedProcess> {
  const name = opts.name ?? 'kube-apiserver';
  const certDir = join(opts.dir, `${name}-certs`);
  mkdirSync(certDir, { recursive: true });
  const args = [
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${opts.port}`,
    `--cert-dir=${certDir}`,
    `--tls-cert-file=${opts.pki.servingCert}`,
    `--tls-private-key-file=${opts.pki.servingKey}`,
    `--client-ca-file=${opts.pki.caCert}`,
    `--etcd-servers=${opts.etcdUrl}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${opts.pki.saPub}`,
    `--service-account-signing-key-file=${opts.pki.saKey}`,
    // ServiceAccount: as envtest does, pods need not wait for their ServiceAccount's token volume.
    // TaintNodesByCondition: it taints new Nodes not-ready until the node-lifecycle controller clears
    // it; kwok keeps the simulated nodes Ready, so the taint would only keep pods Pending.
    '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
    '--endpoint-reconciler-type=none',
    '--profiling=false',
  ];
  if (opts.auditLogPath) {
    const policy = join(opts.dir, 'audit-policy.yaml');
    writeFileSync(policy, stringify(AUDIT_POLICY));
    args.push(
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${opts.auditLogPath}`,
      '--audit-log-mode=blocking',
      // Without a size, the log rotates at 100 MB (lumberjack's default): bench:scale at 500 Leases
      // reached that in ~7 minutes and the readers, which read only the current file, undercounted.
      // 100 GB is never reached; the readers also read rotated files (test/support/audit.ts).
      '--audit-log-maxsize=100000',
    );
  }
  const proc = new ManagedProcess(
    name,
    opts.binaries.path('kube-apiserver'),
    args,
    join(opts.dir, `${name}.log`),
    opts.onUnexpectedExit,
    opts.pidFile,
  );
  const tls = {
    ca: readFileSync(opts.pki.caCert),
    cert: readFileSync(opts.adminCert?.cert ?? join(opts.dir, 'admin.crt')),
    key: readFileSync(opts.adminCert?.key ?? join(opts.dir, 'admin.key')),
  };
  await waitFor(`${name} /readyz`, () => httpOk(`https://127.0.0.1:${opts.port}/readyz`, tls), {
    timeoutMs: 120_000,
    intervalMs: 250,
    whileAlive: [proc],
  });
  return proc;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? (() => {});
  const nodeCount = options.nodes ?? 3;
  reapStaleControlPlanes(log);
  const binaries = locateBinaries(log);
  // Resolve every binary before starting anything, so a missing one fails fast with its name.
  for (const b of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const)
    binaries.path(b);

  const dir = mkdtempSync(join(tmpdir(), RUN_DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), `${process.pid}\n`);
  const pidFile = join(dir, 'children.pid');
  const started = Date.now();
  const procs: ManagedProcess[] = [];
  const failures: string[] = [];
  const onUnexpectedExit = (proc: ManagedProcess, code: number | null) => {
    const msg = `${proc.name} exited unexpectedly (code ${code}); last log lines (${proc.logPath}):\n${proc.tail()}`;
    failures.push(msg);
    log(msg);
  };

  const stop = async () => {
    for (const proc of [...procs].reverse()) await proc.stop();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const pki = createPki(join(dir, 'pki'));
    const admin = createClientCert(pki, 'admin', ['system:masters']);
    // startApiServer reads these names for its readiness probe.
    writeFileSync(join(dir, 'admin.crt'), readFileSync(admin.cert));
    writeFileSync(join(dir, 'admin.key'), readFileSync(admin.key));

    const [clientPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcd = new ManagedProcess(
      'etcd',
      binaries.path('etcd'),
      [
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
      onUnexpectedExit,
      pidFile,
    );
    procs.push(etcd);
    await waitFor('etcd /health', () => httpOk(`${etcdUrl}/health`), {
      timeoutMs: 60_000,
      whileAlive: [etcd],
    });
    log(`etcd ready at ${etcdUrl} after ${((Date.now() - started) / 1000).toFixed(1)}s`);

    const auditLogPath = join(dir, 'audit.log');
    const apiserver = await startApiServer({
      binaries,
      pki,
      dir,
      etcdUrl,
      port: apiPort,
      auditLogPath,
      onUnexpectedExit,
      pidFile,
    });
    procs.push(apiserver);
    const server = `https://127.0.0.1:${apiPort}`;
    log(`kube-apiserver ready at ${server} after ${((Date.now() - started) / 1000).toFixed(1)}s`);

    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    writeKubeconfig(kubeconfigPath, server, pki.caCert, {
      'client-certificate': admin.cert,
      'client-key': admin.key,
    });

    const kcm = new ManagedProcess(
      'kube-controller-manager',
      binaries.path('kube-controller-manager'),
      [
        `--kubeconfig=${kubeconfigPath}`,
        '--leader-elect=false',
        '--secure-port=0',
        // The HPA controller needs no metrics API to keep a target's replicas within [min, max]. The
        // Job controller runs the hook Jobs of Gloo's chart (helm waits for them; kwok completes their
        // pods) and ttl-after-finished removes them as the chart's ttlSecondsAfterFinished asks.
        `--controllers=garbage-collector-controller,namespace-controller,serviceaccount-controller,${options.workloads === false ? '' : 'deployment-controller,replicaset-controller,'}disruption-controller,horizontal-pod-autoscaler-controller,job-controller,ttl-after-finished-controller`,
      ],
      join(dir, 'kube-controller-manager.log'),
      onUnexpectedExit,
      pidFile,
    );
    procs.push(kcm);
    const scheduler = new ManagedProcess(
      'kube-scheduler',
      binaries.path('kube-scheduler'),
      [`--kubeconfig=${kubeconfigPath}`, '--leader-elect=false', '--secure-port=0'],
      join(dir, 'kube-scheduler.log'),
      onUnexpectedExit,
      pidFile,
    );
    procs.push(scheduler);

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const nodes = Array.from({ length: nodeCount }, (_, i) => `kwok-node-${i}`);
    for (const [i, name] of nodes.entries()) {
      await core.createNode({
        body: {
          metadata: {
            name,
            labels: {
              'kubernetes.io/hostname': name,
              'topology.kubernetes.io/zone': `zone-${i % 3}`,
              type: 'kwok',
            },
            annotations: { 'kwok.x-k8s.io/node': 'fake' },
          },
          // Every kubelet reports ephemeral-storage; without it a pod requesting some (the chart's
          // operator pod does) stays Pending with "Insufficient ephemeral-storage".
          status: {
            allocatable: { cpu: '32', memory: '256Gi', 'ephemeral-storage': '100Gi', pods: '110' },
            capacity: { cpu: '32', memory: '256Gi', 'ephemeral-storage': '100Gi', pods: '110' },
          },
        },
      });
    }
    const kwok = new ManagedProcess(
      'kwok',
      binaries.path('kwok'),
      [
        `--kubeconfig=${kubeconfigPath}`,
        '--manage-all-nodes=true',
        '--cidr=10.244.0.0/16',
        '--node-ip=10.244.255.1',
        ...['node-initialize', 'node-heartbeat', 'pod-ready', 'pod-complete', 'pod-delete'].flatMap((s) => [
          '--config',
          join(binaries.kwokStagesDir, `${s}.yaml`),
        ]),
      ],
      join(dir, 'kwok.log'),
      onUnexpectedExit,
      pidFile,
    );
    procs.push(kwok);

    const alive = [etcd, apiserver, kcm, scheduler, kwok];
    await waitFor(
      'kwok to mark the nodes Ready',
      async () => {
        const list = await core.listNode();
        return (
          list.items.filter((n) =>
            n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          ).length === nodeCount
        );
      },
      { timeoutMs: 60_000, whileAlive: alive },
    );
    await waitFor(
      'the ServiceAccount controller (default/default)',
      async () =>
        await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' }).then(
          () => true,
          () => false,
        ),
      { timeoutMs: 60_000, whileAlive: alive },
    );
    log(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${dir})`);

    return {
      dir,
      server,
      kubeconfigPath,
      auditLogPath,
      etcdUrl,
      pkiDir: pki.dir,
      nodes,
      failures: () => [...failures],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
