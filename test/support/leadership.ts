// Who believed it led, and when: each product process's own log lines ("successfully acquired lease",
// "Started Leading", then "leader election lost", "lost leadership", "failed to renew lease", or its
// exit) turned into spans, and the check that no two processes led at once. Ground truth from inside
// the processes, beside the Lease's records (LeaseRecorder) and the API server's audit log.
import { readFileSync } from 'node:fs';

/** client-go's and the products' own lines for a process that starts leading. */
export const STARTED_LEADING = /successfully acquired lease|Started Leading|became leader/i;
/** ...and for one that stops (both products exit right after). */
export const STOPPED_LEADING =
  /leader election lost|Stopped Leading|stopped leading|lost leadership|failed to renew lease/i;

export interface LeadershipSpan {
  pod: string;
  pid: number;
  /** Epoch ms of the line that says it started leading. */
  from: number;
  /** Epoch ms of the line that says it stopped, or of its exit; undefined: it leads still. */
  to: number | undefined;
  /** The line (or "exit") that ended the span. */
  end: string;
}

export interface ProcessLog {
  pod: string;
  pid: number;
  logPath: string;
  startedAt: Date;
  exited?: { at: Date };
}

/**
 * The time a log line carries: klog's header (`I1206 05:20:01.123456`, local time, no year: the year
 * of `reference`), a console line that starts with an RFC 3339 time (zap's console encoder, which
 * Gloo's klog lines go through), or a JSON line's `ts` (epoch seconds or RFC 3339) or `time`.
 */
export function lineTime(line: string, reference: Date): number | undefined {
  const consoleLine = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))\s/.exec(line);
  if (consoleLine) return Date.parse(consoleLine[1]!);
  const klog = /^[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})/.exec(line);
  if (klog) {
    const [, mo, d, h, mi, s, ms] = klog.map((x) => Number(x));
    return new Date(reference.getFullYear(), mo! - 1, d, h, mi, s, ms).getTime();
  }
  const json = line.indexOf('{');
  if (json < 0) return undefined;
  try {
    const o = JSON.parse(line.slice(json)) as Record<string, unknown>;
    const t = o.ts ?? o.time ?? o.timestamp;
    if (typeof t === 'number') return t > 1e12 ? t : t * 1000;
    if (typeof t === 'string') {
      const ms = Date.parse(t);
      return Number.isNaN(ms) ? undefined : ms;
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}

/** The spans in which one process believed it led, from its log (lines without a time are skipped). */
export function leadershipSpans(p: ProcessLog, text?: string): LeadershipSpan[] {
  let log = text;
  if (log === undefined)
    try {
      log = readFileSync(p.logPath, 'utf8');
    } catch {
      log = '';
    }
  const spans: LeadershipSpan[] = [];
  let open: LeadershipSpan | undefined;
  for (const line of log.split('\n')) {
    const at = lineTime(line, p.startedAt);
    if (at === undefined) continue;
    if (!open && STARTED_LEADING.test(line)) {
      open = { pod: p.pod, pid: p.pid, from: at, to: undefined, end: '' };
      spans.push(open);
    } else if (open && STOPPED_LEADING.test(line)) {
      open.to = at;
      open.end = line.slice(0, 200);
      open = undefined;
    }
  }
  if (open && p.exited) {
    open.to = p.exited.at.getTime();
    open.end = 'exit';
  }
  return spans;
}

/** A window in which a process could not act (SIGSTOPped): its span does not count then. */
export interface Suspension {
  pid: number;
  from: number;
  to: number;
}

export interface Overlap {
  a: LeadershipSpan;
  b: LeadershipSpan;
  from: number;
  to: number;
}

/** The parts of a span in which its process could act (the span less its suspensions). */
function acting(s: LeadershipSpan, suspended: Suspension[], now: number): Array<[number, number]> {
  let parts: Array<[number, number]> = [[s.from, s.to ?? now]];
  for (const w of suspended.filter((x) => x.pid === s.pid))
    parts = parts.flatMap(([f, t]): Array<[number, number]> =>
      w.to <= f || w.from >= t
        ? [[f, t]]
        : [
            ...(w.from > f ? [[f, w.from] as [number, number]] : []),
            ...(w.to < t ? [[w.to, t] as [number, number]] : []),
          ],
    );
  return parts;
}

/** Every instant two processes both believed they led and could act. */
export function overlaps(spans: LeadershipSpan[], suspended: Suspension[] = [], now = Date.now()): Overlap[] {
  const out: Overlap[] = [];
  for (let i = 0; i < spans.length; i++)
    for (let j = i + 1; j < spans.length; j++) {
      const a = spans[i]!;
      const b = spans[j]!;
      if (a.pid === b.pid) continue;
      for (const [af, at] of acting(a, suspended, now))
        for (const [bf, bt] of acting(b, suspended, now)) {
          const from = Math.max(af, bf);
          const to = Math.min(at, bt);
          if (from < to) out.push({ a, b, from, to });
        }
    }
  return out;
}

export function describeSpans(spans: LeadershipSpan[]): string {
  const t = (ms: number | undefined) => (ms === undefined ? 'now' : new Date(ms).toISOString().slice(11, 23));
  return spans
    .map((s) => `${s.pod} pid ${s.pid}: ${t(s.from)} → ${t(s.to)} (${s.end || 'leading'})`)
    .join('\n');
}
