// The hooks a work queue reports through, named after client-go's workqueue metrics so that
// src/metrics can back them with the `workqueue_*` Prometheus series users already chart.
export interface WorkqueueMetrics {
  /** An item entered the queue (workqueue_adds_total); `depth` is the queue's new length. */
  added(depth: number): void;
  /** An item left the queue for a worker after waiting `waitSeconds` (workqueue_queue_duration_seconds). */
  started(depth: number, waitSeconds: number): void;
  /** A worker finished an item after `workSeconds` (workqueue_work_duration_seconds). */
  finished(workSeconds: number): void;
  /** An item was re-added with backoff after a failure (workqueue_retries_total). */
  retried(): void;
  /**
   * The queue hands over how to read the ages (seconds) of the items its workers hold right now. The
   * metrics read it when scraped — workqueue_unfinished_work_seconds (their sum),
   * workqueue_longest_running_processor_seconds (the oldest), controller_runtime_active_workers (how
   * many) — where client-go samples the same on a 500 ms ticker. A newer queue of the same name (the
   * next leader term) replaces an older one's reader.
   */
  trackInFlight(ages: () => readonly number[]): void;
}

export const noWorkqueueMetrics: WorkqueueMetrics = {
  added: () => {},
  started: () => {},
  finished: () => {},
  retried: () => {},
  trackInFlight: () => {},
};
