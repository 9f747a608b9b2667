// The Event recorder's bound: the reconciler does not wait for its Events, so the recorder keeps at
// most maxInFlight writes in flight, queues at most maxQueued behind them, and drops (and counts) the
// rest — never more requests than that, however many reconciles finish meanwhile.
import type { CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../../src/controller/actions/events.js';
import type { ObjectWriter } from '../../../src/controller/actions/writer.js';
import { createLogger } from '../../../src/log.js';
import { deferred, flush } from '../runtime/helpers.js';
import { finalizedGlooHA } from './snapshots.js';

const g = finalizedGlooHA({ gloo: { replicas: 2 } });
const ev = (message: string) => ({ type: 'Normal' as const, reason: 'Applied', message });

/** A writer whose event writes each wait for the test to answer them. */
function slowWriter() {
  const sent: { message: string; answer: ReturnType<typeof deferred<void>> }[] = [];
  const writer = {
    createEvent: (e: CoreV1Event) => {
      const answer = deferred<void>();
      sent.push({ message: e.message ?? '', answer });
      return answer.promise;
    },
  } as unknown as ObjectWriter;
  return { writer, sent };
}

function recorder(writer: ObjectWriter, limits: { maxInFlight: number; maxQueued: number }) {
  let dropped = 0;
  const rec = new EventRecorder(
    writer,
    createLogger('error', {}, () => {}),
    () => 0,
    'pod',
    {
      ...limits,
      onDropped: () => dropped++,
    },
  );
  return { rec, dropped: () => dropped };
}

describe('EventRecorder: bounded writes', () => {
  it('at most maxInFlight in flight, then a FIFO of maxQueued, then dropped and counted', async () => {
    const { writer, sent } = slowWriter();
    const { rec, dropped } = recorder(writer, { maxInFlight: 2, maxQueued: 3 });
    const term = new AbortController().signal;
    const done = Array.from({ length: 7 }, (_, i) => rec.record(g, ev(`e${i}`), term));
    await flush();
    expect(sent.map((s) => s.message)).toEqual(['e0', 'e1']);
    expect(rec.pending).toEqual({ inFlight: 2, queued: 3 });
    expect(dropped()).toBe(2); // e5, e6: the newest go, as client-go's DropIfChannelFull
    await Promise.all(done.slice(5)); // a dropped event settles at once: nobody waits for it
    sent[1]!.answer.resolve();
    await flush();
    expect(sent.map((s) => s.message)).toEqual(['e0', 'e1', 'e2']); // the oldest waiting one
    expect(rec.pending).toEqual({ inFlight: 2, queued: 2 });
    for (let i = 0; i < sent.length; i++) {
      sent[i]!.answer.resolve();
      await flush();
    }
    await Promise.all(done);
    expect(sent.map((s) => s.message)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(rec.pending).toEqual({ inFlight: 0, queued: 0 });
    // A dropped event was not remembered as sent: the same one goes out next time.
    const again = rec.record(g, ev('e5'), term);
    expect(sent.at(-1)!.message).toBe('e5'); // a free slot: started within the call
    sent.at(-1)!.answer.resolve();
    await again;
  });

  it('a failed write frees its slot for the next one', async () => {
    const { writer, sent } = slowWriter();
    const { rec } = recorder(writer, { maxInFlight: 1, maxQueued: 10 });
    const term = new AbortController().signal;
    const done = [rec.record(g, ev('a'), term), rec.record(g, ev('b'), term)];
    await flush();
    sent[0]!.answer.reject(Object.assign(new Error('boom'), { code: 500 }));
    await flush();
    expect(sent.map((s) => s.message)).toEqual(['a', 'b']);
    sent[1]!.answer.resolve();
    await Promise.all(done); // best effort: the failure is logged, not thrown
    expect(rec.pending).toEqual({ inFlight: 0, queued: 0 });
  });

  it('events still waiting when the term ends are not sent, and their slots do not leak', async () => {
    const { writer, sent } = slowWriter();
    const { rec } = recorder(writer, { maxInFlight: 1, maxQueued: 10 });
    const term = new AbortController();
    const first = rec.record(g, ev('a'), term.signal);
    const waiting = [rec.record(g, ev('b'), term.signal), rec.record(g, ev('c'), term.signal)];
    await flush();
    expect(rec.pending).toEqual({ inFlight: 1, queued: 2 });
    term.abort(new Error('term over'));
    sent[0]!.answer.reject(new Error('aborted'));
    await expect(first).rejects.toThrow('aborted');
    for (const w of waiting) await expect(w).rejects.toThrow('term over');
    expect(sent.map((s) => s.message)).toEqual(['a']);
    expect(rec.pending).toEqual({ inFlight: 0, queued: 0 });
    // The next term's events go out (and b, never sent, is not deduped away).
    const next = new AbortController().signal;
    const b = rec.record(g, ev('b'), next);
    expect(sent.map((s) => s.message)).toEqual(['a', 'b']);
    sent[1]!.answer.resolve();
    await b;
  });
});
