// Which kgateway installs glooha supports, judged from the version the controller Deployment's labels
// carry (kgatewayChartVersion in facts.ts). The policy: the newest minor lines, today 2.3 and newer.
// 2.3 is where GatewayParameters gained spec.kube.podDisruptionBudget and horizontalPodAutoscaler
// (kgateway's deployer renders the proxies' PDBs and HPAs from them) and the controller chart gained
// controller.affinity, controller.topologySpreadConstraints and controller.priorityClassName: glooha
// has one path, built on those. 2.2 was dropped when 2.5 became kgateway's current line.
//
// A line newer than the newest tested one is managed, with a warning: what glooha may write into
// GatewayParameters is decided from the schema the API server serves (index.ts, the served fields),
// and the controller's values follow 2.3's chart. A label that is missing or not a version says so,
// and the served schema decides alone. Pure: labels in, a verdict out.

import type { Finding } from '../../core/findings.js';
import { kgatewayChartVersion } from './facts.js';

/** A kgateway line, `major.minor`. */
export interface KgatewayLine {
  major: number;
  minor: number;
}

/** The oldest line glooha supports: GatewayParameters and the chart have what it writes since 2.3. */
export const OLDEST_SUPPORTED: KgatewayLine = { major: 2, minor: 3 };

/** The newest line the tests run (test/env/kgateway/: v2.4.2 with its real controller, v2.3.6 charts). */
export const NEWEST_TESTED: KgatewayLine = { major: 2, minor: 4 };

/** A parsed version: its line, and the string it was read from. */
export interface KgatewayVersion extends KgatewayLine {
  text: string;
}

/**
 * `v2.4.2`, `2.3.0`, `v2.5.0-beta.1`, `2.10.1+build` → its line; anything else (a missing label,
 * `main`, `2.4`, `latest`) → undefined. Lines compare as numbers (2.10 is newer than 2.4), and a
 * pre-release belongs to its line: 2.3.0-beta.1 is a 2.3 build, with 2.3's GatewayParameters.
 */
export function parseKgatewayVersion(text: string | undefined): KgatewayVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text?.trim() ?? '');
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), text: text!.trim() };
}

/** Negative, zero or positive as line `a` is older than, the same as, or newer than `b`. */
export function compareLines(a: KgatewayLine, b: KgatewayLine): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

const line = (l: KgatewayLine) => `${l.major}.${l.minor}`;

/** The supported range, as messages and docs name it. */
export const SUPPORTED_RANGE = `${line(OLDEST_SUPPORTED)} and newer (tested: ${line(OLDEST_SUPPORTED)} to ${line(NEWEST_TESTED)})`;

/**
 * What glooha makes of an install's version:
 *   supported   a tested line: nothing to say;
 *   unsupported older than OLDEST_SUPPORTED: the KgatewayHA is Stalled (UnsupportedVersion) and
 *               nothing is written;
 *   untested    a line newer than NEWEST_TESTED: managed, with the warning KgatewayVersionUntested;
 *   unknown     no version label, or one that is not a version: managed, with the warning
 *               KgatewayVersionUnknown; the served schema decides.
 */
export type VersionVerdict =
  | { kind: 'supported'; version: KgatewayVersion }
  | { kind: 'unsupported'; version: KgatewayVersion; message: string }
  | { kind: 'untested'; version: KgatewayVersion; warning: Finding }
  | { kind: 'unknown'; label: string | undefined; warning: Finding };

/** The verdict on the controller Deployment `deployment`, from its labels (helm.sh/chart, app.kubernetes.io/version). */
export function versionVerdict(deployment: {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
}): VersionVerdict {
  const where = `kgateway's controller Deployment ${deployment.namespace}/${deployment.name}`;
  const label = kgatewayChartVersion(deployment.labels);
  const version = parseKgatewayVersion(label);
  if (!version) {
    const found =
      label === undefined
        ? `${where} has no version label (helm.sh/chart kgateway-<version>, or app.kubernetes.io/version)`
        : `${where} is labelled with version ${JSON.stringify(label)}, which is not a version`;
    return {
      kind: 'unknown',
      label,
      warning: {
        code: 'KgatewayVersionUnknown',
        component: 'controller',
        message: `${found}: glooha cannot check it against the supported kgateway ${SUPPORTED_RANGE}, and decides what it writes into GatewayParameters from the schema the API server serves; install kgateway from its chart, which labels the Deployment with its version`,
      },
    };
  }
  if (compareLines(version, OLDEST_SUPPORTED) < 0)
    return {
      kind: 'unsupported',
      version,
      message: `${where} runs kgateway ${version.text}, and glooha supports kgateway ${SUPPORTED_RANGE}: before ${line(OLDEST_SUPPORTED)}, GatewayParameters cannot carry a proxy's PodDisruptionBudget or HPA and the chart has no controller.affinity, controller.topologySpreadConstraints or controller.priorityClassName. Upgrade kgateway to ${line(OLDEST_SUPPORTED)} or newer (its CRDs first, then its chart; \`glooha migrate kgateway\` prints values for the current line); nothing is written until then`,
    };
  if (compareLines(version, NEWEST_TESTED) > 0)
    return {
      kind: 'untested',
      version,
      warning: {
        code: 'KgatewayVersionUntested',
        component: 'controller',
        message: `${where} runs kgateway ${version.text}, newer than the newest line glooha is tested with (${line(NEWEST_TESTED)}): glooha manages it, writing into GatewayParameters only the fields the API server's schema serves, and the controller's values as kgateway's chart has taken them since ${line(OLDEST_SUPPORTED)}; a field it cannot express is reported, never guessed`,
      },
    };
  return { kind: 'supported', version };
}
