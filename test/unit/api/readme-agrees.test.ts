// What the docs promise (docs/how-it-works.md) about scaling to zero is what the rule table enforces: every replica count
// is at least 1, except discovery.replicas, which may be 0 (stopping Gloo's optional discovery) and
// which the README names as the one exception.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { validateGlooHA } from '../../../src/products/gloo/validate.js';
import { glooHAObject } from './rule-cases.js';

// The README links it ("What it writes and what it never touches").
const readme = readFileSync('docs/how-it-works.md', 'utf8');
const never = readme.slice(
  readme.indexOf('It never does any of these:'),
  readme.indexOf('**Deleting a GlooHA**'),
);

describe('README and the rules agree on scaling to zero', () => {
  it('the only replica count that may be 0 is discovery.replicas, and the README says so', () => {
    expect(validateGlooHA(glooHAObject({ discovery: { replicas: 0 } })).ok).toBe(true);
    expect(validateGlooHA(glooHAObject({ gloo: { replicas: 0 } })).ok).toBe(false);
    expect(validateGlooHA(glooHAObject({ gatewayProxies: { gatewayProxy: { replicas: 0 } } })).ok).toBe(
      false,
    );
    expect(never).toContain('scales a component to zero');
    expect(never).toContain('`discovery.replicas: 0`');
  });
});
