// Instrumented client-node API clients: every request is counted into
// `rest_client_requests_total{code,method,host}` (client-go's metric) and can carry a default timeout
// and a write fence.
//
// Hook choice. client-node 1.x offers two extension points on its generated clients: `middleware`
// (pre/post around a request) and `httpApi` (the HttpLibrary that actually sends it). Middleware `post`
// only runs when a response arrives, so connection errors (ECONNREFUSED, timeouts, TLS failures) would
// go uncounted — and those are exactly what matters during a partition. So we wrap the HttpLibrary:
// `createConfiguration({ httpApi })` is a documented, supported parameter, and our wrapper delegates
// to the library's own IsomorphicFetchHttpLibrary, so TLS/auth behaviour is unchanged (auth is still
// applied by the KubeConfig, registered as the `default` auth method exactly as makeApiClient does).
//
// Watches do not go through the generated clients (Watch calls node-fetch itself), so
// {@link InstrumentedWatch} counts them by wrapping `Watch.watch`: the code is the HTTP status of the
// watch request, or `<error>` if it never got one. Like client-go, a watch counts as method GET.

import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import {
  createConfiguration,
  IsomorphicFetchHttpLibrary,
  ServerConfiguration,
  Watch,
  wrapHttpLibrary,
  type ApiType,
  type HttpLibrary,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

/** What src/metrics implements to count API requests (client-go's rest_client_* series). */
export interface RestClientMetrics {
  /**
   * One request finished. `code` is the HTTP status as a string, or `<error>` when no response came
   * (connection refused, reset, timeout, TLS). `seconds` is the time to response headers; undefined for
   * watches, whose duration is meaningless.
   */
  request(method: string, code: string, host: string, seconds?: number): void;
}

export const noRestClientMetrics: RestClientMetrics = { request: () => {} };

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface InstrumentOptions {
  metrics?: RestClientMetrics;
  /**
   * Default per-request timeout, applied to requests that carry no AbortSignal of their own.
   * Without one a request to a black-holed API server hangs until the kernel gives up (minutes).
   */
  timeoutMs?: number;
  /**
   * Called synchronously right before a mutating request (POST/PUT/PATCH/DELETE) is handed to the
   * network; throw to refuse it. Pass `() => leadership.assertLeading()` on the clients the reconciler
   * writes with, so a replica that lost leadership (or woke from a pause past its renew deadline) is
   * refused at the last possible moment even if a code path forgot to check. Never set it on the
   * Lease client: renewing is how a paused leader becomes able to write again.
   */
  beforeWrite?: (method: string, url: string) => void;
  /**
   * Also called right before sending: returns a signal to abort the request with (combined with any
   * signal the request already has). Pass `() => leadership.leadingSignal` so in-flight writes of a
   * term that ended are cut off.
   */
  writeSignal?: () => AbortSignal | undefined;
  /**
   * Reuse connections (keep-alive) instead of client-node 1.x's new Agent — hence a new TCP and TLS
   * handshake — per request. Default true. Agents are pooled per TLS identity (CA, client cert/key,
   * server name, verification), so rotated credentials get a new pool; bearer tokens travel in
   * headers and are unaffected. Proxy agents are left alone.
   */
  reuseConnections?: boolean;
}

/** TLS options that distinguish one connection pool from another. */
const POOL_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;
const agentPool = new Map<string, HttpAgent>();

/**
 * The fence of the write being sent, read by the pooled agents at the last moment (see fenceAgent).
 * AsyncLocalStorage carries it from `send()` through client-node and node-fetch to `http.request`.
 */
const fenceContext = new AsyncLocalStorage<() => void>();

/**
 * Re-checks the write fence when the request gets its socket — Node emits 'socket' synchronously right
 * before it flushes the request bytes — and destroys the request unsent if the check fails. The
 * check in `send()` alone leaves a gap: a process frozen (SIGSTOP, a long GC pause) between that check
 * and the flush one tick later would send the write on waking, after another replica took over.
 * (On a new connection the bytes wait for the TLS handshake after this point; that window remains.)
 */
function fenceAgent<T extends HttpAgent>(agent: T): T {
  const target = agent as unknown as { addRequest(req: ClientRequest, opts: unknown): void };
  const addRequest = target.addRequest.bind(agent);
  target.addRequest = (req, opts) => {
    const check = fenceContext.getStore();
    if (check) {
      req.once('socket', () => {
        try {
          check();
        } catch (err) {
          req.destroy(err as Error);
        }
      });
    }
    addRequest(req, opts);
  };
  return agent;
}

function pooledAgent(fresh: HttpAgent): HttpAgent {
  // Only plain http/https Agents: proxy agents (socks/http(s)-proxy) have their own connection logic.
  const isHttps = fresh.constructor === HttpsAgent;
  if (!isHttps && fresh.constructor !== HttpAgent) return fresh;
  const options = (fresh as HttpAgent & { options: Record<string, unknown> }).options;
  const hash = createHash('sha256').update(isHttps ? 'https' : 'http');
  for (const k of POOL_KEYS) {
    const v = options[k];
    hash.update(`\0${k}=`);
    if (v === undefined) continue;
    for (const part of Array.isArray(v) ? v : [v]) hash.update(Buffer.isBuffer(part) ? part : String(part));
  }
  const key = hash.digest('hex');
  let agent = agentPool.get(key);
  if (!agent) {
    const { path: _path, ...rest } = options; // `path` is set by Agent itself
    const opts: AgentOptions = { ...rest, keepAlive: true, keepAliveMsecs: 15_000, scheduling: 'lifo' };
    agent = fenceAgent(isHttps ? new HttpsAgent(opts) : new HttpAgent(opts));
    agentPool.set(key, agent);
  }
  return agent;
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

/** Wraps an HttpLibrary so that each request is counted (and optionally time-limited and fenced). */
export function instrumentHttpLibrary(
  inner: HttpLibrary,
  host: string,
  options: InstrumentOptions = {},
): HttpLibrary {
  const metrics = options.metrics ?? noRestClientMetrics;
  return wrapHttpLibrary({
    async send(request: RequestContext): Promise<ResponseContext> {
      const method = request.getHttpMethod().toString();
      const signals: AbortSignal[] = [];
      const own = request.getSignal();
      if (own) signals.push(own);
      else if (options.timeoutMs !== undefined) signals.push(AbortSignal.timeout(options.timeoutMs));
      if (WRITE_METHODS.has(method)) {
        options.beforeWrite?.(method, request.getUrl());
        const ws = options.writeSignal?.();
        if (ws) signals.push(ws);
      }
      if (options.reuseConnections ?? true) {
        const fresh = request.getAgent();
        if (fresh) request.setAgent(pooledAgent(fresh));
      }
      if (signals.length === 1) request.setSignal(signals[0] as AbortSignal);
      else if (signals.length > 1) request.setSignal(AbortSignal.any(signals));
      const start = performance.now();
      const fence =
        WRITE_METHODS.has(method) && options.beforeWrite
          ? () => options.beforeWrite?.(method, request.getUrl())
          : undefined;
      try {
        const response = await (fence
          ? fenceContext.run(fence, () => inner.send(request).toPromise())
          : inner.send(request).toPromise());
        metrics.request(method, String(response.httpStatusCode), host, (performance.now() - start) / 1000);
        return response;
      } catch (err) {
        metrics.request(method, '<error>', host, (performance.now() - start) / 1000);
        throw err;
      }
    },
  });
}

/** client-node's `ApiConstructor`, restated so callers need no deep import. */
export type ApiClientConstructor<T extends ApiType> = new (
  config: ReturnType<typeof createConfiguration>,
) => T;

/**
 * Like `kubeConfig.makeApiClient(Api)`, but requests go through {@link instrumentHttpLibrary}.
 *
 *   const core = makeApiClient(kc, CoreV1Api, { metrics: metrics.restClient, timeoutMs: 30_000 });
 */
export function makeApiClient<T extends ApiType>(
  kubeConfig: KubeConfig,
  api: ApiClientConstructor<T>,
  options: InstrumentOptions = {},
): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const httpApi = instrumentHttpLibrary(new IsomorphicFetchHttpLibrary(), hostOf(cluster.server), options);
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kubeConfig },
    httpApi,
  });
  return new api(configuration);
}

type WatchCallback = Parameters<Watch['watch']>[2];
type WatchDone = Parameters<Watch['watch']>[3];

/** A client-node Watch whose requests are counted into rest_client_requests_total (method GET). */
export class InstrumentedWatch extends Watch {
  private readonly host: string;
  constructor(
    config: KubeConfig,
    private readonly metrics: RestClientMetrics = noRestClientMetrics,
  ) {
    super(config);
    this.host = hostOf(config.getCurrentCluster()?.server ?? '');
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback,
    done: WatchDone,
  ): Promise<AbortController> {
    // Watch.watch calls `done(err)` before returning when the request failed (non-200 status or a
    // network error); if it returns without having called `done`, the server answered 200.
    let failure: { code: string } | undefined;
    let finished = false;
    const wrappedDone: WatchDone = (err: unknown) => {
      if (!finished && err) {
        const status = (err as { statusCode?: unknown }).statusCode;
        failure = { code: typeof status === 'number' ? String(status) : '<error>' };
      }
      finished = true;
      done(err);
    };
    try {
      const controller = await super.watch(path, queryParams, callback, wrappedDone);
      this.metrics.request('GET', failure?.code ?? '200', this.host);
      return controller;
    } catch (err) {
      this.metrics.request('GET', '<error>', this.host);
      throw err;
    }
  }
}
