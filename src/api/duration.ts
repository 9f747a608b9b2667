// Durations as Gloo reads them: Go's time.ParseDuration. Gloo silently falls back to its default on a
// string it cannot parse, so glooha accepts a strict subset that Go always parses the same way:
// components of up to 6 integer digits and up to 3 fraction digits with unit h, m, s or ms
// ("15s", "1m30s", "1.5s", "500ms"). Sub-millisecond units make no sense for a lease, and the digit
// bounds (with the schema's maxLength) keep every accepted value far from Go's int64 overflow and make
// Go's float fraction arithmetic exact, so this parser, Go and CEL's duration() agree to the nanosecond.

/** The accepted syntax, shared verbatim with the CRD's CEL rules (RE2 and JS agree on it). */
export const DURATION_PATTERN = '^([0-9]{1,6}([.][0-9]{1,3})?(ms|h|m|s))+$';
export const DURATION_MAX_LENGTH = 20;

const component = /([0-9]{1,6})(?:[.]([0-9]{1,3}))?(ms|h|m|s)/g;
const whole = new RegExp(DURATION_PATTERN);

const unitNanos: Record<string, bigint> = {
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Nanoseconds, or undefined when the string is outside the accepted syntax. */
export function parseDuration(text: string): bigint | undefined {
  if (text.length > DURATION_MAX_LENGTH || !whole.test(text)) return undefined;
  let total = 0n;
  for (const m of text.matchAll(component)) {
    const [, int = '0', frac = '', unit = 's'] = m;
    const scale = unitNanos[unit] ?? 0n;
    // frac has at most 3 digits and every unit is a multiple of 1000ns, so this division is exact.
    const fracNanos = frac === '' ? 0n : (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
    total += BigInt(int) * scale + fracNanos;
  }
  return total;
}

export function isValidDuration(text: unknown): text is string {
  return typeof text === 'string' && parseDuration(text) !== undefined;
}

export function isPositiveDuration(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  const ns = parseDuration(text);
  return ns !== undefined && ns > 0n;
}

/** Seconds as a float, for display and for lease arithmetic outside the API (status, metrics). */
export function durationSeconds(text: string): number | undefined {
  const ns = parseDuration(text);
  return ns === undefined ? undefined : Number(ns) / 1e9;
}
