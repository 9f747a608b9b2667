import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { floorOf, nodeProblem } from '../../../scripts/check-node.mjs';

const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines
  .node;

describe('check-node: the one line a newcomer on an old Node.js gets', () => {
  it("reads package.json's floor", () => {
    expect(floorOf(engines)).toEqual([22, 19, 0]);
    expect(() => floorOf('^22')).toThrow(/expected ">=X.Y.Z"/);
  });

  it('refuses Node 20 (end of life) and 22 before 22.19 with one line saying what to install', () => {
    for (const old of ['20.20.2', '22.18.0', '21.7.3']) {
      const line = nodeProblem(old, engines);
      expect(line).toContain(`needs Node.js 22.19.0 or newer (this is ${old})`);
      expect(line).toContain('install Node.js 24 or 26 LTS');
      expect(line).toContain('bash scripts/node.sh image');
      expect(line).not.toContain('\n');
    }
  });

  it('accepts the floor and newer', () => {
    for (const ok of ['22.19.0', '22.23.5', '24.22.3', '26.12.1', process.versions.node]) {
      expect(nodeProblem(ok, engines)).toBeUndefined();
    }
  });
});
