// What the replicas floor covers, said where users read it, and the same as the policies the chart
// renders: writes to the Deployment object (one policy) and to its scale subresource (kubectl scale,
// the other). A doc that still says the scale subresource is let through promises what the API
// server no longer does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { render } from './helm.js';

const root = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8').replace(/\*/g, '').replace(/\s+/g, ' ');

describe('replicas floor: the docs say what it covers', () => {
  it('one policy matches updates of deployments, the other of deployments/scale', async () => {
    const objects = await render({ release: 'glooha', namespace: 'ops' });
    const resources = (suffix: string) => {
      const policy = objects.find(
        (o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata?.name?.endsWith(suffix),
      ) as unknown as { spec: { matchConstraints: { resourceRules: { resources: string[] }[] } } };
      return policy.spec.matchConstraints.resourceRules.flatMap((r) => r.resources);
    };
    expect(resources('-replicas-floor')).toEqual(['deployments']);
    expect(resources('-replicas-floor-scale')).toEqual(['deployments/scale']);
  });

  it.each(['README.md', 'docs/how-it-works.md', 'docs/helm.md', 'charts/glooha-operator/README.md'])(
    '%s says kubectl scale below the floor is refused too, and no longer that the scale subresource is let through',
    (file) => {
      const text = read(file);
      expect(text).toMatch(/kubectl scale[^.]*(refused|refuses)|(refused|refuses)[^.]*kubectl scale/i);
      expect(text).not.toMatch(/not cover[^.]*scale subresource|Not the scale subresource/i);
    },
  );
});
