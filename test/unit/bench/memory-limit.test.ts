// bench/scale.ts's limit= token: the size it names, in bytes, as the kubelet would set the container's
// memory limit from the chart's resources.limits.memory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isLimitToken, limitBytes } from '../../../bench/memory-limit.js';
import { repoRoot } from '../../../scripts/sync-chart.js';

describe('bench memory limit', () => {
  it("reads quantities, and `chart` as the chart's default limits.memory", () => {
    expect(limitBytes('limit=384Mi', repoRoot)).toBe(384 * 2 ** 20);
    expect(limitBytes('limit=1Gi', repoRoot)).toBe(2 ** 30);
    expect(limitBytes('limit=500M', repoRoot)).toBe(500e6);
    const values = parse(readFileSync(join(repoRoot, 'charts/glooha-operator/values.yaml'), 'utf8')) as {
      resources: { limits: { memory: string } };
    };
    expect(values.resources.limits.memory).toMatch(/^[0-9]+Mi$/);
    expect(limitBytes('limit=chart', repoRoot)).toBe(parseInt(values.resources.limits.memory, 10) * 2 ** 20);
  });

  it('refuses a size it cannot read, saying what it takes', () => {
    expect(() => limitBytes('limit=384MB', repoRoot)).toThrow(
      /limit=384MB: the size must be a quantity such as 384Mi/,
    );
    expect(() => limitBytes('limit=', repoRoot)).toThrow(/or "chart"/);
  });

  it('tells its token from node flags and environment tokens', () => {
    expect(isLimitToken('limit=chart')).toBe(true);
    expect(isLimitToken('--max-semi-space-size=4')).toBe(false);
    expect(isLimitToken('MALLOC_ARENA_MAX=2')).toBe(false);
  });
});
