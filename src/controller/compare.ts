// Deciding whether a write is needed, without writing. A steady-state reconcile must make zero write
// requests, so every apply is preceded by a comparison of what we would send with what the cache holds.
import { createHash } from 'node:crypto';
import { fieldPath, itemKey, itemsPath, listTypeAt, type KindListTypes } from '../kube/list-types.js';

/**
 * True when every field of `desired` is present in `live` with an equal value. `live` may hold more
 * (defaults, other managers' fields). Lists follow server-side apply as the API server's schema says
 * (`lists`, see kube/list-types.ts): a map list matches item by item on its keys — another manager's
 * items beside ours are not a difference (a policy engine's extra topology spread constraint) — a set
 * needs our values among the live ones, an atomic list must match element for element. `path` is
 * where `desired` sits in its object (list items as `[]`). Without schema facts for the kind (the
 * API server did not serve them), lists whose items all carry a `name` are matched by name.
 */
export function isSubset(desired: unknown, live: unknown, lists?: KindListTypes, path = ''): boolean {
  if (desired === null || desired === undefined)
    return live === desired || live === undefined || live === null;
  if (Array.isArray(desired)) {
    // The API server omits empty lists: an empty desired list matches a missing one.
    if (desired.length === 0 && (live === undefined || live === null)) return true;
    if (!Array.isArray(live)) return false;
    const items = itemsPath(path);
    const type = listTypeAt(lists, path, desired, live);
    switch (type.type) {
      case 'map': {
        const byKey = new Map(live.map((l) => [itemKey(l, type.keys), l]));
        return desired.every((d) => {
          const k = itemKey(d, type.keys);
          return k !== undefined && byKey.has(k) && isSubset(d, byKey.get(k), lists, items);
        });
      }
      case 'set':
        return desired.every((d) => live.some((l) => isSubset(d, l, lists, items)));
      case 'atomic':
        return desired.length === live.length && desired.every((d, i) => isSubset(d, live[i], lists, items));
    }
  }
  if (typeof desired === 'object') {
    if (Object.keys(desired).length === 0 && (live === undefined || live === null)) return true;
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) =>
      isSubset(v, (live as Record<string, unknown>)[k], lists, fieldPath(path, k)),
    );
  }
  return desired === live;
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
