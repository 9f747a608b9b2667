// The kinds the cluster commands handle (one per registered product), and finding one object by name
// when the user did not say which kind it is (kubectl needs the type; glooha looks at every kind, as
// a name rarely exists twice).
import { GROUP, VERSION } from '../api/constants.js';
import type { HAObject } from '../api/types.js';
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, KINDS, UsageError, type HAKind } from './args.js';
import { CLI_PRODUCTS } from './registry.js';
import { ClusterError, explain, type Cluster } from './cluster.js';

export interface KindInfo {
  kind: HAKind;
  plural: string;
  /** How `--kind` names it. */
  flag: string;
}

export const KIND_INFO: Readonly<Record<HAKind, KindInfo>> = Object.fromEntries(
  CLI_PRODUCTS.map(({ api }) => [api.kind, { kind: api.kind, plural: api.plural, flag: api.singular }]),
);

const infoOf = (kind: HAKind): KindInfo => {
  const info = KIND_INFO[kind];
  if (!info) throw new Error(`no registered product has the kind ${kind}`);
  return info;
};

export const kindsOf = (kind: HAKind | undefined): HAKind[] => (kind ? [kind] : [...KINDS]);

export const pathOf = (kind: HAKind, namespace?: string, name?: string): string =>
  resourcePath({ group: GROUP, version: VERSION, plural: infoOf(kind).plural }, namespace, name);

/** "GlooHAs or KgatewayHAs" / "KgatewayHAs". */
export const pluralWords = (kinds: HAKind[]): string => kinds.map((k) => `${k}s`).join(' or ');

/**
 * A 404 for the object itself, as opposed to its type not being served (a CRD not installed answers
 * "404 page not found", not a Status naming the object).
 */
export function isObjectNotFound(err: unknown, name: string): boolean {
  if (errorStatus(err) !== 404) return false;
  const body = (err as { body?: { reason?: string; details?: { name?: string } } }).body;
  return body?.reason === 'NotFound' && body.details?.name === name;
}

export function crdMissing(what: string, kinds: HAKind[]): ClusterError {
  const crds = kinds.map((k) => `${infoOf(k).plural}.${GROUP}/${VERSION}`);
  const serves = crds.length > 1 ? `serves neither ${crds.join(' nor ')}` : `does not serve ${crds[0]}`;
  return new ClusterError(
    `${what}: the API server ${serves}: install the CRD${crds.length > 1 ? 's' : ''} (crds/ in the chart or deploy/install.yaml; glooha check tells more)`,
  );
}

/**
 * The object NAME of the given kind, or of whichever kind has one. Two kinds having one is a usage
 * error (give --kind); none, exit 4; no CRD for the kinds looked at, exit 3.
 */
export async function findObject(
  cluster: Cluster,
  name: string,
  namespace: string,
  kind: HAKind | undefined,
): Promise<{ kind: HAKind; object: HAObject }> {
  const kinds = kindsOf(kind);
  const found: Array<{ kind: HAKind; object: HAObject }> = [];
  const served: HAKind[] = [];
  for (const k of kinds) {
    try {
      found.push({
        kind: k,
        object: await cluster.client.request<HAObject>('GET', pathOf(k, namespace, name)),
      });
      served.push(k);
    } catch (err) {
      if (isObjectNotFound(err, name)) served.push(k);
      else if (errorStatus(err) !== 404) explain(err, `get ${k} ${namespace}/${name}`, cluster.client);
    }
  }
  if (found.length > 1)
    throw new UsageError(
      `${found.map((f) => `${f.kind} ${namespace}/${name}`).join(' and ')} both exist: give --kind ${kinds.map((k) => infoOf(k).flag).join(' or --kind ')}`,
    );
  if (found[0]) return found[0];
  if (served.length === 0) throw crdMissing(`get ${kinds.join(' or ')} ${namespace}/${name}`, kinds);
  throw new ClusterError(`${served.join(' or ')} ${namespace}/${name} not found`, EXIT.NOT_FOUND);
}
