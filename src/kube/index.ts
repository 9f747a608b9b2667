export {
  errorStatus,
  KubeClient,
  linkedSignal,
  noRestClientMetrics,
  withSignal,
  type ApiClientConstructor,
  type ApiClientOptions,
  type KubeClientOptions,
  type RequestOptions,
  type RestClientMetrics,
} from './client.js';
export { apiVersionOf, resourcePath, type ResourceRef } from './paths.js';
