// What the reconciler found of a Gloo install, as plain data: the input of `desired()` besides the
// GlooHA. The reconciler fills it from its caches; `glooha render` derives it from Gloo's chart naming
// (chartInstall) or reads it from a file (--install).

import type { ObservedDeployment, ObservedHPA, ObservedPDB } from '../../core/observed.js';

export interface ObservedInstall {
  namespace: string;
  /** The gloo Deployment (label gloo=gloo), absent when the install has none. */
  gloo?: ObservedDeployment;
  /** The discovery Deployment (label gloo=discovery). */
  discovery?: ObservedDeployment;
  /**
   * Gateway proxy Deployments: every Deployment labelled gloo=gateway-proxy, plus any Deployment the
   * spec names through gatewayProxies.<key>.deploymentName. Matched to the spec by name.
   */
  gatewayProxies: ObservedDeployment[];
  /** HPAs in the namespace that target a Deployment. */
  hpas: ObservedHPA[];
  /** PDBs in the namespace. */
  pdbs: ObservedPDB[];
}

/**
 * Sprig's kebabcase (huandu/xstrings.ToKebabCase) as Gloo's chart applies it to gatewayProxies keys:
 * a dash at each lower→upper boundary and before the last capital of an acronym that starts a new
 * word (gatewayProxy → gateway-proxy, publicGW → public-gw, HTTPGateway → http-gateway).
 */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

/** The Deployment name of a gateway proxy: its deploymentName, or the chart's kebab-case of the key. */
export function proxyDeploymentName(key: string, deploymentName: string | undefined): string {
  return deploymentName ?? kebabCase(key);
}

/** Pod labels Gloo's chart puts on each component (the gloo chart's selectors). */
export const chartLabels = {
  gloo: { gloo: 'gloo' },
  discovery: { gloo: 'discovery' },
  gatewayProxy: (key: string) => ({ gloo: 'gateway-proxy', 'gateway-proxy-id': kebabCase(key) }),
};

/**
 * The install as Gloo's chart lays it out (for `glooha render` without --install): Deployments gloo
 * and discovery, one per named proxy, ServiceAccounts gloo/discovery/gateway-proxy, one replica each,
 * and no HPAs or PDBs yet.
 */
export function chartInstall(
  namespace: string,
  proxyKeys: Record<string, { deploymentName?: string }>,
): ObservedInstall {
  const deployment = (
    name: string,
    labels: Record<string, string>,
    container: string,
    sa: string,
  ): ObservedDeployment => ({
    name,
    labels: { app: 'gloo', ...labels },
    selector: { matchLabels: { ...labels } },
    podLabels: { ...labels },
    // Every container of the chart's Deployments has POD_NAMESPACE (from the downward API).
    containers: [{ name: container, env: [{ name: 'POD_NAMESPACE' }] }],
    serviceAccountName: sa,
    replicas: 1,
  });
  return {
    namespace,
    gloo: deployment('gloo', chartLabels.gloo, 'gloo', 'gloo'),
    discovery: deployment('discovery', chartLabels.discovery, 'discovery', 'discovery'),
    gatewayProxies: Object.entries(proxyKeys).map(([key, p]) =>
      deployment(
        proxyDeploymentName(key, p.deploymentName),
        chartLabels.gatewayProxy(key),
        kebabCase(key),
        'gateway-proxy',
      ),
    ),
    hpas: [],
    pdbs: [],
  };
}
