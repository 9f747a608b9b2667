// The chart's naming (kebab-case of gatewayProxies keys), the default install, and label selectors.
import { describe, expect, it } from 'vitest';
import { chartInstall, kebabCase } from '../../../src/products/gloo/install.js';
import { selects } from '../../../src/core/selectors.js';

describe('kebabCase (sprig kebabcase, as the chart names proxy Deployments)', () => {
  it.each([
    ['gatewayProxy', 'gateway-proxy'],
    ['publicGw', 'public-gw'],
    ['gatewayProxySsl', 'gateway-proxy-ssl'],
    ['publicGW', 'public-gw'],
    ['httpGateway', 'http-gateway'],
    ['HTTPGateway', 'http-gateway'],
    ['gateway-proxy', 'gateway-proxy'],
    ['proxy2', 'proxy2'],
    ['proxy2Internal', 'proxy2-internal'],
  ])('%s → %s', (key, name) => {
    expect(kebabCase(key)).toBe(name);
  });
});

describe('chartInstall', () => {
  it("lays the install out the way Gloo's chart names and labels it", () => {
    const install = chartInstall('gloo-system', { gatewayProxy: {}, publicGw: { deploymentName: 'edge' } });
    expect(install.gloo).toMatchObject({
      name: 'gloo',
      selector: { matchLabels: { gloo: 'gloo' } },
      containers: [{ name: 'gloo' }],
      serviceAccountName: 'gloo',
    });
    expect(install.discovery?.selector).toEqual({ matchLabels: { gloo: 'discovery' } });
    expect(install.gatewayProxies.map((d) => [d.name, d.selector.matchLabels])).toEqual([
      ['gateway-proxy', { gloo: 'gateway-proxy', 'gateway-proxy-id': 'gateway-proxy' }],
      ['edge', { gloo: 'gateway-proxy', 'gateway-proxy-id': 'public-gw' }],
    ]);
    expect(install.hpas).toEqual([]);
    expect(install.pdbs).toEqual([]);
  });
});

describe('selects (metav1.LabelSelector)', () => {
  const labels = { gloo: 'gateway-proxy', 'gateway-proxy-id': 'gw', tier: 'edge' };
  it.each([
    [{}, true],
    [{ matchLabels: { gloo: 'gateway-proxy' } }, true],
    [{ matchLabels: { gloo: 'gloo' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['edge', 'core'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn' as const, values: ['edge'] }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'NotIn' as const, values: ['a'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' as const }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' as const }] }, false],
    [
      {
        matchLabels: { gloo: 'gateway-proxy' },
        matchExpressions: [{ key: 'zone', operator: 'Exists' as const }],
      },
      false,
    ],
  ])('%j → %s', (selector, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });
});
