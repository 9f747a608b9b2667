// Raw requests to the test API server with the admin credentials, for what typed clients hide: the
// exact bytes sent (JSON text with float literals or a `__proto__` key, YAML), query parameters such
// as fieldValidation, and the Status body of a rejection.
import { request, type RequestOptions } from 'node:https';
import { adminKubeConfig } from './cluster.js';

export interface RawResponse {
  code: number;
  text: string;
}

/** One request; resolves with any status (retries 429 as client-go does). */
export async function send(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  for (let attempt = 0; ; attempt++) {
    const res = await sendOnce(method, path, body, headers);
    if (res.code !== 429 || attempt >= 20) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A request that must succeed: the body of a 2xx response. */
export async function raw(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await send(method, path, body, headers);
  if (res.code >= 200 && res.code < 300) return res.text;
  throw new Error(`${method} ${path}: ${res.code}: ${res.text}`);
}

async function sendOnce(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<RawResponse> {
  const kc = adminKubeConfig();
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const opts: RequestOptions = {
    hostname: server.hostname,
    port: server.port,
    path,
    method,
    headers: { Accept: 'application/json', ...headers },
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = request(opts, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
