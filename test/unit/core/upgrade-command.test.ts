// The values-path command the ConfigMap header prints, pasted into bash -c as printed, with stand-ins
// for kubectl and helm that record the arguments they get: what the shell hands them is what the real
// ones would read (the real run is in test/integration/helm-coexistence.test.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { upgradeCommand } from '../../../src/core/helm-values-yaml.js';
import { GLOO_HELM_CHART } from '../../../src/products/gloo/helm-values.js';
import { KGATEWAY_HELM_CHART } from '../../../src/products/kgateway/facts.js';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

function runInBash(command: string, env: Record<string, string> = {}, valuesFile = 'values-glooha.yaml') {
  dir = mkdtempSync(join(tmpdir(), 'glooha-cmd-'));
  // Each stand-in writes its argv, one per line, to <name>.args; kubectl prints some values.
  for (const [name, out] of [
    ['kubectl', 'gloo:\n  deployment:\n    replicas: 3\n'],
    ['helm', ''],
  ] as const) {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/bash\nprintf '%s\\n' "$@" > "${dir}/${name}.args"\nprintf '%s' '${out}'\n`);
    chmodSync(file, 0o755);
  }
  execFileSync('bash', ['-c', command], { cwd: dir, env: { PATH: `${dir}:/usr/bin:/bin`, ...env } });
  const args = (name: string) =>
    readFileSync(join(dir!, `${name}.args`), 'utf8')
      .trimEnd()
      .split('\n');
  return {
    kubectl: args('kubectl'),
    helm: args('helm'),
    values: readFileSync(join(dir, valuesFile), 'utf8'),
  };
}

describe('the printed values-path command, through bash -c', () => {
  const command = upgradeCommand({
    chart: GLOO_HELM_CHART,
    chartVersion: '1.22.1',
    valuesFile: 'values-glooha.yaml',
    release: 'edge',
    namespace: 'gloo-system',
    configMap: { namespace: 'ops', name: 'ha-helm-values' },
  });

  it('holds no double quote or backslash: Helm 4 prints the refusal that carries it Go-quoted', () => {
    expect(command).not.toMatch(/["\\]/);
  });

  it('hands kubectl the go-template with its raw string and the ConfigMap namespace, and saves what it prints', () => {
    const r = runInBash(command);
    expect(r.kubectl).toEqual([
      '-n',
      'ops',
      'get',
      'configmap',
      'ha-helm-values',
      '-o',
      'go-template={{index .data `values.yaml`}}',
    ]);
    expect(r.values).toBe('gloo:\n  deployment:\n    replicas: 3\n');
  });

  it("upgrades the release in the install's namespace, with Gloo's chart or GLOO_CHART", () => {
    expect(runInBash(command).helm).toEqual([
      'upgrade',
      'edge',
      'gloo/gloo',
      '--version',
      '1.22.1',
      '-n',
      'gloo-system',
      '--reset-then-reuse-values',
      '-f',
      'values-glooha.yaml',
    ]);
    expect(runInBash(command, { GLOO_CHART: '/charts/gloo-1.22.1.tgz' }).helm[2]).toBe(
      '/charts/gloo-1.22.1.tgz',
    );
  });

  it("a KgatewayHA's: kgateway's release and OCI chart (or KGATEWAY_CHART) at the installed version, values-kgatewayha.yaml", () => {
    const kgw = upgradeCommand({
      chart: KGATEWAY_HELM_CHART,
      chartVersion: 'v2.4.2',
      valuesFile: 'values-kgatewayha.yaml',
      release: 'kgw',
      namespace: 'kgateway-system',
      configMap: { namespace: 'kgateway-system', name: 'kgw-kgateway-helm-values' },
    });
    expect(kgw).not.toMatch(/["\\]/);
    const r = runInBash(kgw, {}, 'values-kgatewayha.yaml');
    expect(r.kubectl.slice(0, 5)).toEqual([
      '-n',
      'kgateway-system',
      'get',
      'configmap',
      'kgw-kgateway-helm-values',
    ]);
    expect(r.helm).toEqual([
      'upgrade',
      'kgw',
      'oci://cr.kgateway.dev/kgateway-dev/charts/kgateway',
      '--version',
      'v2.4.2',
      '-n',
      'kgateway-system',
      '--reset-then-reuse-values',
      '-f',
      'values-kgatewayha.yaml',
    ]);
    expect(runInBash(kgw, { KGATEWAY_CHART: 'mirror/kgateway' }, 'values-kgatewayha.yaml').helm[2]).toBe(
      'mirror/kgateway',
    );
  });
});
