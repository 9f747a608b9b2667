// The rule-table mechanism: a validation rule names the schema definition it sits on and its CEL
// expression, the one source of its meaning. Each product's kind has its own table
// (src/products/<product>/rules.ts): the CRD carries its rules in x-kubernetes-validations (the API
// server enforces them at admission), and `glooha render` and the reconciler (defence in depth)
// evaluate the same text with @bufbuild/cel (cel.ts). Both report the same message. The conformance
// tests feed every rule's good and bad cases to the TypeScript validator and to a real API server, and
// the differential test generated ones. The rules here are the ones every product's control plane and
// proxies are held to, with the product's own words.
//
// Writing a rule: guard every optional field with has() (CEL evaluates after schema defaulting, and so
// does the validator, validate.ts; a read of an absent field is an evaluation error, reported without
// the rule's fieldPath). Messages name the field and say how to fix it; the API server prefixes them
// with the field path.

import { PERCENT_PATTERN } from './intstr.js';
import type { CelRule } from './openapi.js';

export interface Rule extends CelRule {
  /** Stable identifier, used by tests and in FieldError.ruleId. */
  id: string;
  /** The schema definition whose nodes the rule validates (`self` in CEL). */
  on: string;
}

/**
 * CEL: a PDB minAvailable (int or percentage, in `m`) leaves at least one of `n` pods evictable.
 * Kubernetes rounds a minAvailable percentage up, hence (p*n + 99) / 100. A malformed percentage
 * and 100% pass here: the format and not-all rules report them with a more precise message.
 */
export const celMinBelow = (m: string, n: string) =>
  `(type(${m}) == int ? ${m} < ${n} : (${m} == '100%' || !${m}.matches('${PERCENT_PATTERN}') || (int(${m}.replace('%', '')) * ${n} + 99) / 100 < ${n}))`;

/** A PDB's minAvailable below the fixed replica count: one that needs every replica blocks every drain. */
function pdbBelowReplicasRule(id: string, on: string): Rule {
  return {
    id,
    on,
    rule: `!has(self.replicas) || !has(self.podDisruptionBudget) || !has(self.podDisruptionBudget.minAvailable) || ${celMinBelow('self.podDisruptionBudget.minAvailable', 'self.replicas')}`,
    fieldPath: '.podDisruptionBudget.minAvailable',
    message:
      'podDisruptionBudget.minAvailable must be below replicas (a percentage is rounded up): a PDB that needs every replica available blocks every node drain; lower it or use maxUnavailable: 1',
  };
}

/**
 * The rules of one gateway proxy (a GlooHA's gatewayProxies entry, a KgatewayHA's gateways entry):
 * replicas or autoscaling (one of them), at least one replica, and a PDB that leaves a drain something
 * to evict at the replica floor.
 */
export function proxyRules(prefix: string, on: string): Rule[] {
  return [
    {
      id: `${prefix}-replicas-or-autoscaling`,
      on,
      rule: 'has(self.replicas) || has(self.autoscaling)',
      reason: 'FieldValueRequired',
      message: 'set replicas or autoscaling for the proxy: glooha needs to know how many replicas to keep',
    },
    {
      id: `${prefix}-replicas-xor-autoscaling`,
      on,
      rule: '!has(self.replicas) || !has(self.autoscaling)',
      reason: 'FieldValueForbidden',
      message:
        "set replicas or autoscaling for the proxy, not both: with autoscaling the HPA owns the Deployment's replicas",
    },
    {
      id: `${prefix}-replicas-min`,
      on,
      rule: '!has(self.replicas) || self.replicas >= 1',
      fieldPath: '.replicas',
      message:
        'replicas must be at least 1: glooha never scales a gateway proxy to zero (use 2 or more for high availability)',
    },
    pdbBelowReplicasRule(`${prefix}-pdb-min-available-below-replicas`, on),
    {
      id: `${prefix}-pdb-min-available-below-min-replicas`,
      on,
      rule: `!has(self.autoscaling) || has(self.replicas) || !has(self.autoscaling.minReplicas) || !has(self.podDisruptionBudget) || !has(self.podDisruptionBudget.minAvailable) || ${celMinBelow('self.podDisruptionBudget.minAvailable', 'self.autoscaling.minReplicas')}`,
      fieldPath: '.podDisruptionBudget.minAvailable',
      message:
        'podDisruptionBudget.minAvailable must be below autoscaling.minReplicas (a percentage is rounded up): when the HPA sits at minReplicas the PDB would block every node drain; lower it or use maxUnavailable: 1',
    },
  ];
}

/** Either kind's name: it becomes a label value on what glooha owns. */
export function nameLengthRule(id: string, on: string): Rule {
  return {
    id,
    on,
    rule: 'size(self.metadata.name) <= 63',
    fieldPath: '.metadata.name',
    message:
      'metadata.name must be at most 63 characters: glooha writes it as a label value (glooha.io/owner-name) on the objects it owns; choose a shorter name',
  };
}

/**
 * The rules of a product's control plane (Gloo's gloo, kgateway's controller): at least one replica,
 * leader election for more than one, and a PDB that leaves a drain something to evict.
 */
export function controlPlaneRules(p: {
  prefix: string;
  on: string;
  what: string;
  leaderless: string;
}): Rule[] {
  return [
    {
      id: `${p.prefix}-replicas-min`,
      on: p.on,
      rule: '!has(self.replicas) || self.replicas >= 1',
      fieldPath: '.replicas',
      message: `replicas must be at least 1: glooha never scales ${p.what} to zero (use 2 or more for high availability)`,
    },
    {
      id: `${p.prefix}-replicas-need-leader-election`,
      on: p.on,
      rule: '!has(self.replicas) || self.replicas <= 1 || !has(self.leaderElection) || !has(self.leaderElection.enabled) || self.leaderElection.enabled',
      fieldPath: '.leaderElection.enabled',
      message: `leaderElection.enabled must be true when replicas is more than 1: ${p.leaderless}; enable leader election or set replicas: 1`,
    },
    pdbBelowReplicasRule(`${p.prefix}-pdb-min-available-below-replicas`, p.on),
  ];
}

/** The CEL rules for a schema definition, in table order, as the CRD carries them. */
export function celRulesFor(rules: readonly Rule[], defName: string): CelRule[] {
  return rules
    .filter((r) => r.on === defName)
    .map(({ rule, message, fieldPath, reason }) => ({
      rule,
      message,
      ...(fieldPath ? { fieldPath } : {}),
      ...(reason ? { reason } : {}),
    }));
}
