// The elector's view of the Lease, behind a small interface: the real one talks to the API server
// (coordination.k8s.io/v1), the unit tests use an in-memory fake. The elector never sees client-node
// types, HTTP codes or exceptions other than the ones declared here.

import type { V1Lease } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { errorStatus, type KubeClient } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import type { Logger } from '../log.js';
import { Informer, kubeTransport, type Transport } from '../runtime/informer.js';

/** The election-relevant part of a Lease's spec (client-go's LeaderElectionRecord). */
export interface LeaseRecord {
  /** '' = nobody holds it (released, or never acquired): anyone may take it at once. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** RFC 3339 with microseconds, as the API server stores MicroTime. Opaque to the elector. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** A Lease as read from the API server: its record plus the resourceVersion to update it with. */
export interface ObservedLease {
  record: LeaseRecord;
  resourceVersion: string;
}

/** The write lost an optimistic-concurrency race (HTTP 409: stale resourceVersion, or create of an existing Lease). */
export class LeaseConflictError extends Error {
  override readonly name = 'LeaseConflictError';
}

export type LeaseWatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface LeaseWatchHandlers {
  onEvent(type: LeaseWatchEventType, lease: ObservedLease): void;
  /**
   * The watch failed. It reconnects by itself (with backoff); until events come again, what it
   * reported may be stale. Never called after stop().
   */
  onError(err: unknown): void;
}

export interface LeaseWatch {
  stop(): void;
}

/** Everything the elector needs from the Lease. All calls are abortable. */
export interface LeaseClient {
  /** "namespace/name", for logs. */
  readonly description: string;
  /** The Lease, or undefined if it does not exist (404). */
  get(signal: AbortSignal): Promise<ObservedLease | undefined>;
  /** Creates the Lease; throws {@link LeaseConflictError} if it already exists. */
  create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease>;
  /** Replaces the spec if the Lease is still at `resourceVersion`; throws {@link LeaseConflictError} if not. */
  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease>;
  /**
   * Watches this one Lease until stop(): the first event describes its current state, then every
   * change. The watch keeps itself alive (reconnects, resumes, re-reads after 410); failures are
   * reported through onError.
   */
  watch(handlers: LeaseWatchHandlers): LeaseWatch;
}

/** MicroTime with 6 fractional digits: the API server rejects Date#toISOString()'s 3 digits. */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function timeString(value: unknown): string | undefined {
  if (value instanceof Date) return formatMicroTime(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Converts a Lease as client-node returns it (typed or raw watch JSON) into an ObservedLease. */
export function toObservedLease(lease: V1Lease | Record<string, unknown>): ObservedLease {
  const l = lease as V1Lease;
  const spec = (l.spec ?? {}) as Record<string, unknown>;
  return {
    resourceVersion: l.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
      leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
      acquireTime: timeString(spec.acquireTime),
      renewTime: timeString(spec.renewTime),
      leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
    },
  };
}

const statusCode = errorStatus;

const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

export interface KubeLeaseClientOptions {
  /** The operator's one transport; the Lease client is its only unfenced user (renewing must work). */
  client: KubeClient;
  namespace: string;
  name: string;
  /** For the watch's reconnect messages. */
  logger?: Logger;
  /** Labels set when the Lease is created. */
  labels?: Record<string, string>;
}

/**
 * The real LeaseClient. RBAC it needs on `leases` (coordination.k8s.io) in the namespace:
 * get, create, update, watch — and `list` is NOT needed: a watch with fieldSelector metadata.name=X is
 * authorized as a watch of that one name, so a Role may restrict get/update/watch with resourceNames.
 * (create cannot be restricted by name.)
 */
export class KubeLeaseClient implements LeaseClient {
  readonly description: string;
  private readonly collection: string;
  private readonly path: string;

  // Plain JSON through the transport (unfenced: renewing is how a paused leader becomes able to write
  // again), not client-node's generated CoordinationV1Api: that one's ObjectSerializer references
  // every generated model, and would bring them all into the image's bundle (docs/scale.md, Memory).
  constructor(private readonly options: KubeLeaseClientOptions) {
    this.description = `${options.namespace}/${options.name}`;
    this.collection = resourcePath(LEASES, options.namespace);
    this.path = resourcePath(LEASES, options.namespace, options.name);
  }

  /** The Lease as JSON: MicroTimes as strings (V1Lease types them as the generated clients' Dates). */
  private body(record: LeaseRecord, resourceVersion?: string): KubernetesObject & { spec: LeaseRecord } {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.options.name,
        namespace: this.options.namespace,
        ...(resourceVersion ? { resourceVersion } : {}),
        ...(this.options.labels ? { labels: this.options.labels } : {}),
      },
      spec: {
        holderIdentity: record.holderIdentity,
        leaseDurationSeconds: record.leaseDurationSeconds,
        acquireTime: record.acquireTime,
        renewTime: record.renewTime,
        leaseTransitions: record.leaseTransitions,
      },
    };
  }

  async get(signal: AbortSignal): Promise<ObservedLease | undefined> {
    try {
      const lease = await this.options.client.request<V1Lease>('GET', this.path, { signal, fenced: false });
      return toObservedLease(lease);
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw err;
    }
  }

  async create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease> {
    try {
      const lease = await this.options.client.request<V1Lease>('POST', this.collection, {
        body: this.body(record),
        signal,
        fenced: false,
      });
      return toObservedLease(lease);
    } catch (err) {
      if (statusCode(err) === 409) throw new LeaseConflictError(`Lease ${this.description} already exists`);
      throw err;
    }
  }

  async update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease> {
    // A replace of the whole object carrying the resourceVersion we read: the API server applies it
    // only if nobody wrote the Lease since (optimistic concurrency); otherwise 409.
    // Note: this PUT drops labels/annotations someone else added to the Lease (we send ours only) —
    // acceptable for a lock object the operator owns.
    try {
      const lease = await this.options.client.request<V1Lease>('PUT', this.path, {
        body: this.body(record, resourceVersion),
        signal,
        fenced: false,
      });
      return toObservedLease(lease);
    } catch (err) {
      const code = statusCode(err);
      if (code === 409)
        throw new LeaseConflictError(
          `Lease ${this.description} changed since resourceVersion ${resourceVersion}`,
        );
      // Deleted under us: for the elector this is a lost race as well (it re-reads and re-creates).
      if (code === 404) throw new LeaseConflictError(`Lease ${this.description} no longer exists`);
      throw err;
    }
  }

  /**
   * The operator's one watch loop: an Informer (src/runtime/informer.ts) on this one Lease, whose
   * "list" is a GET of it — RBAC `get` and `watch` on the name suffice, no `list` — and whose watch
   * is the transport's (`fieldSelector=metadata.name=<name>`).
   *
   * A GET's resourceVersion is the Lease's own, as old as its last write: on a Lease idle past the
   * watch cache's window, a watch from it gets 410 Gone, the re-read returns the same version, and so
   * on. So a watch that would start from the version a GET returned starts from the most recent one
   * instead (no resourceVersion): the API server sends the Lease as it is then (the store drops it if
   * unchanged) and every change after it — what a watch from the GET's version would have sent.
   */
  watch(handlers: LeaseWatchHandlers): LeaseWatch {
    const { client, namespace, name } = this.options;
    const ref = LEASES;
    const watchTransport = kubeTransport<V1Lease & KubernetesObject>(client, ref);
    let readVersion: string | undefined;
    const transport: Transport<V1Lease & KubernetesObject> = {
      async list(req) {
        try {
          const lease = await client.request<V1Lease & KubernetesObject>(
            'GET',
            resourcePath(ref, namespace, name),
            { signal: req.signal },
          );
          readVersion = lease.metadata?.resourceVersion;
          return { items: [lease], resourceVersion: lease.metadata?.resourceVersion ?? '0' };
        } catch (err) {
          // No Lease yet: watch from "any" version; its creation arrives as ADDED.
          if (statusCode(err) === 404) return { items: [], resourceVersion: '0' };
          throw err;
        }
      },
      watch: (req, onEvent, onDone) =>
        watchTransport.watch(
          req.resourceVersion === readVersion ? { ...req, resourceVersion: '' } : req,
          onEvent,
          onDone,
        ),
    };
    let stopped = false;
    const informer = new Informer<V1Lease & KubernetesObject>(undefined, {
      ...ref,
      name: `lease ${this.description}`,
      namespaces: [namespace],
      fieldSelector: `metadata.name=${name}`,
      watchTimeoutSeconds: 60,
      transport,
      logger: this.options.logger,
    });
    const emit = (type: LeaseWatchEventType, lease: V1Lease) => {
      if (!stopped) handlers.onEvent(type, toObservedLease(lease));
    };
    informer.addEventHandler({
      add: (l) => emit('ADDED', l),
      update: (_old, l) => emit('MODIFIED', l),
      delete: (l) => emit('DELETED', l),
    });
    informer.onError((err) => {
      if (!stopped) handlers.onError(err);
    });
    informer.start();
    return {
      stop: () => {
        stopped = true;
        void informer.stop();
      },
    };
  }
}
