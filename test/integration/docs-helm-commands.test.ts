// Every shell block of docs/helm.md, run exactly as printed through bash -c (test/support/shell.ts),
// in the names the doc uses (namespace gloo-system, release gloo, GlooHA gloo), with Gloo's real
// chart and Helm 4: the leader-election RBAC install without the chart's wildcard Role, then the
// values path beside a GlooHA, which must change no replica count.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GlooHA } from '../../src/products/gloo/types.js';
import { AvailabilityWatch } from '../support/availability-watch.js';
import { adminKubeConfig, createNamespace } from '../support/cluster.js';
import { BASE_VALUES } from '../support/gloo-chart.js';
import { createGlooHA, getGlooHA } from '../support/glooha.js';
import { kubectlOk } from '../support/kubectl.js';
import {
  installOperatorRbac,
  installReplicasFloorPolicy,
  repoRoot,
  startOperatorInProcess,
  type InProcessOperator,
} from '../support/operator.js';
import { runAsPrinted } from '../support/shell.js';
import { eventually } from '../support/wait.js';

const admin = adminKubeConfig();
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const NS = 'gloo-system';

/** The ```sh blocks of a Markdown file, as printed. */
function shellBlocks(file: string): string[] {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

// The user's own values file the doc's commands name (my-values.yaml): the values every test
// install uses (a webhook nothing serves is off).
const MY_VALUES = JSON.stringify(BASE_VALUES);

describe('docs/helm.md: its commands, run as printed', () => {
  const blocks = shellBlocks('docs/helm.md');
  const valuesPath = blocks.find(
    (b) => b.includes('get configmap gloo-helm-values') && !b.includes('--revision'),
  );
  const rollback = blocks.find((b) => b.includes('get values gloo') && b.includes('--revision'));
  const rbacInstall = blocks.find((b) => b.includes('global.glooRbac.create=false'));
  let operator: InProcessOperator;
  let removeFloorPolicy: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // The doc's own names: this is the only test that uses them.
    await kubectlOk(['create', 'namespace', NS]);
    removeFloorPolicy = await installReplicasFloorPolicy();
    const opNs = await createNamespace('docs-op');
    const id = await installOperatorRbac(opNs, { watchNamespaces: [NS] });
    operator = await startOperatorInProcess(id, {
      args: ['--resync-period=10m', `--watch-namespaces=${NS}`],
    });
  });

  afterAll(async () => {
    await operator?.shutdown('test end');
    await removeFloorPolicy?.();
  });

  it('has the two blocks this test runs, and no other', () => {
    expect(blocks).toHaveLength(3);
    expect(valuesPath).toBeDefined();
    expect(rollback).toBeDefined();
    expect(rbacInstall).toBeDefined();
  });

  it("installs Gloo without the chart's wildcard leader-election Role, the other Roles in gloo-system", async () => {
    const run = await runAsPrinted(rbacInstall!, { helm: 4, files: { 'my-values.yaml': MY_VALUES } });
    expect(run.code, run.stderr).toBe(0);
    const roles = (await rbac.listNamespacedRole({ namespace: NS })).items.map((r) => r.metadata?.name);
    expect(roles.length).toBeGreaterThan(0);
    expect(roles.filter((n) => n?.startsWith('kube-leader-election'))).toEqual([]);
    const bindings = (await rbac.listNamespacedRoleBinding({ namespace: NS })).items.map(
      (r) => r.metadata?.name,
    );
    expect(bindings.filter((n) => n?.startsWith('kube-leader-election'))).toEqual([]);
    // Nothing of it landed in the kubeconfig's namespace.
    const stray = (await rbac.listNamespacedRole({ namespace: 'default' })).items.filter(
      (r) => r.metadata?.labels?.app === 'gloo',
    );
    expect(stray).toEqual([]);
  });

  it('the values path beside a GlooHA: exports a non-empty file, upgrades, changes no replica count', async () => {
    await createGlooHA(NS, 'gloo', { gloo: { replicas: 2 } });
    await eventually(
      'GlooHA gloo-system/gloo Ready',
      () => getGlooHA(NS, 'gloo'),
      (g: GlooHA) =>
        g.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' &&
        g.status.observedGeneration === g.metadata.generation,
      { timeoutMs: 90_000 },
    );
    const watch = new AvailabilityWatch(admin, NS);
    await watch.start();
    const run = await runAsPrinted(valuesPath!, { helm: 4, files: { 'my-values.yaml': MY_VALUES } });
    const changes = watch.stop();
    expect(run.code, run.stderr).toBe(0);
    expect(run.files['values-glooha.yaml']).toMatch(/^# Helm values/);
    expect(
      changes.filter((c) => c.field === 'replicas'),
      AvailabilityWatch.describe(changes),
    ).toEqual([]);
  });

  it('the rollback under the floor: to revision 1 (the install before the GlooHA), as an upgrade with the exported values last, changes no replica count', async () => {
    const watch = new AvailabilityWatch(admin, NS);
    await watch.start();
    const run = await runAsPrinted(rollback!, { helm: 4, files: { 'my-values.yaml': MY_VALUES } });
    const changes = watch.stop();
    expect(run.code, run.stderr).toBe(0);
    expect(run.files['values-revision.yaml']).toContain('enabled');
    expect(run.files['values-glooha.yaml']).toMatch(/^# Helm values/);
    expect(
      changes.filter((c) => c.field === 'replicas'),
      AvailabilityWatch.describe(changes),
    ).toEqual([]);
  });
});
