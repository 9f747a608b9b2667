export {
  parseListenAddress,
  startHttpServer,
  type Check,
  type CheckResult,
  type HttpServerHandle,
  type HttpServerOptions,
  type MetricsSource,
} from './server.js';
