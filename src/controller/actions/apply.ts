// Action: server-side apply the planned bodies, in order, as the operator's field manager.
import { MANAGER } from '../../api/constants.js';
import type { PlannedApply } from '../plan-types.js';
import type { ObjectWriter } from './writer.js';

/** A write the API server refused, with the object it was for (for status and logs). */
export class WriteError extends Error {
  override readonly name = 'WriteError';
  constructor(
    /** "Kind namespace/name". */
    readonly what: string,
    override readonly cause: unknown,
  ) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  /** The HTTP status of the refusal (ApiException.code), if there was one. */
  get code(): number | undefined {
    const c = (this.cause as { code?: unknown } | undefined)?.code;
    return typeof c === 'number' ? c : undefined;
  }
}

/**
 * Applies the bodies stage by stage (PlannedApply.stage), each stage's together: one round trip per
 * stage instead of one per object. A stage that had a failure ends the run once all its requests have
 * settled; the first failure (in plan order) is thrown, naming its object.
 */
export async function runApplies(
  applies: readonly PlannedApply[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onApplied: (a: PlannedApply, resourceVersion: string | undefined) => void = () => {},
): Promise<void> {
  const stages = [...new Set(applies.map((a) => a.stage ?? 0))].sort((x, y) => x - y);
  for (const stage of stages) {
    const batch = applies.filter((a) => (a.stage ?? 0) === stage);
    const results = await Promise.allSettled(
      batch.map(async (a) => {
        let resourceVersion: string | undefined;
        try {
          resourceVersion = await writer.apply(a.body, MANAGER, signal);
        } catch (err) {
          throw new WriteError(a.what, err);
        }
        onApplied(a, resourceVersion);
      }),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
