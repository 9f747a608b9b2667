// The operator's one transport to the API server. Every request — informer lists and watches, the
// Lease, every write — goes through one KubeClient, so there is one connection pool, one set of
// `rest_client_*` metrics and one write fence:
//
// - Counting. Each request is counted into `rest_client_requests_total{code,method,host}` (client-go's
//   metric), connection errors included as code `<error>`. Watches count as method GET with the status
//   of the watch request.
// - Pooling. client-node 1.x makes a new Agent — hence a new TCP and TLS handshake — per request. Here
//   agents are pooled per TLS identity (CA, client cert/key, server name, verification) with
//   keep-alive, so rotated credentials get a new pool; bearer tokens travel in headers. Proxy agents
//   are left alone. The pool belongs to this client and `close()` destroys it.
// - Fencing: the ONE place that decides whether a write may go out. `fence()` (the manager passes the
//   leader's `assertLeading`) is called right before a mutating request (POST/PUT/PATCH/DELETE) is
//   handed to the network, and again when the request gets its socket — Node emits 'socket'
//   synchronously right before it flushes the request bytes — so a process frozen (SIGSTOP, a long
//   GC pause) between the two sends nothing on waking after another replica took over. Only the Lease
//   client is built `fenced: false`: renewing is how a paused leader becomes able to write again.
// - Server-side fencing. With the chart's ValidatingAdmissionPolicy (docs/leader-election.md) the API
//   server refuses a write from a replica that does not hold the Lease, whatever the client-side fence
//   believed: such a 403 is counted (`glooha_fenced_writes_total{layer="admission"}`) and `request()`
//   turns it into a NotLeaderError, so callers handle it exactly like the local fence's refusal.
// - Timeouts and cancellation. Every request is bounded by `timeoutMs` and by the caller's
//   AbortSignal (the reconcile passes its leader term's signal). The two are linked by hand, with the
//   listener removed when the response body has been read: `AbortSignal.any` on a term-long signal
//   keeps every per-request signal alive until the term ends.
//
// Hook choice: client-node's generated clients take an `httpApi` (the HttpLibrary that sends the
// request) through `createConfiguration`, a documented parameter; our wrapper delegates to client-node's
// own IsomorphicFetchHttpLibrary, so TLS/auth behave as with `makeApiClient` (the KubeConfig is the
// `default` auth method, exactly as makeApiClient registers it). Middleware would not do: its `post`
// only runs when a response arrives, so connection errors would go uncounted. Watches do not go through
// the generated clients (client-node's Watch calls node-fetch itself with the agent the KubeConfig
// makes), so the Watch here is given a KubeConfig view whose agent comes from the same pool.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import {
  ApiException,
  createConfiguration,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  Observable,
  ResponseContext,
  ServerConfiguration,
  Watch,
  wrapHttpLibrary,
  type ApiType,
  type HttpLibrary,
  type KubeConfig,
  type ObservableMiddleware,
  type RequestContext,
} from '@kubernetes/client-node';
import { NotLeaderError } from '../leader/leadership.js';

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

/**
 * Where a write was refused for not coming from the leader: `client` (the check before the request is
 * handed to the network), `socket` (the re-check when it gets its socket), `admission` (the API
 * server's fencing policy refused it: it reached the server after this replica's term had ended).
 */
export type FenceLayer = 'client' | 'socket' | 'admission';
export const FENCE_LAYERS: readonly FenceLayer[] = ['client', 'socket', 'admission'];

/** What src/metrics implements to count refused writes (glooha_fenced_writes_total{layer}). */
export interface FenceMetrics {
  writeRefused(layer: FenceLayer): void;
}

export const noFenceMetrics: FenceMetrics = { writeRefused: () => {} };

/**
 * How the chart's fencing policy starts its denial message (charts/glooha-operator/templates/
 * fencing-policy.yaml; a unit test keeps the two in step). The API server wraps it as "... denied
 * request: glooha-operator fencing: pod X does not hold Lease ns/name ...".
 */
export const FENCING_DENIAL_MARKER = 'glooha-operator fencing: ';

/** A 403 from the chart's fencing policy (the response body, as text or parsed Status). */
export function isFencingDenial(status: number, body: unknown): boolean {
  if (status !== 403) return false;
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  return text.includes(FENCING_DENIAL_MARKER);
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface KubeClientOptions {
  metrics?: RestClientMetrics;
  /**
   * The write fence: throws to refuse a mutating request. Called right before it is sent and again
   * when it gets its socket. Default: never refuses (tools, tests).
   */
  fence?: () => void;
  /** Counts the writes the fence (or the API server's fencing policy) refused. */
  fenceMetrics?: FenceMetrics;
  /** Upper bound for one request (to response body), whatever signal the caller passes. Default 30 s. */
  timeoutMs?: number;
  /** Keep-alive connection reuse. Default true. */
  reuseConnections?: boolean;
}

export interface ApiClientOptions {
  /** Default true. Only the Lease client passes false (see the module comment). */
  fenced?: boolean;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Default 'application/json' when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
  /**
   * false: not fenced, for a POST that stores nothing (an access review is a question, not a write), so
   * a standby may ask before it leads. Default true.
   */
  fenced?: boolean;
}

/** client-node's `ApiConstructor`, restated so callers need no deep import. */
export type ApiClientConstructor<T extends ApiType> = new (
  config: ReturnType<typeof createConfiguration>,
) => T;

type WatchCallback = Parameters<Watch['watch']>[2];
type WatchDone = Parameters<Watch['watch']>[3];

/** TLS options that distinguish one connection pool from another. */
const POOL_KEYS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** The fence of the write being sent, carried from `send()` through node-fetch to the agent. */
const fenceContext = new AsyncLocalStorage<() => void>();

/**
 * An AbortSignal that fires when `parent` does or `timeoutMs` passes. `dispose()` removes the listener
 * from `parent` and clears the timer: call it once the request is over, or a long-lived parent (a
 * leader term) accumulates one listener per request it ever carried.
 */
export function linkedSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number | undefined,
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  if (timeoutMs !== undefined && !controller.signal.aborted) {
    timer = setTimeout(
      () => controller.abort(new DOMException(`request timed out after ${timeoutMs}ms`, 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
  }
  return {
    signal: controller.signal,
    dispose: () => {
      parent?.removeEventListener('abort', onAbort);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/** Per-call options for a generated client method: attach `signal` to the request. */
export function withSignal(signal: AbortSignal | undefined): {
  middleware: ObservableMiddleware[];
  middlewareMergeStrategy: 'append';
} {
  return {
    middleware: signal
      ? [
          {
            pre: (ctx) => {
              ctx.setSignal(signal);
              return new Observable(Promise.resolve(ctx));
            },
            post: (ctx) => new Observable(Promise.resolve(ctx)),
          },
        ]
      : [],
    middlewareMergeStrategy: 'append',
  };
}

function hostOf(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}

export class KubeClient {
  readonly host: string;
  private readonly server: string;
  private readonly metrics: RestClientMetrics;
  private readonly fence: (() => void) | undefined;
  private readonly fenceMetrics: FenceMetrics;
  private readonly timeoutMs: number;
  private readonly reuse: boolean;
  private readonly pool = new Map<string, HttpAgent>();
  private readonly fenced: HttpLibrary;
  private readonly unfenced: HttpLibrary;
  private readonly watcher: Watch;
  private closed = false;

  constructor(
    readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server;
    this.host = hostOf(cluster.server);
    this.metrics = options.metrics ?? noRestClientMetrics;
    this.fence = options.fence;
    this.fenceMetrics = options.fenceMetrics ?? noFenceMetrics;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.reuse = options.reuseConnections ?? true;
    const inner = new IsomorphicFetchHttpLibrary();
    this.fenced = this.library(inner, true);
    this.unfenced = this.library(inner, false);
    // client-node's Watch only asks its KubeConfig for the cluster and the fetch options (auth
    // headers and agent): this view hands it a pooled agent.
    const view = {
      getCurrentCluster: () => kubeConfig.getCurrentCluster(),
      applyToFetchOptions: async (opts: object) => {
        const fetchOpts = await kubeConfig.applyToFetchOptions(opts);
        if (fetchOpts.agent instanceof HttpAgent) fetchOpts.agent = this.pooled(fetchOpts.agent);
        return fetchOpts;
      },
    } as unknown as KubeConfig;
    this.watcher = new Watch(view);
  }

  /** A generated API client (CoreV1Api, …) whose requests go through this transport. */
  api<T extends ApiType>(api: ApiClientConstructor<T>, opts: ApiClientOptions = {}): T {
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(this.server, {}),
      authMethods: { default: this.kubeConfig },
      httpApi: opts.fenced === false ? this.unfenced : this.fenced,
    });
    return withReadableErrors(new api(configuration));
  }

  /**
   * One JSON request to any path (core group included) — for lists, whose items must stay plain JSON
   * like watch events (the generated clients turn dates into Date objects), and for status patches of
   * any kind. Throws client-node's `ApiException` (with `.code`) on non-2xx, like the generated clients.
   */
  async request<T = unknown>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    opts: RequestOptions = {},
  ): Promise<T> {
    const ctx = new ServerConfiguration<Record<string, string>>(this.server, {}).makeRequestContext(
      path,
      HttpMethod[method],
    );
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) ctx.setQueryParam(k, String(v));
    }
    ctx.setHeaderParam('Accept', 'application/json');
    if (opts.body !== undefined) {
      ctx.setHeaderParam('Content-Type', opts.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(opts.body));
    }
    if (opts.signal) ctx.setSignal(opts.signal);
    await this.kubeConfig.applySecurityAuthentication(ctx);
    const fenced = opts.fenced !== false;
    const resp = await (fenced ? this.fenced : this.unfenced).send(ctx).toPromise();
    const text = await resp.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (resp.httpStatusCode < 200 || resp.httpStatusCode > 299) {
      if (fenced && WRITE_METHODS.has(method) && isFencingDenial(resp.httpStatusCode, parsed)) {
        // The API server judged by the Lease as it stands: this replica's term is over (or it never
        // began), whatever the local clock says. Callers treat it as the fence's own refusal.
        throw new NotLeaderError(`the API server's fencing policy refused ${method} ${path}`, {
          cause: new KubeApiError(resp.httpStatusCode, `${method} ${path}`, parsed, resp.headers),
        });
      }
      throw new KubeApiError(resp.httpStatusCode, `${method} ${path}`, parsed, resp.headers);
    }
    return parsed as T;
  }

  /**
   * A watch (client-node's Watch: line parsing, auth), on a pooled connection, counted as GET.
   * `done` is called once when it ends; abort the returned controller to end it.
   */
  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
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
      const controller = await this.watcher.watch(path, query, callback, wrappedDone);
      this.metrics.request('GET', failure?.code ?? '200', this.host);
      return controller;
    } catch (err) {
      this.metrics.request('GET', '<error>', this.host);
      throw err;
    }
  }

  /** Connections kept in the pool (for tests and shutdown checks). */
  pooledAgents(): number {
    return this.pool.size;
  }

  /** Destroys the pooled connections. Requests after this get fresh, unpooled connections. */
  close(): void {
    this.closed = true;
    for (const agent of this.pool.values()) agent.destroy();
    this.pool.clear();
  }

  private library(inner: HttpLibrary, fenced: boolean): HttpLibrary {
    return wrapHttpLibrary({
      send: async (request: RequestContext): Promise<ResponseContext> => {
        const method = request.getHttpMethod().toString();
        const fence = fenced && WRITE_METHODS.has(method) ? this.fence : undefined;
        try {
          fence?.();
        } catch (err) {
          this.fenceMetrics.writeRefused('client');
          throw err;
        }
        const check = fence
          ? () => {
              try {
                fence();
              } catch (err) {
                this.fenceMetrics.writeRefused('socket');
                throw err;
              }
            }
          : undefined;
        const link = linkedSignal(request.getSignal(), this.timeoutMs);
        request.setSignal(link.signal);
        const fresh = request.getAgent();
        if (this.reuse && fresh) request.setAgent(this.pooled(fresh));
        const start = performance.now();
        let response: ResponseContext;
        try {
          response = await (check
            ? fenceContext.run(check, () => inner.send(request).toPromise())
            : inner.send(request).toPromise());
        } catch (err) {
          link.dispose();
          this.metrics.request(method, '<error>', this.host, (performance.now() - start) / 1000);
          throw err;
        }
        this.metrics.request(
          method,
          String(response.httpStatusCode),
          this.host,
          (performance.now() - start) / 1000,
        );
        // The signal and timer stay linked until the body has been read (or failed to be).
        const body = response.body;
        const status = response.httpStatusCode;
        const counted = (text: string) => {
          if (check && isFencingDenial(status, text)) this.fenceMetrics.writeRefused('admission');
          return text;
        };
        const finish = <R>(p: Promise<R>) =>
          p.then(
            (v) => {
              link.dispose();
              return v;
            },
            (e: unknown) => {
              link.dispose();
              throw e;
            },
          );
        return new ResponseContext(response.httpStatusCode, response.headers, {
          text: () => finish(body.text().then(counted)),
          binary: () => finish(body.binary()),
        });
      },
    });
  }

  /** The pooled, fenced agent for the TLS identity of `fresh` (plain http/https Agents only). */
  private pooled(fresh: HttpAgent): HttpAgent {
    if (!this.reuse || this.closed) return fresh;
    const isHttps = fresh.constructor === HttpsAgent;
    if (!isHttps && fresh.constructor !== HttpAgent) return fresh; // proxy agents
    const options = (fresh as HttpAgent & { options: Record<string, unknown> }).options;
    const hash = createHash('sha256').update(isHttps ? 'https' : 'http');
    for (const k of POOL_KEYS) {
      const v = options[k];
      hash.update(`\0${k}=`);
      if (v === undefined) continue;
      for (const part of Array.isArray(v) ? v : [v]) hash.update(Buffer.isBuffer(part) ? part : String(part));
    }
    const key = hash.digest('hex');
    let agent = this.pool.get(key);
    if (!agent) {
      const { path: _path, ...rest } = options; // `path` is set by Agent itself
      const opts: AgentOptions = { ...rest, keepAlive: true, keepAliveMsecs: 15_000, scheduling: 'lifo' };
      agent = fenceAtSocket(isHttps ? new HttpsAgent(opts) : new HttpAgent(opts));
      this.pool.set(key, agent);
    }
    return agent;
  }
}

/**
 * Re-checks the fence of the write being sent (from fenceContext) when the request gets its socket,
 * and destroys the request unsent if the check fails. The check in `send()` alone leaves a gap: a
 * process frozen between that check and the flush one tick later would send the write on waking.
 * (On a new connection the bytes wait for the TLS handshake after this point; that window remains.)
 */
function fenceAtSocket<T extends HttpAgent>(agent: T): T {
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

/**
 * A non-2xx answer, said in one line: `<operation>: <code> <reason>: <the API server's message>`, e.g.
 * "replaceNamespacedLease: 409 Conflict: Operation cannot be fulfilled on leases ... the object has
 * been modified". client-node's own ApiException message is "HTTP-Code: 409\nMessage: Unknown API
 * Status Code!\nBody: <raw JSON>\nHeaders: <raw JSON>" for every status its generated clients did not
 * declare (409 among them). This is still an ApiException (`code`, `body` — the parsed Status —,
 * `headers`), so callers test it the same way.
 */
export class KubeApiError extends ApiException<unknown> {
  override name = 'KubeApiError';
  /** The Status `reason` (Conflict, NotFound, Forbidden, ...), when the API server sent one. */
  readonly reason: string | undefined;

  constructor(code: number, operation: string, raw: unknown, headers: Record<string, string>) {
    // The generated clients hand an undeclared status (409 among them) over as the response text.
    const body = typeof raw === 'string' ? parseJsonOr(raw) : raw;
    super(code, '', body, headers);
    const status = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    this.reason = typeof status.reason === 'string' && status.reason ? status.reason : undefined;
    const detail =
      typeof status.message === 'string' && status.message
        ? status.message
        : typeof body === 'string' && body.trim()
          ? body.trim().split('\n')[0]!.slice(0, 200)
          : 'no message';
    this.message = `${operation}: ${code}${this.reason ? ` ${this.reason}` : ''}: ${detail}`;
  }
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The generated client `api` with every method's ApiException rethrown as a KubeApiError named after
 * the method (their path is not known here; the method names it as well).
 */
function withReadableErrors<T extends object>(api: T): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          if (err instanceof ApiException && !(err instanceof KubeApiError)) {
            const e = err as ApiException<unknown>;
            throw new KubeApiError(e.code, prop, e.body, e.headers);
          }
          throw err;
        });
      };
    },
  });
}

/** The HTTP status of an error from client-node (ApiException `.code`, Watch errors' `.statusCode`). */
export function errorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === 'number') return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return undefined;
}
