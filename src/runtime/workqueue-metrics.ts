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
}

export const noWorkqueueMetrics: WorkqueueMetrics = {
  added: () => {},
  started: () => {},
  finished: () => {},
  retried: () => {},
};
