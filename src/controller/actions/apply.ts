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

/** Applies each body; stops at the first failure, which names its object. */
export async function runApplies(
  applies: readonly PlannedApply[],
  writer: ObjectWriter,
  signal: AbortSignal,
  onApplied: (a: PlannedApply) => void = () => {},
): Promise<void> {
  for (const a of applies) {
    try {
      await writer.apply(a.body, MANAGER, signal);
    } catch (err) {
      throw new WriteError(a.what, err);
    }
    onApplied(a);
  }
}
