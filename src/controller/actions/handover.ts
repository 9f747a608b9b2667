// Action: on deletion, release the operator's field ownership on Gloo's objects, values unchanged
// (see handover.ts for why ownership is dropped rather than handed to a second manager).
import { WriteError } from './apply.js';
import type { OwnershipRelease } from '../handover.js';
import type { ObjectWriter } from './writer.js';

export async function runHandover(
  handovers: readonly OwnershipRelease[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onDone: (h: OwnershipRelease) => void = () => {},
): Promise<void> {
  for (const h of handovers) {
    try {
      // The release must go on the resourceVersion the prepare produced, and drop the entry the
      // prepare's write recorded under our manager (it is one of ours: the release's list omits it).
      const basedOn = h.prepare ? await writer.mergePatch(h.prepare, signal) : undefined;
      const release =
        basedOn === undefined
          ? h.release
          : { ...h.release, metadata: { ...h.release.metadata, resourceVersion: basedOn } };
      await writer.mergePatch(release, signal);
    } catch (err) {
      throw new WriteError(h.what, err);
    }
    onDone(h);
  }
}
