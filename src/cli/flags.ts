// What every `glooha` command is parsed and answered with, the product's commands (src/cli/product.ts)
// included: exit statuses, the usage error, the flag table's shape and the flags they share, and the
// checks of flag values. args.ts builds the whole command line from it and the registry.
import { closest } from '../api/structural.js';

export const OUTPUTS = ['manifests', 'helm-values', 'all'] as const;
export type Output = (typeof OUTPUTS)[number];

export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    /** The command whose --help the error points to. */
    readonly topic?: string,
  ) {
    super(message);
  }
}

/** Exit statuses, for scripts (README "Exit status"). */
export const EXIT = {
  /** Done; for status and check: everything is healthy. */
  OK: 0,
  /** A bug in glooha (one line; GLOOHA_DEBUG=1 adds the stack). */
  INTERNAL: 1,
  /** Bad flags or invalid input: the problems are listed. */
  INVALID: 2,
  /** The cluster cannot be used: no kubeconfig, API server unreachable, not authenticated or authorized, CRD not installed. */
  CLUSTER: 3,
  /** The object (or its values ConfigMap) named on the command line does not exist. */
  NOT_FOUND: 4,
  /** status: an object is not Ready; check: a check failed; reconcile/resume: not handled in time. */
  UNHEALTHY: 5,
} as const;

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in help, e.g. NS. */
  arg?: string;
  /** A fixed list of values, for completion. */
  values?: readonly string[];
  /** Its value is a file path (completion completes files). */
  file?: boolean;
}

/** The flags given, by name: a string, or true/false for a boolean. */
export type FlagValues = Partial<Record<string, string | boolean>>;

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function namespaceFlag(values: FlagValues, name = 'namespace'): string | undefined {
  const ns = values[name] as string | undefined;
  if (ns !== undefined && (ns.length > 63 || !DNS_LABEL.test(ns))) {
    throw new UsageError(
      `--${name} must be a namespace name (at most 63 lowercase letters, digits and dashes), not ${JSON.stringify(ns)}`,
    );
  }
  return ns;
}

export function oneOf<T extends string>(
  value: string | undefined,
  flag: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = value ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    const near = closest(v, allowed);
    throw new UsageError(
      `${flag} must be one of ${allowed.join(', ')}, not ${JSON.stringify(v)}${near ? `; did you mean ${near}?` : ''}`,
    );
  }
  return v as T;
}
