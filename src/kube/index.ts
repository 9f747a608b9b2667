export { accessAllowed, type Access } from './access.js';
export {
  errorStatus,
  KubeApiError,
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
export { contextNamespace, KubeConfigError, loadKubeConfig, type LoadKubeConfigOptions } from './config.js';
