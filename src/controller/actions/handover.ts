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
      await writer.mergePatch(h.release, signal);
    } catch (err) {
      throw new WriteError(h.what, err);
    }
    onDone(h);
  }
}
