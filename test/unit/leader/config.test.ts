import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMINGS,
  formatDuration,
  LeaderElectionConfigError,
  MAX_TIMING_MS,
  makeIdentity,
  parseDurationMs,
  resolveLeaderElectionConfig,
  validateLeaderElectionConfig,
} from '../../../src/leader/config.js';

describe('parseDurationMs (the one grammar of src/api/duration.ts, in milliseconds)', () => {
  it.each([
    ['15s', 15_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['500ms', 500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['0s', 0],
  ])('%s → %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  // "0" and " 10s " were accepted by the leader package's own parser, which the API's grammar rejects.
  it.each(['0', ' 10s ', '15', '', 's', '10 s', '1d', '-5s', 'fifteen', '10s5'])('rejects %j', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );

  it('formats back', () => {
    expect(formatDuration(15_000)).toBe('15s');
    expect(formatDuration(2_400)).toBe('2.4s');
    expect(formatDuration(500)).toBe('500ms');
    expect(formatDuration(120_000)).toBe('2m');
  });
});

describe('validateLeaderElectionConfig', () => {
  it('accepts the defaults and other consistent timings', () => {
    expect(() => validateLeaderElectionConfig(DEFAULT_TIMINGS)).not.toThrow();
    expect(() =>
      validateLeaderElectionConfig({
        leaseDurationMs: 35_000,
        renewDeadlineMs: 30_000,
        retryPeriodMs: 5_000,
      }),
    ).not.toThrow();
    expect(() =>
      validateLeaderElectionConfig({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 }),
    ).not.toThrow();
  });

  it('renewDeadline must be below leaseDuration, and the error names the flags', () => {
    const err = catchErr(() =>
      validateLeaderElectionConfig({
        leaseDurationMs: 10_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      }),
    );
    expect(err).toBeInstanceOf(LeaderElectionConfigError);
    expect(err.setting).toBe('renewDeadline');
    expect(err.message).toContain('--leader-elect-renew-deadline');
    expect(err.message).toContain('LEADER_ELECT_RENEW_DEADLINE');
    expect(err.message).toContain('--leader-elect-lease-duration');
    expect(err.message).toContain('10s');
  });

  it('renewDeadline must exceed 1.2 × retryPeriod', () => {
    const err = catchErr(() =>
      validateLeaderElectionConfig({ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
    );
    expect(err.setting).toBe('retryPeriod');
    expect(err.message).toContain('--leader-elect-retry-period');
    expect(err.message).toContain('1.2 × retryPeriod = 2.4s');
    expect(() =>
      validateLeaderElectionConfig({ leaseDurationMs: 15_000, renewDeadlineMs: 2_401, retryPeriodMs: 2_000 }),
    ).not.toThrow();
  });

  it('rejects non-positive values and a lease duration in fractions of a second', () => {
    expect(
      catchErr(() => validateLeaderElectionConfig({ ...DEFAULT_TIMINGS, retryPeriodMs: 0 })).setting,
    ).toBe('retryPeriod');
    expect(
      catchErr(() => validateLeaderElectionConfig({ ...DEFAULT_TIMINGS, leaseDurationMs: -1 })).setting,
    ).toBe('leaseDuration');
    const err = catchErr(() => validateLeaderElectionConfig({ ...DEFAULT_TIMINGS, leaseDurationMs: 15_500 }));
    expect(err.setting).toBe('leaseDuration');
    expect(err.message).toContain('whole number of seconds');
  });
});

describe('validateLeaderElectionConfig: each timing bounded on its own, the rule exact (property)', () => {
  it('refuses any timing above its bound, even when the rule holds (setTimeout would fire at once)', () => {
    const huge = { leaseDurationMs: 3_600_000_000, renewDeadlineMs: 3_000_000_000, retryPeriodMs: 2_000 };
    expect(catchErr(() => validateLeaderElectionConfig(huge)).setting).toBe('leaseDuration');
    expect(
      catchErr(() =>
        validateLeaderElectionConfig({
          leaseDurationMs: 3_600_000,
          renewDeadlineMs: 3_000_000,
          retryPeriodMs: 2_600_000,
        }),
      ).setting,
    ).toBe('retryPeriod');
    expect(() =>
      validateLeaderElectionConfig({
        leaseDurationMs: MAX_TIMING_MS,
        renewDeadlineMs: 3_000_000,
        retryPeriodMs: 2_000_000,
      }),
    ).not.toThrow();
  });

  it('accepts a combination exactly when lease > renew > 1.2 × retry and each is in (0, max]', () => {
    // Seeded draws over values on both sides of each bound, in the flag grammar's units (µs-exact).
    const values = [
      '1ms',
      '0.833ms',
      '1.001ms',
      '834ms',
      '1s',
      '1.2s',
      '1.201s',
      '2s',
      '2.4s',
      '2.401s',
      '8s',
      '10s',
      '15s',
      '59m',
      '1h',
      '1h0.001ms',
      '2h',
      '600h',
    ];
    let seed = 28;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return values[seed % values.length]!;
    };
    const micros = (d: string) => Math.round(parseDurationMs(d)! * 1000);
    const wrong: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const [lease, renew, retry] = [next(), next(), next()];
      const t = {
        leaseDurationMs: parseDurationMs(lease)!,
        renewDeadlineMs: parseDurationMs(renew)!,
        retryPeriodMs: parseDurationMs(retry)!,
      };
      const ok = (() => {
        try {
          validateLeaderElectionConfig(t);
          return true;
        } catch {
          return false;
        }
      })();
      const [l, r, p] = [micros(lease), micros(renew), micros(retry)];
      const expected =
        l % 1_000_000 === 0 &&
        [l, r, p].every((v) => v > 0 && v <= MAX_TIMING_MS * 1000) &&
        l > r &&
        5 * r > 6 * p;
      if (ok !== expected) wrong.push(`${lease}/${renew}/${retry}: ${ok ? 'accepted' : 'refused'}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('resolveLeaderElectionConfig', () => {
  it('uses the defaults', () => {
    const c = resolveLeaderElectionConfig({ env: { POD_NAMESPACE: 'ops', POD_NAME: 'op-7d9' } });
    expect(c).toMatchObject({
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      leaseName: 'glooha-operator',
      namespace: 'ops',
      releaseOnCancel: true,
    });
    expect(c.identity).toMatch(/^op-7d9_[0-9a-f]{8}$/);
  });

  it('flags win over env, env over defaults', () => {
    const c = resolveLeaderElectionConfig({
      flags: { leaseDuration: '30s', leaseName: 'my-lock' },
      env: {
        POD_NAMESPACE: 'ops',
        LEADER_ELECT_LEASE_DURATION: '20s',
        LEADER_ELECT_RENEW_DEADLINE: '8s',
        LEADER_ELECT_RETRY_PERIOD: '1s',
        LEADER_ELECT_RELEASE_ON_CANCEL: 'false',
      },
    });
    expect(c).toMatchObject({
      leaseDurationMs: 30_000,
      renewDeadlineMs: 8_000,
      retryPeriodMs: 1_000,
      leaseName: 'my-lock',
      releaseOnCancel: false,
    });
  });

  it('a malformed value is an error naming the flag (no silent fallback as in Gloo)', () => {
    const err = catchErr(() =>
      resolveLeaderElectionConfig({ env: { POD_NAMESPACE: 'ops', LEADER_ELECT_RETRY_PERIOD: '2' } }),
    );
    expect(err.setting).toBe('retryPeriod');
    expect(err.message).toMatch(
      /--leader-elect-retry-period \(env LEADER_ELECT_RETRY_PERIOD\) must be a duration/,
    );
    expect(
      catchErr(() =>
        resolveLeaderElectionConfig({ flags: { enabled: 'maybe' }, env: { POD_NAMESPACE: 'x' } }),
      ).setting,
    ).toBe('enabled');
  });

  it('validates the combination', () => {
    expect(
      catchErr(() =>
        resolveLeaderElectionConfig({ flags: { renewDeadline: '20s' }, env: { POD_NAMESPACE: 'ops' } }),
      ).setting,
    ).toBe('renewDeadline');
  });

  it('needs a namespace and a valid lease name when enabled, but not when disabled', () => {
    expect(catchErr(() => resolveLeaderElectionConfig({ env: {} })).setting).toBe('namespace');
    expect(resolveLeaderElectionConfig({ env: {}, defaultNamespace: 'from-sa' }).namespace).toBe('from-sa');
    expect(
      catchErr(() =>
        resolveLeaderElectionConfig({ flags: { leaseName: 'Bad_Name' }, env: { POD_NAMESPACE: 'x' } }),
      ).setting,
    ).toBe('leaseName');
    expect(resolveLeaderElectionConfig({ flags: { enabled: false }, env: {} }).enabled).toBe(false);
    expect(resolveLeaderElectionConfig({ env: { LEADER_ELECT: 'false' } }).enabled).toBe(false);
  });
});

describe('makeIdentity', () => {
  it('is the pod name plus a random suffix, unique per call', () => {
    const a = makeIdentity('glooha-operator-5f7c9-abcde');
    const b = makeIdentity('glooha-operator-5f7c9-abcde');
    expect(a).toMatch(/^glooha-operator-5f7c9-abcde_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });
});

function catchErr(fn: () => unknown): LeaderElectionConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof LeaderElectionConfigError) return err;
    throw err;
  }
  throw new Error('expected a LeaderElectionConfigError');
}
