// Action: set the GlooHA's finalizer list (add ours before the first write; remove it once finalized).
import type { GlooHA } from '../../api/types.js';
import { WriteError } from './apply.js';
import type { ObjectWriter } from './writer.js';

export async function runFinalizers(
  g: GlooHA,
  finalizers: string[],
  writer: ObjectWriter,
  signal: AbortSignal,
): Promise<void> {
  try {
    await writer.setFinalizers(g, finalizers, signal);
  } catch (err) {
    throw new WriteError(`GlooHA ${g.metadata.namespace}/${g.metadata.name}`, err);
  }
}
