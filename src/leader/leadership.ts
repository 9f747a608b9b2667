// What the reconciler sees of leader election: "may I write right now?". Kept apart from the elector
// so reconciler code and its tests depend on this small interface only.

/** Thrown by {@link Leadership.assertLeading} when this replica must not write. */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';
  /** Stable code for callers that match on it rather than on the class. */
  readonly code = 'NotLeader';
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`not the leader: ${reason}`, options);
  }
}

export interface Leadership {
  /** Whether this replica currently holds leadership (it may still be unable to write: see canWrite). */
  isLeader(): boolean;
  /**
   * The fence. True only while this replica leads AND its last successful renew (monotonic clock) is
   * younger than renewDeadline. After a SIGSTOP/GC pause longer than that it is false the moment the
   * process runs again — before any timer had a chance to fire — and stays false until a renew
   * succeeds. Call it right before every write (or use assertLeading).
   */
  canWrite(): boolean;
  /** Throws {@link NotLeaderError} unless canWrite(). */
  assertLeading(): void;
  /**
   * The current term's AbortSignal: aborted the moment this replica stops leading (its reason is a
   * NotLeaderError). Already aborted when not leading. Pass it to every API call a reconcile makes.
   */
  readonly leadingSignal: AbortSignal;
}

/**
 * For `--leader-elect=false` (a single replica, or local development): always leading, never fenced.
 * `end()` aborts the signal for shutdown.
 */
export class AlwaysLeader implements Leadership {
  private readonly controller = new AbortController();
  isLeader(): boolean {
    return !this.controller.signal.aborted;
  }
  canWrite(): boolean {
    return !this.controller.signal.aborted;
  }
  assertLeading(): void {
    if (this.controller.signal.aborted) throw new NotLeaderError('shutting down');
  }
  get leadingSignal(): AbortSignal {
    return this.controller.signal;
  }
  end(): void {
    this.controller.abort(new NotLeaderError('shutting down'));
  }
}
