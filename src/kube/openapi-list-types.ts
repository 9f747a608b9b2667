// The list types of the kinds the operator writes, read from the API server that serves them
// (/openapi/v3/apis/<group>/<version>, which every authenticated user may read through the
// system:discovery ClusterRole). Fetched once per group version on first use and kept: a kind's
// schema changes only with the API server's version (or a CRD's), and the documents are large
// (apps/v1 is ~700 kB), so only the few facts derived from them are kept. A failed fetch is logged
// and retried after a while; until then the comparer falls back for that kind (compare.ts).
import type { Logger } from '../log.js';
import type { KubeClient } from './client.js';
import { kindKey, listTypesFromOpenAPI, type ListTypes } from './list-types.js';

export interface WrittenKind {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
}

/** How long a group version whose document could not be read waits before it is asked again. */
export const RETRY_AFTER_MS = 60_000;

export class ServedListTypes {
  private readonly facts: ListTypes = {};
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();

  constructor(
    private readonly client: Pick<KubeClient, 'request'>,
    private readonly kinds: readonly WrittenKind[],
    private readonly log: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The facts of every kind fetched so far, fetching those not yet known (once at a time per group version). */
  async get(signal?: AbortSignal): Promise<ListTypes> {
    const byGroupVersion = new Map<string, WrittenKind[]>();
    for (const k of this.kinds) {
      const gv = k.group ? `${k.group}/${k.version}` : k.version;
      if (this.facts[kindKey(gv, k.kind)]) continue;
      const failed = this.failedAt.get(gv);
      if (failed !== undefined && this.now() - failed < RETRY_AFTER_MS) continue;
      byGroupVersion.set(gv, [...(byGroupVersion.get(gv) ?? []), k]);
    }
    await Promise.all([...byGroupVersion].map(([gv, kinds]) => this.fetch(gv, kinds, signal)));
    return this.facts;
  }

  private fetch(gv: string, kinds: WrittenKind[], signal?: AbortSignal): Promise<void> {
    const running = this.pending.get(gv);
    if (running) return running;
    const path = gv.includes('/') ? `/openapi/v3/apis/${gv}` : `/openapi/v3/api/${gv}`;
    const keys = kinds.map((k) => kindKey(gv, k.kind));
    const p = this.client
      .request<Parameters<typeof listTypesFromOpenAPI>[0]>('GET', path, { signal })
      .then((doc) => {
        const found = listTypesFromOpenAPI(doc, keys);
        // A kind the document does not describe has no list types: its lists are atomic.
        for (const key of keys) this.facts[key] = found[key] ?? {};
        this.failedAt.delete(gv);
      })
      .catch((err: unknown) => {
        this.failedAt.set(gv, this.now());
        // Not served (yet): a CRD installed later is asked for again after a while.
        if ((err as { code?: number }).code === 404) return;
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
