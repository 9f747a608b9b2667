// The cluster-facing CLI (glooha status, check, helm-values) against the real API server, with the
// operator running as the chart's ServiceAccount; plus what an SRE reads off /metrics meanwhile
// (glooha_ready as soon as Ready=True, no reconcile error on delete) and the transport's error text.
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  CoordinationV1Api,
  type V1Deployment,
} from '@kubernetes/client-node';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RECONCILE_REQUEST_ANNOTATION } from '../../src/api/constants.js';
import { EXIT } from '../../src/cli/args.js';
import { main } from '../../src/cli/main.js';
import { KubeApiError, KubeClient } from '../../src/kube/client.js';
import { formatMicroTime } from '../../src/leader/lease-client.js';
import { adminKubeConfig, controlPlane, createNamespace, kubeConfigFor } from '../support/cluster.js';
import { createGlooInstall } from '../support/gloo-install.js';
import { createGlooHA, createKgatewayHA, deleteGlooHA, getGlooHA, getKgatewayHA } from '../support/glooha.js';
import {
  installOperatorRbac,
  metricValue,
  scrapeMetrics,
  startOperatorInProcess,
  type InProcessOperator,
  type OperatorIdentity,
} from '../support/operator.js';
import { readmeBlock } from '../support/readme.js';
import { eventually } from '../support/wait.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const admin = adminKubeConfig();
const apps = admin.makeApiClient(AppsV1Api);
let id: OperatorIdentity;
let operator: InProcessOperator;
let glooNs: string;

async function glooha(args: string[], kubeconfig = controlPlane().kubeconfigPath) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    args,
    {
      readFile: () => '',
      readStdin: async () => '',
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
    },
    { KUBECONFIG: kubeconfig },
  );
  return { code, stdout, stderr };
}

/** A Deployment standing for the operator's own (as the chart labels it), so `check` finds it. */
function operatorDeployment(namespace: string, serviceAccountName: string): V1Deployment {
  const labels = { 'app.kubernetes.io/name': 'glooha-operator' };
  return {
    metadata: { name: 'glooha-operator', namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName,
          containers: [{ name: 'operator', image: 'ghcr.io/glooha/glooha-operator:test' }],
        },
      },
    },
  };
}

const ready = (g: { status?: { conditions?: Array<{ type: string; status: string }> } }) =>
  g.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('glooha CLI against the API server', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const ns = await createNamespace('glooha-system');
    id = await installOperatorRbac(ns);
    operator = await startOperatorInProcess(id);
    await apps.createNamespacedDeployment({ namespace: ns, body: operatorDeployment(ns, id.serviceAccount) });
    glooNs = await createNamespace('gloo-cli');
    await createGlooInstall(admin, { namespace: glooNs, glooReplicas: 1, proxies: ['gateway-proxy'] });
    await createGlooHA(glooNs, 'gloo', {
      gloo: { replicas: 2 },
      gatewayProxies: { gatewayProxy: { replicas: 2 } },
    });
  }, 180_000);

  afterAll(async () => {
    await operator?.shutdown('test end');
  });

  it('glooha_ready{namespace,name} reads 1 as soon as the GlooHA is Ready=True', async () => {
    await eventually(
      'Ready=True',
      () => getGlooHA(glooNs, 'gloo'),
      (g) => ready(g) === 'True',
      {
        timeoutMs: 120_000,
      },
    );
    // The gauge reads the cache at scrape time: the cache holds our status write within a watch event.
    const value = await eventually(
      'glooha_ready = 1',
      () => metricValue(operator.metricsUrl, 'glooha_ready', { namespace: glooNs, name: 'gloo' }),
      (v) => v === 1,
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    expect(value).toBe(1);
    expect(
      await metricValue(operator.metricsUrl, 'glooha_resources', { ready: 'true' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metricValue(operator.metricsUrl, 'controller_runtime_max_concurrent_reconciles', {
        controller: 'glooha',
      }),
    ).toBe(4);
    // A standby (same chart identity, second replica) reports the same from its own warm cache.
    const standby = await startOperatorInProcess(id);
    try {
      expect(await metricValue(standby.metricsUrl, 'leader_election_master_status')).toBe(0);
      await eventually(
        'glooha_ready = 1 on the standby',
        () => metricValue(standby.metricsUrl, 'glooha_ready', { namespace: glooNs, name: 'gloo' }),
        (v) => v === 1,
        { timeoutMs: 10_000 },
      );
      expect(
        await metricValue(standby.metricsUrl, 'controller_runtime_active_workers', { controller: 'glooha' }),
      ).toBe(0);
    } finally {
      await standby.shutdown('standby done');
    }
  });

  it('status: a table, JSON and YAML; exit 0 when every GlooHA is Ready, 4 for a missing name', async () => {
    const table = await glooha(['status', '-n', glooNs]);
    expect(table.code, table.stderr).toBe(EXIT.OK);
    expect(table.stdout.split('\n')[0]).toMatch(/^KIND\s+NAME\s+READY\s+STALLED\s+REASON/);
    expect(table.stdout).toMatch(
      /^GlooHA\s+gloo\s+True\s+False\s+Reconciled\s+gloo 2\/2, gatewayProxy 2\/2/m,
    );

    const json = await glooha(['status', 'gloo', '-n', glooNs, '-o', 'json']);
    expect(json.code).toBe(EXIT.OK);
    const item = (JSON.parse(json.stdout) as { items: Array<Record<string, any>> }).items[0]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(item?.ready).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(item?.components).toContainEqual({ name: 'gloo', deployment: 'gloo', ready: 2, desired: 2 });

    const yaml = await glooha(['status', '-A', '-o', 'yaml']);
    expect(
      (parse(yaml.stdout) as { items: Array<{ namespace: string }> }).items.map((i) => i.namespace),
    ).toContain(glooNs);

    const missing = await glooha(['status', 'nope', '-n', glooNs]);
    expect(missing.code).toBe(EXIT.NOT_FOUND);
    expect(missing.stderr).toBe(`glooha: GlooHA or KgatewayHA ${glooNs}/nope not found\n`);
  });

  it("the README's cluster commands, as written: npx glooha status -A and npx glooha check (bash -c)", async () => {
    const run = (block: string) =>
      promisify(execFile)('bash', ['-c', readmeBlock(block)], {
        cwd: join(import.meta.dirname, '..', '..'),
        env: {
          ...process.env,
          KUBECONFIG: controlPlane().kubeconfigPath,
          npm_config_update_notifier: 'false',
        },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    // Other files of this lane share the control plane: objects of theirs may be in any state, so
    // the exit status is 0 or 5 (a health verdict), never a usage or cluster error.
    const status = await run('npx glooha status -A');
    expect([EXIT.OK, EXIT.UNHEALTHY], status.stderr).toContain(status.code);
    expect(status.stdout.split('\n')[0]).toMatch(/^NAMESPACE\s+KIND\s+NAME\s+READY/);
    expect(status.stdout).toMatch(new RegExp(`^${glooNs}\\s+GlooHA\\s+gloo\\s+True\\s`, 'm'));
    const check = await run('npx glooha check');
    expect([EXIT.OK, EXIT.UNHEALTHY], check.stderr).toContain(check.code);
    expect(check.stdout).toMatch(/^\[ok\]\s+CRD: gloohas\.glooha\.io serves v1alpha1$/m);
    expect(check.stdout).toMatch(/^\[ok\]\s+CRD: kgatewayhas\.glooha\.io serves v1alpha1$/m);
    expect(check.stdout).toContain(`[ok]   Gloo install: ${glooNs}/gloo is targeted by a GlooHA`);
    expect(check.stderr).toMatch(/^\d+ failed, \d+ warning\(s\), \d+ ok$/m);
  });

  it('status: a GlooHA whose Gloo install is missing is not Ready, and status exits 5', async () => {
    const ns = await createNamespace('gloo-missing');
    await createGlooHA(ns, 'lonely', { gloo: { replicas: 1, leaderElection: { enabled: false } } });
    const r = await eventually(
      'the operator to report on a GlooHA with no Gloo install',
      () => glooha(['status', '-n', ns, '-o', 'json']),
      (x) =>
        // NoStatus: nothing yet; NotObserved: the CRD's defaulted status (observedGeneration 0).
        !['NoStatus', 'NotObserved', undefined].includes(
          (JSON.parse(x.stdout || '{"items":[]}') as { items: Array<{ ready: { reason: string } }> }).items[0]
            ?.ready.reason,
        ),
    );
    expect(r.code).toBe(EXIT.UNHEALTHY);
    const item = (JSON.parse(r.stdout) as { items: Array<{ ready: { status: string; message: string } }> })
      .items[0];
    expect(item?.ready.status).toBe('False');
    const table = await glooha(['status', '-n', ns]);
    expect(table.code).toBe(EXIT.UNHEALTHY);
    expect(table.stderr).toContain(`${ns}/lonely: `);
    await deleteGlooHA(ns, 'lonely');
  });

  it('status -n NS covers KgatewayHAs: a Stalled one beside no GlooHA exits 5 and is named, not "No GlooHAs found"', async () => {
    const ns = await createNamespace('kgw-stalled');
    await createKgatewayHA(ns, 'kgateway', {
      controller: { replicas: 1, leaderElection: { enabled: false } },
    });
    const r = await eventually(
      'the operator to report the KgatewayHA Stalled (no kgateway install there)',
      () => glooha(['status', '-n', ns]),
      (x) => /^KgatewayHA\s+kgateway\s+False\s+True\s/m.test(x.stdout),
    );
    expect(r.code).toBe(EXIT.UNHEALTHY);
    expect(r.stderr).not.toContain('No GlooHAs');
    expect(r.stderr).toMatch(new RegExp(`^KgatewayHA ${ns}/kgateway: `, 'm'));
    const only = await glooha(['status', '-n', ns, '--kind', 'kha', '-ojson']);
    expect(only.code).toBe(EXIT.UNHEALTHY);
    expect((JSON.parse(only.stdout) as { items: Array<{ kind: string }> }).items.map((i) => i.kind)).toEqual([
      'KgatewayHA',
    ]);
    const none = await glooha(['status', '-n', ns, '--kind=glooha']);
    expect(none).toMatchObject({ code: EXIT.OK, stdout: '' });
    expect(none.stderr).toBe(`No GlooHAs found in namespace ${ns}.\n`);
  });

  it("suspend, reconcile and resume: Flux's verbs on a GlooHA and a KgatewayHA, end to end through the operator", async () => {
    // GlooHA: reconcile waits for the operator to echo the request, then reports Ready.
    const rec = await glooha(['reconcile', 'gloo', `-n${glooNs}`, '--timeout=90s']);
    expect(rec.code, rec.stderr).toBe(EXIT.OK);
    expect(rec.stdout).toMatch(new RegExp(`^GlooHA ${glooNs}/gloo reconciled: Ready=True \\(Reconciled\\)`));
    const handled = (await getGlooHA(glooNs, 'gloo')).metadata.annotations?.[RECONCILE_REQUEST_ANNOTATION];
    expect((await getGlooHA(glooNs, 'gloo')).status?.lastHandledReconcileAt).toBe(handled);

    const sus = await glooha(['suspend', 'gloo', '-n', glooNs]);
    expect(sus.code, sus.stderr).toBe(EXIT.OK);
    expect((await getGlooHA(glooNs, 'gloo')).spec?.suspend).toBe(true);
    expect((await glooha(['suspend', 'gloo', '-n', glooNs])).stdout).toBe(
      `GlooHA ${glooNs}/gloo is already suspended\n`,
    );
    const res = await glooha(['resume', 'gloo', '-n', glooNs, '--timeout', '90s']);
    expect(res.code, res.stderr).toBe(EXIT.OK);
    expect(res.stdout).toMatch(/reconciled: Ready=True/);
    expect((await getGlooHA(glooNs, 'gloo')).spec?.suspend).toBe(false);

    // KgatewayHA, found by name without --kind: the request is handled by its own controller.
    const ns = await createNamespace('kgw-verbs');
    await createKgatewayHA(ns, 'edge', { controller: { replicas: 1, leaderElection: { enabled: false } } });
    const kSus = await glooha(['suspend', 'edge', '-n', ns]);
    expect(kSus.stdout).toMatch(new RegExp(`^KgatewayHA ${ns}/edge suspended`));
    const kRec = await glooha(['reconcile', 'edge', '-n', ns, '--timeout', '90s']);
    expect(kRec.code, kRec.stderr).toBe(EXIT.OK);
    expect(kRec.stdout).toContain(`KgatewayHA ${ns}/edge handled (suspended: nothing written)`);
    // Resumed, it is Stalled (there is no kgateway install): handled, and exit 5 with the reason.
    const kRes = await glooha(['resume', 'edge', '-n', ns, '--kind', 'kgatewayha', '--timeout', '90s']);
    expect(kRes.code).toBe(EXIT.UNHEALTHY);
    expect(kRes.stderr).toMatch(new RegExp(`KgatewayHA ${ns}/edge handled, Stalled: Ready=False`));
    const k = await getKgatewayHA(ns, 'edge');
    expect(k.spec?.suspend).toBe(false);
    expect(k.status?.lastHandledReconcileAt).toBe(k.metadata.annotations?.[RECONCILE_REQUEST_ANNOTATION]);

    // Not there at all: 4; the wrong kind named: 4 for that kind.
    expect((await glooha(['reconcile', 'nope', '-n', ns])).code).toBe(EXIT.NOT_FOUND);
    const wrong = await glooha(['suspend', 'edge', '-n', ns, '--kind', 'glooha']);
    expect(wrong).toMatchObject({ code: EXIT.NOT_FOUND, stderr: `glooha: GlooHA ${ns}/edge not found\n` });
  });

  it("check covers kgateway: both CRDs, each install's KgatewayHA, and its controller's Lease kgateway-envoy", async () => {
    const ns = await createNamespace('kgw-check');
    const labels = { kgateway: 'kgateway', 'app.kubernetes.io/name': 'kgateway' };
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'kgateway', namespace: ns, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'controller', image: 'kgateway:test' }] },
          },
        },
      },
    });
    try {
      const kgwLeader = new RegExp(`^\\[FAIL\\] kgateway leader: no Lease ${ns}/kgateway-envoy`, 'm');
      const before = await glooha(['check', '-n', ns, '--operator-namespace', id.namespace]);
      expect(before.code).toBe(EXIT.UNHEALTHY);
      expect(before.stdout).toMatch(/^\[ok\]\s+CRD: kgatewayhas\.glooha\.io serves v1alpha1$/m);
      expect(before.stdout).toContain(
        `[warn] kgateway install: ${ns}/kgateway has no KgatewayHA (not made HA)`,
      );
      expect(before.stdout).toMatch(kgwLeader);
      // kgateway's leader, as controller-runtime writes its Lease (renewed now, 15 s).
      const leases = admin.makeApiClient(CoordinationV1Api);
      await leases.createNamespacedLease({
        namespace: ns,
        body: {
          metadata: { name: 'kgateway-envoy', namespace: ns },
          spec: {
            holderIdentity: 'kgateway-0_abc',
            leaseDurationSeconds: 15,
            renewTime: formatMicroTime(new Date()) as unknown as Date,
          },
        },
      });
      const led = await glooha(['check', '-n', ns, '--operator-namespace', id.namespace]);
      expect(led.stdout).toMatch(
        new RegExp(
          `^\\[ok\\]\\s+kgateway leader: kgateway-0_abc, Lease ${ns}/kgateway-envoy renewed \\d+s ago`,
          'm',
        ),
      );
      // A KgatewayHA without leader election: the operator sets KGW_DISABLE_LEADER_ELECTION, and check
      // no longer asks for a Lease.
      await createKgatewayHA(ns, 'kgateway', {
        controller: { replicas: 1, leaderElection: { enabled: false } },
      });
      const after = await eventually(
        'check to see the KgatewayHA and the leader election it turned off',
        () => glooha(['check', '-n', ns, '--operator-namespace', id.namespace]),
        (x) => x.stdout.includes(`[ok]   kgateway leader: ${ns}/kgateway: leader election is off`),
      );
      expect(after.stdout).toContain(`[ok]   kgateway install: ${ns}/kgateway is targeted by a KgatewayHA`);
    } finally {
      // Other tests' checks list kgateway installs in every namespace.
      await apps.deleteNamespacedDeployment({ namespace: ns, name: 'kgateway' });
    }
  });

  it('helm-values prints the ConfigMap the operator keeps; 4 for a GlooHA that does not exist', async () => {
    const r = await glooha(['helm-values', 'gloo', '-n', glooNs]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const values = parse(r.stdout) as { gloo: { deployment: { replicas: number } } };
    expect(values.gloo.deployment.replicas).toBe(2);
    const missing = await glooha(['helm-values', 'nope', '-n', glooNs]);
    expect(missing.code).toBe(EXIT.NOT_FOUND);
    expect(missing.stderr).toContain(`GlooHA or KgatewayHA ${glooNs}/nope not found`);
  });

  // -n: the installs of other tests' namespaces (and their states) are not this test's to judge.
  it('check passes for a healthy install: CRD, operator, its leader, RBAC (SubjectAccessReview), Gloo', async () => {
    const r = await eventually(
      'glooha check -n to pass',
      () => glooha(['check', '-n', glooNs, '--operator-namespace', id.namespace]),
      (x) => x.code === EXIT.OK,
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(r.stdout).toMatch(/^\[ok\]\s+CRD: gloohas\.glooha\.io serves v1alpha1$/m);
    expect(r.stdout).toMatch(/^\[ok\]\s+operator: Deployment .*: 1\/1 replicas ready$/m);
    expect(r.stdout).toMatch(
      /^\[ok\]\s+operator leader: op-\w+.*, Lease .*\/glooha-operator renewed \d+s ago/m,
    );
    expect(r.stdout).toContain(`[ok]   operator RBAC: ${id.username} holds every permission it needs`);
    expect(r.stdout).toContain(`[ok]   Gloo install: ${glooNs}/gloo is targeted by a GlooHA`);
    expect(r.stdout.match(/^\[\w+\]\s+(Gloo|kgateway) install: .*$/gm)).toEqual([
      `[ok]   Gloo install: ${glooNs}/gloo is targeted by a GlooHA`,
    ]);
    // This operator runs without the chart's fencing policy and does not require it: a warning.
    expect(r.stdout).toContain(
      `[warn] fencing policy: no ValidatingAdmissionPolicyBinding takes Lease ${id.namespace}/glooha-operator as its parameter: only the client-side fence applies`,
    );
  });

  it("check fails while an operator that requires the fencing policy has none, and passes once the chart's policy is bound", async () => {
    const ns = await createNamespace('glooha-fenced');
    const release = `fenced-${ns.slice(-6)}`;
    const bare = await installOperatorRbac(ns, { release });
    const deployment = operatorDeployment(ns, bare.serviceAccount);
    deployment.spec!.template.spec!.containers[0]!.env = [
      { name: 'LEADER_ELECT_REQUIRE_FENCING_POLICY', value: 'true' },
    ];
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment });
    const missing = await glooha(['check', '--operator-namespace', ns]);
    expect(missing.code).toBe(EXIT.UNHEALTHY);
    expect(missing.stdout).toContain(
      `[FAIL] fencing policy: no ValidatingAdmissionPolicyBinding takes Lease ${ns}/glooha-operator as its parameter: the leader reconciles nothing`,
    );
    // The chart's admission policies and bindings (fencing, replicas floor, its scale twin) are
    // cluster-scoped: all of this release's are removed at the end, so that no later file's writes
    // are judged by them (the floor-scale binding reads any namespace's floors ConfigMap).
    const admission = admin.makeApiClient(AdmissionregistrationV1Api);
    try {
      await installOperatorRbac(ns, { release, fencingPolicy: true });
      const bound = await glooha(['check', '--operator-namespace', ns]);
      expect(bound.stdout).toMatch(
        new RegExp(
          `^\\[ok\\]\\s+fencing policy: ValidatingAdmissionPolicy ${release}-glooha-operator-fencing is bound \\(${release}-glooha-operator-fencing\\) to Lease ${ns}/glooha-operator; the operator requires it$`,
          'm',
        ),
      );
    } finally {
      const ours = (o: { metadata?: { name?: string } }) =>
        o.metadata?.name?.startsWith(`${release}-`) ?? false;
      for (const b of (await admission.listValidatingAdmissionPolicyBinding()).items.filter(ours))
        await admission.deleteValidatingAdmissionPolicyBinding({ name: b.metadata!.name! });
      for (const p of (await admission.listValidatingAdmissionPolicy()).items.filter(ours))
        await admission.deleteValidatingAdmissionPolicy({ name: p.metadata!.name! });
    }
  });

  it('check fails (exit 5) where the operator lacks RBAC and has never led', async () => {
    const ns = await createNamespace('glooha-broken');
    await kubeConfigFor(ns, 'nobody'); // creates the ServiceAccount
    await apps.createNamespacedDeployment({ namespace: ns, body: operatorDeployment(ns, 'nobody') });
    const r = await glooha(['check', '--operator-namespace', ns]);
    expect(r.code).toBe(EXIT.UNHEALTHY);
    expect(r.stdout).toContain(`[FAIL] operator leader: no Lease ${ns}/glooha-operator`);
    expect(r.stdout).toMatch(
      /^\[FAIL\] operator RBAC: system:serviceaccount:.*:nobody may not: .*\bget gloohas\.glooha\.io\b/m,
    );
  });

  it('a user without access gets one line and exit 3, not a stack trace', async () => {
    const ns = await createNamespace('glooha-user');
    const kc = await kubeConfigFor(ns, 'nobody');
    const path = join(controlPlane().pkiDir, `kubeconfig-${ns}`);
    writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
    const r = await glooha(['status', '-A'], path);
    expect(r.code).toBe(EXIT.CLUSTER);
    expect(r.stderr).toMatch(
      /^glooha: list GlooHAs in all namespaces: GET \/apis\/glooha\.io\/v1alpha1\/gloohas: 403 Forbidden: /,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("a 409 from a generated client reads '<method>: 409 Conflict: <message>'", async () => {
    const client = new KubeClient(admin);
    const leases = client.api(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({
      namespace: glooNs,
      body: { metadata: { name: 'conflict-test' }, spec: { holderIdentity: 'a' } },
    });
    // A real change (an identical replace is a no-op and keeps the resourceVersion), so that replaying
    // the first object's resourceVersion afterwards conflicts.
    await leases.replaceNamespacedLease({
      namespace: glooNs,
      name: 'conflict-test',
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } },
    });
    const err = await leases
      .replaceNamespacedLease({ namespace: glooNs, name: 'conflict-test', body: lease })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    client.close();
    expect(err).toBeInstanceOf(KubeApiError);
    const e = err as KubeApiError;
    expect(e.code).toBe(409);
    expect(e.message).toMatch(
      /^replaceNamespacedLease: 409 Conflict: Operation cannot be fulfilled on leases/,
    );
    expect(e.message).not.toContain('Unknown API Status Code');
    expect(e.message).not.toContain('\n');
  });

  it('deleting a GlooHA counts no reconcile error and logs no error', async () => {
    const before = await metricValue(operator.metricsUrl, 'controller_runtime_reconcile_errors_total', {
      controller: 'glooha',
    });
    const logsBefore = operator.logs.length;
    await deleteGlooHA(glooNs, 'gloo');
    await eventually(
      'the GlooHA to go',
      () => glooha(['status', 'gloo', '-n', glooNs]),
      (r) => r.code === EXIT.NOT_FOUND,
    );
    // Let the informer deliver the delete and any reconcile it queues run.
    await eventually(
      'its glooha_ready series to go',
      async () => (await scrapeMetrics(operator.metricsUrl)).includes(`namespace="${glooNs}"`),
      (present) => !present,
    );
    expect(
      await metricValue(operator.metricsUrl, 'controller_runtime_reconcile_errors_total', {
        controller: 'glooha',
      }),
    ).toBe(before);
    const errors = operator.logs
      .slice(logsBefore)
      .map((l) => JSON.parse(l) as { level: string; msg: string })
      .filter((l) => l.level === 'error');
    expect(errors).toEqual([]);
  });
});
