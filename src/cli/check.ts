// `glooha check`: pre-flight checks of a cluster, each one line with [ok], [warn] or [FAIL]: the CRDs,
// the operator and its Lease, RBAC, and each registered product's installs (with the product's own
// check of each, CliProduct.installCheck).
// Everything is read with the caller's credentials through the one transport; nothing is written
// except access reviews (which the API server answers without storing).
import type { V1Deployment, V1Lease } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../api/constants.js';
import type { HAObject } from '../api/types.js';
import { installNamespaceOf } from '../controller/product.js';
import { accessAllowed } from '../kube/access.js';
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, type CheckArgs } from './args.js';
import { explain, type Cluster } from './cluster.js';
import { escapeControl } from './escape.js';
import type { CliIO } from './io.js';
import type { CheckResult } from './product.js';
import { CLI_PRODUCTS, RECONCILER_PERMISSIONS } from './registry.js';

export type { CheckResult, Verdict } from './product.js';

/** The label the chart and deploy/install.yaml put on the operator's Deployment. */
export const OPERATOR_SELECTOR = 'app.kubernetes.io/name=glooha-operator';

/** What every check step reads and reports through. */
interface CheckContext {
  args: CheckArgs;
  client: Cluster['client'];
  now: Date;
  /** GET, undefined on 404; any other failure is explained (and thrown) as the CLI does everywhere. */
  get: <T>(what: string, path: string, query?: Record<string, string>) => Promise<T | undefined>;
  report: (r: CheckResult) => Promise<void>;
}

const APPS = { group: 'apps', version: 'v1', plural: 'deployments' };

/** The operator's Deployment, and the env its container runs with (as the chart sets it). */
interface OperatorInstall {
  deployment: V1Deployment;
  namespace: string;
  env: Record<string, string>;
}

export async function check(args: CheckArgs, io: CliIO, cluster: Cluster, now = new Date()): Promise<number> {
  const results: CheckResult[] = [];
  const { client } = cluster;
  const ctx: CheckContext = {
    args,
    client,
    now,
    report: async (r) => {
      results.push(r);
      await io.stdout(
        `[${r.verdict}]${' '.repeat(5 - r.verdict.length)}${r.check}: ${escapeControl(r.detail)}\n`,
      );
    },
    get: async <T>(what: string, path: string, query?: Record<string, string>) => {
      try {
        return await client.request<T>('GET', path, { query });
      } catch (err) {
        if (errorStatus(err) === 404) return undefined;
        explain(err, what, client);
      }
    },
  };
  const served = await crdChecks(ctx);
  const operator = await operatorCheck(ctx);
  if (operator && operator.env.LEADER_ELECT === 'false') {
    await ctx.report({
      verdict: 'ok',
      check: 'operator leader',
      detail: 'leader election is off (one replica)',
    });
  } else if (operator) {
    const leaseName = operator.env.LEADER_ELECT_LEASE_NAME || 'glooha-operator';
    await ctx.report(await operatorLeaderCheck(ctx, operator.namespace, leaseName));
    // Server-side fencing: the chart's admission policy, bound with the operator's Lease as its
    // parameter (docs/leader-election.md). A leader that requires it reconciles nothing without it.
    await ctx.report(
      await fencingPolicyCheck(
        client,
        `${operator.namespace}/${leaseName}`,
        operator.env.LEADER_ELECT_REQUIRE_FENCING_POLICY === 'true',
      ),
    );
  }
  await yourAccessChecks(ctx);
  if (operator) await ctx.report(await operatorRbacCheck(ctx, operator));
  await installChecks(ctx, served);

  const failed = results.filter((r) => r.verdict === 'FAIL').length;
  const warned = results.filter((r) => r.verdict === 'warn').length;
  io.stderr(`${failed} failed, ${warned} warning(s), ${results.length - failed - warned} ok\n`);
  return failed > 0 ? EXIT.UNHEALTHY : EXIT.OK;
}

/**
 * The CRDs, through discovery (every authenticated user may read it): the group's versions, and which
 * kinds its v1alpha1 serves. Returns the plurals served.
 */
async function crdChecks({ get, report }: CheckContext): Promise<Set<string>> {
  const group = await get<{ versions?: Array<{ version: string }>; preferredVersion?: { version: string } }>(
    'discover glooha.io',
    `/apis/${GROUP}`,
  );
  const versions = group?.versions?.map((v) => v.version) ?? [];
  const resources = versions.includes(VERSION)
    ? ((
        await get<{ resources?: Array<{ name: string }> }>(
          `discover ${GROUP}/${VERSION}`,
          `/apis/${GROUP}/${VERSION}`,
        )
      )?.resources?.map((r) => r.name) ?? [])
    : [];
  const served = new Set(resources);
  for (const { plural } of CLI_PRODUCTS.map((p) => p.api)) {
    const crd = `${plural}.${GROUP}`;
    await report(
      served.has(plural)
        ? { verdict: 'ok', check: 'CRD', detail: `${crd} serves ${versions.join(', ')}` }
        : !group || versions.includes(VERSION)
          ? {
              verdict: 'FAIL',
              check: 'CRD',
              detail: `${crd} is not installed (apply crds/ or deploy/install.yaml)`,
            }
          : {
              verdict: 'FAIL',
              check: 'CRD',
              detail: `${crd} serves ${versions.join(', ') || 'nothing'}, not ${VERSION}: upgrade the CRD`,
            },
    );
  }
  return served;
}

/** The operator's Deployment: found, and how many of its replicas are ready. */
async function operatorCheck({ args, get, report }: CheckContext): Promise<OperatorInstall | undefined> {
  const operators =
    (
      await get<{ items: V1Deployment[] }>(
        'list the operator Deployments',
        resourcePath(APPS, args.operatorNamespace),
        {
          labelSelector: OPERATOR_SELECTOR,
        },
      )
    )?.items ?? [];
  const where = args.operatorNamespace ? `namespace ${args.operatorNamespace}` : 'any namespace';
  const operator = operators.find((d) => (d.status?.readyReplicas ?? 0) > 0) ?? operators[0];
  if (!operator) {
    await report({
      verdict: 'FAIL',
      check: 'operator',
      detail: `no Deployment labelled ${OPERATOR_SELECTOR} in ${where}`,
    });
    return undefined;
  }
  const id = `${operator.metadata?.namespace}/${operator.metadata?.name}`;
  const ready = operator.status?.readyReplicas ?? 0;
  const want = operator.spec?.replicas ?? 1;
  await report({
    verdict: ready === 0 ? 'FAIL' : ready < want ? 'warn' : 'ok',
    check: 'operator',
    detail: `Deployment ${id}: ${ready}/${want} replicas ready${operators.length > 1 ? ` (${operators.length} operator Deployments found)` : ''}`,
  });
  return {
    deployment: operator,
    namespace: operator.metadata?.namespace ?? '',
    env: Object.fromEntries(
      (operator.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? '']),
    ),
  };
}

/** The operator's leader Lease: held, and renewed within its duration by this machine's clock. */
async function operatorLeaderCheck(
  { get, now }: CheckContext,
  operatorNs: string,
  leaseName: string,
): Promise<CheckResult> {
  const lease = await get<V1Lease>(
    `get Lease ${operatorNs}/${leaseName}`,
    resourcePath({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases' }, operatorNs, leaseName),
  );
  const check = 'operator leader';
  const holder = lease?.spec?.holderIdentity;
  const renew = lease?.spec?.renewTime ? new Date(String(lease.spec.renewTime)) : undefined;
  const age = renew ? Math.max(0, (now.getTime() - renew.getTime()) / 1000) : undefined;
  const duration = lease?.spec?.leaseDurationSeconds ?? 15;
  if (!lease)
    return { verdict: 'FAIL', check, detail: `no Lease ${operatorNs}/${leaseName}: no replica has led yet` };
  if (!holder) return { verdict: 'FAIL', check, detail: `Lease ${operatorNs}/${leaseName} has no holder` };
  if (age === undefined || age > duration)
    return {
      verdict: 'FAIL',
      check,
      detail: `${holder} holds Lease ${operatorNs}/${leaseName} but last renewed it ${age === undefined ? 'never' : `${Math.round(age)}s ago`} (lease duration ${duration}s)`,
    };
  return {
    verdict: 'ok',
    check,
    detail: `${holder}, Lease ${operatorNs}/${leaseName} renewed ${Math.round(age)}s ago (lease duration ${duration}s; by this machine's clock)`,
  };
}

/** What you may do (SelfSubjectAccessReview): what glooha status and helm-values read. */
async function yourAccessChecks({ client, report }: CheckContext): Promise<void> {
  for (const a of [
    ...CLI_PRODUCTS.map(({ api }) => ({ group: GROUP, resource: api.plural, verb: 'list' })),
    { group: '', resource: 'configmaps', verb: 'get' },
  ]) {
    const allowed = await accessAllowed(client, a);
    await report({
      verdict: allowed ? 'ok' : 'warn',
      check: 'your access',
      detail: `${allowed ? 'may' : 'may not'} ${a.verb} ${a.resource}${a.group ? `.${a.group}` : ''} in all namespaces`,
    });
  }
}

/** What the operator may do (SubjectAccessReview for its ServiceAccount) in each namespace it watches. */
async function operatorRbacCheck({ client }: CheckContext, operator: OperatorInstall): Promise<CheckResult> {
  const operatorNs = operator.namespace;
  const sa = operator.deployment.spec?.template.spec?.serviceAccountName || 'default';
  const user = `system:serviceaccount:${operatorNs}:${sa}`;
  const subject = {
    user,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${operatorNs}`, 'system:authenticated'],
  };
  const watched = (operator.env.WATCH_NAMESPACES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const missing: string[] = [];
  for (const namespace of watched.length ? watched : [undefined])
    for (const p of RECONCILER_PERMISSIONS)
      for (const verb of p.verbs) {
        let allowed: boolean;
        try {
          allowed = await accessAllowed(
            client,
            { group: p.group, resource: p.resource, verb, namespace },
            subject,
          );
        } catch (err) {
          if (errorStatus(err) !== 403) throw err;
          return {
            verdict: 'warn',
            check: 'operator RBAC',
            detail: 'not checked: you may not create SubjectAccessReviews',
          };
        }
        if (!allowed)
          missing.push(
            `${verb} ${p.resource}${p.group ? `.${p.group}` : ''}${namespace ? ` in ${namespace}` : ''}`,
          );
      }
  if (missing.length)
    return { verdict: 'FAIL', check: 'operator RBAC', detail: `${user} may not: ${missing.join(', ')}` };
  return {
    verdict: 'ok',
    check: 'operator RBAC',
    detail: `${user} holds every permission it needs ${watched.length ? `in ${watched.join(', ')}` : 'in all namespaces'}`,
  };
}

/**
 * Each product's installs (its control-plane Deployments), whether an object of its kind targets each,
 * and the product's own check of each.
 */
async function installChecks({ args, get, report, now }: CheckContext, served: Set<string>): Promise<void> {
  const listOf = async <T>(what: string, plural: string): Promise<T[]> =>
    served.has(plural)
      ? ((await get<{ items: T[] }>(what, resourcePath({ group: GROUP, version: VERSION, plural })))?.items ??
        [])
      : [];
  let installs = 0;
  for (const product of CLI_PRODUCTS) {
    const { kind, plural } = product.api;
    const deployments =
      (
        await get<{ items: V1Deployment[] }>(
          `list ${product.name} Deployments`,
          resourcePath(APPS, args.namespace),
          {
            labelSelector: product.installSelector,
          },
        )
      )?.items ?? [];
    installs += deployments.length;
    const objects = await listOf<HAObject>(`list ${kind}s`, plural);
    const targeted = new Set(objects.map((g) => installNamespaceOf(g)));
    for (const d of deployments) {
      const ns = d.metadata?.namespace ?? '';
      const id = `${ns}/${d.metadata?.name}`;
      const check = `${product.name} install`;
      await report(
        targeted.has(ns)
          ? { verdict: 'ok', check, detail: `${id} is targeted by a ${kind}` }
          : { verdict: 'warn', check, detail: `${id} has no ${kind} (not made HA)` },
      );
      if (product.installCheck) await report(await product.installCheck.run(get, d, now));
    }
  }
  if (installs === 0) {
    await report({
      verdict: 'warn',
      check: 'installs',
      detail: `no Deployment labelled ${CLI_PRODUCTS.map((p) => `${p.installSelector} (${p.name})`).join(' or ')} found${args.namespace ? ` in namespace ${args.namespace}` : ''}`,
    });
  }
}

const ADMISSION = { group: 'admissionregistration.k8s.io', version: 'v1' };

interface PolicyBinding {
  metadata?: { name?: string };
  spec?: { policyName?: string; paramRef?: { name?: string; namespace?: string } };
}

/** Whether a ValidatingAdmissionPolicy is bound with the Lease `lease` ("ns/name") as its parameter. */
async function fencingPolicyCheck(
  client: Cluster['client'],
  lease: string,
  required: boolean,
): Promise<CheckResult> {
  const check = 'fencing policy';
  const fix = required
    ? "the leader reconciles nothing (LEADER_ELECT_REQUIRE_FENCING_POLICY=true): restore it with helm upgrade of the operator's chart, or set leaderElection.fencingPolicy.enabled=false"
    : 'only the client-side fence applies: install the chart with leaderElection.fencingPolicy.enabled=true';
  let bindings: PolicyBinding[];
  try {
    bindings =
      (
        await client.request<{ items?: PolicyBinding[] }>(
          'GET',
          resourcePath({ ...ADMISSION, plural: 'validatingadmissionpolicybindings' }),
        )
      ).items ?? [];
  } catch (err) {
    return {
      verdict: 'warn',
      check,
      detail: `not checked: may not list ValidatingAdmissionPolicyBindings (${errorStatus(err) ?? String(err)})`,
    };
  }
  const binding = bindings.find((b) => `${b.spec?.paramRef?.namespace}/${b.spec?.paramRef?.name}` === lease);
  const policyName = binding?.spec?.policyName ?? '';
  const policy = policyName
    ? await client
        .request(
          'GET',
          resourcePath({ ...ADMISSION, plural: 'validatingadmissionpolicies' }, undefined, policyName),
        )
        .then(
          () => true,
          (err: unknown) => {
            if (errorStatus(err) === 404) return false;
            throw err;
          },
        )
    : false;
  if (binding && policy) {
    return {
      verdict: 'ok',
      check,
      detail: `ValidatingAdmissionPolicy ${policyName} is bound (${binding.metadata?.name}) to Lease ${lease}${required ? '; the operator requires it' : ''}`,
    };
  }
  const what = binding
    ? `binding ${binding.metadata?.name} names ValidatingAdmissionPolicy ${policyName}, which does not exist`
    : `no ValidatingAdmissionPolicyBinding takes Lease ${lease} as its parameter`;
  return { verdict: required ? 'FAIL' : 'warn', check, detail: `${what}: ${fix}` };
}
