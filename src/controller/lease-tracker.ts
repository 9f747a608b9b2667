// Who leads each install (the holder of the product's leader Lease), without letting lease churn in.
// Gloo's leader renews its `gloo` Lease every ~2 s, kgateway's its `kgateway-envoy`; a reconcile per
// renewal would be thousands of reconciles an hour for nothing. This tracker swallows renewals and
// reports only what changes the status: a new holder, the lease
// appearing or disappearing, and the lease going stale (no renewal seen for leaseDuration) or fresh again.
//
// Staleness is judged like client-go judges expiry: on our own monotonic clock, from when we last saw
// the record change — never by comparing the holder's renewTime with our wall clock (clock skew).
import type { V1Lease } from '@kubernetes/client-node';
import type { LeaderStatus } from '../api/types.js';
import { realClock, type Clock } from '../runtime/clock.js';

interface Tracked {
  holder: string;
  renewTime?: string;
  acquireTime?: string;
  leaseDurationSeconds: number;
  leaseTransitions?: number;
  /** Monotonic time we last saw renewTime (or the holder) change. */
  lastSeenChangeMono: number;
  fresh: boolean;
  /** Wall-clock time we saw the holder change (for status only; no decision uses it). */
  holderSince: string;
  timer?: unknown;
  /** The last holder seen holding (a released record has none), and when its record last changed. */
  lastHeld?: { holder: string; changedMono: number; leaseDurationSeconds: number };
}

/** A leaderless gap: from the previous holder's last renewal seen to the next holder's first record. */
export interface LeaderlessGap {
  seconds: number;
  previousHolder: string;
  holder: string;
  /** The previous holder's leaseDurationSeconds (a released record says 1). */
  leaseDurationSeconds: number;
}

const DEFAULT_LEASE_SECONDS = 15;

export class LeaseTracker {
  private readonly leases = new Map<string, Tracked>();

  /** `onStaleness(namespace)` fires when a lease goes stale without any event (a timer notices). */
  constructor(
    private readonly onStaleness: (namespace: string) => void,
    private readonly clock: Clock = realClock,
    /** Called when a new holder follows another one (directly or after a release). */
    private readonly onGap: (namespace: string, gap: LeaderlessGap) => void = () => {},
  ) {}

  /**
   * Records a Lease event. Returns true when the change matters to status (holder, existence or
   * freshness changed) — the caller enqueues only then.
   */
  observe(namespace: string, lease: V1Lease): boolean {
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renewTime = spec.renewTime === undefined ? undefined : String(spec.renewTime);
    const prev = this.leases.get(namespace);
    const now = this.clock.now();
    const changed = !prev || prev.holder !== holder || prev.renewTime !== renewTime;
    const next: Tracked = {
      holder,
      renewTime,
      acquireTime: spec.acquireTime === undefined ? undefined : String(spec.acquireTime),
      leaseDurationSeconds: spec.leaseDurationSeconds ?? DEFAULT_LEASE_SECONDS,
      leaseTransitions: spec.leaseTransitions,
      lastSeenChangeMono: changed ? now : prev.lastSeenChangeMono,
      // An empty holder is a released lease: nobody leads.
      fresh: holder !== '',
      holderSince: prev && prev.holder === holder ? prev.holderSince : this.clock.wallNow().toISOString(),
    };
    if (!changed) next.fresh = prev.fresh;
    next.lastHeld = prev?.lastHeld;
    if (holder !== '') {
      const last = prev?.lastHeld;
      if (last && last.holder !== holder)
        this.onGap(namespace, {
          seconds: Math.max(0, now - last.changedMono) / 1000,
          previousHolder: last.holder,
          holder,
          leaseDurationSeconds: last.leaseDurationSeconds,
        });
      if (changed || !last || last.holder !== holder)
        next.lastHeld = { holder, changedMono: now, leaseDurationSeconds: next.leaseDurationSeconds };
    }
    if (prev?.timer !== undefined) this.clock.clearTimeout(prev.timer);
    this.leases.set(namespace, next);
    if (next.fresh) this.armStaleTimer(namespace, next);
    return !prev || prev.holder !== next.holder || prev.fresh !== next.fresh;
  }

  /** The Lease was deleted. Returns true when we knew it. */
  forget(namespace: string): boolean {
    const prev = this.leases.get(namespace);
    if (prev?.timer !== undefined) this.clock.clearTimeout(prev.timer);
    return this.leases.delete(namespace);
  }

  status(namespace: string): LeaderStatus | undefined {
    const t = this.leases.get(namespace);
    if (!t) return undefined;
    return {
      ...(t.holder ? { holder: t.holder } : {}),
      fresh: t.fresh,
      ...(t.acquireTime ? { acquireTime: t.acquireTime } : {}),
      leaseDurationSeconds: t.leaseDurationSeconds,
      ...(t.leaseTransitions === undefined ? {} : { leaseTransitions: t.leaseTransitions }),
      lastTransitionTime: t.holderSince,
    };
  }

  /**
   * The Lease's age as this replica sees it: seconds since the record last changed (a renewal or a new
   * holder), on the monotonic clock — the same measure the staleness judgement uses.
   */
  lease(namespace: string): { ageSeconds: number; leaseDurationSeconds: number } | undefined {
    const t = this.leases.get(namespace);
    if (!t) return undefined;
    return {
      ageSeconds: Math.max(0, this.clock.now() - t.lastSeenChangeMono) / 1000,
      leaseDurationSeconds: t.leaseDurationSeconds,
    };
  }

  /**
   * While nobody leads (the Lease is stale or released): seconds since the last holder's last renewal
   * seen (the start of the leaderless spell, as a gap is measured), and that holder's leaseDuration.
   * Undefined while a holder is fresh, or when no Lease was seen.
   */
  leaderless(namespace: string): { seconds: number; leaseDurationSeconds: number } | undefined {
    const t = this.leases.get(namespace);
    if (!t || t.fresh) return undefined;
    const since = t.lastHeld?.changedMono ?? t.lastSeenChangeMono;
    return {
      seconds: Math.max(0, this.clock.now() - since) / 1000,
      leaseDurationSeconds: t.lastHeld?.leaseDurationSeconds ?? t.leaseDurationSeconds,
    };
  }

  stop(): void {
    for (const t of this.leases.values()) if (t.timer !== undefined) this.clock.clearTimeout(t.timer);
  }

  private armStaleTimer(namespace: string, t: Tracked): void {
    const expiresIn = t.lastSeenChangeMono + t.leaseDurationSeconds * 1000 - this.clock.now();
    t.timer = this.clock.setTimeout(
      () => {
        const cur = this.leases.get(namespace);
        if (cur !== t) return;
        t.timer = undefined;
        t.fresh = false;
        this.onStaleness(namespace);
      },
      Math.max(0, expiresIn),
    );
  }
}
