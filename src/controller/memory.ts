// What the reconciler remembers per GlooHA between reconciles — kept small and forgotten when the
// GlooHA goes, whichever replica sees it go (a standby too: its informer sees the delete even though it
// reconciles nothing, and would otherwise keep the entries of every GlooHA ever deleted).
import type { OwnApply } from './plan-types.js';
import type { DriftReport } from './status.js';

const NO_APPLIES: ReadonlyMap<string, OwnApply> = new Map();

interface StatusWrite {
  json: string;
  basedOn: string | undefined;
  /** The resourceVersion our write produced: the watch event carrying it is our own write. */
  wrote?: string | undefined;
}

export class ReconcilerMemory {
  /**
   * The last drift corrections. Kept here, not only in status: the status in the cache may be a step
   * behind our own write, and a reconcile computing status from it would erase the record.
   */
  private readonly corrections = new Map<string, DriftReport[]>();
  private readonly statusWrites = new Map<string, StatusWrite>();
  /** Consecutive terminal failures (invalid object) per key: their requeue backs off. */
  private readonly terminalFailures = new Map<string, number>();
  /** Our last accepted apply per object of each GlooHA (a handful per key; see OwnApply). */
  private readonly applies = new Map<string, Map<string, OwnApply>>();
  /** The resourceVersion our last finalizer patch of each GlooHA produced. */
  private readonly finalizerWrites = new Map<string, string>();

  lastCorrections(key: string): readonly DriftReport[] {
    return this.corrections.get(key) ?? [];
  }
  setCorrections(key: string, reports: DriftReport[]): void {
    this.corrections.set(key, reports);
  }
  ownApplies(key: string): ReadonlyMap<string, OwnApply> {
    return this.applies.get(key) ?? NO_APPLIES;
  }
  recordApply(key: string, what: string, apply: OwnApply): void {
    let byObject = this.applies.get(key);
    if (!byObject) this.applies.set(key, (byObject = new Map<string, OwnApply>()));
    byObject.set(what, apply);
  }
  recordFinalizerWrite(key: string, resourceVersion: string | undefined): void {
    if (resourceVersion) this.finalizerWrites.set(key, resourceVersion);
  }
  /**
   * Whether an object at `resourceVersion` is exactly what one of our writes for `key` produced (an
   * owned object's apply, the GlooHA's finalizer patch or status write): its watch event is the echo
   * of our own write, as a resourceVersion names one write, cluster-wide.
   */
  isOwnWrite(key: string, resourceVersion: string | undefined): boolean {
    if (!resourceVersion) return false;
    if (this.finalizerWrites.get(key) === resourceVersion) return true;
    if (this.statusWrites.get(key)?.wrote === resourceVersion) return true;
    for (const a of this.ownApplies(key).values()) if (a.resourceVersion === resourceVersion) return true;
    return false;
  }
  lastStatusWrite(key: string): StatusWrite | undefined {
    return this.statusWrites.get(key);
  }
  recordStatusWrite(key: string, w: StatusWrite): void {
    this.statusWrites.set(key, w);
  }
  /** Counts one more terminal failure and returns how many there were before it. */
  terminalFailure(key: string): number {
    const n = this.terminalFailures.get(key) ?? 0;
    this.terminalFailures.set(key, n + 1);
    return n;
  }
  clearTerminalFailures(key: string): void {
    this.terminalFailures.delete(key);
  }
  forget(key: string): void {
    this.corrections.delete(key);
    this.statusWrites.delete(key);
    this.terminalFailures.delete(key);
    this.applies.delete(key);
    this.finalizerWrites.delete(key);
  }
  /** Keys with anything remembered (for tests: nothing may outlive its GlooHA). */
  size(): number {
    return new Set([
      ...this.corrections.keys(),
      ...this.statusWrites.keys(),
      ...this.terminalFailures.keys(),
      ...this.applies.keys(),
      ...this.finalizerWrites.keys(),
    ]).size;
  }
}
