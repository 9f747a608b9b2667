// The rule table's TypeScript half against the conformance cases (the integration test runs the same
// cases through the API server), plus the table's own invariants.
import { describe, expect, it } from 'vitest';
import { PRODUCTS, RULES } from '../../../src/products/index.js';
import { celRulesFor } from '../../../src/api/rules.js';
import { KGATEWAY_KIND } from '../../../src/products/kgateway/api.js';
import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { validateKgatewayHA } from '../../../src/products/kgateway/validate.js';
import { RULE_CASES, haObject, type RuleCases } from './rule-cases.js';

const validatorOf = (kind: RuleCases['kind']) =>
  kind === KGATEWAY_KIND ? validateKgatewayHA : validateGlooHA;

describe('rule table', () => {
  it('has unique ids and a conformance case (bad and good) for every rule', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(RULE_CASES[id], `cases for ${id}`).toBeDefined();
      expect(RULE_CASES[id]?.bad.length, `bad cases for ${id}`).toBeGreaterThan(0);
      expect(RULE_CASES[id]?.good.length, `good cases for ${id}`).toBeGreaterThan(0);
    }
    expect(Object.keys(RULE_CASES).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('emits each rule with its message into the CRD rules of its definition', () => {
    for (const { api } of PRODUCTS) {
      for (const rule of api.rules) {
        expect(celRulesFor(api.rules, rule.on), `${api.kind} ${rule.id}`).toContainEqual(
          expect.objectContaining({ rule: rule.rule, message: rule.message }),
        );
      }
    }
  });

  it('guards every optional field it reads (no bare self.x.y without has)', () => {
    // A CEL rule that reads an absent field fails with "no such key" instead of its message.
    for (const rule of RULES) {
      for (const [, field] of rule.rule.matchAll(/self\.(\w+)\.\w+/g)) {
        if (field === 'metadata') continue;
        expect(rule.rule, `${rule.id} reads self.${field}.… without has(self.${field})`).toContain(
          `has(self.${field})`,
        );
      }
    }
  });

  it('names the field in every message and says what to do', () => {
    for (const rule of RULES) {
      expect(rule.message.length, rule.id).toBeGreaterThan(40);
      expect(rule.message, rule.id).toMatch(/must|set /);
    }
  });
});

describe('conformance cases through the TypeScript validator', () => {
  for (const [id, cases] of Object.entries(RULE_CASES)) {
    const rule = RULES.find((r) => r.id === id);
    describe(id, () => {
      for (const bad of cases.bad) {
        it(`rejects: ${bad.name}`, () => {
          const result = validatorOf(cases.kind)(haObject(cases.kind, bad.spec, bad.metadataName));
          expect(result.ok).toBe(false);
          if (result.ok) return;
          expect(result.errors).toEqual([{ path: bad.path, message: rule?.message, ruleId: id }]);
        });
      }
      for (const good of cases.good) {
        it(`accepts: ${good.name}`, () => {
          const result = validatorOf(cases.kind)(haObject(cases.kind, good.spec, good.metadataName));
          expect(result.ok ? [] : result.errors).toEqual([]);
        });
      }
    });
  }
});
