// `glooha status`: each GlooHA's health as the operator reported it in status, summarized (pure:
// summarize, formatTable) and printed as a table, JSON or YAML.
import { stringify } from 'yaml';
import { GROUP, PLURAL, VERSION } from '../api/constants.js';
import type { ComponentStatus, GlooHA } from '../api/types.js';
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, type StatusArgs } from './args.js';
import { ClusterError, explain, type Cluster } from './cluster.js';
import { escapeControl } from './escape.js';
import type { CliIO } from './render.js';

export interface ConditionSummary {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface ComponentSummary {
  /** gloo, discovery, or the gatewayProxies key. */
  name: string;
  deployment: string;
  ready: number;
  desired: number;
}

export interface GlooHASummary {
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

function condition(g: GlooHA, type: string): ConditionSummary | undefined {
  const c = g.status?.conditions?.find((x) => x.type === type);
  if (!c) return undefined;
  const status = c.status === 'True' || c.status === 'False' ? c.status : 'Unknown';
  return { status, reason: c.reason ?? '', message: c.message ?? '' };
}

/** What `glooha status` says of one GlooHA. A status the operator has not (re)written yet is Unknown. */
export function summarize(g: GlooHA): GlooHASummary {
  const base = { namespace: g.metadata.namespace ?? '', name: g.metadata.name };
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
  add('gloo', cs?.gloo);
  add('discovery', cs?.discovery);
  for (const [key, c] of Object.entries(cs?.gatewayProxies ?? {})) add(key, c);
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
export function formatTable(rows: GlooHASummary[], withNamespace: boolean): string {
  const header = [
    ...(withNamespace ? ['NAMESPACE'] : []),
    'NAME',
    'READY',
    'STALLED',
    'REASON',
    'COMPONENTS (READY/DESIRED)',
    'GLOO LEADER',
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
function problems(rows: GlooHASummary[]): string {
  return rows
    .filter((r) => r.ready.status !== 'True')
    .map(
      (r) =>
        `${r.namespace}/${r.name}: ${escapeControl(r.stalled.status === 'True' ? r.stalled.message : r.ready.message)}\n`,
    )
    .join('');
}

export async function status(args: StatusArgs, io: CliIO, cluster: Cluster): Promise<number> {
  const namespace = args.allNamespaces ? undefined : (args.namespace ?? cluster.namespace);
  const ref = { group: GROUP, version: VERSION, plural: PLURAL };
  let items: GlooHA[];
  if (args.name) {
    const what = `get GlooHA ${namespace}/${args.name}`;
    try {
      items = [await cluster.client.request<GlooHA>('GET', resourcePath(ref, namespace, args.name))];
    } catch (err) {
      if (isObjectNotFound(err, args.name))
        throw new ClusterError(`GlooHA ${namespace}/${args.name} not found`, EXIT.NOT_FOUND);
      if (errorStatus(err) === 404) throw crdMissing(what);
      explain(err, what, cluster.client);
    }
  } else {
    const what = `list GlooHAs ${namespace ? `in ${namespace}` : 'in all namespaces'}`;
    try {
      items = (await cluster.client.request<{ items: GlooHA[] }>('GET', resourcePath(ref, namespace))).items;
    } catch (err) {
      if (errorStatus(err) === 404) throw crdMissing(what);
      explain(err, what, cluster.client);
    }
  }
  items.sort((a, b) =>
    `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
  );
  const rows = items.map(summarize);
  if (args.output === 'json') await io.stdout(JSON.stringify({ items: rows }, null, 2) + '\n');
  else if (args.output === 'yaml') await io.stdout(stringify({ items: rows }));
  else if (rows.length === 0)
    io.stderr(`No GlooHAs found${namespace ? ` in namespace ${namespace}` : ''}.\n`);
  else {
    await io.stdout(formatTable(rows, args.allNamespaces));
    const p = problems(rows);
    if (p) io.stderr(p);
  }
  return rows.every((r) => r.ready.status === 'True') ? EXIT.OK : EXIT.UNHEALTHY;
}

/**
 * A 404 for the object itself, as opposed to its type not being served (a CRD not installed answers
 * "404 page not found", not a Status naming the object).
 */
export function isObjectNotFound(err: unknown, name: string): boolean {
  if (errorStatus(err) !== 404) return false;
  const body = (err as { body?: { reason?: string; details?: { name?: string } } }).body;
  return body?.reason === 'NotFound' && body.details?.name === name;
}

export function crdMissing(what: string): ClusterError {
  return new ClusterError(
    `${what}: the API server does not serve ${PLURAL}.${GROUP}/${VERSION}: install the CRD (crds/ in the chart or deploy/install.yaml; glooha check tells more)`,
  );
}
