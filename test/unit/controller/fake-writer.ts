// An ObjectWriter that records what it was asked to write and fails where a test says so.
import type { CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import type { ObjectWriter } from '../../../src/controller/actions/writer.js';
import { abortReason } from '../../../src/runtime/clock.js';
import type { ObjectRef } from '../../../src/controller/plan-types.js';
import type { GlooHA, GlooHAStatus } from '../../../src/products/gloo/types.js';

export type Call =
  | { op: 'apply'; manager: string; body: KubernetesObject }
  | { op: 'mergePatch'; body: KubernetesObject }
  | { op: 'delete'; ref: ObjectRef }
  | { op: 'finalizers'; finalizers: string[] }
  | { op: 'status'; status: GlooHAStatus; basedOn?: string }
  | { op: 'event'; event: CoreV1Event };

export class FakeWriter implements ObjectWriter {
  readonly calls: Call[] = [];
  readonly signals: AbortSignal[] = [];
  /** Return an error to throw for this call (before it is recorded), or undefined. */
  failWith: (call: Call) => Error | undefined = () => undefined;
  /** Resolves writes only when a test says so (in-flight cancellation tests). */
  hold?: Promise<void>;
  /** The resourceVersion an accepted apply returns (each apply counts one up from it). */
  nextResourceVersion = 100;

  private async run(call: Call, signal: AbortSignal): Promise<void> {
    this.signals.push(signal);
    if (this.hold) {
      await Promise.race([
        this.hold,
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true }),
        ),
      ]);
    }
    const err = this.failWith(call);
    if (err) throw err;
    this.calls.push(call);
  }
  async apply(body: KubernetesObject, manager: string, signal: AbortSignal) {
    await this.run({ op: 'apply', manager, body }, signal);
    return String(this.nextResourceVersion++);
  }
  async mergePatch(body: KubernetesObject, signal: AbortSignal) {
    await this.run({ op: 'mergePatch', body }, signal);
    return String(this.nextResourceVersion++);
  }
  delete(ref: ObjectRef, signal: AbortSignal) {
    return this.run({ op: 'delete', ref }, signal);
  }
  async setFinalizers(g: GlooHA, finalizers: string[], signal: AbortSignal) {
    await this.run({ op: 'finalizers', finalizers }, signal);
    return g.metadata.resourceVersion === undefined ? undefined : `${g.metadata.resourceVersion}+finalizers`;
  }
  async writeStatus(g: GlooHA, status: GlooHAStatus, signal: AbortSignal) {
    await this.run({ op: 'status', status, basedOn: g.metadata.resourceVersion }, signal);
    return g.metadata.resourceVersion === undefined ? undefined : `${g.metadata.resourceVersion}+status`;
  }
  createEvent(event: CoreV1Event, signal: AbortSignal) {
    return this.run({ op: 'event', event }, signal);
  }
  ops(): string[] {
    return this.calls.map((c) =>
      c.op === 'apply'
        ? `apply ${c.manager} ${c.body.kind} ${c.body.metadata?.name}`
        : c.op === 'mergePatch'
          ? `mergePatch ${c.body.kind} ${c.body.metadata?.name}`
          : c.op === 'delete'
            ? `delete ${c.ref.kind} ${c.ref.name}`
            : c.op === 'event'
              ? `event ${c.event.reason}`
              : c.op,
    );
  }
}

/** client-node's ApiException shape: `code` and the API server's Status as `body`. */
export function apiError(code: number, message: string): Error {
  return Object.assign(new Error(`HTTP-Code: ${code}`), {
    code,
    body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message }),
  });
}
