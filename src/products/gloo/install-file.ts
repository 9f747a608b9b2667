// Reading an ObservedInstall from a YAML file (`glooha render --install`), with path-named errors like
// the GlooHA itself gets. The shape is src/core/observed.ts; missing lists default to empty.

import type { ObservedContainer, ObservedDeployment, ObservedHPA, ObservedPDB } from '../../core/observed.js';
import type { ObservedInstall } from './install.js';
import type { FieldError } from '../../api/validate.js';
import type { LabelSelector } from '../../api/types.js';

type Result = { ok: true; value: ObservedInstall } | { ok: false; errors: FieldError[] };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseObservedInstall(input: unknown): Result {
  const errors: FieldError[] = [];
  const err = (path: string, message: string) => {
    errors.push({ path, message });
  };
  if (!isObject(input))
    return { ok: false, errors: [{ path: '', message: 'must be an object (a YAML mapping)' }] };

  const str = (v: unknown, path: string): string => {
    if (typeof v !== 'string' || v === '') err(path, 'must be a non-empty string');
    return String(v);
  };
  const optInt = (v: unknown, path: string): number | undefined => {
    if (v === undefined) return undefined;
    if (!Number.isInteger(v)) err(path, 'must be an integer');
    return v as number;
  };
  const stringMap = (v: unknown, path: string): Record<string, string> | undefined => {
    if (v === undefined) return undefined;
    if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string')) {
      err(path, 'must be a map of strings');
      return undefined;
    }
    return v as Record<string, string>;
  };
  const selector = (v: unknown, path: string): LabelSelector => {
    if (!isObject(v)) {
      err(path, 'must be a label selector (matchLabels / matchExpressions)');
      return {};
    }
    return {
      matchLabels: stringMap(v.matchLabels, `${path}.matchLabels`),
      matchExpressions: v.matchExpressions as LabelSelector['matchExpressions'],
    };
  };
  const list = (v: unknown, path: string): unknown[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      err(path, 'must be a list');
      return [];
    }
    return v;
  };
  const deployment = (v: unknown, path: string): ObservedDeployment | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) {
      err(path, 'must be an object');
      return undefined;
    }
    const containers: ObservedContainer[] = list(v.containers, `${path}.containers`).map((c, i) => {
      const p = `${path}.containers[${i}]`;
      if (!isObject(c)) {
        err(p, 'must be an object with a name');
        return { name: '' };
      }
      return { name: str(c.name, `${p}.name`), env: c.env as ObservedContainer['env'] };
    });
    return {
      name: str(v.name, `${path}.name`),
      labels: stringMap(v.labels, `${path}.labels`),
      selector: selector(v.selector, `${path}.selector`),
      podLabels: stringMap(v.podLabels, `${path}.podLabels`),
      containers,
      serviceAccountName:
        v.serviceAccountName === undefined
          ? undefined
          : str(v.serviceAccountName, `${path}.serviceAccountName`),
      replicas: optInt(v.replicas, `${path}.replicas`),
    };
  };

  const value: ObservedInstall = {
    namespace: str(input.namespace, 'namespace'),
    gloo: deployment(input.gloo, 'gloo'),
    discovery: deployment(input.discovery, 'discovery'),
    gatewayProxies: list(input.gatewayProxies, 'gatewayProxies')
      .map((d, i) => deployment(d, `gatewayProxies[${i}]`))
      .filter((d): d is ObservedDeployment => d !== undefined),
    hpas: list(input.hpas, 'hpas').map((h, i): ObservedHPA => {
      const p = `hpas[${i}]`;
      const o = isObject(h) ? h : (err(p, 'must be an object'), {} as Record<string, unknown>);
      return {
        name: str(o.name, `${p}.name`),
        targetName: str(o.targetName, `${p}.targetName`),
        minReplicas: optInt(o.minReplicas, `${p}.minReplicas`),
        maxReplicas: optInt(o.maxReplicas, `${p}.maxReplicas`) ?? 1,
        ours: o.ours === true,
      };
    }),
    pdbs: list(input.pdbs, 'pdbs').map((d, i): ObservedPDB => {
      const p = `pdbs[${i}]`;
      const o = isObject(d) ? d : (err(p, 'must be an object'), {} as Record<string, unknown>);
      return {
        name: str(o.name, `${p}.name`),
        selector: selector(o.selector, `${p}.selector`),
        minAvailable: o.minAvailable as ObservedPDB['minAvailable'],
        maxUnavailable: o.maxUnavailable as ObservedPDB['maxUnavailable'],
        ours: o.ours === true,
      };
    }),
  };
  const known = new Set(['namespace', 'gloo', 'discovery', 'gatewayProxies', 'hpas', 'pdbs']);
  for (const key of Object.keys(input))
    if (!known.has(key)) err(key, `unknown field (known fields: ${[...known].join(', ')})`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}
