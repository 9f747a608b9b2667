// Builders shared by the core tests: GlooHAs and installs laid out like Gloo's chart.
import { API_VERSION } from '../../../src/api/constants.js';
import { KIND } from '../../../src/products/gloo/api.js';
import type { GlooHA, GlooHASpec } from '../../../src/products/gloo/types.js';
import type { Desired } from '../../../src/controller/product.js';
import { desired } from '../../../src/products/gloo/desired.js';
import { chartInstall, type ObservedInstall } from '../../../src/products/gloo/install.js';
import type { KubeObject } from '../../../src/core/templates.js';

export const NS = 'gloo-system';

export function glooHA(spec: GlooHASpec, meta: Partial<GlooHA['metadata']> = {}): GlooHA {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: 'ha', namespace: NS, uid: 'uid-1', ...meta },
    spec,
  };
}

/** The chart's layout for the spec's proxies, with changes applied by `tweak`. */
export function installFor(g: GlooHA, tweak: (i: ObservedInstall) => void = () => {}): ObservedInstall {
  const i = chartInstall(g.spec?.target?.namespace ?? NS, g.spec?.gatewayProxies ?? {});
  tweak(i);
  return i;
}

export function run(g: GlooHA, install: ObservedInstall = installFor(g)): Desired {
  const r = desired(g, install);
  if (!r.ok) throw new Error(`invalid: ${JSON.stringify(r.errors)}`);
  return r.desired;
}

export function find(objects: KubeObject[], kind: string, name: string): KubeObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export function get(objects: KubeObject[], kind: string, name: string): KubeObject {
  const o = find(objects, kind, name);
  if (!o)
    throw new Error(`no ${kind} ${name} in ${objects.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return o;
}

export const codes = (findings: { code: string }[]) => findings.map((f) => f.code);
