// docs/install.md's install commands work when followed alone: the image is not published yet, so an
// install that does not name a built one ends in ImagePullBackOff (the README's commands name one; the
// doc's did not).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellBlocks } from '../../support/readme.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'install.md'), 'utf8');
/** Each command of a block, continuation lines joined. */
const commands = (block: string) => block.replace(/\\\n\s*/g, ' ').split('\n');

describe('docs/install.md', () => {
  const blocks = shellBlocks(doc);

  it('every helm install of the chart names the image', () => {
    const installs = blocks
      .flatMap(commands)
      .filter((c) => /^helm install .*charts\/glooha-operator/.test(c));
    expect(installs.length).toBeGreaterThan(0);
    for (const c of installs) expect(c).toMatch(/--set image\.repository=\S+ --set image\.tag=\S+/);
  });

  it('every kubectl apply of deploy/install.yaml is followed by kubectl set image in its block', () => {
    const applies = blocks.filter((b) => /kubectl apply .*-f deploy\/install\.yaml/.test(b));
    expect(applies.length).toBeGreaterThan(0);
    for (const b of applies)
      expect(b).toMatch(
        /kubectl apply .*-f deploy\/install\.yaml\nkubectl -n glooha-system set image deployment\/glooha-operator operator=\S+/,
      );
  });
});
