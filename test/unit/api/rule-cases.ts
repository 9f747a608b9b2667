// Conformance cases for the rule tables (src/products/*/rules.ts): for every rule, specs it must reject (with
// the path the API server reports) and specs it must accept. The unit tests run them through the
// TypeScript validator and the integration test through a real API server with the generated CRD, so
// a CEL expression and its TypeScript twin cannot disagree without a test failing.
//
// Each bad case is otherwise valid: it breaks exactly that one rule, so both sides must report exactly
// one error. Each good case is a fully valid GlooHA.

import { API_VERSION } from '../../../src/api/constants.js';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import { KIND } from '../../../src/products/gloo/api.js';
import type { GlooHASpec } from '../../../src/products/gloo/types.js';

export interface BadCase {
  name: string;
  spec: GlooHASpec | Record<string, unknown>;
  /** Field path the error is reported at (the API server's `causes[].field`). */
  path: string;
  metadataName?: string;
}

export interface GoodCase {
  name: string;
  spec: GlooHASpec | Record<string, unknown>;
  metadataName?: string;
}

export interface RuleCases {
  /** The kind the cases are objects of (default GlooHA). */
  kind?: typeof KIND | typeof KGATEWAY_KIND;
  bad: BadCase[];
  good: GoodCase[];
}

/** An object of `kind` with this spec. */
export function haObject(
  kind: RuleCases['kind'] = KIND,
  spec: unknown,
  name = 'ha',
  namespace?: string,
): Record<string, unknown> {
  return { ...glooHAObject(spec, name, namespace), kind };
}

export function glooHAObject(spec: unknown, name = 'ha', namespace?: string): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec,
  };
}

const gloo = (g: Record<string, unknown>) => ({ gloo: g });
const le = (l: Record<string, unknown>) => gloo({ leaderElection: l });
const proxy = (p: Record<string, unknown>, name = 'gatewayProxy') => ({ gatewayProxies: { [name]: p } });
const GP = 'spec.gatewayProxies[gatewayProxy]';
const zone = 'topology.kubernetes.io/zone';

const controller = (c: Record<string, unknown>) => ({ controller: c });
const gw = (g: Record<string, unknown>, name = 'http') => ({ gateways: { [name]: g } });

export const RULE_CASES: Record<string, RuleCases> = {
  'kgateway-name-length': {
    kind: KGATEWAY_KIND,
    bad: [{ name: '64 characters', spec: {}, metadataName: 'a'.repeat(64), path: 'metadata.name' }],
    good: [{ name: '63 characters', spec: {}, metadataName: 'a'.repeat(63) }],
  },
  'kgateway-controller-replicas-min': {
    kind: KGATEWAY_KIND,
    bad: [{ name: 'zero', spec: controller({ replicas: 0 }), path: 'spec.controller.replicas' }],
    good: [{ name: 'one', spec: controller({ replicas: 1 }) }],
  },
  'kgateway-controller-replicas-need-leader-election': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        name: 'three replicas without leader election',
        spec: controller({ replicas: 3, leaderElection: { enabled: false } }),
        path: 'spec.controller.leaderElection.enabled',
      },
      {
        name: 'default replicas (2) without leader election',
        spec: controller({ leaderElection: { enabled: false } }),
        path: 'spec.controller.leaderElection.enabled',
      },
      {
        name: 'autoscaled up to 3 without leader election',
        spec: controller({
          autoscaling: { minReplicas: 1, maxReplicas: 3 },
          leaderElection: { enabled: false },
        }),
        path: 'spec.controller.leaderElection.enabled',
      },
    ],
    good: [
      {
        name: 'one replica without leader election',
        spec: controller({ replicas: 1, leaderElection: { enabled: false } }),
      },
      { name: 'three replicas with it (the default)', spec: controller({ replicas: 3 }) },
      {
        name: 'autoscaled to at most one without leader election',
        spec: controller({
          autoscaling: { minReplicas: 1, maxReplicas: 1 },
          leaderElection: { enabled: false },
        }),
      },
    ],
  },
  'kgateway-controller-replicas-xor-autoscaling': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        // An object stored while replicas had a schema default (2) carries it: adding autoscaling
        // alone is refused, and the message says to remove replicas.
        name: 'replicas (the old stored default) and autoscaling',
        spec: controller({ replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 4 } }),
        path: 'spec.controller.replicas',
      },
    ],
    good: [
      { name: 'autoscaling alone', spec: controller({ autoscaling: { minReplicas: 2, maxReplicas: 4 } }) },
      { name: 'replicas alone (an object stored with the old default)', spec: controller({ replicas: 2 }) },
      { name: 'neither (2 replicas, in code)', spec: controller({}) },
    ],
  },
  'kgateway-gateway-names': {
    kind: KGATEWAY_KIND,
    bad: [{ name: 'an uppercase letter', spec: gw({ replicas: 2 }, 'Http'), path: 'spec.gateways' }],
    good: [{ name: 'a Gateway name', spec: gw({ replicas: 2 }, 'http-1') }],
  },
  'kgateway-gateway-replicas-or-autoscaling': {
    kind: KGATEWAY_KIND,
    bad: [{ name: 'neither', spec: gw({ antiAffinity: 'required' }), path: 'spec.gateways[http]' }],
    good: [{ name: 'replicas', spec: gw({ replicas: 2 }) }],
  },
  'kgateway-gateway-replicas-xor-autoscaling': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        name: 'both',
        spec: gw({ replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 4 } }),
        path: 'spec.gateways[http]',
      },
    ],
    good: [{ name: 'autoscaling', spec: gw({ autoscaling: { minReplicas: 2, maxReplicas: 4 } }) }],
  },
  'kgateway-gateway-replicas-min': {
    kind: KGATEWAY_KIND,
    bad: [{ name: 'zero', spec: gw({ replicas: 0 }), path: 'spec.gateways[http].replicas' }],
    good: [{ name: 'one', spec: gw({ replicas: 1 }) }],
  },
  'kgateway-gateway-pdb-min-available-below-replicas': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        name: 'minAvailable equal to replicas',
        spec: gw({ replicas: 2, podDisruptionBudget: { minAvailable: 2 } }),
        path: 'spec.gateways[http].podDisruptionBudget.minAvailable',
      },
    ],
    good: [{ name: 'one below', spec: gw({ replicas: 2, podDisruptionBudget: { minAvailable: 1 } }) }],
  },
  'kgateway-gateway-pdb-min-available-below-min-replicas': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        name: 'minAvailable equal to minReplicas',
        spec: gw({
          autoscaling: { minReplicas: 2, maxReplicas: 4 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
        path: 'spec.gateways[http].podDisruptionBudget.minAvailable',
      },
    ],
    good: [
      {
        name: 'one below',
        spec: gw({
          autoscaling: { minReplicas: 3, maxReplicas: 4 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
      },
    ],
  },
  'kgateway-controller-pdb-min-available-below-replicas': {
    kind: KGATEWAY_KIND,
    bad: [
      {
        name: 'minAvailable equal to replicas',
        spec: controller({ replicas: 2, podDisruptionBudget: { minAvailable: 2 } }),
        path: 'spec.controller.podDisruptionBudget.minAvailable',
      },
      {
        name: '67% of 3, rounded up to 3',
        spec: controller({ replicas: 3, podDisruptionBudget: { minAvailable: '67%' } }),
        path: 'spec.controller.podDisruptionBudget.minAvailable',
      },
      {
        name: 'minAvailable equal to autoscaling.minReplicas',
        spec: controller({
          autoscaling: { minReplicas: 2, maxReplicas: 5 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
        path: 'spec.controller.podDisruptionBudget.minAvailable',
      },
      {
        name: 'minAvailable equal to the default 2 (neither replicas nor autoscaling)',
        spec: controller({ podDisruptionBudget: { minAvailable: 2 } }),
        path: 'spec.controller.podDisruptionBudget.minAvailable',
      },
    ],
    good: [
      { name: 'one below', spec: controller({ replicas: 3, podDisruptionBudget: { minAvailable: 2 } }) },
      {
        name: 'one below autoscaling.minReplicas',
        spec: controller({
          autoscaling: { minReplicas: 3, maxReplicas: 5 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
      },
      { name: 'one below the default 2', spec: controller({ podDisruptionBudget: { minAvailable: 1 } }) },
    ],
  },
  'name-length': {
    bad: [{ name: '64 characters', spec: {}, metadataName: 'a'.repeat(64), path: 'metadata.name' }],
    good: [{ name: '63 characters', spec: {}, metadataName: 'a'.repeat(63) }],
  },
  'gloo-replicas-min': {
    bad: [
      { name: 'zero', spec: gloo({ replicas: 0 }), path: 'spec.gloo.replicas' },
      { name: 'negative', spec: gloo({ replicas: -1 }), path: 'spec.gloo.replicas' },
    ],
    good: [{ name: 'one', spec: gloo({ replicas: 1 }) }],
  },
  'gloo-replicas-need-leader-election': {
    bad: [
      {
        name: 'three replicas without leader election',
        spec: gloo({ replicas: 3, leaderElection: { enabled: false } }),
        path: 'spec.gloo.leaderElection.enabled',
      },
      {
        name: 'default replicas (2) without leader election',
        spec: gloo({ leaderElection: { enabled: false } }),
        path: 'spec.gloo.leaderElection.enabled',
      },
    ],
    good: [
      {
        name: 'one replica without leader election',
        spec: gloo({ replicas: 1, leaderElection: { enabled: false } }),
      },
      {
        name: 'three replicas with leader election',
        spec: gloo({ replicas: 3, leaderElection: { enabled: true } }),
      },
    ],
  },
  'gloo-pdb-min-available-below-replicas': {
    bad: [
      {
        name: 'minAvailable equal to replicas',
        spec: gloo({ replicas: 3, podDisruptionBudget: { minAvailable: 3 } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: 'minAvailable above replicas',
        spec: gloo({ replicas: 2, podDisruptionBudget: { minAvailable: 5 } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: '60% of 2 rounds up to 2',
        spec: gloo({ replicas: 2, podDisruptionBudget: { minAvailable: '60%' } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
    ],
    good: [
      { name: 'one below', spec: gloo({ replicas: 3, podDisruptionBudget: { minAvailable: 2 } }) },
      { name: '50% of 2 is 1', spec: gloo({ replicas: 2, podDisruptionBudget: { minAvailable: '50%' } }) },
      { name: '0 of 1', spec: gloo({ replicas: 1, podDisruptionBudget: { minAvailable: 0 } }) },
    ],
  },
  'lease-duration-format': {
    bad: [
      { name: 'no unit', spec: le({ leaseDuration: '15' }), path: 'spec.gloo.leaderElection.leaseDuration' },
      {
        name: 'words',
        spec: le({ leaseDuration: 'fifteen' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      {
        name: 'negative',
        spec: le({ leaseDuration: '-15s' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      { name: 'day unit', spec: le({ leaseDuration: '1d' }), path: 'spec.gloo.leaderElection.leaseDuration' },
      {
        name: 'microseconds',
        spec: le({ leaseDuration: '15000000us' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      { name: 'space', spec: le({ leaseDuration: '15 s' }), path: 'spec.gloo.leaderElection.leaseDuration' },
      {
        name: 'upper-case unit',
        spec: le({ leaseDuration: '15S' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
    ],
    good: [
      { name: 'minutes', spec: le({ leaseDuration: '1m' }) },
      { name: 'compound', spec: le({ leaseDuration: '1m30s', renewDeadline: '1m', retryPeriod: '10s' }) },
      { name: 'fraction', spec: le({ leaseDuration: '15.5s' }) },
    ],
  },
  'renew-deadline-format': {
    bad: [
      { name: 'no unit', spec: le({ renewDeadline: '10' }), path: 'spec.gloo.leaderElection.renewDeadline' },
      {
        name: 'two dots',
        spec: le({ renewDeadline: '1.0.0s' }),
        path: 'spec.gloo.leaderElection.renewDeadline',
      },
    ],
    good: [{ name: 'milliseconds', spec: le({ renewDeadline: '9500ms' }) }],
  },
  'retry-period-format': {
    bad: [
      { name: 'zero', spec: le({ retryPeriod: '0s' }), path: 'spec.gloo.leaderElection.retryPeriod' },
      { name: 'empty', spec: le({ retryPeriod: '' }), path: 'spec.gloo.leaderElection.retryPeriod' },
    ],
    good: [{ name: 'half a second', spec: le({ retryPeriod: '500ms' }) }],
  },
  'lease-duration-exceeds-renew-deadline': {
    bad: [
      {
        name: 'equal',
        spec: le({ leaseDuration: '10s', renewDeadline: '10s' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      {
        name: 'shorter (different units)',
        spec: le({ leaseDuration: '10s', renewDeadline: '10001ms' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
    ],
    good: [{ name: 'one millisecond longer', spec: le({ leaseDuration: '10001ms', renewDeadline: '10s' }) }],
  },
  'renew-deadline-exceeds-jittered-retry-period': {
    bad: [
      {
        name: 'exactly 1.2 × retryPeriod',
        spec: le({ renewDeadline: '2400ms', retryPeriod: '2s' }),
        path: 'spec.gloo.leaderElection.renewDeadline',
      },
      {
        name: 'shorter than retryPeriod',
        spec: le({ renewDeadline: '1s', retryPeriod: '2s' }),
        path: 'spec.gloo.leaderElection.renewDeadline',
      },
    ],
    good: [
      { name: 'just above 1.2 × retryPeriod', spec: le({ renewDeadline: '2401ms', retryPeriod: '2s' }) },
      { name: "Flux's timings", spec: le({ leaseDuration: '35s', renewDeadline: '30s', retryPeriod: '5s' }) },
    ],
  },
  'retry-period-max': {
    bad: [
      {
        // Passed every rule before: the jitter rule skips values beyond its overflow bound.
        name: 'eleven minutes',
        spec: le({ retryPeriod: '11m' }),
        path: 'spec.gloo.leaderElection.retryPeriod',
      },
      {
        name: 'large enough to overflow 6 × it in CEL',
        spec: le({ retryPeriod: '512410h' }),
        path: 'spec.gloo.leaderElection.retryPeriod',
      },
    ],
    good: [
      { name: 'ten minutes', spec: le({ leaseDuration: '10m', renewDeadline: '9m59s', retryPeriod: '8m' }) },
    ],
  },
  'lease-duration-max': {
    bad: [
      {
        name: 'a second over',
        spec: le({ leaseDuration: '10m1s' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      {
        // 5 × 512410h overflowed int64 nanoseconds in the timing rule ("integer overflow evaluating rule").
        name: 'renewDeadline large enough to overflow 5 × it in CEL',
        spec: le({ leaseDuration: '999999h', renewDeadline: '512410h', retryPeriod: '2s' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
      {
        name: '58 years',
        spec: le({ leaseDuration: '508080h', renewDeadline: '10s' }),
        path: 'spec.gloo.leaderElection.leaseDuration',
      },
    ],
    good: [
      { name: 'ten minutes', spec: le({ leaseDuration: '10m', renewDeadline: '9m', retryPeriod: '1m' }) },
    ],
  },
  'renew-deadline-min': {
    bad: [
      {
        name: 'just under a second',
        spec: le({ renewDeadline: '999ms', retryPeriod: '200ms' }),
        path: 'spec.gloo.leaderElection.renewDeadline',
      },
    ],
    good: [
      { name: 'one second', spec: le({ leaseDuration: '2s', renewDeadline: '1s', retryPeriod: '200ms' }) },
    ],
  },
  'retry-period-min': {
    bad: [
      {
        name: 'just under 200ms',
        spec: le({ retryPeriod: '199ms' }),
        path: 'spec.gloo.leaderElection.retryPeriod',
      },
      {
        name: 'a fraction of a millisecond',
        spec: le({ retryPeriod: '0.5ms' }),
        path: 'spec.gloo.leaderElection.retryPeriod',
      },
    ],
    good: [{ name: '200ms', spec: le({ retryPeriod: '200ms' }) }],
  },
  'pdb-exactly-one': {
    bad: [
      { name: 'neither', spec: gloo({ podDisruptionBudget: {} }), path: 'spec.gloo.podDisruptionBudget' },
      {
        name: 'both',
        spec: gloo({ replicas: 3, podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } }),
        path: 'spec.gloo.podDisruptionBudget',
      },
      {
        name: 'both on a proxy',
        spec: proxy({ replicas: 3, podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } }),
        path: `${GP}.podDisruptionBudget`,
      },
    ],
    good: [
      { name: 'maxUnavailable only', spec: gloo({ podDisruptionBudget: { maxUnavailable: '25%' } }) },
      { name: 'minAvailable only', spec: proxy({ replicas: 3, podDisruptionBudget: { minAvailable: 2 } }) },
    ],
  },
  'pdb-min-available-format': {
    bad: [
      {
        name: 'number as string',
        spec: gloo({ podDisruptionBudget: { minAvailable: '1' } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: 'over 100%',
        spec: gloo({ podDisruptionBudget: { minAvailable: '101%' } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: 'negative',
        spec: gloo({ podDisruptionBudget: { minAvailable: -1 } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: 'word',
        spec: gloo({ podDisruptionBudget: { minAvailable: 'half' } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
    ],
    good: [
      { name: 'zero percent', spec: gloo({ podDisruptionBudget: { minAvailable: '0%' } }) },
      { name: 'integer', spec: gloo({ podDisruptionBudget: { minAvailable: 1 } }) },
    ],
  },
  'pdb-max-unavailable-format': {
    bad: [
      {
        name: 'number as string',
        spec: gloo({ podDisruptionBudget: { maxUnavailable: '1' } }),
        path: 'spec.gloo.podDisruptionBudget.maxUnavailable',
      },
      {
        name: 'negative',
        spec: gloo({ podDisruptionBudget: { maxUnavailable: -2 } }),
        path: 'spec.gloo.podDisruptionBudget.maxUnavailable',
      },
      {
        name: 'leading zero',
        spec: gloo({ podDisruptionBudget: { maxUnavailable: '05%' } }),
        path: 'spec.gloo.podDisruptionBudget.maxUnavailable',
      },
      {
        name: 'beyond int32',
        spec: gloo({ podDisruptionBudget: { maxUnavailable: 2147483648 } }),
        path: 'spec.gloo.podDisruptionBudget.maxUnavailable',
      },
      {
        name: 'beyond int32 on a proxy',
        spec: proxy({ replicas: 2, podDisruptionBudget: { maxUnavailable: 4294967297 } }),
        path: `${GP}.podDisruptionBudget.maxUnavailable`,
      },
    ],
    good: [
      { name: 'percentage', spec: gloo({ podDisruptionBudget: { maxUnavailable: '34%' } }) },
      { name: 'int32 maximum', spec: gloo({ podDisruptionBudget: { maxUnavailable: 2147483647 } }) },
      { name: 'two', spec: gloo({ replicas: 4, podDisruptionBudget: { maxUnavailable: 2 } }) },
    ],
  },
  'pdb-min-available-not-all': {
    bad: [
      {
        name: 'gloo',
        spec: gloo({ podDisruptionBudget: { minAvailable: '100%' } }),
        path: 'spec.gloo.podDisruptionBudget.minAvailable',
      },
      {
        name: 'autoscaled proxy',
        spec: proxy({
          autoscaling: { minReplicas: 2, maxReplicas: 6 },
          podDisruptionBudget: { minAvailable: '100%' },
        }),
        path: `${GP}.podDisruptionBudget.minAvailable`,
      },
    ],
    good: [{ name: '99%', spec: gloo({ replicas: 200, podDisruptionBudget: { minAvailable: '99%' } }) }],
  },
  'pdb-max-unavailable-not-zero': {
    bad: [
      {
        name: 'zero',
        spec: gloo({ podDisruptionBudget: { maxUnavailable: 0 } }),
        path: 'spec.gloo.podDisruptionBudget.maxUnavailable',
      },
      {
        name: 'zero percent',
        spec: proxy({ replicas: 2, podDisruptionBudget: { maxUnavailable: '0%' } }),
        path: `${GP}.podDisruptionBudget.maxUnavailable`,
      },
    ],
    good: [
      { name: 'one percent', spec: proxy({ replicas: 2, podDisruptionBudget: { maxUnavailable: '1%' } }) },
    ],
  },
  'discovery-replicas': {
    bad: [
      { name: 'two', spec: { discovery: { replicas: 2 } }, path: 'spec.discovery.replicas' },
      { name: 'negative', spec: { discovery: { replicas: -1 } }, path: 'spec.discovery.replicas' },
    ],
    good: [
      { name: 'one', spec: { discovery: { replicas: 1 } } },
      { name: 'zero (discovery stopped)', spec: { discovery: { replicas: 0 } } },
      { name: 'defaulted', spec: { discovery: {} } },
    ],
  },
  'gateway-proxy-names': {
    bad: [
      {
        name: 'upper-case first letter',
        spec: proxy({ replicas: 2 }, 'GatewayProxy'),
        path: 'spec.gatewayProxies',
      },
      { name: 'underscore', spec: proxy({ replicas: 2 }, 'gateway_proxy'), path: 'spec.gatewayProxies' },
      { name: 'trailing dash', spec: proxy({ replicas: 2 }, 'proxy-'), path: 'spec.gatewayProxies' },
      { name: 'too long', spec: proxy({ replicas: 2 }, `p${'x'.repeat(63)}`), path: 'spec.gatewayProxies' },
    ],
    good: [
      { name: 'camelCase', spec: proxy({ replicas: 2 }, 'publicGw') },
      { name: 'kebab-case', spec: proxy({ replicas: 2 }, 'gateway-proxy-ssl') },
    ],
  },
  'gateway-proxy-deployments-distinct': {
    bad: [
      {
        name: 'publicGw and public-gw (both Deployment public-gw)',
        spec: { gatewayProxies: { publicGw: { replicas: 2 }, 'public-gw': { replicas: 2 } } },
        path: 'spec.gatewayProxies',
      },
      {
        name: 'equal deploymentNames',
        spec: {
          gatewayProxies: {
            a: { deploymentName: 'edge', replicas: 2 },
            b: { deploymentName: 'edge', replicas: 2 },
          },
        },
        path: 'spec.gatewayProxies',
      },
      {
        name: "a deploymentName equal to another key's Deployment",
        spec: {
          gatewayProxies: {
            gatewayProxy: { replicas: 2 },
            other: { deploymentName: 'gateway-proxy', replicas: 2 },
          },
        },
        path: 'spec.gatewayProxies',
      },
    ],
    good: [
      {
        name: 'distinct keys',
        spec: { gatewayProxies: { gatewayProxy: { replicas: 2 }, publicGw: { replicas: 2 } } },
      },
      {
        name: 'deploymentNames that differ only in dashes (compared exactly)',
        spec: {
          gatewayProxies: {
            a: { deploymentName: 'edge-gw', replicas: 2 },
            b: { deploymentName: 'edgegw', replicas: 2 },
          },
        },
      },
    ],
  },
  'gateway-proxy-not-gloo-or-discovery': {
    bad: [
      { name: 'key gloo', spec: proxy({ replicas: 2 }, 'gloo'), path: 'spec.gatewayProxies' },
      {
        name: 'deploymentName discovery',
        spec: proxy({ replicas: 2, deploymentName: 'discovery' }, 'edge'),
        path: 'spec.gatewayProxies',
      },
    ],
    good: [{ name: 'gloo as part of a name', spec: proxy({ replicas: 2 }, 'glooEdge') }],
  },
  'proxy-replicas-or-autoscaling': {
    bad: [{ name: 'neither', spec: proxy({ antiAffinity: 'required' }), path: GP }],
    good: [{ name: 'replicas', spec: proxy({ replicas: 2, antiAffinity: 'required' }) }],
  },
  'proxy-replicas-xor-autoscaling': {
    bad: [
      {
        name: 'both',
        spec: proxy({ replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 4 } }),
        path: GP,
      },
    ],
    good: [{ name: 'autoscaling only', spec: proxy({ autoscaling: { minReplicas: 2, maxReplicas: 4 } }) }],
  },
  'proxy-replicas-min': {
    bad: [{ name: 'zero', spec: proxy({ replicas: 0 }), path: `${GP}.replicas` }],
    good: [{ name: 'one', spec: proxy({ replicas: 1 }) }],
  },
  'proxy-pdb-min-available-below-replicas': {
    bad: [
      {
        name: 'equal',
        spec: proxy({ replicas: 2, podDisruptionBudget: { minAvailable: 2 } }),
        path: `${GP}.podDisruptionBudget.minAvailable`,
      },
      {
        name: '51% of 2',
        spec: proxy({ replicas: 2, podDisruptionBudget: { minAvailable: '51%' } }),
        path: `${GP}.podDisruptionBudget.minAvailable`,
      },
    ],
    good: [{ name: 'one of two', spec: proxy({ replicas: 2, podDisruptionBudget: { minAvailable: 1 } }) }],
  },
  'proxy-pdb-min-available-below-min-replicas': {
    bad: [
      {
        name: 'equal to minReplicas',
        spec: proxy({
          autoscaling: { minReplicas: 2, maxReplicas: 10 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
        path: `${GP}.podDisruptionBudget.minAvailable`,
      },
      {
        name: '1% of one replica rounds up to 1',
        spec: proxy({
          autoscaling: { minReplicas: 1, maxReplicas: 5 },
          podDisruptionBudget: { minAvailable: '1%' },
        }),
        path: `${GP}.podDisruptionBudget.minAvailable`,
      },
    ],
    good: [
      {
        name: 'below minReplicas',
        spec: proxy({
          autoscaling: { minReplicas: 3, maxReplicas: 10 },
          podDisruptionBudget: { minAvailable: 2 },
        }),
      },
    ],
  },
  'autoscaling-min-replicas': {
    bad: [
      {
        name: 'zero',
        spec: proxy({ autoscaling: { minReplicas: 0, maxReplicas: 3 } }),
        path: `${GP}.autoscaling.minReplicas`,
      },
    ],
    good: [{ name: 'one', spec: proxy({ autoscaling: { minReplicas: 1, maxReplicas: 3 } }) }],
  },
  'autoscaling-min-le-max': {
    bad: [
      {
        name: 'inverted',
        spec: proxy({ autoscaling: { minReplicas: 5, maxReplicas: 3 } }),
        path: `${GP}.autoscaling.maxReplicas`,
      },
    ],
    good: [{ name: 'equal', spec: proxy({ autoscaling: { minReplicas: 3, maxReplicas: 3 } }) }],
  },
  'selector-requirement-values': {
    bad: [
      {
        // Admitted before: ended in TargetNotFound.
        name: 'In with no values',
        spec: { target: { selector: { matchExpressions: [{ key: 'gloo', operator: 'In', values: [] }] } } },
        path: 'spec.target.selector.matchExpressions[0].values',
      },
      {
        name: 'NotIn without values',
        spec: { target: { selector: { matchExpressions: [{ key: 'gloo', operator: 'NotIn' }] } } },
        path: 'spec.target.selector.matchExpressions[0].values',
      },
      {
        // Admitted before: ended in a silent Ready.
        name: 'Exists with values',
        spec: {
          target: { selector: { matchExpressions: [{ key: 'gloo', operator: 'Exists', values: ['gloo'] }] } },
        },
        path: 'spec.target.selector.matchExpressions[0].values',
      },
    ],
    good: [
      {
        name: 'In with values, Exists and DoesNotExist without',
        spec: {
          target: {
            selector: {
              matchExpressions: [
                { key: 'gloo', operator: 'In', values: ['gloo'] },
                { key: 'app', operator: 'Exists' },
                { key: 'canary', operator: 'DoesNotExist', values: [] },
              ],
            },
          },
        },
      },
    ],
  },
  'topology-spread-min-domains': {
    bad: [
      {
        name: 'minDomains with ScheduleAnyway',
        spec: gloo({
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
          ],
        }),
        path: 'spec.gloo.topologySpreadConstraints[0].minDomains',
      },
    ],
    good: [
      {
        name: 'minDomains with DoNotSchedule',
        spec: proxy({
          replicas: 3,
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', minDomains: 3 },
          ],
        }),
      },
    ],
  },
  'topology-key-prefix': {
    bad: [
      {
        name: 'a 254-character prefix',
        spec: gloo({
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: `${'a'.repeat(254)}/zone`, whenUnsatisfiable: 'DoNotSchedule' },
          ],
        }),
        path: 'spec.gloo.topologySpreadConstraints[0].topologyKey',
      },
    ],
    good: [
      {
        name: 'a 253-character prefix',
        spec: gloo({
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: `${'a'.repeat(253)}/zone`, whenUnsatisfiable: 'DoNotSchedule' },
          ],
        }),
      },
    ],
  },
  'match-label-keys-prefix': {
    bad: [
      {
        name: 'a 254-character prefix',
        spec: gloo({
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: zone,
              whenUnsatisfiable: 'DoNotSchedule',
              matchLabelKeys: [`${'a'.repeat(254)}/v`],
            },
          ],
        }),
        path: 'spec.gloo.topologySpreadConstraints[0].matchLabelKeys',
      },
    ],
    good: [
      {
        name: 'pod-template-hash and a prefixed key',
        spec: gloo({
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: zone,
              whenUnsatisfiable: 'DoNotSchedule',
              matchLabelKeys: ['pod-template-hash', 'app.kubernetes.io/version'],
            },
          ],
        }),
      },
    ],
  },
  'match-label-keys-not-selector': {
    bad: [
      {
        name: 'gloo (the selector key of every Gloo Deployment)',
        spec: gloo({
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['gloo'] },
          ],
        }),
        path: 'spec.gloo.topologySpreadConstraints[0].matchLabelKeys',
      },
      {
        name: 'gateway-proxy-id on a proxy',
        spec: proxy({
          replicas: 2,
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: zone,
              whenUnsatisfiable: 'ScheduleAnyway',
              matchLabelKeys: ['pod-template-hash', 'gateway-proxy-id'],
            },
          ],
        }),
        path: `${GP}.topologySpreadConstraints[0].matchLabelKeys`,
      },
    ],
    good: [
      {
        name: 'pod-template-hash',
        spec: gloo({
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: zone,
              whenUnsatisfiable: 'DoNotSchedule',
              matchLabelKeys: ['pod-template-hash'],
            },
          ],
        }),
      },
    ],
  },
};
