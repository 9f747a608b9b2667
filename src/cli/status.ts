// `glooha status`: the health of each object of every registered kind as the operator reported it in
// status, summarized (pure: summarize, formatTable) and printed as a table, JSON or YAML.
import { stringify } from 'yaml';
import type { ComponentStatus, HAObject } from '../api/types.js';
import { errorStatus } from '../kube/client.js';
import { EXIT, type HAKind, type StatusArgs } from './args.js';
import { explain, type Cluster } from './cluster.js';
import { escapeControl } from './escape.js';
import { crdMissing, findObject, kindsOf, pathOf, pluralWords } from './kinds.js';
import { CLI_PRODUCTS, productOfKind } from './registry.js';
import type { CliIO } from './io.js';

export interface ConditionSummary {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface ComponentSummary {
  /** The component's key in status.components, or its key in a map of them (a proxy's). */
  name: string;
  deployment: string;
  ready: number;
  desired: number;
}

export interface ObjectSummary {
  kind: HAKind;
  namespace: string;
  name: string;
  ready: ConditionSummary;
  stalled: ConditionSummary;
  components: ComponentSummary[];
  leader?: { holder?: string; fresh?: boolean; leaseDurationSeconds?: number };
  drift: ConditionSummary;
}

const UNKNOWN = (reason: string, message: string): ConditionSummary => ({
  status: 'Unknown',
  reason,
  message,
});

function condition(g: HAObject, type: string): ConditionSummary | undefined {
  const c = g.status?.conditions?.find((x) => x.type === type);
  if (!c) return undefined;
  const status = c.status === 'True' || c.status === 'False' ? c.status : 'Unknown';
  return { status, reason: c.reason ?? '', message: c.message ?? '' };
}

/**
 * What `glooha status` says of one object. A status the operator has not (re)written yet is Unknown.
 */
export function summarize(g: HAObject): ObjectSummary {
  // An object of no registered kind is read as the first product's (its status has no other shape).
  const product = productOfKind(g.kind) ?? CLI_PRODUCTS[0];
  const kind: HAKind = product?.api.kind ?? g.kind;
  const base = { kind, namespace: g.metadata.namespace ?? '', name: g.metadata.name };
  const generation = g.metadata.generation;
  const observed = g.status?.observedGeneration;
  let ready: ConditionSummary;
  let stalled: ConditionSummary;
  if (!g.status?.conditions?.length) {
    const why =
      'the operator has not reported on it: is it running, and does it watch this namespace? (glooha check)';
    ready = UNKNOWN('NoStatus', why);
    stalled = UNKNOWN('NoStatus', why);
  } else if (generation !== undefined && observed !== undefined && observed < generation) {
    const why = `the operator has not reported on generation ${generation} yet (last: ${observed})`;
    ready = UNKNOWN('NotObserved', why);
    stalled = condition(g, 'Stalled') ?? UNKNOWN('NotObserved', why);
  } else {
    ready = condition(g, 'Ready') ?? UNKNOWN('NoCondition', 'no Ready condition');
    stalled = condition(g, 'Stalled') ?? UNKNOWN('NoCondition', 'no Stalled condition');
  }
  const components: ComponentSummary[] = [];
  const add = (name: string, c: ComponentStatus | undefined) => {
    if (!c) return;
    components.push({
      name,
      deployment: c.deploymentName ?? name,
      ready: c.readyReplicas ?? 0,
      desired: c.autoscaling?.currentReplicas ?? c.desiredReplicas ?? 0,
    });
  };
  const cs = g.status?.components;
  for (const { key, each } of product?.statusComponents ?? []) {
    if (!each) add(key, cs?.[key]);
    else
      for (const [name, c] of Object.entries((cs?.[key] ?? {}) as Record<string, ComponentStatus>))
        add(name, c);
  }
  const l = g.status?.leader;
  return {
    ...base,
    ready,
    stalled,
    components,
    ...(l
      ? {
          leader: {
            ...(l.holder ? { holder: l.holder } : {}),
            ...(l.fresh === undefined ? {} : { fresh: l.fresh }),
            ...(l.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: l.leaseDurationSeconds }),
          },
        }
      : {}),
    drift: condition(g, 'Drifted') ?? UNKNOWN('NoCondition', 'no Drifted condition'),
  };
}

/** Columns like `kubectl get`: left-aligned, three spaces apart. */
export function formatTable(rows: ObjectSummary[], withNamespace: boolean): string {
  const header = [
    ...(withNamespace ? ['NAMESPACE'] : []),
    'KIND',
    'NAME',
    'READY',
    'STALLED',
    'REASON',
    'COMPONENTS (READY/DESIRED)',
    'LEADER',
    'DRIFT',
  ];
  const lines = rows.map((r) => {
    const reason =
      r.ready.status === 'True'
        ? r.ready.reason
        : r.stalled.status === 'True'
          ? r.stalled.reason
          : r.ready.reason;
    const leader = !r.leader
      ? '-'
      : `${r.leader.holder ?? '(none)'} ${r.leader.fresh === false || !r.leader.holder ? '(stale)' : '(fresh)'}`;
    const drift =
      r.drift.status === 'True'
        ? 'Drifted'
        : r.drift.reason === 'DriftCorrected'
          ? 'Corrected'
          : r.drift.status === 'False'
            ? 'None'
            : '-';
    return [
      ...(withNamespace ? [r.namespace] : []),
      r.kind,
      r.name,
      r.ready.status,
      r.stalled.status,
      reason || '-',
      r.components.map((c) => `${c.name} ${c.ready}/${c.desired}`).join(', ') || '-',
      leader,
      drift,
    ].map((cell) => escapeControl(cell));
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  return [fmt(header), ...lines.map(fmt)].join('\n') + '\n';
}

/** Messages of what is not Ready, one per line, under the table. */
function problems(rows: ObjectSummary[]): string {
  return rows
    .filter((r) => r.ready.status !== 'True')
    .map(
      (r) =>
        `${r.kind} ${r.namespace}/${r.name}: ${escapeControl(r.stalled.status === 'True' ? r.stalled.message : r.ready.message)}\n`,
    )
    .join('');
}

export async function status(args: StatusArgs, io: CliIO, cluster: Cluster): Promise<number> {
  const namespace = args.allNamespaces ? undefined : (args.namespace ?? cluster.namespace);
  const kinds = kindsOf(args.kind);
  let items: HAObject[] = [];
  if (args.name) {
    items = [(await findObject(cluster, args.name, namespace as string, args.kind)).object];
  } else {
    // Each kind whose CRD is served; a cluster with one product installed has one CRD served.
    let served = 0;
    for (const kind of kinds) {
      const what = `list ${kind}s ${namespace ? `in ${namespace}` : 'in all namespaces'}`;
      try {
        items.push(
          ...(await cluster.client.request<{ items: HAObject[] }>('GET', pathOf(kind, namespace))).items,
        );
        served++;
      } catch (err) {
        if (errorStatus(err) !== 404) explain(err, what, cluster.client);
      }
    }
    if (served === 0)
      throw crdMissing(
        `list ${pluralWords(kinds)} ${namespace ? `in ${namespace}` : 'in all namespaces'}`,
        kinds,
      );
  }
  items.sort((a, b) =>
    `${a.metadata.namespace}/${a.kind}/${a.metadata.name}`.localeCompare(
      `${b.metadata.namespace}/${b.kind}/${b.metadata.name}`,
    ),
  );
  const rows = items.map(summarize);
  if (args.output === 'json') await io.stdout(JSON.stringify({ items: rows }, null, 2) + '\n');
  else if (args.output === 'yaml') await io.stdout(stringify({ items: rows }));
  else if (rows.length === 0)
    io.stderr(`No ${pluralWords(kinds)} found${namespace ? ` in namespace ${namespace}` : ''}.\n`);
  else {
    await io.stdout(formatTable(rows, args.allNamespaces));
    const p = problems(rows);
    if (p) io.stderr(p);
  }
  return rows.every((r) => r.ready.status === 'True') ? EXIT.OK : EXIT.UNHEALTHY;
}
