// `glooha render` on the object around the spec, as the API server judges it on create (issue 28 item
// 4): status is decoded (an unknown field fails the request) and then dropped, ObjectMeta's fields are
// decoded by type, and integers beyond 2^53 are read exactly. Each case is one the API server answers
// differently from what render did before (test/integration/differential.test.ts measures the rest).
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function render(files: Record<string, string>, args: string[] = []): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(['render', '-f', 'in.yaml', ...args], {
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(path), { code: 'ENOENT' });
      return text;
    },
    readStdin: async () => '',
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

const glooHA = (meta = '', rest = '') =>
  `apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g, namespace: gloo-system${meta}}\nspec:\n  gloo: {replicas: 2}\n${rest}`;

describe('status, as the API server decodes it on create', () => {
  it('refuses an unknown field under status, naming it (kubectl: unknown field "status.bogus")', async () => {
    const r = await render({ 'in.yaml': glooHA('', 'status: {bogus: 1}\n') });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('status.bogus: unknown field (known fields: observedGeneration, conditions');
    const nested = await render({
      'in.yaml': glooHA('', 'status:\n  conditions: [{type: Ready, bogus: 1}]\n'),
    });
    expect(nested.stderr).toContain('status.conditions[0].bogus: unknown field');
  });

  it('accepts and ignores a status it can decode, as `kubectl get -o yaml | glooha render -f -` gives it', async () => {
    const r = await render({
      'in.yaml': glooHA(
        '',
        'status:\n  observedGeneration: 9223372036854775807\n  conditions: [{type: Ready}]\n',
      ),
    });
    expect(r.stderr).not.toContain('invalid');
    expect(r.code).toBe(0);
  });
});

describe('integers beyond 2^53', () => {
  it('refuses an ObjectMeta integer beyond int64 and accepts int64 maximum, which a JavaScript number cannot tell apart', async () => {
    const over = await render({ 'in.yaml': glooHA(', generation: 9223372036854775808') });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(
      'metadata.generation: must be an integer from -9223372036854775808 to 9223372036854775807 (int64), not 9223372036854775808',
    );
    const max = await render({ 'in.yaml': glooHA(', generation: 9223372036854775807') });
    expect(max.code).toBe(0);
    // One below int64's minimum is a float to go-yaml (and so to kubectl): refused as well.
    const under = await render({ 'in.yaml': glooHA(', deletionGracePeriodSeconds: -9223372036854775809') });
    expect(under.code).toBe(2);
    expect(under.stderr).toContain('metadata.deletionGracePeriodSeconds: must be an integer');
  });

  it('refuses a label value that is not a string, as decoding does, and reads a null one as ""', async () => {
    const number = await render({ 'in.yaml': glooHA(', labels: {team: 1}') });
    expect(number.code).toBe(2);
    expect(number.stderr).toContain('metadata.labels: must be a map of strings');
    expect((await render({ 'in.yaml': glooHA(', labels: {team: null}') })).code).toBe(0);
  });

  it('an int-or-string beyond int64 is a float to Kubernetes: a type error that stops the rules', async () => {
    const r = await render({
      'in.yaml':
        'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: g}\nspec:\n  gloo: {replicas: 0, podDisruptionBudget: {maxUnavailable: 9223372036854775808}}\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'spec.gloo.podDisruptionBudget.maxUnavailable: must be an integer or a string',
    );
    // A blocking schema error: the API server evaluates no CEL rule, so replicas: 0 is not reported.
    expect(r.stderr).not.toContain('spec.gloo.replicas');
  });

  it('--merge-into prints the install manifests with every integer exactly as written', async () => {
    const deployment = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: gloo, namespace: gloo-system, labels: {gloo: gloo}}',
      'spec:',
      '  replicas: 1',
      '  progressDeadlineSeconds: 9007199254740993',
      '  selector: {matchLabels: {gloo: gloo}}',
      '  template:',
      '    metadata: {labels: {gloo: gloo}}',
      '    spec:',
      '      terminationGracePeriodSeconds: 9223372036854775807',
      '      containers: [{name: gloo, image: gloo}]',
      '',
    ].join('\n');
    const r = await render({ 'in.yaml': glooHA(), 'gloo.yaml': deployment }, ['--merge-into', 'gloo.yaml']);
    expect(r.stderr).not.toContain('invalid');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('progressDeadlineSeconds: 9007199254740993\n');
    expect(r.stdout).toContain('terminationGracePeriodSeconds: 9223372036854775807\n');
  });
});
