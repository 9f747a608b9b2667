// Action: give up the operator's ownership of spec.replicas on Gloo's Deployments, values unchanged
// (see replicas-ownership.ts for why). The patches are independent: sent together.
import { WriteError } from './apply.js';
import type { OwnershipRelease } from '../handover.js';
import type { ObjectWriter } from './writer.js';

export async function runReleaseReplicas(
  releases: readonly OwnershipRelease[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onDone: (r: OwnershipRelease) => void = () => {},
): Promise<void> {
  const results = await Promise.allSettled(
    releases.map(async (r) => {
      try {
        await writer.mergePatch(r.release, signal);
      } catch (err) {
        throw new WriteError(r.what, err);
      }
      onDone(r);
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}
