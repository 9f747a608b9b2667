// What the replicas floor covers, said where users read it, and the same as the policy the chart
// renders: writes to the Deployment object, not its scale subresource (kubectl scale). A README that
// says "any write" promises what the API server does not do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { render } from './helm.js';

const root = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8').replace(/\*/g, '').replace(/\s+/g, ' ');

describe('replicas floor: the docs say what it covers', () => {
  it('the policy matches updates of deployments only, not deployments/scale', async () => {
    const objects = await render({ release: 'glooha', namespace: 'ops' });
    const policy = objects.find(
      (o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata?.name?.endsWith('-replicas-floor'),
    ) as unknown as { spec: { matchConstraints: { resourceRules: { resources: string[] }[] } } };
    const resources = policy.spec.matchConstraints.resourceRules.flatMap((r) => r.resources);
    expect(resources).toEqual(['deployments']);
  });

  it.each(['README.md', 'docs/how-it-works.md', 'docs/helm.md', 'charts/glooha-operator/README.md'])(
    '%s says the scale subresource (kubectl scale) is not covered, and promises no "any write"',
    (file) => {
      const text = read(file);
      expect(text).toMatch(/not cover[^.]*scale subresource|Not the scale subresource/i);
      expect(text).toContain('kubectl scale');
      expect(text).not.toMatch(/refuses any write (that lowers|to a Deployment)/);
    },
  );
});
