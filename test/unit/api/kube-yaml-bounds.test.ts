// `glooha render` on hostile input: bounded time and memory (the bound --help and docs/api.md state),
// and kubectl's answers on directives, explicit tags and merge keys. Each hostile input runs in its own
// process (test/support/yaml-cost.ts) so that its peak resident memory can be read from getrusage.
// Before the bounds: the ~1 KB merge-key bomb ran for over 30 s (×10 per level), 1M empty documents took
// 1.2 GB, 4M nested `[` 2.1 GB, a flow list of 2M numbers 1.9 GB.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { parseAllKubeYaml, toKubeJS, YAML_LIMITS } from '../../../src/api/kube-yaml.js';
import { HOSTILE_KINDS } from '../../support/hostile-yaml.js';

const MiB = 1024 * 1024;
/** The documented bound: peak memory under 10 × the 4 MiB input cap, CPU time under 5 s. */
const PEAK_BYTES = 10 * 4 * MiB;
const CPU_MS = 5_000;

interface Cost {
  kind: string;
  bytes: number;
  ms: number;
  cpuMs: number;
  peakBytes: number;
  outcome: string;
}

// The young generation held at 1 MiB semi-spaces: the bound is on what parsing keeps. With Node 22+'s
// default young generation (semi-spaces grown up to 16 MiB under a high allocation rate) the peak also
// holds garbage V8 has not collected yet, and varies run to run: 31–47 MB for most-documents against
// 15–18 MB held here (Node 26, loaded 2-core machine).
function cost(kind: string): Cost {
  const args = ['--max-semi-space-size=1', '--import', 'tsx', 'test/support/yaml-cost.ts', kind];
  const out = execFileSync(process.execPath, args, {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as Cost;
}

describe('glooha render: bounded on hostile input', () => {
  for (const kind of HOSTILE_KINDS) {
    it(`${kind}: peak memory < 40 MiB and CPU < 5 s, with a clear answer`, () => {
      const c = cost(kind);
      expect(c.peakBytes, JSON.stringify(c)).toBeLessThan(PEAK_BYTES);
      expect(c.cpuMs, JSON.stringify(c)).toBeLessThan(CPU_MS);
      expect(c.outcome).not.toMatch(/RangeError|Maximum call stack|heap/i);
      if (kind === 'merge-key-bomb')
        expect(c.outcome).toContain('map merge requires map or sequence of maps');
      else if (kind === 'merge-list-bomb') expect(c.outcome).toContain('more than 100 alias expansions');
      else if (!kind.startsWith('most-') && kind !== 'deepest')
        expect(c.outcome).toMatch(
          /YAML: (more than \d+ YAML (nodes|documents)|YAML nested more than \d+ levels)/,
        );
      else expect(c.outcome).not.toContain('YAML:'); // just inside the limits: parsed in full
    });
  }
});

const one = (text: string) => {
  const docs = parseAllKubeYaml(text);
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split('\n')[0]);
  return toKubeJS(doc);
};

describe('YAML as kubectl reads it (checked against kubectl create --dry-run=client)', () => {
  it('refuses a %YAML or %TAG directive ("did not find expected <document start>")', () => {
    expect(() => one('%YAML 1.1\n---\na: 1\n')).toThrow(/%YAML directive: kubectl refuses it/);
    expect(() => one('%TAG !e! tag:example.com,2000:\n---\na: 1\n')).toThrow(/%TAG directive/);
    // A % inside a block scalar is content, not a directive.
    expect(one('a: |\n  %YAML 1.1\n')).toEqual({ a: '%YAML 1.1\n' });
  });

  it('resolves explicit !!int, !!float and !!binary as go-yaml v2 does', () => {
    expect(one('x: !!int "3"')).toEqual({ x: 3 });
    expect(one('x: !!int "0x10"')).toEqual({ x: 16 });
    expect(one('x: !!int "1_000"')).toEqual({ x: 1000 });
    expect(one('x: !!float "1"')).toEqual({ x: 1 });
    expect(one('x: !!binary aGVsbG8=')).toEqual({ x: 'hello' });
    expect(one('x: !!binary |\n  aGVs\n  bG8=\n')).toEqual({ x: 'hello' });
    expect(one('x: !!str 3')).toEqual({ x: '3' });
    expect(() => one('x: !!int "abc"')).toThrow('cannot decode !!str `abc` as a !!int');
    expect(() => one('x: !!int 1.5')).toThrow('cannot decode !!float `1.5` as a !!int');
    expect(() => one('x: !!binary "!!!"')).toThrow('!!binary value contains invalid base64 data');
  });

  it('a merge key takes a map, an alias of one or a list of those, not an alias of a list', () => {
    expect(one('a: &a {x: 1}\nb: &b {w: 2}\nc: {<<: [*a, *b], z: 3}')).toMatchObject({
      c: { x: 1, w: 2, z: 3 },
    });
    expect(() => one('a: &a [{x: 1}]\nb: {<<: *a}')).toThrow('map merge requires map or sequence of maps');
    expect(() => one('b: {<<: [1]}')).toThrow('map merge requires map or sequence of maps');
  });

  it('counts merged aliases against the alias cap', () => {
    const lines = ['m0: &m0 {a: 1}'];
    for (let i = 1; i <= 3; i++)
      lines.push(
        `m${i}: &m${i} {<<: [${Array(10)
          .fill(`*m${i - 1}`)
          .join(', ')}]}`,
      );
    expect(() => one(lines.join('\n'))).toThrow(/more than 100 alias expansions/);
  });

  it('the limits are far above a real GlooHA', () => {
    expect(YAML_LIMITS.maxDepth).toBeGreaterThanOrEqual(64);
    expect(one('a:\n' + '  '.repeat(1) + '- ' + '['.repeat(60) + ']'.repeat(60))).toBeDefined();
    expect(() =>
      one('- ' + '['.repeat(YAML_LIMITS.maxDepth + 1) + ']'.repeat(YAML_LIMITS.maxDepth + 1)),
    ).toThrow(/nested more than/);
  });
});
