// The keys a work queue has ready to hand to a worker, ordered by priority, then first-in first-out
// within a priority — the ordering of controller-runtime's priority queue (pkg/controller/priorityqueue,
// `UsePriorityQueue`, v0.20+). What it is for: a leader term begins by queueing every object it serves
// (the caches' initial lists), and a periodic resync re-queues them all again; in a plain FIFO a user's
// change to one object, or drift on what it owns, queues behind that whole backlog. Those bulk adds go
// in at LOW priority, live events at NORMAL, so a change is handled next whatever the backlog.
//
// Unlike controller-runtime's, priority is not strict: while a higher priority keeps keys ready, every
// FAIRNESS_EVERY-th key handed out comes from the lowest waiting priority instead. Strict priority
// starves the backlog for as long as live events keep coming faster than the workers finish them (a
// few objects another controller fights over would keep one worker each busy for ever); with the
// bound, the backlog still moves at a tenth of the throughput at worst, and a live event waits at most
// one extra hand-out.
//
// Pure: no I/O, no clock. The work queue keeps what is in flight, delayed or dirty; this keeps order.

/** Priorities (higher is handed out first), as controller-runtime's handler.LowPriority and its default. */
export const Priority = {
  /** Objects from a cache's initial list, resyncs, the echo of a reconcile's own writes. */
  low: -100,
  /** Live events: a change someone made, a drift, a delete. */
  normal: 0,
} as const;

/** Every how many hand-outs a waiting lower priority gets one, while a higher one keeps keys ready. */
export const FAIRNESS_EVERY = 10;

export class ReadyQueue {
  /** Per priority, its keys in arrival order (a Set keeps insertion order and deletes in O(1)). */
  private readonly buckets = new Map<number, Set<string>>();
  /** The priorities that have a bucket, highest first. */
  private order: number[] = [];
  private readonly priorityOf = new Map<string, number>();
  /** Hand-outs in a row that passed over a non-empty lower priority. */
  private passedOver = 0;

  get size(): number {
    return this.priorityOf.size;
  }

  has(key: string): boolean {
    return this.priorityOf.has(key);
  }

  /** The priority `key` waits at, or undefined when it is not here. */
  priority(key: string): number | undefined {
    return this.priorityOf.get(key);
  }

  /**
   * Queues `key` at `priority`. A key already here at a lower priority moves up (to the back of the
   * higher one's line: it was added there now); at a higher or the same priority it keeps its place.
   */
  push(key: string, priority: number): void {
    const current = this.priorityOf.get(key);
    if (current !== undefined) {
      if (priority <= current) return;
      this.bucket(current).delete(key);
    }
    this.priorityOf.set(key, priority);
    this.bucket(priority).add(key);
  }

  /** Takes the next key (see the module comment for the order), or undefined when empty. */
  pop(): { key: string; priority: number } | undefined {
    const waiting = this.order.filter((p) => this.buckets.get(p)!.size > 0);
    if (waiting.length === 0) return undefined;
    let priority = waiting[0]!;
    if (waiting.length > 1) {
      this.passedOver++;
      if (this.passedOver >= FAIRNESS_EVERY) {
        priority = waiting[waiting.length - 1]!;
        this.passedOver = 0;
      }
    } else {
      this.passedOver = 0;
    }
    const bucket = this.buckets.get(priority)!;
    const key = bucket.values().next().value as string;
    bucket.delete(key);
    this.priorityOf.delete(key);
    return { key, priority };
  }

  /** Every key, highest priority first (for dropping them all). */
  keys(): string[] {
    return this.order.flatMap((p) => [...this.buckets.get(p)!]);
  }

  /** Keys waiting per priority, highest first, priorities with none left out (for metrics and tests). */
  sizes(): Map<number, number> {
    return new Map(this.order.map((p) => [p, this.buckets.get(p)!.size] as const).filter(([, n]) => n > 0));
  }

  clear(): void {
    for (const b of this.buckets.values()) b.clear();
    this.priorityOf.clear();
    this.passedOver = 0;
  }

  private bucket(priority: number): Set<string> {
    let b = this.buckets.get(priority);
    if (!b) {
      b = new Set();
      this.buckets.set(priority, b);
      this.order = [...this.buckets.keys()].sort((a, b2) => b2 - a);
    }
    return b;
  }
}
