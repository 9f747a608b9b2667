// The operator's one transport to the API server. Every request — informer lists and watches, the
// Lease, every write — goes through one KubeClient, so there is one connection pool, one set of
// `rest_client_*` metrics and one write fence:
//
// - Counting. Each request is counted into `rest_client_requests_total{code,method,host}` (client-go's
//   metric), connection errors included as code `<error>`. Watches count as method GET with the status
//   of the watch request.
// - Pooling. client-node 2.x builds a new undici Agent — hence a new TCP and TLS handshake — for every
//   request (`KubeConfig.applySecurityAuthentication`). Here one undici Agent per TLS identity (CA,
//   client cert/key, server name, verification, proxy) serves every request, with keep-alive, so rotated
//   credentials get a new pool; bearer tokens travel in headers. The pool belongs to this client and
//   `close()` destroys it.
// - Fencing: src/kube/fence.ts, an undici dispatcher interceptor composed onto the pooled Agent: the
//   fence (the manager passes the leader's `assertLeading`) runs when a mutating request is dispatched
//   and again when it has its connection, right before its first byte is written. Only the Lease client
//   (and access reviews, which store nothing) go unfenced: renewing is how a paused leader becomes able
//   to write again.
// - Server-side fencing. With the chart's ValidatingAdmissionPolicy (docs/leader-election.md) the API
//   server refuses a write from a replica that does not hold the Lease, whatever the client-side fence
//   believed: such a 403 is counted (`glooha_fenced_writes_total{layer="admission"}`) and `request()`
//   turns it into a NotLeaderError, so callers handle it exactly like the local fence's refusal.
// - Timeouts and cancellation. Every request is bounded by `timeoutMs` and by the caller's
//   AbortSignal (the reconcile passes its leader term's signal). The two are linked by hand, with the
//   listener removed when the response body has been read: `AbortSignal.any` on a term-long signal
//   keeps every per-request signal alive until the term ends.
//
// Hooks, all public API: credentials come from `KubeConfig.applyToHTTPSOptions` (token, exec and OIDC
// plugins, client certificates, impersonation), the dispatcher's settings from
// `KubeConfig.createDispatcherOptions` (what client-node itself would build, proxies included), and
// the generated clients take this transport as their `httpApi` and `authMethods.default` through
// `createConfiguration`. Watches are this module's own (`watch()`): client-node's Watch takes a whole
// KubeConfig and builds a fresh, unpooled Agent per watch; the 30 s inactivity timeout it adds would
// also cut the informers' quiet watches (they have their own stall timer, src/runtime/informer.ts).
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { RequestOptions as HttpsRequestOptions } from 'node:https';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  ApiException,
  createConfiguration,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  Observable,
  RequestContext,
  ResponseContext,
  ServerConfiguration,
  wrapHttpLibrary,
  type ApiType,
  type HttpLibrary,
  type KubeConfig,
  type ObservableMiddleware,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import { Agent, fetch, ProxyAgent, type Dispatcher } from 'undici';
import { NotLeaderError } from '../leader/leadership.js';
import { fenceInterceptor, WRITE_METHODS, type FenceLayer } from './fence.js';

export { FENCE_LAYERS, fenceInterceptor, type FenceLayer } from './fence.js';

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

export interface KubeClientOptions {
  metrics?: RestClientMetrics;
  /**
   * The write fence: throws to refuse a mutating request. Called when it is handed to the network and
   * again when it has its connection, right before its first byte (src/kube/fence.ts). Default: never
   * refuses (tools, tests).
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

/** A watch event: its type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR), its object, the whole event. */
export type WatchCallback<T = unknown> = (phase: string, apiObj: T, watchObj?: unknown) => void;
/** A watch ended: `err` is null when the server closed it (or it was aborted), else why it failed. */
export type WatchDone = (err: unknown) => void;

/** TLS (and proxy) settings that distinguish one connection pool from another. */
const POOL_KEYS = [
  'type',
  'uri',
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
] as const;

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

/** A request that got no HTTP answer (connection refused or reset, DNS, TLS): `code` says which. */
export class KubeTransportError extends Error {
  override name = 'KubeTransportError';
  /** The system or undici error code (ECONNREFUSED, UND_ERR_SOCKET, ...); 'ETRANSPORT' if none. */
  readonly code: string;

  constructor(operation: string, cause: unknown) {
    const c = cause as { code?: unknown; message?: unknown; errors?: { message?: unknown }[] };
    // A connection refused on every address comes as an AggregateError with an empty message.
    const detail =
      (typeof c?.message === 'string' && c.message) ||
      c?.errors?.map((e) => String(e.message)).join('; ') ||
      String(cause);
    super(`${operation}: ${detail}`, { cause });
    this.code = typeof c?.code === 'string' ? c.code : 'ETRANSPORT';
  }
}

/**
 * undici's fetch reports an error raised in the dispatcher (the fence's refusal, a refused connection)
 * as `TypeError('fetch failed', { cause })`. The fence's NotLeaderError comes back as itself, so
 * callers see the same error whichever check refused; other causes become a KubeTransportError that
 * names the request. An abort (the caller's signal, the timeout) is passed on as it is.
 */
function transportError(err: unknown, operation: string): unknown {
  if (!(err instanceof TypeError) || err.cause === undefined) return err;
  if (err.cause instanceof NotLeaderError) return err.cause;
  return new KubeTransportError(operation, err.cause);
}

/**
 * How long a pooled connection may stay idle before it is closed. undici's default, 4 s when the
 * server sends no Keep-Alive hint (the API server sends none), closed the connections a reconcile's
 * parallel writes had opened between two bursts, so the next burst paid a TCP and TLS handshake per
 * write. The API server closes connections idle for 90 s (k8s.io/apiserver's secure serving sets
 * IdleTimeout 90 s, as client-go's IdleConnTimeout), and load balancers in front of it often at 60 s:
 * 45 s stays inside both, so a request never races the other end's close.
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 45_000;

interface Pooled {
  /** The pooled connections (an undici Agent, or a ProxyAgent). */
  agent: Dispatcher;
  fenced: Dispatcher;
  unfenced: Dispatcher;
}

export class KubeClient {
  readonly host: string;
  private readonly server: string;
  private readonly metrics: RestClientMetrics;
  private readonly fence: (() => void) | undefined;
  private readonly fenceMetrics: FenceMetrics;
  private readonly timeoutMs: number;
  private readonly reuse: boolean;
  private readonly pool = new Map<string, Pooled>();
  private readonly fenced: HttpLibrary;
  private readonly unfenced: HttpLibrary;
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
  }

  /** A generated API client (CoreV1Api, …) whose requests go through this transport. */
  api<T extends ApiType>(api: ApiClientConstructor<T>, opts: ApiClientOptions = {}): T {
    const fenced = opts.fenced !== false;
    const auth: SecurityAuthentication = {
      getName: () => 'glooha-operator transport',
      applySecurityAuthentication: (ctx) => this.authenticate(ctx, fenced),
    };
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(this.server, {}),
      authMethods: { default: auth },
      httpApi: fenced ? this.fenced : this.unfenced,
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
    const fenced = opts.fenced !== false;
    await this.authenticate(ctx, fenced);
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
   * A watch: one long GET on a pooled connection, its body read line by line (one JSON event each),
   * counted as GET with the status of the request. `done` is called once when it ends — before this
   * returns when the request failed (an error with `statusCode` for a non-200 answer). Abort the
   * returned controller to end it. Connecting and the response headers are bounded by `timeoutMs`;
   * after that it lasts as long as the server keeps it (callers pass `timeoutSeconds`).
   */
  async watch<T = unknown>(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    callback: WatchCallback<T>,
    done: WatchDone,
  ): Promise<AbortController> {
    const controller = new AbortController();
    let finished = false;
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      controller.abort();
      done(err ?? null);
    };
    const url = new URL(this.server + path);
    url.searchParams.set('watch', 'true');
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const timer = setTimeout(
      () => controller.abort(new DOMException(`watch timed out after ${this.timeoutMs}ms`, 'TimeoutError')),
      this.timeoutMs,
    );
    timer.unref();
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      const ctx = new RequestContext(url.toString(), HttpMethod.GET);
      await this.authenticate(ctx, false);
      response = await fetch(url, {
        method: 'GET',
        headers: ctx.getHeaders(),
        dispatcher: ctx.getDispatcher(),
        signal: controller.signal,
      });
    } catch (err) {
      clearTimeout(timer);
      this.metrics.request('GET', '<error>', this.host);
      finish(transportError(err, `watch ${path}`));
      return controller;
    }
    clearTimeout(timer);
    this.metrics.request('GET', String(response.status), this.host);
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel().catch(() => {});
      const err = new Error(
        `watch ${path}: ${response.status} ${response.statusText || STATUS_CODES[response.status] || ''}`.trim(),
      ) as Error & { statusCode: number };
      err.statusCode = response.status;
      finish(err);
      return controller;
    }
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    body.on('error', (err) => finish(controller.signal.aborted ? null : err));
    body.on('close', () => finish(null));
    const lines = createInterface({ input: body, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (finished || !line) return;
      let event: { type?: unknown; object?: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        return; // not an event (a proxy's noise); the next line is
      }
      try {
        callback(String(event.type), event.object as T, event);
      } catch (err) {
        finish(err); // a handler's failure ends the watch instead of vanishing
      }
    });
    lines.on('error', (err) => finish(controller.signal.aborted ? null : err));
    lines.on('close', () => finish(null));
    return controller;
  }

  /** Connection pools held (one per TLS identity; for tests and shutdown checks). */
  pooledAgents(): number {
    return this.pool.size;
  }

  /** Destroys the pooled connections. Requests after this get fresh, unpooled connections. */
  close(): void {
    this.closed = true;
    for (const p of this.pool.values()) void p.agent.destroy().catch(() => {});
    this.pool.clear();
  }

  /**
   * Credentials and connection for one request: the KubeConfig's headers (bearer token, exec and
   * OIDC plugins, impersonation, basic auth) on `ctx`, and the pooled dispatcher for its TLS identity,
   * fenced or not.
   */
  private async authenticate(ctx: RequestContext, fenced: boolean): Promise<void> {
    const opts: HttpsRequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (v !== undefined) ctx.setHeaderParam(k, Array.isArray(v) ? v.join(', ') : String(v));
    }
    if (opts.auth) ctx.setHeaderParam('Authorization', `Basic ${Buffer.from(opts.auth).toString('base64')}`);
    const pooled = this.pooled(opts);
    if (pooled) {
      ctx.setDispatcher(fenced ? pooled.fenced : pooled.unfenced);
      return;
    }
    // A SOCKS proxy: client-node's own dispatcher for it (unpooled; its connector is not public),
    // fenced all the same.
    const scratch = new RequestContext(ctx.getUrl(), ctx.getHttpMethod());
    await this.kubeConfig.applySecurityAuthentication(scratch);
    const own = scratch.getDispatcher();
    const check = this.fence;
    if (own)
      ctx.setDispatcher(
        fenced && check
          ? own.compose(fenceInterceptor(check, (layer: FenceLayer) => this.fenceMetrics.writeRefused(layer)))
          : own,
      );
  }

  /** The pool for the TLS identity (and proxy) in `opts`; undefined for a SOCKS proxy. */
  private pooled(opts: HttpsRequestOptions): Pooled | undefined {
    const tls: Record<string, unknown> = {};
    for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
      if (opts[k] !== undefined) tls[k] = opts[k];
    }
    const settings = this.kubeConfig.createDispatcherOptions(this.kubeConfig.getCurrentCluster(), tls);
    if (settings.type === 'socks') return undefined;
    const hash = createHash('sha256');
    const flat: Record<string, unknown> = {
      type: settings.type,
      uri: 'uri' in settings ? settings.uri : undefined,
      ...('connect' in settings ? settings.connect : {}),
      ...('requestTls' in settings ? settings.requestTls : {}),
    };
    for (const k of POOL_KEYS) {
      const v = flat[k];
      hash.update(`\0${k}=`);
      if (v === undefined) continue;
      for (const part of Array.isArray(v) ? v : [v]) hash.update(Buffer.isBuffer(part) ? part : String(part));
    }
    const key = hash.digest('hex');
    const existing = this.closed ? undefined : this.pool.get(key);
    if (existing) return existing;
    const connect = 'connect' in settings ? settings.connect : undefined;
    const agent: Dispatcher =
      settings.type === 'proxy'
        ? new ProxyAgent({
            uri: settings.uri,
            requestTls: settings.requestTls,
            connect: settings.connect,
            keepAliveTimeout: IDLE_CONNECTION_TIMEOUT_MS,
          })
        : new Agent({
            keepAliveTimeout: IDLE_CONNECTION_TIMEOUT_MS,
            connect: { keepAlive: true, keepAliveInitialDelay: 30_000, ...connect },
          });
    // Without reuse every request closes its connection after the response (`Connection: close`).
    const base = this.reuse
      ? agent
      : agent.compose((dispatch) => (o, h) => dispatch({ ...o, reset: true }, h));
    const check = this.fence;
    const entry: Pooled = {
      agent,
      unfenced: base,
      fenced: check
        ? base.compose(fenceInterceptor(check, (layer: FenceLayer) => this.fenceMetrics.writeRefused(layer)))
        : base,
    };
    // A closed client still answers (with fresh connections), but keeps nothing.
    if (!this.closed) this.pool.set(key, entry);
    return entry;
  }

  private library(inner: HttpLibrary, fenced: boolean): HttpLibrary {
    return wrapHttpLibrary({
      send: async (request: RequestContext): Promise<ResponseContext> => {
        const method = request.getHttpMethod().toString();
        const link = linkedSignal(request.getSignal(), this.timeoutMs);
        request.setSignal(link.signal);
        const start = performance.now();
        let response: ResponseContext;
        try {
          response = await inner.send(request).toPromise();
        } catch (err) {
          link.dispose();
          this.metrics.request(method, '<error>', this.host, (performance.now() - start) / 1000);
          throw transportError(err, `${method} ${new URL(request.getUrl()).pathname}`);
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
        const fencedWrite = fenced && this.fence !== undefined && WRITE_METHODS.has(method);
        const counted = (text: string) => {
          if (fencedWrite && isFencingDenial(status, text)) this.fenceMetrics.writeRefused('admission');
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
          stream: () => body.stream(),
        });
      },
    });
  }
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
