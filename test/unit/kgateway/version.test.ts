// The kgateway support policy (src/products/kgateway/version.ts): 2.3 and newer, judged by line from
// the controller Deployment's labels; older is refused, newer than the newest tested is warned about,
// and a label that is not a version is said to be one.
import { describe, expect, it } from 'vitest';
import {
  compareLines,
  NEWEST_TESTED,
  OLDEST_SUPPORTED,
  parseKgatewayVersion,
  versionVerdict,
} from '../../../src/products/kgateway/version.js';
import { KGATEWAY_VERSION } from '../../../src/products/kgateway/facts.js';

const verdict = (labels?: Record<string, string>) =>
  versionVerdict({ name: 'kgateway', namespace: 'kgateway-system', ...(labels ? { labels } : {}) });
const app = (v: string) => ({ 'app.kubernetes.io/version': v });

describe('parseKgatewayVersion', () => {
  it.each([
    ['v2.4.2', 2, 4],
    ['2.3.0', 2, 3],
    ['v2.10.0', 2, 10],
    ['2.3.0-beta.1', 2, 3],
    ['v2.5.0-rc.2+build.7', 2, 5],
    [' v2.4.2 ', 2, 4],
  ])('%s → %i.%i', (text, major, minor) => {
    expect(parseKgatewayVersion(text)).toMatchObject({ major, minor });
  });

  it.each([
    undefined,
    '',
    'main',
    'latest',
    'v2.4',
    '2',
    'v2.4.x',
    'vv2.4.2',
    '2.4.2.1',
    'v2.4.2-',
    'kgateway-v2.4.2',
  ])('%j is not a version', (text) => {
    expect(parseKgatewayVersion(text)).toBeUndefined();
  });

  it('lines compare as numbers, not strings: 2.10 is newer than 2.4 and 2.9', () => {
    const line = (t: string) => parseKgatewayVersion(t)!;
    expect(compareLines(line('v2.10.0'), line('v2.4.2'))).toBeGreaterThan(0);
    expect(compareLines(line('v2.10.0'), line('v2.9.9'))).toBeGreaterThan(0);
    expect(compareLines(line('v3.0.0'), line('v2.99.0'))).toBeGreaterThan(0);
    expect(compareLines(line('v2.3.0-beta.1'), line('v2.3.6'))).toBe(0);
  });
});

describe('versionVerdict', () => {
  it('the policy: oldest 2.3, newest tested 2.4, and migrate installs a tested line', () => {
    expect(OLDEST_SUPPORTED).toEqual({ major: 2, minor: 3 });
    expect(NEWEST_TESTED).toEqual({ major: 2, minor: 4 });
    expect(verdict(app(KGATEWAY_VERSION)).kind).toBe('supported');
  });

  it.each(['v2.3.0', 'v2.3.6', '2.3.0-beta.1', 'v2.4.0', 'v2.4.2', 'v2.4.99'])('%s: supported', (v) => {
    expect(verdict(app(v)).kind).toBe('supported');
  });

  it.each(['v2.2.0', 'v2.2.9', '2.2.0-beta.1', 'v1.99.0', 'v0.4.0'])(
    '%s: unsupported, the message naming it, the range and the fix',
    (v) => {
      const r = verdict(app(v));
      expect(r.kind).toBe('unsupported');
      if (r.kind !== 'unsupported') return;
      expect(r.message).toContain(
        `kgateway's controller Deployment kgateway-system/kgateway runs kgateway ${v}`,
      );
      expect(r.message).toContain('supports kgateway 2.3 and newer (tested: 2.3 to 2.4)');
      expect(r.message).toMatch(/Upgrade kgateway to 2\.3 or newer .*glooha migrate kgateway/);
    },
  );

  it.each(['v2.5.0', 'v2.5.0-beta.1', 'v2.10.0', 'v3.0.0'])('%s: untested, with a warning naming it', (v) => {
    const r = verdict(app(v));
    expect(r.kind).toBe('untested');
    if (r.kind !== 'untested') return;
    expect(r.warning.code).toBe('KgatewayVersionUntested');
    expect(r.warning.message).toContain(
      `runs kgateway ${v}, newer than the newest line glooha is tested with (2.4)`,
    );
    expect(r.warning.message).toMatch(/only the fields the API server's schema serves/);
  });

  it('helm.sh/chart names the chart version and wins over app.kubernetes.io/version', () => {
    expect(verdict({ 'helm.sh/chart': 'kgateway-v2.2.0', ...app('v2.4.2') }).kind).toBe('unsupported');
    expect(verdict({ 'helm.sh/chart': 'kgateway-v2.4.2', ...app('v2.2.0') }).kind).toBe('supported');
    // Another chart's label says nothing of kgateway's version: the app version stands.
    expect(verdict({ 'helm.sh/chart': 'other-v1.0.0', ...app('v2.4.2') }).kind).toBe('supported');
  });

  it.each([
    [undefined, /has no version label/],
    [{}, /has no version label/],
    [{ kgateway: 'kgateway' }, /has no version label/],
    [app('main'), /labelled with version "main", which is not a version/],
    [app('garbage ☃'), /labelled with version "garbage ☃", which is not a version/],
    [{ 'helm.sh/chart': 'kgateway-latest' }, /labelled with version "latest", which is not a version/],
  ])('labels %j: unknown, the warning saying why and that the served schema decides', (labels, why) => {
    const r = verdict(labels);
    expect(r.kind).toBe('unknown');
    if (r.kind !== 'unknown') return;
    expect(r.warning.code).toBe('KgatewayVersionUnknown');
    expect(r.warning.message).toMatch(why);
    expect(r.warning.message).toMatch(/from the schema the API server serves/);
  });
});
