// Command-line parsing for `glooha`, on node:util parseArgs, with kubectl's habits: -ojson, -o=json,
// -o json, -nNS, -n NS, --namespace=NS, -A, `--` ending the flags, flags before or after the command.
// One table (FLAGS, COMMAND_FLAGS) drives the parser, the help's flag lists and shell completion.
import { parseArgs as parseArgv } from 'node:util';
import { closest } from '../api/structural.js';
import { parseDuration } from '../api/duration.js';

export const OUTPUTS = ['manifests', 'helm-values', 'all'] as const;
export type Output = (typeof OUTPUTS)[number];
export const STATUS_OUTPUTS = ['table', 'json', 'yaml'] as const;
export type StatusOutput = (typeof STATUS_OUTPUTS)[number];
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

export const COMMANDS = [
  'render',
  'migrate',
  'status',
  'check',
  'helm-values',
  'suspend',
  'resume',
  'reconcile',
  'completion',
] as const;
export type Command = (typeof COMMANDS)[number];
/** Products `glooha migrate` carries a GlooHA's settings to. */
export const MIGRATE_TARGETS = ['kgateway'] as const;
export type MigrateTarget = (typeof MIGRATE_TARGETS)[number];

/** The kinds the cluster commands read; `--kind` takes any of kubectl's names for them. */
export const KINDS = ['GlooHA', 'KgatewayHA'] as const;
export type HAKind = (typeof KINDS)[number];
const KIND_NAMES: Record<string, HAKind> = {
  glooha: 'GlooHA',
  gloohas: 'GlooHA',
  gha: 'GlooHA',
  'gloohas.glooha.io': 'GlooHA',
  kgatewayha: 'KgatewayHA',
  kgatewayhas: 'KgatewayHA',
  kha: 'KgatewayHA',
  'kgatewayhas.glooha.io': 'KgatewayHA',
};
/** What completion offers for --kind. */
export const KIND_VALUES = ['glooha', 'kgatewayha'] as const;

export interface RenderArgs {
  command: 'render';
  filename: string;
  output: Output;
  install?: string;
  /** The install's own manifests, to merge glooha's partial bodies into (--merge-into). */
  mergeInto?: string;
  namespace?: string;
}

export interface MigrateArgs {
  command: 'migrate';
  target: MigrateTarget;
  filename: string;
  output: Output;
  /** The Helm release name of kgateway's chart (its controller pods' labels carry it). */
  release: string;
  namespace?: string;
}

/** How to reach the cluster: kubectl's flags. */
export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
}

export interface StatusArgs extends ClusterFlags {
  command: 'status';
  /** One object; all in the namespace when absent. */
  name?: string;
  namespace?: string;
  allNamespaces: boolean;
  output: StatusOutput;
  /** One kind; both when absent. */
  kind?: HAKind;
}

export interface CheckArgs extends ClusterFlags {
  command: 'check';
  /** Where the operator runs; searched in every namespace when absent. */
  operatorNamespace?: string;
  /** The one namespace whose Gloo and kgateway installs are checked; every namespace when absent. */
  namespace?: string;
}

export interface HelmValuesArgs extends ClusterFlags {
  command: 'helm-values';
  name: string;
  namespace?: string;
  /** Which kind NAME is; found by looking at both when absent. */
  kind?: HAKind;
}

/** suspend, resume and reconcile: Flux's verbs, on one GlooHA or KgatewayHA. */
export interface LifecycleArgs extends ClusterFlags {
  command: 'suspend' | 'resume' | 'reconcile';
  name: string;
  namespace?: string;
  kind?: HAKind;
  /** resume, reconcile: wait until the operator handled the request (default true). */
  wait: boolean;
  timeoutMs: number;
}

export interface CompletionArgs {
  command: 'completion';
  shell: Shell;
}

export type Args =
  | RenderArgs
  | MigrateArgs
  | StatusArgs
  | CheckArgs
  | HelmValuesArgs
  | LifecycleArgs
  | CompletionArgs
  | { command: 'help'; topic?: Command }
  | { command: 'version' };

export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly topic?: Command,
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

// ---- the flag table ----------------------------------------------------------------------------

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

export const FLAGS = {
  filename: { type: 'string', short: 'f', arg: 'FILE', file: true },
  output: { type: 'string', short: 'o', arg: 'FORMAT' },
  install: { type: 'string', arg: 'FILE', file: true },
  'merge-into': { type: 'string', arg: 'FILE', file: true },
  release: { type: 'string', arg: 'NAME' },
  namespace: { type: 'string', short: 'n', arg: 'NS' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  kind: { type: 'string', arg: 'KIND', values: KIND_VALUES },
  'operator-namespace': { type: 'string', arg: 'NS' },
  wait: { type: 'boolean' },
  timeout: { type: 'string', arg: 'DURATION' },
  kubeconfig: { type: 'string', arg: 'FILE', file: true },
  context: { type: 'string', arg: 'NAME' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Record<string, FlagSpec>;
export type Flag = keyof typeof FLAGS;

const CLUSTER: Flag[] = ['kubeconfig', 'context'];
const LIFECYCLE: Flag[] = ['namespace', 'kind', ...CLUSTER];

/** The flags each command takes (besides --help), in the order help and completion list them. */
export const COMMAND_FLAGS: Record<Command, Flag[]> = {
  render: ['filename', 'output', 'install', 'merge-into', 'namespace'],
  migrate: ['filename', 'output', 'release', 'namespace'],
  status: ['namespace', 'all-namespaces', 'output', 'kind', ...CLUSTER],
  check: ['namespace', 'operator-namespace', ...CLUSTER],
  'helm-values': ['namespace', 'kind', ...CLUSTER],
  suspend: LIFECYCLE,
  resume: [...LIFECYCLE, 'wait', 'timeout'],
  reconcile: [...LIFECYCLE, 'wait', 'timeout'],
  completion: [],
};

/** The values of -o per command, for the parser and completion. */
export const OUTPUT_VALUES: Partial<Record<Command, readonly string[]>> = {
  render: OUTPUTS,
  migrate: OUTPUTS,
  status: STATUS_OUTPUTS,
};

const POSITIONALS: Record<Command, { min: number; max: number; name?: string }> = {
  render: { min: 0, max: 0 },
  migrate: { min: 1, max: 1, name: 'TARGET' },
  status: { min: 0, max: 1, name: 'NAME' },
  check: { min: 0, max: 0 },
  'helm-values': { min: 1, max: 1, name: 'NAME' },
  suspend: { min: 1, max: 1, name: 'NAME' },
  resume: { min: 1, max: 1, name: 'NAME' },
  reconcile: { min: 1, max: 1, name: 'NAME' },
  completion: { min: 1, max: 1, name: 'SHELL' },
};

/** How a flag is written in help and errors: `-n, --namespace` or `--kind`. */
export function flagNames(flag: Flag): string[] {
  const spec: FlagSpec = FLAGS[flag];
  return spec.short ? [`-${spec.short}`, `--${flag}`] : [`--${flag}`];
}

// ---- usage -------------------------------------------------------------------------------------

const CLUSTER_FLAGS = `      --kubeconfig FILE  kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)
      --context NAME    kubeconfig context (default: its current-context)
  -h, --help            this help`;

const KIND_FLAG = `      --kind KIND       glooha or kgatewayha (kubectl's names work too: gha, kha, gloohas, ...)`;

export const USAGE = `glooha - tools for glooha-operator (HA for Gloo and kgateway installs)

Usage:
  glooha render -f FILE|- [-o manifests|helm-values|all] [--install FILE | --merge-into FILE] [-n NS]
                                                                                    offline
  glooha migrate kgateway -f FILE|- [-o manifests|helm-values|all] [--release NAME] [-n NS]
                                                                                    offline
  glooha status [NAME] [-n NS | -A] [-o table|json|yaml] [--kind KIND]              cluster
  glooha check [-n NS] [--operator-namespace NS]                                    cluster
  glooha helm-values NAME [-n NS] [--kind KIND]                                     cluster
  glooha suspend NAME [-n NS] [--kind KIND]                                         cluster
  glooha resume NAME [-n NS] [--kind KIND] [--wait=false] [--timeout 1m]            cluster
  glooha reconcile NAME [-n NS] [--kind KIND] [--wait=false] [--timeout 1m]         cluster
  glooha completion bash|zsh
  glooha --help | glooha COMMAND --help
  glooha --version

Flags are written as kubectl takes them: -n NS, -nNS, --namespace=NS, -o json, -ojson, -o=json;
"--" ends the flags. KIND is glooha or kgatewayha; without --kind, both kinds are looked at.

Exit status: 0 done (status/check: healthy), 1 internal error, 2 bad flags or input,
3 cluster unusable (kubeconfig, connection, authentication, permission, CRD missing),
4 the named object or its values not found, 5 status: not every object Ready / check: a check
failed / reconcile, resume: not handled within --timeout.
`;

export const RENDER_USAGE = `glooha render - print what glooha-operator would apply for a GlooHA, without a cluster

Usage:
  glooha render -f FILE|- [flags]

Flags:
  -f, --filename FILE   GlooHA YAML to render ("-" reads stdin); several documents are rendered in turn
  -o, --output WHAT     manifests (default): objects glooha owns and the partial server-side-apply
                        bodies for Gloo's Deployments and HPAs
                        helm-values: the equivalent values overlay for Gloo's Helm chart
                        all: both
      --install FILE    YAML describing the observed install (the ObservedInstall shape: namespace,
                        gloo, discovery, gatewayProxies, hpas, pdbs); default: an install laid out the
                        way Gloo's chart names things (Deployments gloo, discovery and the kebab-case of
                        each gatewayProxies key, ServiceAccount gloo, no HPAs or PDBs)
      --merge-into FILE the install's own manifests (e.g. helm template of Gloo's chart): glooha
                        reads the install from them and prints them with its partial bodies merged
                        in (as server-side apply merges them), followed by the objects it owns, so
                        that linters (kube-score, Polaris) judge each Deployment as the cluster will
                        hold it; not with --install
  -n, --namespace NS    namespace for a GlooHA without metadata.namespace (default "default")
  -h, --help            this help

Invalid input exits with status 2 and lists every problem as "path: message". Warnings (single
replica, no PodDisruptionBudget, ...) and problems the install shows go to stderr; the exit status
stays 0.

Input is bounded, so hostile YAML costs little: at most 4 MiB, 16,000 YAML nodes (inside flow
collections [ ] { } each counts twice), 1,000 documents, nesting 100 deep and 100 alias expansions
per document (merge keys included). Beyond a limit render exits 2 before building anything: parsing
peaks below 40 MiB of memory (10 x the input cap) and a few seconds of CPU. YAML is read as kubectl
reads it, so a %YAML or %TAG directive is refused, as kubectl refuses it.

Each GlooHA is judged as the API server judges it on create (strict field validation, kubectl's
default): metadata as ObjectMeta (field types, labels, annotations), an unknown field anywhere,
status included, refused; status otherwise ignored (the API server drops it); then the schema and the
CRD's own CEL rules. Integers are read exactly, never rounded: beyond 2^53 render keeps the exact value
(and prints it so with --merge-into); an integer beyond int64 is a float to Kubernetes, refused where
an integer belongs.

Examples:
  glooha render -f examples/glooha.yaml
  glooha render -f examples/glooha.yaml -o helm-values > gloo-ha-values.yaml
  kubectl get gha prod -o yaml | glooha render -f - -o all
  helm template gloo gloo/gloo -n gloo-system > gloo.yaml
  glooha render -f examples/glooha.yaml --merge-into gloo.yaml | kube-score score -
`;

export const MIGRATE_USAGE = `glooha migrate - carry a GlooHA's HA settings over to kgateway, Gloo OSS's successor

Usage:
  glooha migrate kgateway -f FILE|- [flags]

Gloo OSS reaches end of life on 2026-12-31; kgateway (CNCF) is its successor. For each GlooHA this
prints what makes the kgateway install that replaces it just as available:
  - the values overlay for kgateway's chart: the controller's replicas, leader election, PDB,
    anti-affinity and rollout strategy;
  - the KgatewayHA that keeps the kgateway install so, and per gateway proxy the GatewayParameters
    kgateway's deployer builds the Gateway's proxy from, with the PodDisruptionBudget and HPA.
What kgateway cannot take (leader-election timings, discovery, ...) and the steps left to you are
printed on stderr as notes, and listed in the values' header. docs/migrate-to-kgateway.md walks
through a migration.

Flags:
  -f, --filename FILE   GlooHA YAML ("-" reads stdin); several documents are carried over in turn
  -o, --output WHAT     manifests (default): the KgatewayHA, GatewayParameters, PodDisruptionBudgets
                        and HPAs, for kubectl apply --server-side
                        helm-values: the values overlay for kgateway's chart, for helm -f
                        all: both
      --release NAME    the Helm release name of kgateway's chart (default "kgateway"): the
                        controller's pods carry it in app.kubernetes.io/instance, which its
                        anti-affinity selects
  -n, --namespace NS    namespace for a GlooHA without metadata.namespace (default "default")
  -h, --help            this help

Invalid input exits with status 2 and lists every problem as "path: message".

Examples:
  glooha migrate kgateway -f examples/glooha.yaml -o helm-values > kgateway-values.yaml
  glooha migrate kgateway -f examples/glooha.yaml > kgateway-ha.yaml
  kubectl get gha gloo -n gloo-system -o yaml | glooha migrate kgateway -f - -o all
`;

export const STATUS_USAGE = `glooha status - the health of GlooHAs and KgatewayHAs, as the operator reports it

Usage:
  glooha status [NAME] [flags]

For each GlooHA and KgatewayHA: Ready and Stalled with their reason, each component's ready/desired
replicas, who leads the product (Gloo's Lease gloo, kgateway's kgateway-envoy) and whether that Lease
is fresh, and drift. One the operator has not reported on yet (operator down, namespace not watched)
shows Ready Unknown, reason NoStatus. A kind whose CRD is not installed is left out; with neither
installed, exit 3.

Flags:
  -n, --namespace NS    namespace (default: the context's, else "default")
  -A, --all-namespaces  every namespace
  -o, --output FORMAT   table (default), json or yaml
${KIND_FLAG}
${CLUSTER_FLAGS}

Exit status: 0 every object shown is Ready (or there is none), 5 one is not, 4 NAME not found,
3 the cluster cannot be used.
`;

export const CHECK_USAGE = `glooha check - pre-flight checks of a cluster for glooha-operator

Usage:
  glooha check [flags]

Checks: the GlooHA and KgatewayHA CRDs are installed and serve v1alpha1; the operator's Deployment has
ready replicas; its leader Lease has a holder that renews it; the fencing admission policy; you may
read GlooHAs, KgatewayHAs and their values ConfigMaps (SelfSubjectAccessReview); the operator's
ServiceAccount holds every permission it needs (SubjectAccessReview; skipped with a warning if you may
not create those); the Gloo and kgateway installs found, whether a GlooHA or KgatewayHA targets each,
and whether kgateway's controller holds and renews its Lease kgateway-envoy.

Flags:
  -n, --namespace NS           check the Gloo and kgateway installs in NS only (default: every namespace)
      --operator-namespace NS  where the operator runs (default: found by its labels in any namespace)
${CLUSTER_FLAGS}

Exit status: 0 every check passed (warnings allowed), 5 a check failed, 3 the cluster cannot be used.
`;

export const HELM_VALUES_USAGE = `glooha helm-values - print a GlooHA's or KgatewayHA's settings as values for the product's Helm chart

Usage:
  glooha helm-values NAME [flags]

Prints the values overlay the operator keeps in the object's ConfigMap (<NAME>-helm-values for a
GlooHA, <NAME>-kgateway-helm-values for a KgatewayHA), so that a Helm upgrade of the product keeps
what the operator applies. Pass it last, with Helm 4 and Helm 3 alike:
  glooha helm-values gloo -n gloo-system > values-glooha.yaml
  helm upgrade gloo gloo/gloo -n gloo-system --reset-then-reuse-values -f values-glooha.yaml

Flags:
  -n, --namespace NS    the object's namespace (default: the context's, else "default")
${KIND_FLAG}
${CLUSTER_FLAGS}

Exit status: 0 printed, 4 no such object or its ConfigMap is not written yet, 3 the cluster cannot
be used.
`;

const LIFECYCLE_FLAGS = `  -n, --namespace NS    the object's namespace (default: the context's, else "default")
${KIND_FLAG}`;

const WAIT_FLAGS = `      --wait=false      do not wait for the operator to handle the request
      --timeout DURATION how long to wait (default 1m; Go syntax: 30s, 2m, 1m30s)`;

export const SUSPEND_USAGE = `glooha suspend - stop the operator writing to an install (spec.suspend: true)

Usage:
  glooha suspend NAME [flags]

Sets spec.suspend to true on the GlooHA or KgatewayHA NAME. While suspended the operator writes
nothing to the install (status still reports, listing what it would apply). glooha resume undoes it.

Flags:
${LIFECYCLE_FLAGS}
${CLUSTER_FLAGS}

Exit status: 0 suspended, 4 NAME not found, 3 the cluster cannot be used.
`;

export const RESUME_USAGE = `glooha resume - let the operator write to an install again (spec.suspend: false)

Usage:
  glooha resume NAME [flags]

Sets spec.suspend to false on the GlooHA or KgatewayHA NAME and requests a reconcile, then waits
until the operator has handled it and prints its Ready condition.

Flags:
${LIFECYCLE_FLAGS}
${WAIT_FLAGS}
${CLUSTER_FLAGS}

Exit status: 0 resumed (and handled), 4 NAME not found, 5 not handled within --timeout,
3 the cluster cannot be used.
`;

export const RECONCILE_USAGE = `glooha reconcile - have the operator reconcile an install now

Usage:
  glooha reconcile NAME [flags]

Sets the annotation glooha.io/reconcile-requested-at on the GlooHA or KgatewayHA NAME to the current
time (Flux's reconcile.fluxcd.io/requestedAt), waits until the operator echoes it in
status.lastHandledReconcileAt, and prints its Ready condition.

Flags:
${LIFECYCLE_FLAGS}
${WAIT_FLAGS}
${CLUSTER_FLAGS}

Exit status: 0 handled, 4 NAME not found, 5 not handled within --timeout, 3 the cluster cannot be used.
`;

export const COMPLETION_USAGE = `glooha completion - shell completion script

Usage:
  glooha completion bash|zsh

  bash:  source <(glooha completion bash)        (or write it to /etc/bash_completion.d/glooha)
  zsh:   source <(glooha completion zsh)          (or write it as _glooha into a directory of $fpath)

Completes commands, flags, flag values and, through kubectl when it is installed, GlooHA and
KgatewayHA names.
`;

export const TOPIC_USAGE: Record<Command, string> = {
  render: RENDER_USAGE,
  migrate: MIGRATE_USAGE,
  status: STATUS_USAGE,
  check: CHECK_USAGE,
  'helm-values': HELM_VALUES_USAGE,
  suspend: SUSPEND_USAGE,
  resume: RESUME_USAGE,
  reconcile: RECONCILE_USAGE,
  completion: COMPLETION_USAGE,
};

// ---- parsing -----------------------------------------------------------------------------------

type Values = Partial<Record<Flag, string | boolean>>;

/**
 * kubectl (pflag) reads `-o=json` as `-o json`; node's parseArgs would keep the `=`. A boolean's
 * `-A=false` becomes `--all-namespaces=false`, whose value the parser then judges.
 */
function splitShortEquals(argv: readonly string[]): string[] {
  const byShort = new Map<string, Flag>(
    (Object.keys(FLAGS) as Flag[]).flatMap((f) => {
      const short = (FLAGS[f] as FlagSpec).short;
      return short ? [[short, f] as const] : [];
    }),
  );
  const out: string[] = [];
  let rest = false;
  for (const arg of argv) {
    if (!rest && arg === '--') rest = true;
    const m = rest ? null : /^-([a-zA-Z])=(.*)$/s.exec(arg);
    const flag = m && byShort.get(m[1] as string);
    if (!m || !flag) out.push(arg);
    else if (FLAGS[flag].type === 'boolean') out.push(`--${flag}=${m[2]}`);
    else out.push(`-${m[1]}`, m[2] as string);
  }
  return out;
}

function unknownFlag(raw: string, command: Command | undefined): UsageError {
  const allowed = command ? [...COMMAND_FLAGS[command], 'help' as const] : (['help', 'version'] as const);
  const names = allowed.flatMap(flagNames);
  const where = command ? `glooha ${command}` : 'glooha';
  const given = raw.startsWith('--') ? raw.slice(2) : raw.slice(1);
  const isFlagElsewhere = (Object.keys(FLAGS) as Flag[]).some((f) => flagNames(f).includes(raw));
  // The closest of the command's flags: by edit distance, else the one that starts the same way.
  const longs = allowed.map((f) => `--${f}`);
  const near =
    raw.startsWith('--') && given.length > 0
      ? (closest(raw, longs) ?? longs.find((l) => l.startsWith(raw) || raw.startsWith(l)))
      : undefined;
  const hint = near
    ? `; did you mean ${near}?`
    : isFlagElsewhere
      ? ` (${raw} is not a flag of ${where})`
      : '';
  return new UsageError(`unknown flag ${raw}${hint} (flags of ${where}: ${names.join(', ')})`, command);
}

function parseCommandLine(argv: readonly string[]): {
  command?: Command;
  values: Values;
  positionals: string[];
} {
  const { tokens } = parseArgv({
    args: splitShortEquals(argv),
    options: FLAGS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // The command is the first positional before `--` (flags may come before it, as with kubectl).
  let command: Command | undefined;
  const positionals: string[] = [];
  let afterTerminator = false;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') afterTerminator = true;
    if (t.kind !== 'positional') continue;
    if (command === undefined && !afterTerminator && positionals.length === 0) {
      const word = t.value;
      if (word === 'help' || word === 'version') {
        positionals.push(word);
        continue;
      }
      if (!(COMMANDS as readonly string[]).includes(word)) {
        const near = closest(word, COMMANDS);
        throw new UsageError(
          `unknown command ${JSON.stringify(word)}${near ? `; did you mean ${near}?` : ''} (commands: ${COMMANDS.join(', ')})`,
        );
      }
      command = word as Command;
      continue;
    }
    positionals.push(t.value);
  }
  const values: Values = {};
  const allowed = new Set<string>(command ? [...COMMAND_FLAGS[command], 'help'] : ['help', 'version']);
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const raw = t.rawName;
    if (!(t.name in FLAGS) || !allowed.has(t.name)) {
      // `glooha status --help --foo`: help wins, as with kubectl.
      if (tokens.some((x) => x.kind === 'option' && x.name === 'help'))
        return { command, values: { help: true }, positionals };
      throw unknownFlag(raw, command);
    }
    const name = t.name as Flag;
    const spec: FlagSpec = FLAGS[name];
    if (spec.type === 'boolean') {
      if (t.value === undefined) values[name] = true;
      // pflag's --flag=true / --flag=false.
      else if (t.inlineValue && (t.value === 'true' || t.value === 'false'))
        values[name] = t.value === 'true';
      else
        throw new UsageError(
          `flag ${raw} takes no value (or =true, =false), not ${JSON.stringify(t.value)}`,
          command,
        );
      continue;
    }
    // A value that looks like a flag (`-n -A`) is a missing value, except `-` (stdin) and `--x=-y`.
    const value = t.value;
    if (value === undefined || value === '' || (!t.inlineValue && value.startsWith('-') && value !== '-'))
      throw new UsageError(`flag ${raw} needs a value (${raw} ${spec.arg ?? 'VALUE'})`, command);
    values[name] = value;
  }
  return { command, values, positionals };
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function namespaceFlag(values: Values, name: Flag = 'namespace'): string | undefined {
  const ns = values[name] as string | undefined;
  if (ns !== undefined && (ns.length > 63 || !DNS_LABEL.test(ns))) {
    throw new UsageError(
      `--${name} must be a namespace name (at most 63 lowercase letters, digits and dashes), not ${JSON.stringify(ns)}`,
    );
  }
  return ns;
}

function objectName(value: string): string {
  if (value.length > 253 || !NAME.test(value)) {
    throw new UsageError(
      `NAME must be a GlooHA or KgatewayHA name (lowercase letters, digits, '-' and '.'), not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function oneOf<T extends string>(
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

function kindFlag(values: Values): HAKind | undefined {
  const v = values.kind as string | undefined;
  if (v === undefined) return undefined;
  const kind = KIND_NAMES[v.toLowerCase()];
  if (!kind)
    throw new UsageError(`--kind must be glooha or kgatewayha (or gha, kha, ...), not ${JSON.stringify(v)}`);
  return kind;
}

const clusterFlags = (values: Values): ClusterFlags => ({
  ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig as string }),
  ...(values.context === undefined ? {} : { context: values.context as string }),
});

function timeoutFlag(values: Values): number {
  const text = (values.timeout as string | undefined) ?? '1m';
  const nanos = parseDuration(text);
  if (nanos === undefined || nanos === 0n)
    throw new UsageError(
      `--timeout must be a duration such as 30s, 2m or 1m30s, not ${JSON.stringify(text)}`,
    );
  return Number(nanos / 1_000_000n);
}

export function parseArgs(argv: readonly string[]): Args {
  const { command, values, positionals } = parseCommandLine(argv);
  if (command === undefined) {
    const [word, topic, extra] = positionals;
    if (word === 'version' || values.version) return { command: 'version' };
    if (word === 'help') {
      if (topic === undefined) return { command: 'help' };
      if (!(COMMANDS as readonly string[]).includes(topic)) {
        const near = closest(topic, COMMANDS);
        throw new UsageError(
          `no help for ${JSON.stringify(topic)}${near ? `; did you mean ${near}?` : ''} (commands: ${COMMANDS.join(', ')})`,
        );
      }
      if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      return { command: 'help', topic: topic as Command };
    }
    if (word !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(word)}`);
    return { command: 'help' };
  }
  if (values.help) return { command: 'help', topic: command };
  try {
    const { min, max, name } = POSITIONALS[command];
    if (positionals.length > max)
      throw new UsageError(`unexpected argument ${JSON.stringify(positionals[max])}`);
    if (positionals.length < min) throw new UsageError(`missing ${name}`);
    const str = (f: Flag) => values[f] as string | undefined;
    switch (command) {
      case 'render': {
        const filename = str('filename');
        if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
        if (values.install !== undefined && values['merge-into'] !== undefined)
          throw new UsageError(
            'give --install or --merge-into, not both (--merge-into reads the install from its manifests)',
          );
        return {
          command,
          filename,
          output: oneOf(str('output'), '--output', OUTPUTS, 'manifests'),
          install: str('install'),
          mergeInto: str('merge-into'),
          namespace: namespaceFlag(values),
        };
      }
      case 'migrate': {
        const target = oneOf(positionals[0], 'TARGET', MIGRATE_TARGETS, 'kgateway');
        const filename = str('filename');
        if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
        const release = str('release') ?? 'kgateway';
        // A Helm release name: lowercase letters, digits and dashes, at most 53 characters.
        if (release.length > 53 || !DNS_LABEL.test(release))
          throw new UsageError(
            `--release must be a Helm release name (at most 53 lowercase letters, digits and dashes), not ${JSON.stringify(release)}`,
          );
        return {
          command,
          target,
          filename,
          output: oneOf(str('output'), '--output', OUTPUTS, 'manifests'),
          release,
          namespace: namespaceFlag(values),
        };
      }
      case 'status': {
        const allNamespaces = values['all-namespaces'] === true;
        const namespace = namespaceFlag(values);
        const kind = kindFlag(values);
        if (allNamespaces && namespace !== undefined) throw new UsageError('give -n NS or -A, not both');
        if (allNamespaces && positionals[0] !== undefined)
          throw new UsageError('NAME needs one namespace: give -n NS instead of -A');
        return {
          command,
          ...(positionals[0] === undefined ? {} : { name: objectName(positionals[0]) }),
          ...(namespace === undefined ? {} : { namespace }),
          allNamespaces,
          output: oneOf(str('output'), '--output', STATUS_OUTPUTS, 'table'),
          ...(kind === undefined ? {} : { kind }),
          ...clusterFlags(values),
        };
      }
      case 'check': {
        const operatorNamespace = namespaceFlag(values, 'operator-namespace');
        const namespace = namespaceFlag(values);
        return {
          command,
          ...(operatorNamespace ? { operatorNamespace } : {}),
          ...(namespace ? { namespace } : {}),
          ...clusterFlags(values),
        };
      }
      case 'helm-values': {
        const namespace = namespaceFlag(values);
        const kind = kindFlag(values);
        return {
          command,
          name: objectName(positionals[0] as string),
          ...(namespace === undefined ? {} : { namespace }),
          ...(kind === undefined ? {} : { kind }),
          ...clusterFlags(values),
        };
      }
      case 'suspend':
      case 'resume':
      case 'reconcile': {
        const namespace = namespaceFlag(values);
        const kind = kindFlag(values);
        return {
          command,
          name: objectName(positionals[0] as string),
          ...(namespace === undefined ? {} : { namespace }),
          ...(kind === undefined ? {} : { kind }),
          wait: command !== 'suspend' && values.wait !== false,
          timeoutMs: timeoutFlag(values),
          ...clusterFlags(values),
        };
      }
      case 'completion':
        return { command, shell: oneOf(positionals[0], 'SHELL', SHELLS, 'bash') };
    }
  } catch (err) {
    if (err instanceof UsageError && err.topic === undefined) throw new UsageError(err.message, command);
    throw err;
  }
}
