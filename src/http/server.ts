// The operator's one HTTP server: /metrics, /healthz, /readyz.
//
// /healthz — liveness. Fails when the event loop is (or just was) stuck longer than a threshold:
//   a timer ticks every `sampleIntervalMs`; its lateness is the loop lag. A loop that is blocked
//   outright cannot answer at all (the kubelet probe then times out, which also counts as a failure);
//   this check adds the case of a loop that still serves sockets but starves timers, and reports the
//   lag of a stall that just ended. The default threshold equals the default renew deadline: a stall
//   that long has already cost this replica its leadership.
// /readyz — readiness: the injected check (caches synced). A follower is ready: it is a hot standby
//   and must stay in the Service endpoints / count as available for the PodDisruptionBudget.
// /metrics — Prometheus exposition from the injected source.
//
// Add `?verbose` to /healthz or /readyz for one line per check.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';

export interface CheckResult {
  ok: boolean;
  /** Shown on failure (and with ?verbose). */
  message?: string;
}

export type Check = () => CheckResult | boolean;

export interface MetricsSource {
  expose(): Promise<{ contentType: string; body: string }>;
}

export interface HttpServerOptions {
  /** ":8080" (all interfaces), "0.0.0.0:8080", "127.0.0.1:0" (ephemeral port, for tests), "[::1]:8080". */
  address: string;
  metrics?: MetricsSource;
  /** Readiness checks by name (e.g. { caches: () => informersSynced() }). None = always ready. */
  readiness?: Record<string, Check>;
  /** Extra liveness checks by name, in addition to the event-loop check. */
  liveness?: Record<string, Check>;
  /** Loop lag (ms) beyond which /healthz fails. Default 10 000. */
  eventLoopStallMs?: number;
  /** How often the loop-lag timer ticks (ms). Default 500. */
  sampleIntervalMs?: number;
  logger?: Logger;
}

export interface HttpServerHandle {
  readonly server: Server;
  /** Bound host and port (the real port when `:0` was asked for). */
  readonly host: string;
  readonly port: number;
  /** e.g. http://127.0.0.1:8080 */
  readonly url: string;
  /** Current event-loop lag estimate in ms (time since the sampler last ran beyond its interval). */
  eventLoopLagMs(): number;
  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`, default 2000), then closes. */
  close(timeoutMs?: number): Promise<void>;
}

/** Parses ":8080", "8080", "host:port", "[v6]:port". Throws on anything else. */
export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const m = /^(?:(?:\[([^\]]+)\]|([^:[\]]*)):)?(\d+)$/.exec(address.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(
      `invalid listen address "${address}": expected [host]:port, e.g. ":8080" or "127.0.0.1:0"`,
    );
  }
  const host = m[1] ?? (m[2] || undefined);
  return { host, port };
}

function run(check: Check): CheckResult {
  try {
    const r = check();
    return typeof r === 'boolean' ? { ok: r } : r;
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

function respondChecks(
  res: ServerResponse,
  checks: Record<string, Check>,
  verbose: boolean,
  head: boolean,
  what: string,
): void {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of Object.entries(checks)) {
    const r = run(check);
    ok &&= r.ok;
    if (verbose || !r.ok)
      lines.push(
        `[${r.ok ? '+' : '-'}]${name} ${r.ok ? 'ok' : `failed${r.message ? `: ${r.message}` : ''}`}`,
      );
  }
  lines.push(ok ? (verbose ? `${what} check passed` : 'ok') : `${what} check failed`);
  const body = lines.join('\n') + '\n';
  res.writeHead(ok ? 200 : 503, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(head ? undefined : body);
}

/** Starts the server and resolves once it is listening. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const log = (options.logger ?? silentLogger).child({ component: 'http' });
  const { host, port } = parseListenAddress(options.address);
  const stallMs = options.eventLoopStallMs ?? 10_000;
  const intervalMs = options.sampleIntervalMs ?? 500;

  // Event-loop lag sampler. `lastTick` is when the timer last ran; `lastLag` how late that run was.
  let lastTick = performance.now();
  let lastLag = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    lastLag = Math.max(0, now - lastTick - intervalMs);
    lastTick = now;
  }, intervalMs);
  sampler.unref();
  const lagMs = () => Math.max(lastLag, performance.now() - lastTick - intervalMs, 0);

  const liveness: Record<string, Check> = {
    eventloop: () => {
      const lag = lagMs();
      return lag > stallMs
        ? { ok: false, message: `event loop lag ${Math.round(lag)}ms exceeds ${stallMs}ms` }
        : { ok: true, message: `lag ${Math.round(lag)}ms` };
    },
    ...options.liveness,
  };
  const readiness = options.readiness ?? {};

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    const verbose = url.searchParams.has('verbose');
    switch (url.pathname) {
      case '/healthz':
      case '/livez':
        respondChecks(res, liveness, verbose, head, 'liveness');
        return;
      case '/readyz':
        respondChecks(res, readiness, verbose, head, 'readiness');
        return;
      case '/metrics': {
        if (!options.metrics) break;
        const { contentType, body } = await options.metrics.expose();
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(head ? undefined : body);
        return;
      }
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error('http handler failed', { err, path: req.url });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    });
  });
  // Probes and scrapes are short; don't let idle keep-alive sockets hold a shutdown up.
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      clearInterval(sampler);
      reject(err);
    };
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => log.error('http server error', { err }));
  const addr = server.address() as AddressInfo;
  const boundHost = addr.address;
  const urlHost = addr.family === 'IPv6' ? `[${boundHost}]` : boundHost;
  log.info('http server listening', { address: `${urlHost}:${addr.port}` });

  let closing: Promise<void> | undefined;
  return {
    server,
    host: boundHost,
    port: addr.port,
    url: `http://${urlHost === '0.0.0.0' || urlHost === '[::]' ? '127.0.0.1' : urlHost}:${addr.port}`,
    eventLoopLagMs: lagMs,
    close(timeoutMs = 2_000) {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(sampler);
        const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
