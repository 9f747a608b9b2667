// Action: set the GlooHA's finalizer list (add ours before the first write; remove it once finalized).
// Returns the GlooHA as it is after that write: the same object at the resourceVersion the write
// produced, so a status write later in the same reconcile is based on our own finalizer patch instead
// of failing with 409 against it (which every new install's first reconcile did).
import type { HAObject } from '../../api/types.js';
import { WriteError } from './apply.js';
import type { ObjectWriter } from './writer.js';

export async function runFinalizers(
  g: HAObject,
  finalizers: string[],
  writer: ObjectWriter,
  signal: AbortSignal,
): Promise<HAObject> {
  try {
    const resourceVersion = await writer.setFinalizers(g, finalizers, signal);
    if (resourceVersion === undefined) return g;
    return { ...g, metadata: { ...g.metadata, finalizers, resourceVersion } };
  } catch (err) {
    throw new WriteError(`${g.kind} ${g.metadata.namespace}/${g.metadata.name}`, err);
  }
}
