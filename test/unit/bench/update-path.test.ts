// bench/update-path.ts: each update's time split at the audit log's timestamps, and samples whose
// writes the log does not hold (another namespace, another writer, outside the window) left out.
import { describe, expect, it } from 'vitest';
import { updatePaths } from '../../../bench/update-path.js';
import type { AuditEvent } from '../../../test/support/audit.js';

const t0 = Date.parse('2026-12-07T10:00:00.000Z');
const iso = (ms: number) => new Date(t0 + ms).toISOString().replace('Z', '000Z');

function ev(user: string, resource: string, ns: string, received: number, complete: number): AuditEvent {
  return {
    verb: 'patch',
    user: { username: user },
    objectRef: { resource, namespace: ns, name: 'gloo' },
    requestReceivedTimestamp: iso(received),
    stageTimestamp: iso(complete),
    stage: 'ResponseComplete',
  };
}

const who = { operator: 'system:serviceaccount:ops:glooha', plural: 'gloohas', name: 'gloo' };

describe('updatePaths', () => {
  it("splits an update into the user's patch, the operator's share, its write and the way back", () => {
    const events = [
      ev('admin', 'gloohas', 'a', 2, 10),
      ev(who.operator, 'gloohas', 'a', 40, 45),
      ev(who.operator, 'deployments', 'a', 50, 80),
      ev(who.operator, 'deployments', 'a', 90, 95),
    ];
    expect(updatePaths([{ ns: 'a', sentAt: t0, seenAt: t0 + 100 }], events, who)).toEqual([
      { ns: 'a', totalMs: 100, sentMs: 2, userPatchMs: 8, operatorMs: 40, writeMs: 30, seenMs: 20 },
    ]);
  });

  it('leaves out a sample whose writes are in another namespace, by another writer or outside its window', () => {
    const events = [
      ev('admin', 'gloohas', 'a', 2, 10),
      ev('admin', 'deployments', 'a', 50, 80),
      ev(who.operator, 'deployments', 'b', 50, 80),
      ev(who.operator, 'deployments', 'a', 150, 160),
      ev('admin', 'gloohas', 'c', -20, -10),
      ev(who.operator, 'deployments', 'c', 5, 8),
    ];
    expect(
      updatePaths(
        [
          { ns: 'a', sentAt: t0, seenAt: t0 + 100 },
          { ns: 'c', sentAt: t0, seenAt: t0 + 100 },
        ],
        events,
        who,
      ),
    ).toEqual([]);
  });
});
