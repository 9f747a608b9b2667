// The list types of the kinds the operator writes, and the fields products ask about, read from the
// API server that serves them (/openapi/v3/apis/<group>/<version>, which every authenticated user may
// read through the system:discovery ClusterRole). Fetched once per group version on first use and
// kept, and fetched again only when the API server says the group version's schema changed (the
// /openapi/v3 index names each document with a hash of its content, looked at no more than every
// SCHEMA_CHECK_MS): a CRD upgraded under a running operator (a product's new release adding fields) is
// noticed without a restart. The documents are large (apps/v1 is ~700 kB), so only the few facts
// derived from them are kept. A failed fetch is logged and retried after a while; until then the
// comparer falls back for that kind (compare.ts), and a product sees no served fields for it.
import type { Logger } from '../log.js';
import type { KubeClient } from './client.js';
import { kindKey, listTypesFromOpenAPI, type ListTypes } from './list-types.js';
import { servedFieldsFromOpenAPI, type ServedFields } from './served-fields.js';

export interface WrittenKind {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Field paths (`spec.a.b`) whose presence in the served schema a product decides by. */
  servedFields?: readonly string[];
}

/** How long a group version whose document could not be read waits before it is asked again. */
export const RETRY_AFTER_MS = 60_000;

/** How often, at most, the /openapi/v3 index is read to see whether a fetched schema changed. */
export const SCHEMA_CHECK_MS = 30_000;

interface OpenAPIIndex {
  paths?: Record<string, { serverRelativeURL?: string }>;
}

export class ServedListTypes {
  private readonly facts: ListTypes = {};
  private readonly fields: ServedFields = {};
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();
  /** Per group version, the index's URL (content hash) when last looked at. */
  private readonly versions = new Map<string, string>();
  private checkedAt: number | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly client: Pick<KubeClient, 'request'>,
    private readonly kinds: readonly WrittenKind[],
    private readonly log: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The facts of every kind fetched so far, fetching those not yet known (once at a time per group version). */
  async get(signal?: AbortSignal): Promise<ListTypes> {
    await this.checkChanged(signal);
    const byGroupVersion = new Map<string, WrittenKind[]>();
    for (const k of this.kinds) {
      const gv = groupVersion(k);
      if (this.facts[kindKey(gv, k.kind)]) continue;
      const failed = this.failedAt.get(gv);
      if (failed !== undefined && this.now() - failed < RETRY_AFTER_MS) continue;
      byGroupVersion.set(gv, [...(byGroupVersion.get(gv) ?? []), k]);
    }
    await Promise.all([...byGroupVersion].map(([gv, kinds]) => this.fetch(gv, kinds, signal)));
    return this.facts;
  }

  /**
   * Looks for a changed schema every SCHEMA_CHECK_MS, not only when get() is called: a CRD upgraded
   * while nothing else changes must still reach the products that decide by its fields. Calls
   * `onChange` when the served fields changed. Returns the function that stops it.
   */
  poll(onChange: () => void): () => void {
    const timer = setInterval(() => {
      void this.refresh().then((changed) => changed && onChange());
    }, SCHEMA_CHECK_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** get(), and whether the served fields changed with it. */
  async refresh(signal?: AbortSignal): Promise<boolean> {
    const before = JSON.stringify(this.fields);
    await this.get(signal);
    return JSON.stringify(this.fields) !== before;
  }

  /**
   * Per kindKey, which of the kind's asked servedFields its served schema has (as of the last get());
   * a kind whose schema has not been read (not served, or not yet) is absent.
   */
  servedFields(): ServedFields {
    return this.fields;
  }

  /**
   * Forgets the facts of every group version whose document the index now names differently (its
   * schema changed), so that get() fetches it again. A failed read of the index changes nothing.
   */
  private checkChanged(signal?: AbortSignal): Promise<void> {
    if (this.checking) return this.checking;
    if (this.checkedAt !== undefined && this.now() - this.checkedAt < SCHEMA_CHECK_MS)
      return Promise.resolve();
    this.checkedAt = this.now();
    this.checking = this.client
      .request<OpenAPIIndex>('GET', '/openapi/v3', { signal })
      .then((index) => {
        for (const [path, entry] of Object.entries(index.paths ?? {})) {
          const gv = path.replace(/^apis?\//, '');
          const url = entry.serverRelativeURL;
          if (url === undefined) continue;
          const before = this.versions.get(gv);
          this.versions.set(gv, url);
          if (before === undefined || before === url) continue;
          for (const k of this.kinds) {
            if (groupVersion(k) !== gv) continue;
            delete this.facts[kindKey(gv, k.kind)];
          }
        }
      })
      .catch(() => {})
      .finally(() => (this.checking = undefined));
    return this.checking;
  }

  private fetch(gv: string, kinds: WrittenKind[], signal?: AbortSignal): Promise<void> {
    const running = this.pending.get(gv);
    if (running) return running;
    const path = gv.includes('/') ? `/openapi/v3/apis/${gv}` : `/openapi/v3/api/${gv}`;
    const keys = kinds.map((k) => kindKey(gv, k.kind));
    const asked = Object.fromEntries(
      kinds.filter((k) => k.servedFields).map((k) => [kindKey(gv, k.kind), k.servedFields!] as const),
    );
    const p = this.client
      .request<Parameters<typeof listTypesFromOpenAPI>[0]>('GET', path, { signal })
      .then((doc) => {
        const found = listTypesFromOpenAPI(doc, keys);
        // A kind the document does not describe has no list types: its lists are atomic.
        for (const key of keys) this.facts[key] = found[key] ?? {};
        const served = servedFieldsFromOpenAPI(doc, asked);
        for (const key of Object.keys(asked)) {
          if (served[key]) this.fields[key] = served[key];
          else delete this.fields[key];
        }
        this.failedAt.delete(gv);
      })
      .catch((err: unknown) => {
        this.failedAt.set(gv, this.now());
        // Not served (yet, or any more): a CRD installed later is asked for again after a while.
        if ((err as { code?: number }).code === 404) {
          for (const key of Object.keys(asked)) delete this.fields[key];
          return;
        }
        this.log.warn(
          'could not read the OpenAPI schema; comparing lists of named items by name until it can',
          {
            groupVersion: gv,
            err,
          },
        );
      })
      .finally(() => this.pending.delete(gv));
    this.pending.set(gv, p);
    return p;
  }
}

function groupVersion(k: WrittenKind): string {
  return k.group ? `${k.group}/${k.version}` : k.version;
}
