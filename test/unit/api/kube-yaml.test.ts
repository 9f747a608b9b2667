// YAML as kubectl reads it (sigs.k8s.io/yaml over go-yaml v2), and the generated files that kubectl
// and Helm read. The integration differential test checks the same inputs against the real kubectl.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCrd } from '../../../src/api/crd.js';
import { GLOO_API } from '../../../src/products/gloo/api.js';
import {
  doubleQuotedValue,
  goJsonBytes,
  goYamlNumber,
  readKubeYaml,
  stringifyKubeYaml,
} from '../../../src/api/kube-yaml.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const read = (text: string) => {
  const doc = readKubeYaml(text)[0];
  if (!doc) throw new Error('no document');
  if (!doc.ok) throw new Error(doc.errors[0]);
  return doc.value as Record<string, unknown>;
};

describe('reading YAML as kubectl does', () => {
  it('YAML 1.1 booleans, as values and as keys', () => {
    expect(read('a: yes\nb: on\nc: off\nd: n\ne: Y\nf: "off"\n')).toEqual({
      a: true,
      b: true,
      c: false,
      d: false,
      e: true,
      f: 'off',
    });
    expect(Object.keys(read('n: 1\non: 2\nyes: 3\n'))).toEqual(['false', 'true']);
  });

  it('Go integer literals: 010 is 8, 0o10, 0x1F, 0b11, underscores; 08 and 1e3 are floats that JSON turns into integers', () => {
    expect(
      read('a: 010\nb: 0o10\nc: 0x1F\nd: 0b11\ne: 1_000\nf: 08\ng: 1e3\nh: 3.0\ni: -0b11\nj: .5\n'),
    ).toEqual({
      a: 8,
      b: 8,
      c: 31,
      d: 3,
      e: 1000,
      f: 8,
      g: 1000,
      h: 3,
      i: -3,
      j: 0.5,
    });
  });

  it('no sexagesimal and no timestamps: 1:20 and 2001-12-14 stay strings; 1e400 too', () => {
    expect(read('a: 1:20\nb: 2001-12-14\nc: 1e400\n')).toEqual({ a: '1:20', b: '2001-12-14', c: '1e400' });
  });

  it('merge keys in go-yaml v2 order: a merge replaces keys before it, keys after it replace it; first merged map wins', () => {
    expect(read('m:\n  q: 3\n  <<: {q: 1}\n')).toEqual({ m: { q: 1 } });
    expect(read('m:\n  <<: {q: 1}\n  q: 3\n')).toEqual({ m: { q: 3 } });
    expect(read('m:\n  <<: [{q: 1}, {q: 2, r: 2}]\n')).toEqual({ m: { q: 1, r: 2 } });
    expect(read('m:\n  "<<": {q: 1}\n')).toEqual({ m: { '<<': { q: 1 } } });
  });

  it('merge keys and duplicate keys (the last wins)', () => {
    expect(read('base: &b {p: 1, q: 2}\nm:\n  q: 3\n  <<: *b\nd: 1\nd: 2\n')).toEqual({
      base: { p: 1, q: 2 },
      m: { p: 1, q: 2 },
      d: 2,
    });
  });

  it('goYamlNumber follows strconv: int64 and uint64 ranges, then float', () => {
    // Exact beyond 2^53 (a bigint): as a number, int64's maximum would read as 2^63, beyond int64.
    expect(goYamlNumber('9007199254740991')).toBe(9007199254740991);
    expect(goYamlNumber('9007199254740993')).toBe(9007199254740993n);
    expect(goYamlNumber('9223372036854775807')).toBe(9223372036854775807n);
    expect(goYamlNumber('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(goYamlNumber('18446744073709551615')).toBe(18446744073709551615n);
    // Beyond uint64, strconv gives up on integers and go-yaml reads a float.
    expect(goYamlNumber('18446744073709551616')).toBe(2 ** 64);
    expect(goYamlNumber('0x')).toBeUndefined();
    expect(goYamlNumber('+')).toBeUndefined();
    expect(goYamlNumber('1.2.3')).toBeUndefined();
    expect(goYamlNumber('_1')).toBeUndefined();
  });
});

describe('writing YAML that kubectl and Helm read back unchanged', () => {
  it('quotes every string go-yaml would read as something else', () => {
    const value = {
      list: ['off', 'on', 'n', 'yes', '010', '0o10', '08', '1e3', '.5', '1_0', '~', 'null', 'enforce'],
    };
    const text = stringifyKubeYaml(value);
    expect(read(text)).toEqual(value);
  });

  it('the generated CRD, read as YAML 1.1, is exactly the CRD (driftPolicy enum included)', () => {
    const text = readFileSync(join(repoRoot, 'crds', 'glooha.io_gloohas.yaml'), 'utf8');
    const crd = JSON.parse(JSON.stringify(buildCrd(GLOO_API))) as unknown;
    expect(read(text)).toEqual(crd);
    expect(parse(text, { version: '1.1' })).toEqual(crd);
    expect(text).toContain('- ignore');
  });
});

describe('double-quoted scalars, resolved by render itself (the yaml package builds them a character at a time)', () => {
  const cases = [
    '"plain text that is long enough"',
    '"escapes \\n \\t \\\\ \\" \\/ \\0 \\a \\b \\e \\f \\r \\v \\N \\_ \\L \\P \\x41 \\u00e9 \\U0001F600 end"',
    '"folded\n  over\n\n\n  lines with blank ones"',
    '"trailing spaces   \n  and tabs\t\t\n  go"',
    '"crlf\r\n  folded\r\n\r\n  too"',
    '"escaped line break \\\n     joins without a space"',
    '"spaces   inside   stay, and at the end   "',
  ];
  for (const source of cases) {
    it(`${JSON.stringify(source.slice(0, 30))}… as the yaml package reads it`, () => {
      expect(doubleQuotedValue(source)).toBe(parse(`v: ${source.replaceAll('\n', '\n  ')}`).v);
    });
  }

  it('an invalid escape is an error, as kubectl says', () => {
    expect(() => doubleQuotedValue('"bad \\q escape"')).toThrow('Invalid escape sequence \\q');
    expect(() => doubleQuotedValue('"bad \\x4"')).toThrow('Invalid escape sequence \\x4"');
  });

  it('a 3 MB string with a million escapes comes out whole', () => {
    const value = doubleQuotedValue(`"${'a\\n'.repeat(1_000_000)}"`);
    expect(value).toHaveLength(2_000_000);
    expect(value.slice(0, 4)).toBe('a\na\n');
  });
});

describe('the size of a value as the JSON kubectl sends (Go encoding/json, compact)', () => {
  it('is JSON.stringify’s length, with <, > and & escaped in 6 bytes and UTF-8 counted in bytes', () => {
    const plain = { a: [1, 2.5, true, null, 'x"y\\z\n'], b: { c: 'text' } };
    expect(goJsonBytes(plain)).toBe(JSON.stringify(plain).length);
    expect(goJsonBytes({ h: '<a href="x">&</a>' })).toBe(
      JSON.stringify({ h: '<a href="x">&</a>' }).length + 5 * 5, // 2 <, 2 >, 1 &
    );
    expect(goJsonBytes('é')).toBe(4); // "é": two bytes of UTF-8
    expect(goJsonBytes('\u0001')).toBe(8); // "\u0001"
    expect(goJsonBytes(9223372036854775807n)).toBe(19);
  });

  it('stops counting beyond its cap', () => {
    const s = 'x'.repeat(1_000);
    expect(goJsonBytes([s, s, s, s], 1_500)).toBeLessThan(2_100);
    expect(goJsonBytes([s, s, s, s], 1_500)).toBeGreaterThan(1_500);
  });
});
