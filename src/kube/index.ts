export {
  InstrumentedWatch,
  instrumentHttpLibrary,
  makeApiClient,
  noRestClientMetrics,
  type ApiClientConstructor,
  type InstrumentOptions,
  type RestClientMetrics,
} from './instrumented.js';
