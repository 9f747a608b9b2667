// parseConfig(argv, env): the operator's flags and env variables, their defaults, and every bad value
// turned into a UsageError that names the flag.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, UsageError, type OperatorConfig } from '../../../src/main.js';

const SA_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
/** The minimum an in-cluster pod has: its namespace and name from the downward API. */
const POD_ENV = { POD_NAMESPACE: 'glooha-system', POD_NAME: 'glooha-operator-0' };

function config(argv: string[], env: NodeJS.ProcessEnv = POD_ENV): OperatorConfig {
  const c = parseConfig(argv, env);
  if (typeof c === 'string') throw new Error(`expected a config, got ${c}`);
  return c;
}

/** The UsageError parseConfig throws (fails the test when it throws something else, or nothing). */
function usageError(argv: string[], env: NodeJS.ProcessEnv = POD_ENV): UsageError {
  let thrown: unknown;
  try {
    parseConfig(argv, env);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  return thrown as UsageError;
}

describe('defaults', () => {
  it('with only the downward-API env, everything has its documented default', () => {
    expect(config([])).toEqual({
      kubeconfig: undefined,
      watchNamespaces: [],
      concurrency: 4,
      resyncPeriodMs: 600_000,
      rbacRecheckPeriodMs: 60_000,
      metricsBindAddress: ':8080',
      listPageSize: 500,
      logLevel: 'info',
      productLeaseHandover: true,
      leaderElection: {
        enabled: true,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        leaseName: 'glooha-operator',
        namespace: 'glooha-system',
        identity: expect.stringMatching(/^glooha-operator-0_[0-9a-f]{8}$/),
        releaseOnCancel: true,
        requireFencingPolicy: false,
      },
    });
  });

  it('gives each start a different identity', () => {
    expect(config([]).leaderElection.identity).not.toBe(config([]).leaderElection.identity);
  });

  it('treats empty env variables as unset', () => {
    const c = config([], {
      ...POD_ENV,
      KUBECONFIG: '',
      WATCH_NAMESPACES: '',
      GLOOHA_CONCURRENCY: '',
      GLOOHA_RESYNC_PERIOD: '',
      GLOOHA_METRICS_BIND_ADDRESS: '',
      LOG_LEVEL: '',
      LEADER_ELECT: '',
      LEADER_ELECT_LEASE_DURATION: '',
    });
    expect(c).toMatchObject({
      kubeconfig: undefined,
      watchNamespaces: [],
      concurrency: 4,
      resyncPeriodMs: 600_000,
      rbacRecheckPeriodMs: 60_000,
      metricsBindAddress: ':8080',
      logLevel: 'info',
      leaderElection: { enabled: true, leaseDurationMs: 15_000 },
    });
  });

  it('without POD_NAMESPACE, leader election needs the in-cluster namespace', () => {
    if (existsSync(SA_NAMESPACE_FILE)) {
      expect(config([], {}).leaderElection.namespace).toBe(readFileSync(SA_NAMESPACE_FILE, 'utf8').trim());
    } else {
      expect(usageError([], {}).message).toContain('--leader-elect-namespace');
    }
  });
});

describe('env variables', () => {
  const env = {
    ...POD_ENV,
    KUBECONFIG: '/home/me/.kube/config',
    WATCH_NAMESPACES: 'gloo-system, edge ,,team-a',
    GLOOHA_CONCURRENCY: '8',
    GLOOHA_RESYNC_PERIOD: '1m30s',
    GLOOHA_RBAC_RECHECK_PERIOD: '2m',
    GLOOHA_METRICS_BIND_ADDRESS: '127.0.0.1:9090',
    GLOOHA_LIST_PAGE_SIZE: '250',
    LOG_LEVEL: 'debug',
    GLOOHA_PRODUCT_LEASE_HANDOVER: 'false',
    LEADER_ELECT_LEASE_DURATION: '30s',
    LEADER_ELECT_RENEW_DEADLINE: '20s',
    LEADER_ELECT_RETRY_PERIOD: '4s',
    LEADER_ELECT_LEASE_NAME: 'my-lease',
    LEADER_ELECT_RELEASE_ON_CANCEL: 'false',
    LEADER_ELECT_REQUIRE_FENCING_POLICY: 'true',
  };

  it('set every setting when no flag is given', () => {
    expect(config([], env)).toEqual({
      kubeconfig: '/home/me/.kube/config',
      watchNamespaces: ['gloo-system', 'edge', 'team-a'],
      concurrency: 8,
      resyncPeriodMs: 90_000,
      rbacRecheckPeriodMs: 120_000,
      metricsBindAddress: '127.0.0.1:9090',
      listPageSize: 250,
      logLevel: 'debug',
      productLeaseHandover: false,
      leaderElection: {
        enabled: true,
        leaseDurationMs: 30_000,
        renewDeadlineMs: 20_000,
        retryPeriodMs: 4_000,
        leaseName: 'my-lease',
        namespace: 'glooha-system',
        identity: expect.stringMatching(/^glooha-operator-0_/),
        releaseOnCancel: false,
        requireFencingPolicy: true,
      },
    });
  });

  it('flags beat env variables', () => {
    const c = config(
      [
        '--kubeconfig',
        '/etc/kubeconfig',
        '--watch-namespaces=ns-1',
        '--concurrency',
        '2',
        '--resync-period=30s',
        '--rbac-recheck-period=45s',
        '--metrics-bind-address',
        ':9443',
        '--list-page-size=0',
        '--log-level=warn',
        '--product-lease-handover',
        '--leader-elect-lease-duration=20s',
        '--leader-elect-renew-deadline',
        '15s',
        '--leader-elect-retry-period=3s',
        '--leader-elect-lease-name=flag-lease',
        '--leader-elect-namespace',
        'flag-ns',
        '--leader-elect-release-on-cancel',
        '--leader-elect-require-fencing-policy=false',
      ],
      env,
    );
    expect(c).toEqual({
      kubeconfig: '/etc/kubeconfig',
      watchNamespaces: ['ns-1'],
      concurrency: 2,
      resyncPeriodMs: 30_000,
      rbacRecheckPeriodMs: 45_000,
      metricsBindAddress: ':9443',
      listPageSize: 0,
      logLevel: 'warn',
      productLeaseHandover: true,
      leaderElection: {
        enabled: true,
        leaseDurationMs: 20_000,
        renewDeadlineMs: 15_000,
        retryPeriodMs: 3_000,
        leaseName: 'flag-lease',
        namespace: 'flag-ns',
        identity: expect.stringMatching(/^glooha-operator-0_/),
        releaseOnCancel: true,
        requireFencingPolicy: false,
      },
    });
  });

  it('--product-lease-handover takes true or false only, naming the flag', () => {
    expect(config(['--product-lease-handover=false']).productLeaseHandover).toBe(false);
    expect(usageError(['--product-lease-handover=no']).message).toContain(
      '--product-lease-handover (GLOOHA_PRODUCT_LEASE_HANDOVER) must be true or false, got "no"',
    );
  });

  it('a good flag wins over a bad env variable', () => {
    expect(config(['--concurrency=3'], { ...POD_ENV, GLOOHA_CONCURRENCY: 'lots' }).concurrency).toBe(3);
    expect(config(['--log-level', 'error'], { ...POD_ENV, LOG_LEVEL: 'loud' }).logLevel).toBe('error');
    expect(
      config(['--leader-elect-lease-duration=15s'], { ...POD_ENV, LEADER_ELECT_LEASE_DURATION: '15' })
        .leaderElection.leaseDurationMs,
    ).toBe(15_000);
  });

  it('a bad env variable is reported under its flag and its name', () => {
    const err = usageError([], { ...POD_ENV, GLOOHA_CONCURRENCY: 'lots' });
    expect(err.message).toContain('--concurrency');
    expect(err.message).toContain('GLOOHA_CONCURRENCY');
    expect(err.message).toContain('"lots"');
  });
});

describe('--concurrency', () => {
  it.each([
    ['1', 1],
    ['64', 64],
    ['16', 16],
  ])('accepts %s', (raw, n) => {
    expect(config(['--concurrency', raw]).concurrency).toBe(n);
  });

  it.each(['0', '65', '-1', '1.5', 'four', '', 'NaN', 'Infinity'])('rejects %j, naming the flag', (raw) => {
    const err = usageError([`--concurrency=${raw}`]);
    expect(err.message).toMatch(/^--concurrency\b/);
    expect(err.message).toContain('1 to 64');
  });
});

describe('--list-page-size', () => {
  it("defaults to client-go's 500", () => {
    expect(config([]).listPageSize).toBe(500);
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['50', 50],
    ['100000', 100_000],
  ])('accepts %s', (raw, n) => {
    expect(config(['--list-page-size', raw]).listPageSize).toBe(n);
  });

  it('reads GLOOHA_LIST_PAGE_SIZE, and a flag wins over it', () => {
    expect(config([], { ...POD_ENV, GLOOHA_LIST_PAGE_SIZE: '200' }).listPageSize).toBe(200);
    expect(config(['--list-page-size=7'], { ...POD_ENV, GLOOHA_LIST_PAGE_SIZE: 'many' }).listPageSize).toBe(
      7,
    );
    expect(config([], { ...POD_ENV, GLOOHA_LIST_PAGE_SIZE: '' }).listPageSize).toBe(500);
  });

  it.each(['100001', '-1', '1.5', '5e2', 'all', '', ' 50'])(
    'rejects %j, naming the flag and the range',
    (raw) => {
      const err = usageError([`--list-page-size=${raw}`]);
      expect(err.message).toMatch(/^--list-page-size \(GLOOHA_LIST_PAGE_SIZE\)/);
      expect(err.message).toContain('0 (no paging) to 100000');
      expect(err.message).toContain(`"${raw}"`);
    },
  );
});

describe('--resync-period', () => {
  it.each([
    ['10s', 10_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['2m30s', 150_000],
  ])('accepts %s', (raw, ms) => {
    expect(config(['--resync-period', raw]).resyncPeriodMs).toBe(ms);
  });

  it.each(['9s', '9999ms', '0', '600', 'ten', '-1m', '10 m', ''])('rejects %j, naming the flag', (raw) => {
    const err = usageError([`--resync-period=${raw}`]);
    expect(err.message).toMatch(/^--resync-period\b/);
  });
});

describe('--rbac-recheck-period', () => {
  it.each([
    ['1s', 1_000],
    ['1m', 60_000],
    ['5m', 300_000],
  ])('accepts %s', (raw, ms) => {
    expect(config(['--rbac-recheck-period', raw]).rbacRecheckPeriodMs).toBe(ms);
  });

  it('a flag wins over GLOOHA_RBAC_RECHECK_PERIOD', () => {
    expect(
      config(['--rbac-recheck-period=2s'], { ...POD_ENV, GLOOHA_RBAC_RECHECK_PERIOD: '5m' })
        .rbacRecheckPeriodMs,
    ).toBe(2_000);
  });

  it.each(['999ms', '0', '60', 'soon', '-1m', ''])('rejects %j, naming the flag and the minimum', (raw) => {
    const err = usageError([`--rbac-recheck-period=${raw}`]);
    expect(err.message).toMatch(/^--rbac-recheck-period \(GLOOHA_RBAC_RECHECK_PERIOD\)/);
    expect(err.message).toContain('at least 1s');
  });
});

describe('--log-level', () => {
  it.each(['debug', 'info', 'warn', 'error'])('accepts %s', (level) => {
    expect(config(['--log-level', level]).logLevel).toBe(level);
  });

  it.each(['verbose', 'trace', 'warning', '', 'constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'rejects %j, naming the flag',
    (level) => {
      const err = usageError([`--log-level=${level}`]);
      expect(err.message).toMatch(/^--log-level\b/);
    },
  );
});

describe('--watch-namespaces', () => {
  it('splits on commas, trims and drops empty entries', () => {
    expect(config(['--watch-namespaces', ' a ,b,, c-1 ,']).watchNamespaces).toEqual(['a', 'b', 'c-1']);
  });

  it('accepts a 63-character name', () => {
    const long = 'a'.repeat(63);
    expect(config(['--watch-namespaces', long]).watchNamespaces).toEqual([long]);
  });

  it.each(['Gloo-System', 'gloo_system', '-gloo', 'gloo-', 'gloo.system', 'a/b', 'a'.repeat(64)])(
    'rejects %j, naming the flag and the bad entry',
    (ns) => {
      const err = usageError(['--watch-namespaces', `ok,${ns}`]);
      expect(err.message).toMatch(/^--watch-namespaces\b/);
      expect(err.message).toContain(`"${ns}"`);
    },
  );
});

describe('leader election', () => {
  it('--leader-elect=false disables it, and then needs no namespace', () => {
    const c = config(['--leader-elect=false'], {});
    expect(c.leaderElection.enabled).toBe(false);
  });

  it('LEADER_ELECT=false disables it too, and a bare --leader-elect overrides that', () => {
    expect(config([], { ...POD_ENV, LEADER_ELECT: 'false' }).leaderElection.enabled).toBe(false);
    expect(config(['--leader-elect'], { ...POD_ENV, LEADER_ELECT: 'false' }).leaderElection.enabled).toBe(
      true,
    );
    expect(
      config(['--leader-elect=true'], { ...POD_ENV, LEADER_ELECT: 'false' }).leaderElection.enabled,
    ).toBe(true);
  });

  it('--leader-elect=false wins over LEADER_ELECT=true', () => {
    expect(
      config(['--leader-elect=false'], { ...POD_ENV, LEADER_ELECT: 'true' }).leaderElection.enabled,
    ).toBe(false);
  });

  it('--leader-elect-release-on-cancel=false', () => {
    expect(config(['--leader-elect-release-on-cancel=false']).leaderElection.releaseOnCancel).toBe(false);
    expect(config(['--leader-elect-release-on-cancel']).leaderElection.releaseOnCancel).toBe(true);
  });

  it('--leader-elect-require-fencing-policy (bare means true; a typo is an error naming the flag)', () => {
    expect(config(['--leader-elect-require-fencing-policy']).leaderElection.requireFencingPolicy).toBe(true);
    expect(config([]).leaderElection.requireFencingPolicy).toBe(false);
    expect(() => config(['--leader-elect-require-fencing-policy=ture'])).toThrow(
      /--leader-elect-require-fencing-policy \(env LEADER_ELECT_REQUIRE_FENCING_POLICY\) must be true or false/,
    );
  });

  it('a non-boolean --leader-elect is a UsageError naming it', () => {
    expect(usageError(['--leader-elect=maybe']).message).toContain('--leader-elect');
  });

  it.each([
    // [flags, the flag the message must name]
    [['--leader-elect-lease-duration=10s'], '--leader-elect-renew-deadline'],
    [['--leader-elect-renew-deadline=15s'], '--leader-elect-renew-deadline'],
    [['--leader-elect-renew-deadline=20s'], '--leader-elect-renew-deadline'],
    [['--leader-elect-retry-period=9s'], '--leader-elect-retry-period'],
    // 1.2 × 8.5s = 10.2s is not below the 10s renew deadline.
    [['--leader-elect-retry-period=8.5s'], '--leader-elect-retry-period'],
    [['--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=2s'], '--leader-elect-retry-period'],
    [['--leader-elect-lease-duration=15500ms'], '--leader-elect-lease-duration'],
    [['--leader-elect-lease-duration=15'], '--leader-elect-lease-duration'],
    [['--leader-elect-renew-deadline=soon'], '--leader-elect-renew-deadline'],
    [['--leader-elect-retry-period=0'], '--leader-elect-retry-period'],
    [['--leader-elect-lease-name=Not_A_Name'], '--leader-elect-lease-name'],
  ])('%j is a UsageError naming %s', (argv, flag) => {
    expect(usageError(argv).message).toContain(flag);
  });

  it('a timing violation from env variables names the flag too', () => {
    const err = usageError([], { ...POD_ENV, LEADER_ELECT_RENEW_DEADLINE: '20s' });
    expect(err.message).toContain('--leader-elect-renew-deadline');
    expect(err.message).toContain('LEADER_ELECT_RENEW_DEADLINE');
  });

  it.each([
    [['--leader-elect-retry-period=8s'], 15_000, 10_000, 8_000],
    [
      [
        '--leader-elect-lease-duration=4s',
        '--leader-elect-renew-deadline=3s',
        '--leader-elect-retry-period=500ms',
      ],
      4_000,
      3_000,
      500,
    ],
    [
      [
        '--leader-elect-lease-duration=1m',
        '--leader-elect-renew-deadline=45s',
        '--leader-elect-retry-period=10s',
      ],
      60_000,
      45_000,
      10_000,
    ],
  ])('accepts consistent timings %j', (argv, lease, renew, retry) => {
    expect(config(argv).leaderElection).toMatchObject({
      leaseDurationMs: lease,
      renewDeadlineMs: renew,
      retryPeriodMs: retry,
    });
  });
});

describe('bad command lines', () => {
  it('an unknown flag is a UsageError naming it', () => {
    const err = usageError(['--bogus']);
    expect(err.message).toContain('--bogus');
    expect(err.message).toContain('--help');
  });

  it('an unknown flag with a value, and a misspelt flag, too', () => {
    expect(usageError(['--concurency=4']).message).toContain('--concurency');
    expect(usageError(['--leader-elect-lease=15s']).message).toContain('--leader-elect-lease');
  });

  it('a positional argument is a UsageError', () => {
    expect(usageError(['run']).message).toContain('run');
    // --leader-elect takes no separate value: `--leader-elect false` leaves a stray "false".
    expect(usageError(['--leader-elect', 'false']).message).toContain('false');
  });

  it('a flag missing its value is a UsageError naming it', () => {
    expect(usageError(['--concurrency']).message).toContain('--concurrency');
    expect(usageError(['--resync-period']).message).toContain('--resync-period');
  });
});

describe('--help and --version', () => {
  it('--help and -h return "help"', () => {
    expect(parseConfig(['--help'], {})).toBe('help');
    expect(parseConfig(['-h'], {})).toBe('help');
  });

  it('--version returns "version"', () => {
    expect(parseConfig(['--version'], {})).toBe('version');
  });

  it('help is returned before any value is checked', () => {
    expect(parseConfig(['--concurrency=0', '--help'], { GLOOHA_CONCURRENCY: 'x', LOG_LEVEL: 'loud' })).toBe(
      'help',
    );
    expect(parseConfig(['--version', '--leader-elect-lease-duration=1s'], {})).toBe('version');
  });

  it('help wins over version', () => {
    expect(parseConfig(['--version', '--help'], {})).toBe('help');
  });
});
