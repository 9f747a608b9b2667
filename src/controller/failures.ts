// Which failures of a write are terminal — retrying cannot help until a human acts — and what the
// GlooHA's status says about them. Everything else (409 conflicts, 5xx, timeouts, connection errors)
// is transient: the work queue retries it with backoff.
//   403 Forbidden            → Stalled/Forbidden: the API server's words name the verb, resource and
//                              namespace; check again in a minute (someone may grant it).
//   400 BadRequest, 422 Invalid, 413 RequestEntityTooLarge, and a 500 whose message is a decoding
//   error of our own body (the API server cannot unmarshal a value into its Go type, e.g. a number
//   beyond int32 in a PDB's maxUnavailable: apply reports that as an internal error)
//                            → Stalled/InvalidObject with the server's message; check again after
//                              30 s, doubling to 10 min. A spec change reconciles at once anyway.
//                              Retrying the same body cannot succeed, and treating it as transient
//                              would retry for ever with a status that blames the operator.
import { errorStatus } from '../kube/client.js';
import type { Stall } from './status.js';

export const FORBIDDEN_REQUEUE_MS = 60_000;
const INVALID_REQUEUE_BASE_MS = 30_000;
const INVALID_REQUEUE_MAX_MS = 10 * 60_000;

/** The requeue delay after the n-th consecutive invalid-object failure (n from 0). */
export function invalidRequeueMs(previousFailures: number): number {
  return Math.min(INVALID_REQUEUE_MAX_MS, INVALID_REQUEUE_BASE_MS * 2 ** Math.min(previousFailures, 20));
}

/** The API server's own message (the Status body's `message`), else the error's first line. */
export function serverMessage(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause ?? err;
  const body = (cause as { body?: unknown }).body;
  try {
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: unknown } | undefined;
    if (typeof parsed?.message === 'string' && parsed.message) return parsed.message;
  } catch {
    /* not JSON: fall back to the error message */
  }
  return ((cause as Error)?.message ?? String(cause)).split('\n')[0] ?? 'unknown error';
}

/**
 * Go's encoding/json errors about the request body: deterministic for a given body, unlike the other
 * causes of a 500 (etcd timeouts, webhook failures), which a retry can outlive.
 */
const DECODING_ERROR =
  /cannot unmarshal .+ into Go (value|struct field)|json: unknown field|invalid character .* looking for/;

function isDecodingError(err: unknown): boolean {
  return DECODING_ERROR.test(serverMessage(err));
}

export interface TerminalFailure {
  kind: 'forbidden' | 'invalid';
  stall: Stall;
}

/** The stall a terminal write failure means, or undefined for a transient one. */
export function terminalFailure(err: unknown, kind?: string): TerminalFailure | undefined {
  const code = errorStatus((err as { cause?: unknown }).cause ?? err) ?? errorStatus(err);
  const what = (err as { what?: unknown }).what;
  const prefix = typeof what === 'string' ? `${what}: ` : '';
  if (code === 403) {
    return {
      kind: 'forbidden',
      stall: {
        reason: 'Forbidden',
        message: `${serverMessage(err)}. Grant the operator's ServiceAccount this permission (the Helm chart's RBAC does; in namespaced mode the install's namespace must be in watchNamespaces)`,
      },
    };
  }
  if (code === 400 || code === 422 || code === 413 || (code === 500 && isDecodingError(err))) {
    return {
      kind: 'invalid',
      stall: {
        reason: 'InvalidObject',
        message: `the API server rejected ${prefix}${serverMessage(err)}. Fix the ${kind ? `${kind} ` : ''}spec field that produces this value; the operator retries with backoff`,
      },
    };
  }
  return undefined;
}
