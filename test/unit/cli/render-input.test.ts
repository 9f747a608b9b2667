// `glooha render` against hostile and tricky input: YAML read exactly as kubectl reads it, injection
// through metadata, control characters echoed back, nulls, alias bombs, endless input, and output
// written document by document. Each case failed (crashed, injected, or disagreed with kubectl) before.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { main } from '../../../src/cli/main.js';
import { MAX_INPUT_BYTES } from '../../../src/cli/input.js';

const repoRoot = join(import.meta.dirname, '..', '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  writes: number;
}

async function render(text: string, args: string[] = []): Promise<Run> {
  let stdout = '';
  let stderr = '';
  let writes = 0;
  const code = await main(['render', '-f', 'in.yaml', ...args], {
    readFile: () => text,
    readStdin: async () => text,
    stdout: (t) => {
      stdout += t;
      writes++;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr, writes };
}

const head = 'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g, namespace: gloo-system}\n';
const docs = (r: Run) => parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
const deployment = (r: Run, name: string) =>
  docs(r).find((d) => d.kind === 'Deployment' && d.metadata.name === name);

describe('render reads YAML as kubectl does', () => {
  it('replicas: 010 is 8 (octal), as in the cluster', async () => {
    const r = await render(`${head}spec:\n  gloo:\n    replicas: 010\n`);
    expect(r.code).toBe(0);
    expect(deployment(r, 'gloo')?.spec.replicas).toBe(8);
  });

  it('enabled: off is false, so replicas: 3 without leader election is rejected', async () => {
    const r = await render(`${head}spec:\n  gloo:\n    replicas: 3\n    leaderElection: {enabled: off}\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('spec.gloo.leaderElection.enabled: leaderElection.enabled must be true');
    const on = await render(`${head}spec:\n  gloo:\n    replicas: 3\n    leaderElection: {enabled: yes}\n`);
    expect(on.code).toBe(0);
  });

  it('an unquoted driftPolicy: off is the boolean false, and the error says to write ignore', async () => {
    const r = await render(`${head}spec:\n  driftPolicy: off\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'spec.driftPolicy: must be a string, not a boolean: write driftPolicy: ignore',
    );
    expect((await render(`${head}spec:\n  driftPolicy: ignore\n`)).code).toBe(0);
  });

  it('a proxy key on is "true" in the cluster, so its Deployment is true, not on', async () => {
    const r = await render(`${head}spec:\n  gatewayProxies:\n    on: {replicas: 2}\n    n: {replicas: 2}\n`);
    expect(r.code).toBe(0);
    expect(deployment(r, 'true')?.spec.replicas).toBe(2);
    expect(deployment(r, 'false')?.spec.replicas).toBe(2);
    expect(deployment(r, 'on')).toBeUndefined();
  });

  it('merge keys and duplicate keys (the last one wins)', async () => {
    const r = await render(
      `${head}spec:\n  gloo:\n    replicas: 2\n    replicas: 4\n  gatewayProxies:\n    gatewayProxy: &p {replicas: 3}\n    publicGw:\n      <<: *p\n`,
    );
    expect(r.code).toBe(0);
    expect(deployment(r, 'gloo')?.spec.replicas).toBe(4);
    expect(deployment(r, 'public-gw')?.spec.replicas).toBe(3);
  });
});

describe('render refuses hostile input with exit 2, no stack trace', () => {
  it('a namespace that would inject a Secret document', async () => {
    const r = await render(
      'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata:\n  name: g\n  namespace: "x\\n---\\nkind: Secret\\nmetadata: {name: s}"\nspec: {}\n',
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('metadata.namespace: must be a namespace name');
  });

  it('a -n namespace that is not a DNS label', async () => {
    const r = await render('apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g}\nspec: {}\n', [
      '-n',
      'a\nkind: Secret',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toContain('--namespace');
  });

  it('an unknown key with a newline cannot forge an error line, and ANSI escapes are escaped', async () => {
    const r = await render(`${head}spec:\n  gloo:\n    "x\\n  spec.gloo.replicas: forged\\u001b[31m": 1\n`);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^ {2}spec\.gloo\.x\\u000a {2}spec\.gloo\.replicas: forged\\u001b\[31m: unknown field/,
    );
    expect(r.stderr).not.toContain('\u001b');
  });

  it('a null proxy (and other nulls) is dropped, as the API server drops it, instead of crashing', async () => {
    const r = await render(`${head}spec:\n  gatewayProxies:\n    gatewayProxy: {replicas: 2}\n    x: null\n`);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    expect(
      docs(r)
        .filter((d) => d.kind === 'Deployment')
        .map((d) => d.metadata.name),
    ).toEqual(['gloo', 'gateway-proxy']);
    const nulls = await render(`${head}spec:\n  gloo: null\n  discovery: ~\n  gatewayProxies: null\n`);
    expect(nulls.code).toBe(0);
  });

  it('an alias bomb', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const r = await render(`${levels.join('\n')}\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/YAML: more than 100 alias expansions/);
  });

  it(`input over ${MAX_INPUT_BYTES / 1024 / 1024} MiB`, async () => {
    const r = await render(`${head}# ${'x'.repeat(MAX_INPUT_BYTES)}\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('larger than 4 MiB');
  });

  it('text that is not a GlooHA at the top level (a list, a string)', async () => {
    expect((await render('- 1\n- 2\n')).code).toBe(2);
    expect((await render('just a string\n')).code).toBe(2);
  });
});

describe('render output', () => {
  it('is written one document at a time', async () => {
    const many = Array.from(
      { length: 20 },
      (_, i) =>
        `apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g${i}, namespace: ns${i}}\nspec: {}\n`,
    ).join('---\n');
    const r = await render(many);
    expect(r.code).toBe(0);
    expect(r.writes).toBe(docs(r).length);
    expect(r.writes).toBeGreaterThan(20);
  });

  it('quotes Helm values keys that YAML 1.1 would read as booleans', async () => {
    const r = await render(`${head}spec:\n  gatewayProxies:\n    "n": {replicas: 2}\n`, [
      '-o',
      'helm-values',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}"n":$/m);
  });
});

describe('the glooha executable with hostile input', () => {
  const exec = promisify(execFile);
  const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
  const run = (shell: string) =>
    exec('bash', ['-c', shell], { cwd: repoRoot }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it(
    '/dev/zero and an endless stdin stop at the cap with exit 2; a closed stdin is exit 2',
    { timeout: 60_000 },
    async () => {
      const zero = await run(`${tsx} src/cli/glooha.ts render -f /dev/zero`);
      expect(zero.code).toBe(2);
      expect(zero.stderr).toContain('/dev/zero is larger than 4 MiB');
      const endless = await run(`yes | ${tsx} src/cli/glooha.ts render -f -`);
      expect(endless.code).toBe(2);
      expect(endless.stderr).toContain('stdin is larger than 4 MiB');
      const closed = await run(`${tsx} src/cli/glooha.ts render -f - <&-`);
      expect(closed.code).toBe(2);
      expect(closed.stderr).not.toContain('internal error');
      expect(closed.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    },
  );
});

describe('render errors are bounded', () => {
  it('a long value is quoted by its start and length, and many problems of one kind are counted', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `    "${'!'.repeat(500)}${i}": v\n`).join('');
    const r = await render(
      `apiVersion: "${'v'.repeat(100_000)}"\nkind: GlooHA\nmetadata:\n  name: g\n  labels:\n${keys}spec: {}\n`,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `apiVersion: must be glooha.io/v1alpha1, not "${'v'.repeat(80)}"... (100000 characters)`,
    );
    expect(r.stderr.match(/is not a valid label key/g)).toHaveLength(3); // then one line counting the rest
    expect(r.stderr).toContain('... and 197 more like "metadata.labels: ');
    expect(r.stderr.length).toBeLessThan(4_000);
  });
});
