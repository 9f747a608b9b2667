// The test lanes: every test file in exactly one vitest project (none dropped by the split), and a lane
// refuses, naming the right lane, what it does not build — so a unit test that reaches for helm fails
// at once on every machine instead of building Go on a cold one.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import config from '../../../vitest.config.js';
import { LANE_NEEDS, kgatewayFixtures, laneMayUse, locateBinaries } from '../../env/binaries.js';
import { repoRoot } from '../../../scripts/sync-chart.js';

interface Project {
  test: { name: string; include: string[]; exclude?: string[]; env?: Record<string, string> };
}
const projects = (config as unknown as { test: { projects: Project[] } }).test.projects;

/** The globs vitest.config.ts uses: exact paths, and `<dir>/**\/*.test.ts`. */
function matches(glob: string, file: string): boolean {
  const tree = /^(.*)\/\*\*\/\*\.test\.ts$/.exec(glob);
  return tree ? file.startsWith(`${tree[1]}/`) && file.endsWith('.test.ts') : file === glob;
}

function testFiles(dir: string): string[] {
  return (readdirSync(join(repoRoot, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => relative(repoRoot, join(repoRoot, dir, f)));
}

describe('the lanes of vitest.config.ts', () => {
  const files = [...testFiles('test/unit'), ...testFiles('test/integration')];
  const projectsOf = (file: string) =>
    projects
      .filter((p) => p.test.include.some((g) => matches(g, file)))
      .filter((p) => !(p.test.exclude ?? []).some((g) => matches(g, file)))
      .map((p) => p.test.name);

  it('puts every test file in exactly one project', () => {
    expect(files.length).toBeGreaterThan(90);
    const misplaced = files.map((f) => [f, projectsOf(f)] as const).filter(([, ps]) => ps.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('names no file that does not exist (a renamed file would fall out of its lane)', () => {
    const named = projects
      .flatMap((p) => [...p.test.include, ...(p.test.exclude ?? [])])
      .filter((g) => !g.includes('*'));
    expect(named.filter((f) => !files.includes(f))).toEqual([]);
  });

  it('gives every project a lane that test/env/binaries.ts knows', () => {
    for (const p of projects) expect(Object.keys(LANE_NEEDS), p.test.name).toContain(p.test.env?.GLOOHA_LANE);
  });
});

describe('laneMayUse', () => {
  const saved = process.env.GLOOHA_LANE;
  afterEach(() => {
    process.env.GLOOHA_LANE = saved;
  });
  const inLane = (lane: string | undefined, fn: () => unknown) => {
    if (lane === undefined) delete process.env.GLOOHA_LANE;
    else process.env.GLOOHA_LANE = lane;
    return fn;
  };

  it('the unit lane uses nothing built: helm, a kgateway chart, a Go tool or the control plane fail at once, naming their lane', () => {
    expect(inLane('unit', () => locateBinaries().path('helm'))).toThrow(
      /needs the helm.*belongs in the charts/,
    );
    expect(inLane('unit', () => locateBinaries().glooChart)).toThrow(/belongs in the charts/);
    expect(inLane('unit', () => kgatewayFixtures())).toThrow(/belongs in the charts/);
    expect(inLane('unit', () => laneMayUse('go tool'))).toThrow(/belongs in the charts/);
    expect(inLane('unit', () => locateBinaries().path('kube-apiserver'))).toThrow(
      /belongs in the integration/,
    );
  });

  it('the charts lane may use Helm and the Go tools, not the control plane or a product controller', () => {
    expect(inLane('charts', () => laneMayUse('helm'))).not.toThrow();
    expect(inLane('charts', () => laneMayUse('go tool'))).not.toThrow();
    expect(inLane('charts', () => locateBinaries().path('kubectl'))).toThrow(/belongs in the integration/);
    expect(inLane('charts', () => kgatewayFixtures(undefined, { controller: true }))).toThrow(
      /belongs in the products/,
    );
  });

  it('the integration lane may use the control plane, not a product controller; the products lane everything', () => {
    expect(inLane('integration', () => laneMayUse('control plane'))).not.toThrow();
    expect(inLane('integration', () => laneMayUse('product controller'))).toThrow(/belongs in the products/);
    for (const need of ['helm', 'go tool', 'control plane', 'product controller'] as const)
      expect(inLane('products', () => laneMayUse(need))).not.toThrow();
  });

  it('outside a lane (scripts, a shell) everything is allowed; an unknown lane is an error', () => {
    expect(inLane(undefined, () => laneMayUse('product controller'))).not.toThrow();
    expect(inLane('fast', () => laneMayUse('helm'))).toThrow(/GLOOHA_LANE=fast is no lane/);
  });
});
