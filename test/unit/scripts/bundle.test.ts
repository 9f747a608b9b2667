import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeNonAscii } from '../../../scripts/ascii-source.mjs';

describe("the image's bundle is ASCII, so V8 holds its source at one byte per character", () => {
  it('escapes every non-ASCII code unit, and the code means the same', () => {
    const source = '// it’s a comment\n"a’b" + `c→d` + "e😀f"';
    const escaped = escapeNonAscii(source);
    expect(escaped).not.toMatch(/[\u0080-\uffff]/);
    expect(escaped).toContain('// it\\u2019s a comment');
    expect(runInNewContext(escaped)).toBe('a’bc→de😀f');
  });

  const out = mkdtempSync(join(tmpdir(), 'glooha-bundle-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('scripts/bundle.mjs writes a bundle with no character outside ASCII (comments included)', () => {
    execFileSync(process.execPath, ['scripts/bundle.mjs', out], { stdio: 'pipe' });
    const text = readFileSync(join(out, 'dist/src/main.js'), 'utf8');
    expect(text.length).toBeGreaterThan(1_000_000);
    const outside = [...text.matchAll(/[\u0080-\uffff]/g)].map((m) => text.slice(m.index - 30, m.index + 5));
    expect(outside).toEqual([]);
  }, 120_000);
});
