// The rule table's CEL, evaluated in TypeScript (src/api/cel.ts): one source for the API server and
// for `glooha render`. The conformance cases (rules.test.ts) check every rule's verdicts through the
// validator; these check the evaluator's Kubernetes semantics.
import { describe, expect, it } from 'vitest';
import { evaluateRule, toCel } from '../../../src/api/cel.js';
import { integer, intOrString, map, object, string } from '../../../src/api/openapi.js';
import { RULES } from '../../../src/products/index.js';
import { runRules } from '../../../src/api/validate.js';
import { GLOO_RULES } from '../../../src/products/gloo/rules.js';
import { glooHASchema } from '../../../src/products/gloo/schema.js';

describe('the rule table', () => {
  it('holds CEL only: no rule carries a TypeScript twin of its expression', () => {
    for (const rule of RULES) expect(Object.keys(rule).sort(), rule.id).not.toContain('check');
  });

  it('every rule parses and evaluates on an empty node without a syntax or overload error', () => {
    for (const rule of RULES) {
      const outcome = evaluateRule(rule.rule, {}, object({}));
      // A rule reading a required field (metadata.name, operator) fails with "no such key" on {}: an
      // evaluation error, not a parse error.
      if (!outcome.ok && outcome.evaluationError !== undefined)
        expect(outcome.evaluationError, rule.id).toMatch(/no such key|key not found|field not found/i);
    }
  });
});

describe('Kubernetes CEL semantics', () => {
  const pdb = object({ minAvailable: intOrString(), replicas: integer() });

  it('types values by the schema: an integer node is an int, an int-or-string an int or a string', () => {
    const node = toCel({ minAvailable: 2, replicas: 3 }, pdb) as Map<string, unknown>;
    expect(node.get('replicas')).toBe(3n);
    expect(node.get('minAvailable')).toBe(2n);
    expect(evaluateRule('type(self.minAvailable) == int', { minAvailable: 2 }, pdb)).toEqual({ ok: true });
    expect(evaluateRule('type(self.minAvailable) == string', { minAvailable: '50%' }, pdb)).toEqual({
      ok: true,
    });
    // Exact beyond 2^53 (the YAML reader gives a bigint there).
    expect(evaluateRule('self.replicas == 9007199254740993', { replicas: 9007199254740993n }, pdb)).toEqual({
      ok: true,
    });
  });

  it('evaluates the string extension, matches, duration and the macros as the API server does', () => {
    const s = object({ name: string(), keys: map(string()) });
    const ok = (expr: string, v: unknown) => expect(evaluateRule(expr, v, s), expr).toEqual({ ok: true });
    ok("self.name.lowerAscii().replace('-', '') == 'publicgw'", { name: 'Public-Gw' });
    ok("self.name.indexOf('/') == 7", { name: 'example/zone' });
    ok("self.name.matches('^[a-z]+$')", { name: 'abc' });
    ok("duration('1m30s') > duration('90s') || duration('1m30s') == duration('90s')", {});
    ok("self.keys.all(k, k in ['a', 'b'])", { keys: { a: 'x', b: 'y' } });
    ok('size(self.name) == 2', { name: '😀😀' });
  });

  it('reports an evaluation error (no such key, overflow) as an error, not as a pass', () => {
    const s = object({ replicas: integer() });
    const absent = evaluateRule('self.replicas >= 1', {}, s);
    expect(absent.ok).toBe(false);
    expect(absent.ok ? '' : absent.evaluationError).toBeTruthy();
    const overflow = evaluateRule('self.replicas + 1 > 0', { replicas: 9223372036854775807n }, s);
    expect(overflow.ok ? '' : overflow.evaluationError).toMatch(/overflow/);
  });

  it('runRules reports an evaluation error at the node, without the fieldPath, as the API server does', () => {
    // name-length reads self.metadata.name; a GlooHA without metadata cannot evaluate it.
    const errors = runRules({ spec: {} }, glooHASchema, GLOO_RULES);
    expect(errors).toEqual([
      expect.objectContaining({
        path: '',
        ruleId: 'name-length',
        message: expect.stringContaining('could not be evaluated'),
      }),
    ]);
  });
});
