// Deciding whether a write is needed, without writing. A steady-state reconcile must make zero write
// requests, so every apply is preceded by a comparison of what we would send with what the cache holds.
import { createHash } from 'node:crypto';

/**
 * True when every field of `desired` is present in `live` with an equal value. `live` may hold more
 * (defaults, other managers' fields). Lists of objects that carry a `name` are matched by name, the way
 * server-side apply merges them (containers, env); other lists must match element for element.
 */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (desired === null || desired === undefined)
    return live === desired || live === undefined || live === null;
  if (Array.isArray(desired)) {
    // The API server omits empty lists: an empty desired list matches a missing one.
    if (desired.length === 0 && (live === undefined || live === null)) return true;
    if (!Array.isArray(live)) return false;
    const byName = desired.every((d) => isNamed(d)) && live.every((l) => isNamed(l));
    if (byName && desired.length > 0) {
      return desired.every((d) => {
        const match = live.find((l) => (l as { name: unknown }).name === (d as { name: unknown }).name);
        return match !== undefined && isSubset(d, match);
      });
    }
    return desired.length === live.length && desired.every((d, i) => isSubset(d, live[i]));
  }
  if (typeof desired === 'object') {
    if (Object.keys(desired).length === 0 && (live === undefined || live === null)) return true;
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) =>
      isSubset(v, (live as Record<string, unknown>)[k]),
    );
  }
  return desired === live;
}

function isNamed(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string'
  );
}

/** A stable hash of a JSON value (object keys sorted), for "what did we last apply" annotations. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

export function canonicalJson(value: unknown): string {
  // As JSON.stringify: undefined in a list is null, undefined at the top is "null" (never undefined).
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
