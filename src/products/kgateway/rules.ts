// The validation rules of the KgatewayHA kind (the rule-table mechanism: src/api/rules.ts); the
// definitions it shares with GlooHA bring their rules from Gloo's table, as its schema brings them.

import { celMinBelow, nameLengthRule, proxyRules, type Rule } from '../../api/rules.js';
import { SHARED_DEFINITION_RULES } from '../gloo/rules.js';

/**
 * kgateway's controller runs this many replicas when its spec sets neither replicas nor autoscaling.
 * Applied in code, not as a schema default: with a default, "replicas or autoscaling" could not be told
 * from a defaulted replicas (see schema.ts).
 */
export const KGATEWAY_CONTROLLER_REPLICAS = 2;

/**
 * The rules of kgateway's controller: a control plane's (controlPlaneRules in src/api/rules.ts) over
 * the count it may run, which is replicas, or the autoscaling bounds, or KGATEWAY_CONTROLLER_REPLICAS
 * when neither is set; and replicas or autoscaling, not both.
 */
function controllerRules(): Rule[] {
  const on = 'KgatewayController';
  const count = (bound: 'minReplicas' | 'maxReplicas') =>
    `(has(self.replicas) ? self.replicas : has(self.autoscaling) && has(self.autoscaling.${bound}) ? self.autoscaling.${bound} : ${KGATEWAY_CONTROLLER_REPLICAS})`;
  return [
    {
      id: 'kgateway-controller-replicas-xor-autoscaling',
      on,
      rule: '!has(self.replicas) || !has(self.autoscaling)',
      fieldPath: '.replicas',
      reason: 'FieldValueForbidden',
      message:
        'set spec.controller.replicas or spec.controller.autoscaling, not both: with autoscaling the HPA owns the controller Deployment\'s replicas. Remove replicas (a KgatewayHA created before autoscaling existed has replicas: 2 stored from the old default): kubectl edit, or kubectl patch kgatewayha <name> --type json -p \'[{"op":"remove","path":"/spec/controller/replicas"}]\'',
    },
    {
      id: 'kgateway-controller-replicas-min',
      on,
      rule: '!has(self.replicas) || self.replicas >= 1',
      fieldPath: '.replicas',
      message:
        "replicas must be at least 1: glooha never scales kgateway's controller to zero (use 2 or more for high availability)",
    },
    {
      id: 'kgateway-controller-replicas-need-leader-election',
      on,
      rule: `${count('maxReplicas')} <= 1 || !has(self.leaderElection) || !has(self.leaderElection.enabled) || self.leaderElection.enabled`,
      fieldPath: '.leaderElection.enabled',
      message: `leaderElection.enabled must be true when the controller may run more than 1 replica (replicas, autoscaling.maxReplicas, or ${KGATEWAY_CONTROLLER_REPLICAS} when neither is set): kgateway's deployer and status writers run only on the leader, and without leader election every replica runs them and they fight; enable leader election or set replicas: 1`,
    },
    {
      id: 'kgateway-controller-pdb-min-available-below-replicas',
      on,
      rule: `!has(self.podDisruptionBudget) || !has(self.podDisruptionBudget.minAvailable) || ${celMinBelow('self.podDisruptionBudget.minAvailable', count('minReplicas'))}`,
      fieldPath: '.podDisruptionBudget.minAvailable',
      message: `podDisruptionBudget.minAvailable must be below the controller's fewest replicas (replicas, autoscaling.minReplicas, or ${KGATEWAY_CONTROLLER_REPLICAS} when neither is set; a percentage is rounded up): a PDB that needs every replica available blocks every node drain; lower it or use maxUnavailable: 1`,
    },
  ];
}

export const KGATEWAY_RULES: readonly Rule[] = [
  nameLengthRule('kgateway-name-length', 'KgatewayHA'),
  ...controllerRules(),
  {
    id: 'kgateway-gateway-names',
    on: 'KgatewayGateways',
    rule: "self.all(k, size(k) <= 63 && k.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
    message:
      "gateways keys must be the names of Gateways in the install's namespace, as kgateway names their proxy Deployments: lowercase letters, digits and dashes, at most 63 characters",
  },
  ...proxyRules('kgateway-gateway', 'KgatewayGateway'),
  ...SHARED_DEFINITION_RULES,
];
