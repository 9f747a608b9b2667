// loadKubeConfig's errors for files that are not kubeconfigs: one clear message, never client-node's
// "Cannot read properties of undefined (reading 'clusters')".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { KubeConfigError, loadKubeConfig } from '../../../src/kube/config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'glooha-kubeconfig-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'config'), text);
  return join(dir, 'config');
}
const error = (path: string) => {
  try {
    loadKubeConfig({ path, env: {} });
  } catch (err) {
    return err as Error;
  }
  throw new Error('no error');
};

describe('loadKubeConfig: files that are not kubeconfigs', () => {
  it('--kubeconfig /dev/null says the file is empty and what it must hold', () => {
    const err = error('/dev/null');
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err.message).toBe(
      'kubeconfig /dev/null (--kubeconfig) is empty: it must be a kubeconfig (apiVersion: v1, kind: Config, clusters, users, contexts)',
    );
  });

  it('an empty or comment-only file too; a scalar has no cluster', () => {
    expect(error(file('')).message).toContain('is empty');
    expect(error(file('# nothing here\n')).message).toContain('is empty');
    expect(error(file('hello\n')).message).toContain('has no current context with a cluster');
    for (const text of ['', '# x\n', 'hello\n', '- a\n', '[1, 2]\n'])
      expect(error(file(text)).message).not.toContain('Cannot read properties');
  });
});
