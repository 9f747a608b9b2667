// The controller runtime: informers (list + watch → cache) feeding keys into a rate-limited work
// queue that runs a reconcile function, in the style of controller-runtime / kube-rs runtime.
export { realClock, sleep, type Clock } from './clock.js';
export {
  Controller,
  type ControllerOptions,
  type ControllerWatchOptions,
  type KeyMapper,
} from './controller.js';
export {
  NOISE_PATHS,
  allOf,
  anyOf,
  deepEqual,
  equalIgnoring,
  generationChanged,
  ignoreLeaseRenewals,
  ignoreNoopUpdates,
  ignoreUpdatesOnlyTo,
  withoutPaths,
  type EventFilter,
  type FieldPath,
  type InformerEvent,
} from './filters.js';
export {
  Informer,
  kubeTransport,
  type EventHandler,
  type InformerOptions,
  type InformerStats,
  type ListPage,
  type ListRequest,
  type Transport,
  type WatchHandle,
  type WatchRequest,
} from './informer.js';
export {
  BucketRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  backoffDelay,
  defaultControllerRateLimiter,
  type BucketOptions,
  type ExponentialBackoffOptions,
  type RateLimiter,
} from './ratelimit.js';
export {
  LAST_APPLIED_ANNOTATION,
  stripLastApplied,
  stripManagedFields,
  stripManagedFieldsOf,
  stripStatus,
  transforms,
} from './transforms.js';
export { Store, objectKey, splitKey, type Cache, type Delta, type IndexFunc } from './store.js';
export {
  Workqueue,
  type ShutDownOptions,
  type WorkContext,
  type WorkHandler,
  type WorkResult,
  type WorkqueueOptions,
} from './workqueue.js';
export { noWorkqueueMetrics, type WorkqueueMetrics } from './workqueue-metrics.js';
