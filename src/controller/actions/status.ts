// Action: write the planned status. plan.ts already skipped a status equal to the cached one; this
// also skips writing the same status again while the cache has not caught up with our last write
// (same status, computed from the same resourceVersion), so a burst of reconciles writes it once.
import type { HAObject, HAStatus } from '../../api/types.js';
import { canonicalJson } from '../compare.js';
import type { ReconcilerMemory } from '../memory.js';
import { WriteError } from './apply.js';
import type { ObjectWriter } from './writer.js';

/** Returns whether a write went out. */
export async function runStatus(
  key: string,
  g: HAObject,
  status: HAStatus,
  memory: ReconcilerMemory,
  writer: ObjectWriter,
  signal: AbortSignal,
): Promise<boolean> {
  const json = canonicalJson(status);
  const last = memory.lastStatusWrite(key);
  if (last && last.json === json && last.basedOn === g.metadata.resourceVersion) return false;
  try {
    const wrote = await writer.writeStatus(g, status, signal);
    memory.recordStatusWrite(key, { json, basedOn: g.metadata.resourceVersion, wrote });
  } catch (err) {
    throw new WriteError(`${g.kind} ${key} status`, err);
  }
  return true;
}
