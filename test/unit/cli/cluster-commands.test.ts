// The cluster commands' pure parts: flags, the status summary and table, completion scripts, the
// kubeconfig errors, the operator permission list. Their behaviour against a real API server is
// test/integration/cli.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GlooHA } from '../../../src/products/gloo/types.js';
import { COMMANDS, EXIT, parseArgs } from '../../../src/cli/args.js';
import { completionScript } from '../../../src/cli/completion.js';
import { main } from '../../../src/cli/main.js';
import { judge } from '../../../src/cli/lifecycle.js';
import { formatTable, summarize } from '../../../src/cli/status.js';
import { KubeConfigError, loadKubeConfig } from '../../../src/kube/config.js';

async function run(args: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    args,
    {
      readFile: () => '',
      readStdin: async () => '',
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
    },
    env,
  );
  return { code, stdout, stderr };
}

const glooha = (status: GlooHA['status'], generation = 1): GlooHA => ({
  apiVersion: 'glooha.io/v1alpha1',
  kind: 'GlooHA',
  metadata: { name: 'gloo', namespace: 'gloo-system', generation },
  spec: {},
  status,
});

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2030-01-01T00:00:00Z',
});

describe('glooha status: summary', () => {
  it('a GlooHA without status is Unknown with reason NoStatus, and says what to check', () => {
    const s = summarize(glooha(undefined));
    expect(s.ready).toMatchObject({ status: 'Unknown', reason: 'NoStatus' });
    expect(s.ready.message).toContain('glooha check');
  });

  it('a status of an older generation is not taken as Ready', () => {
    const s = summarize(
      glooha({ observedGeneration: 1, conditions: [cond('Ready', 'True', 'Reconciled')] }, 2),
    );
    expect(s.ready).toMatchObject({ status: 'Unknown', reason: 'NotObserved' });
  });

  it('reads Ready, Stalled, components, leader and drift', () => {
    const s = summarize(
      glooha({
        observedGeneration: 1,
        conditions: [
          cond('Ready', 'False', 'DeploymentNotFound', 'gateway-proxy not found'),
          cond('Stalled', 'True', 'DeploymentNotFound', 'gateway-proxy not found'),
          cond('Drifted', 'False', 'DriftCorrected', 'replicas'),
        ],
        components: {
          gloo: { deploymentName: 'gloo', desiredReplicas: 3, readyReplicas: 2 },
          gatewayProxies: {
            publicGw: {
              deploymentName: 'public-gw',
              desiredReplicas: 3,
              readyReplicas: 4,
              autoscaling: { hpaName: 'h', minReplicas: 3, maxReplicas: 9, currentReplicas: 4 },
            },
          },
        },
        leader: { holder: 'gloo-abc', fresh: false, leaseDurationSeconds: 15 },
      }),
    );
    expect(s.components).toEqual([
      { name: 'gloo', deployment: 'gloo', ready: 2, desired: 3 },
      { name: 'publicGw', deployment: 'public-gw', ready: 4, desired: 4 },
    ]);
    const table = formatTable([s], true);
    expect(table.split('\n')[0]).toMatch(/^NAMESPACE\s+KIND\s+NAME\s+READY\s+STALLED\s+REASON/);
    expect(table).toContain('gloo-system');
    expect(table).toContain('DeploymentNotFound');
    expect(table).toContain('gloo 2/3, publicGw 4/4');
    expect(table).toContain('gloo-abc (stale)');
    expect(table).toContain('Corrected');
    expect(formatTable([s], false)).not.toContain('NAMESPACE');
  });

  it("a KgatewayHA: its kind, the controller and each Gateway, kgateway's leader", () => {
    const s = summarize({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'KgatewayHA',
      metadata: { name: 'kgateway', namespace: 'kgateway-system', generation: 2 },
      status: {
        observedGeneration: 2,
        conditions: [
          cond('Ready', 'False', 'GatewayParametersNotFound', 'gp missing'),
          cond('Stalled', 'True', 'GatewayParametersNotFound', 'gp missing'),
        ],
        components: {
          controller: { deploymentName: 'kgateway', desiredReplicas: 3, readyReplicas: 3 },
          gateways: { http: { deploymentName: 'http', desiredReplicas: 2, readyReplicas: 1 } },
        },
        leader: { holder: 'kgateway-7d9f', fresh: true, leaseDurationSeconds: 15 },
      },
    });
    expect(s.kind).toBe('KgatewayHA');
    expect(s.components.map((c) => `${c.name} ${c.ready}/${c.desired}`)).toEqual([
      'controller 3/3',
      'http 1/2',
    ]);
    const table = formatTable([s, summarize(glooha(undefined))], false);
    expect(table).toMatch(
      /^KgatewayHA\s+kgateway\s+False\s+True\s+GatewayParametersNotFound\s+controller 3\/3, http 1\/2\s+kgateway-7d9f \(fresh\)/m,
    );
    expect(table).toMatch(/^GlooHA\s+gloo\s+Unknown/m);
  });

  it('escapes control characters a status message could carry', () => {
    const s = summarize(
      glooha({ observedGeneration: 1, conditions: [cond('Ready', 'False', 'X\u001b[31m', 'm')] }),
    );
    expect(formatTable([s], false)).toContain('X\\u001b[31m');
  });
});

describe('glooha cluster commands: flags', () => {
  it('parses status, check, helm-values and completion', () => {
    expect(parseArgs(['status', '-A', '-o', 'json'])).toEqual({
      command: 'status',
      allNamespaces: true,
      output: 'json',
    });
    expect(parseArgs(['status', 'gloo', '-n', 'gloo-system', '--context=kind'])).toEqual({
      command: 'status',
      name: 'gloo',
      namespace: 'gloo-system',
      allNamespaces: false,
      output: 'table',
      context: 'kind',
    });
    expect(parseArgs(['check', '--operator-namespace', 'glooha-system'])).toEqual({
      command: 'check',
      operatorNamespace: 'glooha-system',
    });
    // -n narrows the install checks to one namespace, in every form kubectl takes.
    for (const form of [['-n', 'gloo-system'], ['-ngloo-system'], ['--namespace=gloo-system']])
      expect(parseArgs(['check', ...form])).toEqual({ command: 'check', namespace: 'gloo-system' });
    expect(parseArgs(['helm-values', 'gloo', '--kubeconfig', '/k'])).toEqual({
      command: 'helm-values',
      name: 'gloo',
      kubeconfig: '/k',
    });
    expect(parseArgs(['completion', 'zsh'])).toEqual({ command: 'completion', shell: 'zsh' });
    expect(parseArgs(['status', '--help'])).toEqual({ command: 'help', topic: 'status' });
    expect(parseArgs(['help', 'check'])).toEqual({ command: 'help', topic: 'check' });
  });

  it.each([
    [['status', 'gloo', '-A'], 'NAME needs one namespace', 'status'],
    [['status', '-o', 'wide'], '--output must be one of table, json, yaml', 'status'],
    [['status', 'a', 'b'], 'unexpected argument "b"', 'status'],
    [['helm-values'], 'missing NAME', 'helm-values'],
    [['helm-values', 'Bad_Name'], 'NAME must be a GlooHA or KgatewayHA name', 'helm-values'],
    [['completion', 'fish'], 'SHELL must be one of bash, zsh', 'completion'],
    [['check', '-A'], 'unknown flag -A', 'check'],
  ])('usage error %j exits 2 and points at the command help', async (args, message, topic) => {
    const r = await run(args);
    expect(r.code).toBe(EXIT.INVALID);
    expect(r.stderr).toContain(`glooha: ${message}`);
    expect(r.stderr).toContain(`Run 'glooha ${topic} --help' for usage.`);
  });

  it('every command has --help, and the top-level help lists the exit codes', async () => {
    for (const c of COMMANDS) {
      const r = await run([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toContain(`glooha ${c}`);
    }
    const top = await run(['--help']);
    expect(top.stdout).toContain('3 cluster unusable');
    expect(top.stdout).toContain('5 status: not every object Ready');
  });
});

describe('kubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-kc-'));

  it('a missing file is one line naming it and the fix, exit 3, no stack', async () => {
    const r = await run(['status', '--kubeconfig', join(dir, 'nope')]);
    expect(r.code).toBe(EXIT.CLUSTER);
    expect(r.stderr).toBe(
      `glooha: kubeconfig ${join(dir, 'nope')} (--kubeconfig) does not exist: give an existing file\n`,
    );
    const env = await run(['check'], { KUBECONFIG: join(dir, 'nope') });
    expect(env.code).toBe(EXIT.CLUSTER);
    expect(env.stderr).toContain('no such file; set KUBECONFIG');
    expect(env.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    [
      '/dev/null',
      'kubeconfig /dev/null (--kubeconfig) is empty: it must be a kubeconfig (apiVersion: v1, kind: Config, clusters, users, contexts)',
    ],
    ['/', 'kubeconfig / (--kubeconfig) cannot be read: EISDIR: illegal operation on a directory, read'],
    [
      'package.json',
      'kubeconfig package.json (--kubeconfig) has no current context with a cluster; pick one with --context or kubectl config use-context NAME',
    ],
  ])('an unusable --kubeconfig %s is one line saying what it is, exit 3', async (path, message) => {
    const r = await run(['status', '--kubeconfig', path]);
    expect(r.code).toBe(EXIT.CLUSTER);
    expect(r.stderr).toBe(`glooha: ${message}\n`);
  });

  it('no kubeconfig anywhere says where it looked', () => {
    expect(() => loadKubeConfig({ env: {}, home: dir })).toThrow(KubeConfigError);
    expect(() => loadKubeConfig({ env: {}, home: dir })).toThrow(
      /KUBECONFIG is not set, .*\.kube\/config does not exist/,
    );
  });

  it('an unknown context lists the ones there are; unreadable YAML is named', () => {
    const file = join(dir, 'config');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'one', context: { cluster: 'c', user: 'u', namespace: 'ns1' } }],
        'current-context': 'one',
      }),
    );
    expect(loadKubeConfig({ path: file }).getCurrentContext()).toBe('one');
    expect(() => loadKubeConfig({ path: file, context: 'two' })).toThrow(
      /has no context "two" \(it has: one\)/,
    );
    const bad = join(dir, 'bad');
    writeFileSync(bad, 'clusters: [');
    expect(() => loadKubeConfig({ path: bad })).toThrow(/cannot be read/);
  });

  it('an unreachable API server is exit 3 with its address, no stack', async () => {
    const file = join(dir, 'config');
    const r = await run(['status', '--kubeconfig', file]);
    expect(r.code).toBe(EXIT.CLUSTER);
    expect(r.stderr).toMatch(/^glooha: list GlooHAs in ns1: cannot reach the API server at 127\.0\.0\.1:1: /);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('glooha completion', () => {
  it.each(['bash', 'zsh'] as const)('%s: a script the shell parses, with every command and flag', (shell) => {
    const script = completionScript(shell);
    for (const word of [
      'render',
      'status',
      'check',
      'helm-values',
      '--all-namespaces',
      '--operator-namespace',
    ]) {
      expect(script).toContain(word);
    }
    execFileSync('bash', ['-n'], { input: script });
  });

  it('bash: completes commands and status outputs', () => {
    const out = execFileSync(
      'bash',
      [
        '-c',
        `${completionScript('bash')}
COMP_WORDS=(glooha st); COMP_CWORD=1; _glooha; echo "\${COMPREPLY[*]}"
COMP_WORDS=(glooha status -o ""); COMP_CWORD=3; _glooha; echo "\${COMPREPLY[*]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.split('\n')).toEqual(['status', 'table json yaml', '']);
  });

  it('bash: the new commands, --kind values, and the flags of reconcile', () => {
    const out = execFileSync(
      'bash',
      [
        '-c',
        `${completionScript('bash')}
COMP_WORDS=(glooha re); COMP_CWORD=1; _glooha; echo "\${COMPREPLY[*]}"
COMP_WORDS=(glooha reconcile --kind ""); COMP_CWORD=3; _glooha; echo "\${COMPREPLY[*]}"
COMP_WORDS=(glooha reconcile --t); COMP_CWORD=2; _glooha; echo "\${COMPREPLY[*]}"
COMP_WORDS=(glooha suspend --); COMP_CWORD=2; _glooha; echo "\${COMPREPLY[*]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.split('\n')).toEqual([
      'render resume reconcile',
      'glooha kgatewayha',
      '--timeout',
      '--namespace --kind --kubeconfig --context --help',
      '',
    ]);
  });
});

describe('glooha reconcile/resume: when the wait is over', () => {
  const at = '2030-01-01T00:00:00.000Z';
  const obj = (status: GlooHA['status'], suspend = false): GlooHA => ({
    ...glooha(status, 2),
    spec: { suspend },
  });
  it('not before the operator echoed the request, at the generation written', () => {
    expect(judge(obj({ observedGeneration: 2 }), at, 2).done).toBe(false);
    expect(judge(obj({ observedGeneration: 1, lastHandledReconcileAt: at }), at, 2).done).toBe(false);
  });
  it('handled: Ready=True is done, Stalled=True is a failure, a suspended object is done once handled', () => {
    const ready = [cond('Ready', 'True', 'Reconciled')];
    const stalled = [cond('Ready', 'False', 'X'), cond('Stalled', 'True', 'X')];
    const handled = { observedGeneration: 2, lastHandledReconcileAt: at };
    expect(judge(obj({ ...handled, conditions: ready }), at, 2)).toMatchObject({ done: true, ok: true });
    expect(judge(obj({ ...handled, conditions: stalled }), at, 2)).toMatchObject({ done: true, ok: false });
    expect(
      judge(obj({ ...handled, conditions: [cond('Ready', 'False', 'Progressing', 'waiting')] }), at, 2),
    ).toEqual({
      done: false,
      waiting: 'handled, not Ready yet: waiting',
    });
    expect(judge(obj({ ...handled, conditions: stalled }, true), at, 2)).toMatchObject({
      done: true,
      ok: true,
    });
  });
});
