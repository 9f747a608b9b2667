// The leadership spans the product-handover tests judge by: log lines as kgateway (klog/JSON) and Gloo
// (zap JSON) write them, turned into spans, and the overlap check that must find two leaders at once.
import { describe, expect, it } from 'vitest';
import { leadershipSpans, lineTime, overlaps, type LeadershipSpan } from '../../support/leadership.js';

const ref = new Date(2026, 11, 6, 5, 0, 0);
const at = (h: number, m: number, s: number, ms = 0) => new Date(2026, 11, 6, h, m, s, ms).getTime();

describe('lineTime', () => {
  it('reads klog headers (local time, the reference year) and JSON ts/time', () => {
    expect(
      lineTime('I1206 05:20:01.123456   77 leaderelection.go:271] successfully acquired lease a/b', ref),
    ).toBe(at(5, 20, 1, 123));
    expect(lineTime('{"level":"info","ts":1796533201.5,"msg":"x"}', ref)).toBe(1796533201500);
    expect(lineTime('{"level":"info","ts":"2026-12-06T05:20:01.250Z","msg":"x"}', ref)).toBe(
      Date.parse('2026-12-06T05:20:01.250Z'),
    );
    expect(lineTime('{"time":"2026-12-06T05:20:01.5Z","msg":"x"}', ref)).toBe(
      Date.parse('2026-12-06T05:20:01.5Z'),
    );
    // Gloo: client-go's klog lines through zap's console encoder.
    expect(
      lineTime('2026-12-06T05:25:38.670415Z\tinfo\tklog\tSuccessfully acquired lease\tlock=ns/gloo', ref),
    ).toBe(Date.parse('2026-12-06T05:25:38.670Z'));
    expect(lineTime('plain text', ref)).toBeUndefined();
    expect(lineTime('{not json', ref)).toBeUndefined();
  });
});

describe('leadershipSpans', () => {
  const proc = { pod: 'p', pid: 1, logPath: '/nonexistent', startedAt: ref };
  it('opens on an acquire, closes on a stop line', () => {
    const log = [
      'I1206 05:20:00.000000 1 leaderelection.go:257] attempting to acquire leader lease ns/kgateway-envoy...',
      'I1206 05:20:01.000000 1 leaderelection.go:271] successfully acquired lease ns/kgateway-envoy',
      'I1206 05:20:30.000000 1 leaderelection.go:297] failed to renew lease ns/kgateway-envoy: context deadline exceeded',
      '{"level":"error","ts":"2026-12-06T05:20:30.100Z","msg":"leader election lost"}',
    ].join('\n');
    expect(leadershipSpans(proc, log)).toEqual([
      expect.objectContaining({ from: at(5, 20, 1), to: at(5, 20, 30), pod: 'p' }),
    ]);
  });
  it("closes at the process's exit when no stop line came (a SIGKILL), stays open while it runs", () => {
    const log = '{"level":"info","ts":"2026-12-06T05:20:01.000Z","msg":"Started Leading"}';
    expect(leadershipSpans({ ...proc, exited: { at: new Date(at(5, 20, 9)) } }, log)[0]).toMatchObject({
      to: at(5, 20, 9),
      end: 'exit',
    });
    expect(leadershipSpans(proc, log)[0]!.to).toBeUndefined();
    expect(leadershipSpans(proc, 'no leader here')).toEqual([]);
  });
});

describe('overlaps', () => {
  const span = (pid: number, from: number, to: number | undefined): LeadershipSpan => ({
    pod: `p${pid}`,
    pid,
    from,
    to,
    end: '',
  });
  it('finds two processes leading at once, not one after the other', () => {
    expect(overlaps([span(1, 0, 10), span(2, 10, 20)])).toEqual([]);
    const o = overlaps([span(1, 0, 12), span(2, 10, 20)]);
    expect(o).toHaveLength(1);
    expect(o[0]).toMatchObject({ from: 10, to: 12 });
    // An open span lasts until now.
    expect(overlaps([span(1, 0, undefined), span(2, 10, 20)], [], 15)).toHaveLength(1);
  });
  it('does not count the time a process was stopped (SIGSTOP), but does count it after it resumed', () => {
    expect(overlaps([span(1, 0, 30), span(2, 10, 40)], [{ pid: 1, from: 5, to: 30 }])).toEqual([]);
    const o = overlaps([span(1, 0, 30), span(2, 10, 40)], [{ pid: 1, from: 5, to: 29 }]);
    expect(o.map((x) => [x.from, x.to])).toEqual([[29, 30]]);
  });
});
