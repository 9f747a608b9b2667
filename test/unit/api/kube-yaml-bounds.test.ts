// `glooha render` on hostile input: bounded time, memory and output (the bound --help and docs/api.md
// state), and kubectl's answers on directives, explicit tags and merge keys. Each hostile input runs
// through the whole command (read, validate, render, write) in its own process
// (test/support/yaml-cost.ts, bundled once: test/support/yaml-cost-process.ts) so that its peak resident memory can be read from getrusage.
// Before the bounds: the ~1 KB merge-key bomb ran for over 30 s (×10 per level), 1M empty documents took
// 1.2 GB, 4M nested `[` 2.1 GB, a flow list of 2M numbers 1.9 GB; a 3.9 MB string aliased 99 times
// 1.98 GB, 55 s and 386 MB of stderr; a 3.9 MB double-quoted string alone 125 MB.
import { describe, expect, it } from 'vitest';

import { readKubeYaml, YAML_LIMITS, type YamlLimits } from '../../../src/api/kube-yaml.js';
import { HOSTILE_KINDS } from '../../support/hostile-yaml.js';
import { measureYamlCost } from '../../support/yaml-cost-process.js';

const MiB = 1024 * 1024;
/** The documented bound: peak memory under 64 MiB, CPU time under 10 s, stderr under 16 KiB. */
const PEAK_BYTES = 64 * MiB;
const CPU_MS = 10_000;
const STDERR_BYTES = 16 * 1024;

/** What each input must come to: refused by the limit that stops it, or read in full. */
const EXPECTED: Record<(typeof HOSTILE_KINDS)[number], RegExp> = {
  'empty-documents': /YAML: more than 1000 YAML documents/,
  'nested-flow': /YAML: document 1 \(line 1\): YAML nested more than 100 levels deep/,
  'flow-numbers': /YAML: document 1 \(line 1\): more than 32000 YAML nodes in one document, the limit/,
  'compact-sequences': /YAML nested more than 100 levels deep/,
  'flow-maps': /more than 32000 YAML nodes in one document/,
  'block-maps':
    /manifests.yaml is invalid:\n {2}YAML: document 1 \(line 1\): more than 32000 YAML nodes in one document/,
  'indented-maps': /YAML nested more than 100 levels deep/,
  'merge-key-bomb': /map merge requires map or sequence of maps/,
  'merge-list-bomb': /more than 100 alias expansions/,
  'aliased-long-string':
    /more than 3 MiB as the JSON kubectl sends \(after alias expansion\): the API server refuses a request over 3 MiB \(413/,
  'aliased-map': /more than 32000 nodes after alias expansion, the limit of one document/,
  'aliased-documents':
    /YAML: document 6 \(line 26\): more than 16 MiB as JSON in all documents up to this one/,
  'long-keys': /more than 3 MiB as the JSON kubectl sends: the API server refuses/,
  'long-scalars': /more than 3 MiB as the JSON kubectl sends/,
  'escaped-string': /more than 3 MiB as the JSON kubectl sends/,
  'block-scalar-lines': /more than 32000 lines in one document/,
  'plain-scalar-lines': /more than 32000 lines in one document/,
  'many-document-lines':
    /document 20 \(line 152077\): more than 160000 lines in all documents up to this one/,
  'tagged-quoted': /more than 65536 characters of tagged double-quoted scalars in one document/,
  // Just inside the limits: read in full (then judged as what they are).
  'most-nodes-flow': /kind: missing \(known kinds: GlooHA, KgatewayHA\)/,
  'most-nodes-block': /document 1: not a Kubernetes object/,
  'most-nodes-stream': /document 3: not a Kubernetes object.*\n {2}\.\.\. and 2 more like/,
  'most-documents':
    /document 3: not a Kubernetes object.*\n {2}\.\.\. and 996 more like "document 1: not a Kubernetes object/,
  'most-aliased-bytes': /document 1: not a Kubernetes object/,
  deepest: /kind: missing \(known kinds: GlooHA, KgatewayHA\)/,
  'chart-like': /^note: gloo-system\/x: no metadata.uid/,
};

describe('glooha render: bounded on hostile input', () => {
  for (const kind of HOSTILE_KINDS) {
    it(
      `${kind}: peak memory < 64 MiB, CPU < 10 s, stderr < 16 KiB, with a clear answer`,
      { timeout: 300_000 },
      async () => {
        const c = await measureYamlCost(kind);
        const about = JSON.stringify({ ...c, outcome: c.outcome.slice(0, 300) });
        expect(c.peakBytes, about).toBeLessThan(PEAK_BYTES);
        expect(c.cpuMs, about).toBeLessThan(CPU_MS);
        expect(c.stderrBytes, about).toBeLessThan(STDERR_BYTES);
        expect(c.outcome, about).toMatch(EXPECTED[kind]);
        if (kind === 'chart-like') {
          // Read in full and merged: every document printed, the render succeeded.
          expect(c.code, about).toBe(0);
          expect(c.stdoutBytes, about).toBeGreaterThan(c.bytes / 2);
        } else expect(c.code, about).toBe(2);
        if (kind.startsWith('most-') || kind === 'deepest' || kind === 'chart-like')
          expect(c.outcome, about).not.toMatch(/YAML: .*(more than|nested)/);
      },
    );
  }
});

describe('the limits, after alias expansion, each stopping at its first excess', () => {
  const small: YamlLimits = {
    ...YAML_LIMITS,
    maxDocumentNodes: 40,
    maxNodes: 100,
    maxDocumentBytes: 200,
    maxBytes: 500,
  };
  const errorsOf = (text: string, limits = small) =>
    readKubeYaml(text, limits).flatMap((d) => (d.ok ? [] : d.errors));

  it('an alias counts the nodes it stands for, per document and in all', () => {
    // 4 entries and 8 scalars: 12 nodes, and 17 in the source with x and y; 28 after expansion.
    const map = 'x: &m\n  a: 1\n  b: 2\n  c: 3\n  d: 4\ny: *m\n';
    expect(errorsOf(map)).toEqual([]);
    expect(errorsOf(`${map}z: *m\nw: *m\n`)).toEqual([
      'more than 40 nodes after alias expansion, the limit of one document',
    ]);
    expect(readKubeYaml(`---\n${map}`.repeat(3), small)).toHaveLength(3); // 84 nodes
    expect(() => readKubeYaml(`---\n${map}`.repeat(4), small)).toThrow(
      /^document 4 \(line 22\): more than 100 YAML nodes in all documents up to this one after alias expansion/,
    );
  });

  it('a value counts its size as JSON each time it is aliased', () => {
    const s = 'x'.repeat(40);
    expect(errorsOf(`a: &s "${s}"\nb: [*s, *s]\n`)).toEqual([]);
    const limit = `${200 / MiB} MiB`;
    expect(errorsOf(`a: &s "${s}"\nb: [*s, *s, *s, *s]\n`)).toEqual([
      `more than ${limit} as the JSON kubectl sends (after alias expansion): the API server refuses a request over ${limit} (413 Request Entity Too Large)`,
    ]);
    expect(() => readKubeYaml(`---\na: &s "${s}"\nb: [*s, *s]\n`.repeat(4), small)).toThrow(
      /^document 4 \(line 10\): more than .* MiB as JSON in all documents up to this one/,
    );
  });
});

const one = (text: string) => {
  const doc = readKubeYaml(text)[0]!;
  if (!doc.ok) throw new Error(doc.errors[0]);
  return doc.value;
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
