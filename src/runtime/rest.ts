// Raw JSON requests to the API server for any resource, core group included, through client-node's
// own HTTP stack (its fetch library and the KubeConfig's TLS/auth), failing with client-node's
// `ApiException` like the generated clients do. The informer lists with it because the typed clients
// need a method per kind and `CustomObjectsApi` builds `/apis/{group}/...` paths (no core group), and
// because the generated clients deserialize into model classes (dates become `Date`s) while watch
// events arrive as plain JSON: the cache must hold one representation.
import {
  ApiException,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  ServerConfiguration,
  type KubeConfig,
} from '@kubernetes/client-node';

export interface ResourceRef {
  /** API group; '' for the core group (ConfigMaps, Pods, ...). */
  group: string;
  version: string;
  /** Lower-case plural resource name, e.g. 'deployments'. */
  plural: string;
}

export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

/** `/apis/g/v[/namespaces/ns]/plural[/name[/subresource]]` (or `/api/v/...` for the core group). */
export function resourcePath(
  ref: ResourceRef,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  let path = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.plural}`;
  if (name) path += `/${encodeURIComponent(name)}`;
  if (name && subresource) path += `/${subresource}`;
  return path;
}

export interface KubeRequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Default 'application/json' when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
}

const http = new IsomorphicFetchHttpLibrary();

/** Sends one request and returns the parsed JSON body; throws `ApiException` (with `.code`) on non-2xx. */
export async function kubeRequest<T = unknown>(
  kc: KubeConfig,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  opts: KubeRequestOptions = {},
): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const server = new ServerConfiguration<Record<string, string>>(cluster.server, {});
  const ctx = server.makeRequestContext(path, HttpMethod[method]);
  for (const [k, v] of Object.entries(opts.query ?? {})) {
    if (v !== undefined) ctx.setQueryParam(k, String(v));
  }
  ctx.setHeaderParam('Accept', 'application/json');
  if (opts.body !== undefined) {
    ctx.setHeaderParam('Content-Type', opts.contentType ?? 'application/json');
    ctx.setBody(JSON.stringify(opts.body));
  }
  if (opts.signal) ctx.setSignal(opts.signal);
  await kc.applySecurityAuthentication(ctx);
  const resp = await http.send(ctx).toPromise();
  const text = await resp.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (resp.httpStatusCode < 200 || resp.httpStatusCode > 299) {
    const message =
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as { message?: unknown }).message === 'string'
        ? (parsed as { message: string }).message
        : `HTTP ${resp.httpStatusCode}`;
    throw new ApiException(resp.httpStatusCode, `${method} ${path}: ${message}`, parsed, resp.headers);
  }
  return parsed as T;
}

/** The HTTP status of an error from client-node (ApiException `.code`, Watch errors' `.statusCode`). */
export function errorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === 'number') return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return undefined;
}
