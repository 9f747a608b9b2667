// The command line as kubectl users type it: one test per flag form, the closest-flag hints, and the
// new commands' flags. The parser is node:util parseArgs; these pin what glooha adds around it.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/cli/args.js';

const status = (extra: object = {}) => ({
  command: 'status',
  allNamespaces: false,
  output: 'table',
  ...extra,
});

describe('kubectl flag forms', () => {
  it.each([
    ['-ojson', ['status', '-ojson']],
    ['-o=json', ['status', '-o=json']],
    ['-o json', ['status', '-o', 'json']],
    ['--output=json', ['status', '--output=json']],
    ['--output json', ['status', '--output', 'json']],
  ])('%s', (_form, argv) => {
    expect(parseArgs(argv)).toEqual(status({ output: 'json' }));
  });

  it.each([
    ['-nNS', ['status', '-ngloo-system']],
    ['-n NS', ['status', '-n', 'gloo-system']],
    ['-n=NS', ['status', '-n=gloo-system']],
    ['--namespace=NS', ['status', '--namespace=gloo-system']],
    ['--namespace NS', ['status', '--namespace', 'gloo-system']],
    ['flags before the command', ['-n', 'gloo-system', 'status']],
  ])('%s', (_form, argv) => {
    expect(parseArgs(argv)).toEqual(status({ namespace: 'gloo-system' }));
  });

  it('-A, --all-namespaces, --all-namespaces=true, and -A combined with -o (-Aojson)', () => {
    expect(parseArgs(['status', '-A'])).toEqual(status({ allNamespaces: true }));
    expect(parseArgs(['status', '--all-namespaces'])).toEqual(status({ allNamespaces: true }));
    expect(parseArgs(['status', '--all-namespaces=true'])).toEqual(status({ allNamespaces: true }));
    expect(parseArgs(['status', '--all-namespaces=false'])).toEqual(status());
    expect(parseArgs(['status', '-Aojson'])).toEqual(status({ allNamespaces: true, output: 'json' }));
    // -A wins over -n, in either order, as in kubectl.
    expect(parseArgs(['status', '-n', 'x', '-A'])).toEqual(status({ allNamespaces: true }));
    expect(parseArgs(['status', '-A', '--namespace=x'])).toEqual(status({ allNamespaces: true }));
  });

  it('-- ends the flags: what follows is an argument even if it starts with a dash', () => {
    expect(parseArgs(['status', '-n', 'ns', '--', 'gloo'])).toEqual(
      status({ namespace: 'ns', name: 'gloo' }),
    );
    // After --, "-o" is NAME (and not a valid one), not the output flag.
    expect(() => parseArgs(['status', '--', '-o'])).toThrow(
      /^NAME must be a GlooHA or KgatewayHA name .*, not "-o"$/,
    );
  });

  it('--kubeconfig and --context, both forms', () => {
    expect(parseArgs(['status', '--kubeconfig', '/k', '--context=kind-a'])).toEqual(
      status({ kubeconfig: '/k', context: 'kind-a' }),
    );
    expect(parseArgs(['check', '--kubeconfig=/k', '--context', 'b'])).toEqual({
      command: 'check',
      kubeconfig: '/k',
      context: 'b',
    });
  });

  it('-f - is stdin, -f=FILE and -fFILE are files', () => {
    const render = (filename: string) => ({
      command: 'render',
      filename,
      output: 'manifests',
      namespace: undefined,
      flags: {},
    });
    expect(parseArgs(['render', '-f', '-'])).toEqual(render('-'));
    expect(parseArgs(['render', '-f=a.yaml'])).toEqual(render('a.yaml'));
    expect(parseArgs(['render', '-fa.yaml'])).toEqual(render('a.yaml'));
  });

  it('the last of a repeated flag wins, as in kubectl', () => {
    expect(parseArgs(['status', '-n', 'a', '-n', 'b'])).toEqual(status({ namespace: 'b' }));
  });

  it('--kind takes kubectl names of either kind', () => {
    for (const k of ['glooha', 'GlooHA', 'gha', 'gloohas', 'gloohas.glooha.io'])
      expect(parseArgs(['status', '--kind', k])).toEqual(status({ kind: 'GlooHA' }));
    for (const k of ['kgatewayha', 'KgatewayHA', 'kha', 'kgatewayhas'])
      expect(parseArgs(['status', `--kind=${k}`])).toEqual(status({ kind: 'KgatewayHA' }));
  });
});

describe('errors name the fix', () => {
  const usage = (argv: string[]) => {
    try {
      parseArgs(argv);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as UsageError).message;
    }
    throw new Error(`${argv.join(' ')} parsed`);
  };

  it('an unknown flag names the closest valid one', () => {
    expect(usage(['status', '--namspace', 'x'])).toMatch(
      /^unknown flag --namspace; did you mean --namespace\?/,
    );
    expect(usage(['status', '--all-namespace'])).toMatch(/did you mean --all-namespaces\?/);
    expect(usage(['status', '--ouput=json'])).toMatch(/did you mean --output\?/);
    expect(usage(['render', '-f', 'x', '--merge-in', 'y'])).toMatch(/did you mean --merge-into\?/);
    expect(usage(['reconcile', 'x', '--timout', '1m'])).toMatch(/did you mean --timeout\?/);
  });

  it("a flag of another command says so, and lists this command's flags", () => {
    expect(usage(['check', '-A'])).toBe(
      'unknown flag -A (-A is not a flag of glooha check) (flags of glooha check: -n, --namespace, --operator-namespace, --kubeconfig, --context, -h, --help)',
    );
  });

  it('a flag without its value, or with a flag for a value', () => {
    expect(usage(['status', '-n'])).toBe('flag -n needs a value (-n NS)');
    expect(usage(['status', '-n', '-A'])).toBe('flag -n needs a value (-n NS)');
    expect(usage(['status', '--namespace='])).toBe('flag --namespace needs a value (--namespace NS)');
  });

  it('a boolean with a value, an unknown command, a bad -o', () => {
    expect(usage(['status', '-A=yes'])).toMatch(
      /^flag --all-namespaces takes no value \(or =true, =false\), not "yes"/,
    );
    expect(usage(['stauts'])).toMatch(/^unknown command "stauts"; did you mean status\?/);
    expect(usage(['status', '-ojsn'])).toBe(
      '--output must be one of table, json, yaml, not "jsn"; did you mean json?',
    );
    expect(usage(['status', '--kind', 'gloo'])).toMatch(/^--kind must be glooha or kgatewayha/);
  });
});

describe('suspend, resume, reconcile', () => {
  it('take NAME, -n, --kind and the cluster flags; resume and reconcile wait by default', () => {
    expect(parseArgs(['suspend', 'gloo', '-n', 'gloo-system'])).toEqual({
      command: 'suspend',
      name: 'gloo',
      namespace: 'gloo-system',
      wait: false,
      timeoutMs: 60_000,
    });
    expect(parseArgs(['reconcile', 'kgateway', '--kind', 'kha', '--timeout', '2m30s'])).toEqual({
      command: 'reconcile',
      name: 'kgateway',
      kind: 'KgatewayHA',
      wait: true,
      timeoutMs: 150_000,
    });
    expect(parseArgs(['resume', 'gloo', '--wait=false', '--context', 'c'])).toEqual({
      command: 'resume',
      name: 'gloo',
      wait: false,
      timeoutMs: 60_000,
      context: 'c',
    });
  });

  it('refuse a missing NAME, a bad timeout, and --wait on suspend', () => {
    expect(() => parseArgs(['suspend'])).toThrow('missing NAME');
    expect(() => parseArgs(['reconcile', 'x', '--timeout', '10'])).toThrow(/--timeout must be a duration/);
    expect(() => parseArgs(['suspend', 'x', '--wait'])).toThrow(/unknown flag --wait/);
  });
});
