// The validation rules of the KgatewayHA kind (the rule-table mechanism: src/api/rules.ts); the
// definitions it shares with GlooHA bring their rules from Gloo's table, as its schema brings them.

import { controlPlaneRules, nameLengthRule, proxyRules, type Rule } from '../../api/rules.js';
import { SHARED_DEFINITION_RULES } from '../gloo/rules.js';

export const KGATEWAY_RULES: readonly Rule[] = [
  nameLengthRule('kgateway-name-length', 'KgatewayHA'),
  ...controlPlaneRules({
    prefix: 'kgateway-controller',
    on: 'KgatewayController',
    what: "kgateway's controller",
    leaderless:
      "kgateway's deployer and status writers run only on the leader, and without leader election every replica runs them and they fight",
  }),
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
