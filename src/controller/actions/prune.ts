// Action: delete owned objects the plan no longer wants (only ever objects carrying our owner labels:
// plan.ts chose them).
import type { ObjectRef } from '../plan-types.js';
import { WriteError } from './apply.js';
import type { ObjectWriter } from './writer.js';

export async function runPrunes(
  prunes: readonly ObjectRef[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onDeleted: (ref: ObjectRef) => void = () => {},
): Promise<void> {
  for (const ref of prunes) {
    try {
      await writer.delete(ref, signal);
    } catch (err) {
      throw new WriteError(`${ref.kind} ${ref.namespace}/${ref.name}`, err);
    }
    onDeleted(ref);
  }
}
