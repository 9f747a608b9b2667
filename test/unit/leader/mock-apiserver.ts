// A minimal plain-HTTP stand-in for the Lease endpoints of the API server, for unit tests of the
// client-node plumbing (request shapes, status-code mapping, watch streaming, metrics). The real API
// server is exercised by test/integration/leader-election.test.ts.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
}

export class MockApiServer {
  readonly requests: RecordedRequest[] = [];
  lease: Record<string, unknown> | undefined;
  private rv = 1;
  /** Requests to these paths never get an answer. */
  hangPaths = new Set<string>();
  /** Writes are refused with 403 and this message (an admission policy's denial). */
  denyWrites: string | undefined;
  /**
   * A watch from a resourceVersion below this gets 410 Gone (an ERROR event, as the API server answers
   * a version older than its watch cache's window); a watch from none starts at the most recent.
   */
  compactedBelow = 0;
  private readonly watchers = new Set<ServerResponse>();
  private server: Server | undefined;
  port = 0;
  /** TCP connections accepted so far. */
  connections = 0;

  constructor(
    readonly namespace = 'ns',
    readonly name = 'lock',
  ) {}

  get collection(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', () => this.connections++);
    // As the API server (Go's net/http): no `Keep-Alive: timeout=` hint, so the client's own idle
    // timeout decides how long a connection is kept (Node's server would hint 5 s).
    this.server.keepAliveTimeout = 0;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  kubeConfig(port = this.port): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'mock', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'test-token' }],
      contexts: [{ name: 'mock', cluster: 'mock', user: 'u' }],
      currentContext: 'mock',
    });
    return kc;
  }

  /** Pushes a watch event to every open watch. */
  emit(type: string, object: unknown): void {
    for (const w of this.watchers) w.write(JSON.stringify({ type, object }) + '\n');
  }

  /** Ends every open watch (as the server does after timeoutSeconds). */
  endWatches(): void {
    for (const w of this.watchers) w.end();
    this.watchers.clear();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body: unknown = text ? JSON.parse(text) : undefined;
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      body,
      authorization: req.headers.authorization,
    });
    if (this.hangPaths.has(url.pathname)) return;
    if (this.denyWrites !== undefined && req.method !== 'GET') {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          message: this.denyWrites,
        }),
      );
      return;
    }

    const json = (code: number, obj: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
    };
    const status = (code: number, reason: string) =>
      json(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code });
    const item = `${this.collection}/${this.name}`;

    if (
      req.method === 'GET' &&
      url.pathname === this.collection &&
      url.searchParams.get('watch') === 'true'
    ) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const from = Number(url.searchParams.get('resourceVersion') || NaN);
      if (from < this.compactedBelow) {
        const gone = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 };
        res.end(
          JSON.stringify({
            type: 'ERROR',
            object: { ...gone, message: `too old resource version: ${from}` },
          }) + '\n',
        );
        return;
      }
      this.watchers.add(res);
      res.on('close', () => this.watchers.delete(res));
      if (this.lease) res.write(JSON.stringify({ type: 'ADDED', object: this.lease }) + '\n');
      return;
    }
    if (req.method === 'GET' && url.pathname === item) {
      return this.lease ? json(200, this.lease) : status(404, 'NotFound');
    }
    if (req.method === 'POST' && url.pathname === this.collection) {
      if (this.lease) return status(409, 'AlreadyExists');
      this.lease = this.stamp(body);
      return json(201, this.lease);
    }
    if (req.method === 'PUT' && url.pathname === item) {
      if (!this.lease) return status(404, 'NotFound');
      const sent = (body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      const have = (this.lease.metadata as { resourceVersion: string }).resourceVersion;
      if (sent !== have) return status(409, 'Conflict');
      this.lease = this.stamp(body);
      return json(200, this.lease);
    }
    status(404, 'NotFound');
  }

  private stamp(body: unknown): Record<string, unknown> {
    const obj = structuredClone(body) as { metadata: Record<string, unknown> };
    obj.metadata = { ...obj.metadata, resourceVersion: String(++this.rv) };
    return obj;
  }
}

/** A port on which nothing listens. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
