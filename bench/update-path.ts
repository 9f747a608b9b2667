// Where an update's time goes, sample by sample, from the API server's audit log (the same clock as
// the bench's: one machine): the user's PATCH of the GlooHA, sent and served, the operator's write of the Deployment
// it changes, and the bench's watch seeing it. An update → applied figure alone cannot tell the
// operator's share (watch delivery, queue, reconcile, plan) from the API server's (the SSA write under
// load) or the way back (the bench's own watch).
import type { AuditEvent } from '../test/support/audit.js';

export interface UpdateSample {
  ns: string;
  /** Wall-clock ms (Date.now()) when the bench sent the GlooHA's PATCH. */
  sentAt: number;
  /** Wall-clock ms when the bench's watch saw the Deployment with the new replicas. */
  seenAt: number;
}

export interface UpdatePath {
  ns: string;
  totalMs: number;
  /** The bench's PATCH of the GlooHA: sent → the API server received it (the bench's event loop, the connection). */
  sentMs: number;
  /** That PATCH in the API server: received → response complete. */
  userPatchMs: number;
  /** That response → the API server received the operator's Deployment write: watch delivery, queue, reconcile, plan. */
  operatorMs: number;
  /** The operator's Deployment write: received → response complete. */
  writeMs: number;
  /** The write's response → the bench's watch saw it (the bench's side, not the operator's). */
  seenMs: number;
}

const at = (t: string) => Date.parse(t);

/**
 * One breakdown per sample whose two writes the audit log holds: `operator` is the operator's user
 * name, `kind` the plural of the custom resource, `name` the install's (the GlooHA's and Deployment's).
 */
export function updatePaths(
  samples: readonly UpdateSample[],
  events: readonly AuditEvent[],
  who: { operator: string; plural: string; name: string },
): UpdatePath[] {
  const out: UpdatePath[] = [];
  for (const s of samples) {
    const inNs = events.filter(
      (e) => e.objectRef?.namespace === s.ns && e.objectRef.name === who.name && !e.objectRef.subresource,
    );
    const user = inNs.find(
      (e) =>
        e.objectRef?.resource === who.plural &&
        e.verb === 'patch' &&
        e.user.username !== who.operator &&
        at(e.requestReceivedTimestamp) >= s.sentAt - 1 &&
        at(e.requestReceivedTimestamp) <= s.seenAt,
    );
    if (!user) continue;
    const write = inNs.find(
      (e) =>
        e.objectRef?.resource === 'deployments' &&
        e.user.username === who.operator &&
        at(e.requestReceivedTimestamp) >= at(user.requestReceivedTimestamp) &&
        at(e.requestReceivedTimestamp) <= s.seenAt,
    );
    if (!write) continue;
    out.push({
      ns: s.ns,
      totalMs: s.seenAt - s.sentAt,
      sentMs: at(user.requestReceivedTimestamp) - s.sentAt,
      userPatchMs: at(user.stageTimestamp) - at(user.requestReceivedTimestamp),
      operatorMs: at(write.requestReceivedTimestamp) - at(user.stageTimestamp),
      writeMs: at(write.stageTimestamp) - at(write.requestReceivedTimestamp),
      seenMs: s.seenAt - at(write.stageTimestamp),
    });
  }
  return out;
}
