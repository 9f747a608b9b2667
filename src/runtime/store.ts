// The informer's cache: the last state seen of each object, keyed `namespace/name` (`name` for
// cluster-scoped objects), like client-go's thread-safe store. Mutations return the deltas they
// caused, which is what the informer hands to event handlers: applying a watch event or a re-list
// emits an add, an update (with the previous object) or a delete only when the stored state actually
// changed, so replaying objects the store already holds at the same resourceVersion (a re-list after
// a 410, a watch resumed from a bookmark) emits nothing.
import type { KubernetesObject } from '@kubernetes/client-node';

export type Delta<T> =
  | { type: 'add'; obj: T }
  | { type: 'update'; old: T; obj: T }
  /** `finalStateUnknown`: the object vanished between two lists, so `obj` is its last known state. */
  | { type: 'delete'; obj: T; finalStateUnknown?: boolean };

export function objectKey(obj: KubernetesObject): string {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  if (slash < 0) return { name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** An index function: the index values an object is filed under (e.g. a label's value). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Read access to a store: what reconcilers get. */
export interface Cache<T> {
  get(key: string): T | undefined;
  getByName(name: string, namespace?: string): T | undefined;
  /**
   * Every object, or those in `namespace` (read from a namespace index: no walk over the other
   * namespaces). A new array each call; the objects are the cached ones, never to be mutated.
   */
  list(namespace?: string): T[];
  keys(): string[];
  readonly size: number;
  /** Objects filed under `value` by the index `name` (see `addIndex`). */
  byIndex(name: string, value: string): T[];
}

export class Store<T extends KubernetesObject = KubernetesObject> implements Cache<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → index value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /**
   * namespace → key → object, kept on every write. Reconciles ask for one install's namespace many
   * times per second at scale; filtering the whole cache each time made a cold start O(N²).
   */
  private readonly byNamespace = new Map<string | undefined, Map<string, T>>();

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  getByName(name: string, namespace?: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.items.values()];
    const inNamespace = this.byNamespace.get(namespace);
    return inNamespace ? [...inNamespace.values()] : [];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  /** Adds an index (also over the objects already stored). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`index ${name} already exists`);
    this.indexers.set(name, fn);
    this.indices.set(name, new Map());
    for (const [key, obj] of this.items) this.indexOne(name, fn, key, obj);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index ${name}`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Applies an ADDED/MODIFIED object. Nothing happens when the stored copy has the same resourceVersion. */
  upsert(obj: T): Delta<T> | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old && sameVersion(old, obj)) return undefined;
    this.set(key, obj, old);
    return old ? { type: 'update', old, obj } : { type: 'add', obj };
  }

  /** Applies a DELETED object. The delta carries the object as the server last sent it. */
  remove(obj: T): Delta<T> | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unset(key, old);
    return { type: 'delete', obj };
  }

  /**
   * Replaces the contents with a fresh list (a re-list). Objects outside `namespace`, when given, are
   * not touched: several namespaced watchers can share one store.
   */
  replace(items: readonly T[], namespace?: string, scope?: (obj: T) => boolean): Delta<T>[] {
    const deltas: Delta<T>[] = [];
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(objectKey(obj));
      const d = this.upsert(obj);
      if (d) deltas.push(d);
    }
    const candidates: ReadonlyMap<string, T> =
      namespace === undefined ? this.items : (this.byNamespace.get(namespace) ?? new Map<string, T>());
    for (const [key, old] of [...candidates]) {
      if (seen.has(key)) continue;
      // Another list (of another selection of a union) answers for objects outside `scope`.
      if (scope && !scope(old)) continue;
      this.unset(key, old);
      deltas.push({ type: 'delete', obj: old, finalStateUnknown: true });
    }
    return deltas;
  }

  private set(key: string, obj: T, old: T | undefined): void {
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    const ns = obj.metadata?.namespace;
    let inNamespace = this.byNamespace.get(ns);
    if (!inNamespace) this.byNamespace.set(ns, (inNamespace = new Map<string, T>()));
    inNamespace.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexOne(name, fn, key, obj);
  }

  private unset(key: string, old: T): void {
    this.unindex(key, old);
    this.items.delete(key);
    const ns = old.metadata?.namespace;
    const inNamespace = this.byNamespace.get(ns);
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) this.byNamespace.delete(ns);
  }

  private indexOne(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    const index = this.indices.get(name);
    if (!index) return;
    for (const value of fn(obj)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      if (!index) continue;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}

function sameVersion(a: KubernetesObject, b: KubernetesObject): boolean {
  const rv = a.metadata?.resourceVersion;
  return rv !== undefined && rv !== '' && rv === b.metadata?.resourceVersion;
}
