// The integration harness's own hygiene: kubeconfigs with tokens do not outlive the test process,
// and the audit-log reader sees requests from before a rotation.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { auditLogText } from '../../support/audit.js';
import { removeKubeconfigs, writeKubeconfig } from '../../support/operator.js';

describe('integration harness', () => {
  it('kubeconfigs it writes are removed (at process exit, or on demand), not left in /tmp', () => {
    const a = writeKubeconfig('glooha-op-', 'apiVersion: v1\nkind: Config\n');
    const b = writeKubeconfig('glooha-op-pod-', 'apiVersion: v1\nkind: Config\n');
    expect(existsSync(a) && existsSync(b)).toBe(true);
    removeKubeconfigs();
    expect(existsSync(dirname(a)) || existsSync(dirname(b))).toBe(false);
  });

  it('the audit reader reads rotated files first, then the current one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glooha-audit-'));
    try {
      writeFileSync(join(dir, 'audit-2026-12-05T10-00-00.000.log'), '{"n":1}\n');
      writeFileSync(join(dir, 'audit-2026-12-05T10-07-00.000.log'), '{"n":2}\n');
      writeFileSync(join(dir, 'audit.log'), '{"n":3}\n');
      writeFileSync(join(dir, 'other.log'), '{"n":9}\n');
      expect(auditLogText(join(dir, 'audit.log'))).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the audit reader leaves out a last line the API server is still writing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glooha-audit-'));
    try {
      writeFileSync(join(dir, 'audit.log'), '{"n":1}\n{"n":2}\n{"n":3,"ver');
      expect(auditLogText(join(dir, 'audit.log'))).toBe('{"n":1}\n{"n":2}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
