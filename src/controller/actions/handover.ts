// Action: on deletion, hand the fields we hold on Gloo's objects to HANDOVER_MANAGER, then release
// ours (see handover.ts for why the order matters: releasing first would let the API server drop
// `replicas`, and the Deployment would fall back to 1).
import { MANAGER } from '../../api/constants.js';
import { HANDOVER_MANAGER } from '../drift.js';
import type { Handover } from '../handover.js';
import { WriteError } from './apply.js';
import type { ObjectWriter } from './writer.js';

export async function runHandover(
  handovers: readonly Handover[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onDone: (h: Handover) => void = () => {},
): Promise<void> {
  for (const h of handovers) {
    try {
      if (h.held) await writer.apply(h.held, HANDOVER_MANAGER, signal);
      await writer.apply(h.release, MANAGER, signal);
    } catch (err) {
      throw new WriteError(h.what, err);
    }
    onDone(h);
  }
}
