// Command-line parsing for `glooha`, on node:util parseArgs, with kubectl's habits: -ojson, -o=json,
// -o json, -nNS, -n NS, --namespace=NS, -A, `--` ending the flags, flags before or after the command.
// One table (FLAGS, COMMAND_FLAGS) drives the parser, the help's flag lists and shell completion.
import { parseArgs as parseArgv } from 'node:util';
import { closest } from '../api/structural.js';
import { parseDuration } from '../api/duration.js';
import { GROUP } from '../api/constants.js';
import { UsageError, namespaceFlag, oneOf, type FlagSpec, type FlagValues } from './flags.js';
import type { ProductArgs } from './product.js';
import { CLI_PRODUCTS, PRODUCT_COMMANDS } from './registry.js';

export { EXIT, OUTPUTS, UsageError, type FlagSpec, type Output } from './flags.js';

export const STATUS_OUTPUTS = ['table', 'json', 'yaml'] as const;
export type StatusOutput = (typeof STATUS_OUTPUTS)[number];
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** The commands of every product's objects, after the products' own (ProductCommand). */
const SHARED_COMMANDS = [
  'status',
  'check',
  'helm-values',
  'suspend',
  'resume',
  'reconcile',
  'completion',
] as const;
type SharedCommand = (typeof SHARED_COMMANDS)[number];
export const COMMANDS: readonly string[] = [...PRODUCT_COMMANDS.map((c) => c.name), ...SHARED_COMMANDS];
/** A command's name: a product's own or a shared one. */
export type Command = string;

/** The kinds the cluster commands read; `--kind` takes any of kubectl's names for them. */
export const KINDS: readonly string[] = CLI_PRODUCTS.map((p) => p.api.kind);
/** A registered product's kind (GlooHA, ...). */
export type HAKind = string;
const KIND_NAMES: Record<string, HAKind> = Object.fromEntries(
  CLI_PRODUCTS.flatMap(({ api }) =>
    [api.singular, api.plural, ...api.shortNames, `${api.plural}.${GROUP}`].map((n) => [n, api.kind]),
  ),
);
/** What completion offers for --kind, and how help names the kinds. */
export const KIND_VALUES: readonly string[] = CLI_PRODUCTS.map((p) => p.api.singular);

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
  /** One kind; every kind when absent. */
  kind?: HAKind;
}

export interface CheckArgs extends ClusterFlags {
  command: 'check';
  /** Where the operator runs; searched in every namespace when absent. */
  operatorNamespace?: string;
  /** The one namespace whose installs are checked; every namespace when absent. */
  namespace?: string;
}

export interface HelmValuesArgs extends ClusterFlags {
  command: 'helm-values';
  name: string;
  namespace?: string;
  /** Which kind NAME is; found by looking at every kind when absent. */
  kind?: HAKind;
}

/** suspend, resume and reconcile: Flux's verbs, on one object of any kind. */
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

/** The arguments of the commands args.ts parses itself. */
export type SharedArgs =
  | StatusArgs
  | CheckArgs
  | HelmValuesArgs
  | LifecycleArgs
  | CompletionArgs
  | { command: 'help'; topic?: Command }
  | { command: 'version' };

export type Args = SharedArgs | ProductArgs;

// ---- the flag table ----------------------------------------------------------------------------

/** The flags the shared commands take, and the ones every product's commands share. */
const SHARED_FLAGS = {
  filename: { type: 'string', short: 'f', arg: 'FILE', file: true },
  output: { type: 'string', short: 'o', arg: 'FORMAT' },
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

/** Every flag: the shared ones and the products' commands' own. */
export const FLAGS: Readonly<Record<string, FlagSpec>> = Object.assign(
  {},
  SHARED_FLAGS,
  ...PRODUCT_COMMANDS.map((c): Readonly<Record<string, FlagSpec>> => c.flags ?? {}),
) as Record<string, FlagSpec>;
export type Flag = string;

const CLUSTER: Flag[] = ['kubeconfig', 'context'];
const LIFECYCLE: Flag[] = ['namespace', 'kind', ...CLUSTER];

/** The flags each command takes (besides --help), in the order help and completion list them. */
export const COMMAND_FLAGS: Readonly<Record<Command, readonly Flag[]>> = {
  ...Object.fromEntries(PRODUCT_COMMANDS.map((c) => [c.name, c.commandFlags])),
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
  ...Object.fromEntries(PRODUCT_COMMANDS.flatMap((c) => (c.outputs ? [[c.name, c.outputs]] : []))),
  status: STATUS_OUTPUTS,
};

const POSITIONALS: Record<Command, { min: number; max: number; name?: string }> = {
  ...Object.fromEntries(PRODUCT_COMMANDS.map((c) => [c.name, c.positionals])),
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
  const spec = FLAGS[flag] as FlagSpec;
  return spec.short ? [`-${spec.short}`, `--${flag}`] : [`--${flag}`];
}

// ---- usage -------------------------------------------------------------------------------------

const CLUSTER_FLAGS = `      --kubeconfig FILE  kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)
      --context NAME    kubeconfig context (default: its current-context)
  -h, --help            this help`;

// The registry's words, for help and errors: "GlooHA or KgatewayHA", "Gloo and kgateway", ...
const kinds = (sep: string) => KINDS.join(sep);
const kindPlurals = (sep: string) => KINDS.map((k) => `${k}s`).join(sep);
const productNames = (sep: string) => CLI_PRODUCTS.map((p) => p.name).join(sep);
const kindFlagValues = KIND_VALUES.join(' or ');
const shortNames = CLI_PRODUCTS.flatMap((p) => p.api.shortNames);
const everyKind = KINDS.length === 2 ? 'both kinds' : 'every kind';

/** A paragraph with words from the registry, filled to 100 columns as the rest of the help is. */
function fill(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

const KIND_FLAG = `      --kind KIND       ${kindFlagValues} (kubectl's names work too: ${[...shortNames, CLI_PRODUCTS[0]?.api.plural].join(', ')}, ...)`;

export const USAGE = `glooha - tools for glooha-operator (HA for ${productNames(' and ')} installs)

Usage:
${PRODUCT_COMMANDS.map((c) => c.synopsis).join('')}  glooha status [NAME] [-n NS | -A] [-o table|json|yaml] [--kind KIND]              cluster
  glooha check [-n NS] [--operator-namespace NS]                                    cluster
  glooha helm-values NAME [-n NS] [--kind KIND]                                     cluster
  glooha suspend NAME [-n NS] [--kind KIND]                                         cluster
  glooha resume NAME [-n NS] [--kind KIND] [--wait=false] [--timeout 1m]            cluster
  glooha reconcile NAME [-n NS] [--kind KIND] [--wait=false] [--timeout 1m]         cluster
  glooha completion bash|zsh
  glooha --help | glooha COMMAND --help
  glooha --version

Flags are written as kubectl takes them: -n NS, -nNS, --namespace=NS, -o json, -ojson, -o=json;
"--" ends the flags. KIND is ${kindFlagValues}; without --kind, ${everyKind} are looked at.

Exit status: 0 done (status/check: healthy), 1 internal error, 2 bad flags or input,
3 cluster unusable (kubeconfig, connection, authentication, permission, CRD missing),
4 the named object or its values not found, 5 status: not every object Ready / check: a check
failed / reconcile, resume: not handled within --timeout.
`;

export const STATUS_USAGE = `glooha status - the health of ${kindPlurals(' and ')}, as the operator reports it

Usage:
  glooha status [NAME] [flags]

For each ${kinds(' and ')}: Ready and Stalled with their reason, each component's ready/desired
replicas, who leads the product (${CLI_PRODUCTS.map((p) => p.leaseInProse).join(', ')}) and whether that Lease
is fresh, and drift. One the operator has not reported on yet (operator down, namespace not watched)
shows Ready Unknown, reason NoStatus. A kind whose CRD is not installed is left out; with neither
installed, exit 3.

Flags:
  -n, --namespace NS    namespace (default: the context's, else "default")
  -A, --all-namespaces  every namespace (wins over -n, as in kubectl)
  -o, --output FORMAT   table (default), json or yaml
${KIND_FLAG}
${CLUSTER_FLAGS}

Exit status: 0 every object shown is Ready (or there is none), 5 one is not, 4 NAME not found,
3 the cluster cannot be used.
`;

export const CHECK_USAGE = `glooha check - pre-flight checks of a cluster for glooha-operator

Usage:
  glooha check [flags]

Checks: the ${kinds(' and ')} CRDs are installed and serve v1alpha1; the operator's Deployment has
ready replicas; its leader Lease has a holder that renews it; the fencing admission policy; you may
read ${kindPlurals(', ')} and their values ConfigMaps (SelfSubjectAccessReview); the operator's
ServiceAccount holds every permission it needs (SubjectAccessReview; skipped with a warning if you may
not create those); the ${productNames(' and ')} installs found, whether a ${kinds(' or ')} targets each${CLI_PRODUCTS.flatMap((p) => (p.installCheck ? [`,\nand ${p.installCheck.inProse}`] : [])).join('')}.

Flags:
  -n, --namespace NS           check the ${productNames(' and ')} installs in NS only (default: every namespace)
      --operator-namespace NS  where the operator runs (default: found by its labels in any namespace)
${CLUSTER_FLAGS}

Exit status: 0 every check passed (warnings allowed), 5 a check failed, 3 the cluster cannot be used.
`;

export const HELM_VALUES_USAGE = `glooha helm-values - print a ${KINDS.map((k) => `${k}'s`).join(' or ')} settings as values for the product's Helm chart

Usage:
  glooha helm-values NAME [flags]

${fill(`Prints the values overlay the operator keeps in the object's ConfigMap (${CLI_PRODUCTS.map((p) => `<NAME>${p.helmValuesSuffix} for a ${p.api.kind}`).join(', ')}), so that a Helm upgrade of the product keeps what the operator applies. Pass it last, at the installed chart version (--version; the values header prints the whole command for the install), with Helm 4 and Helm 3 alike:`)}
${CLI_PRODUCTS.map((p) => p.helmValuesExample ?? '').join('')}
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

Sets spec.suspend to true on the ${kinds(' or ')} NAME. While suspended the operator writes
nothing to the install (status still reports, listing what it would apply). glooha resume undoes it.

Flags:
${LIFECYCLE_FLAGS}
${CLUSTER_FLAGS}

Exit status: 0 suspended, 4 NAME not found, 3 the cluster cannot be used.
`;

export const RESUME_USAGE = `glooha resume - let the operator write to an install again (spec.suspend: false)

Usage:
  glooha resume NAME [flags]

Sets spec.suspend to false on the ${kinds(' or ')} NAME and requests a reconcile, then waits
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

Sets the annotation glooha.io/reconcile-requested-at on the ${kinds(' or ')} NAME to the current
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

${fill(`Completes commands, flags, flag values and, through kubectl when it is installed, ${kinds(' and ')} names.`)}
`;

export const TOPIC_USAGE: Readonly<Record<Command, string>> = {
  ...Object.fromEntries(PRODUCT_COMMANDS.map((c) => [c.name, c.usage])),
  status: STATUS_USAGE,
  check: CHECK_USAGE,
  'helm-values': HELM_VALUES_USAGE,
  suspend: SUSPEND_USAGE,
  resume: RESUME_USAGE,
  reconcile: RECONCILE_USAGE,
  completion: COMPLETION_USAGE,
};

// ---- parsing -----------------------------------------------------------------------------------

/**
 * kubectl (pflag) reads `-o=json` as `-o json`; node's parseArgs would keep the `=`. A boolean's
 * `-A=false` becomes `--all-namespaces=false`, whose value the parser then judges.
 */
function splitShortEquals(argv: readonly string[]): string[] {
  const byShort = new Map<string, Flag>(
    Object.keys(FLAGS).flatMap((f) => {
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
    else if ((FLAGS[flag] as FlagSpec).type === 'boolean') out.push(`--${flag}=${m[2]}`);
    else out.push(`-${m[1]}`, m[2] as string);
  }
  return out;
}

function unknownFlag(raw: string, command: Command | undefined): UsageError {
  const allowed = command ? [...(COMMAND_FLAGS[command] ?? []), 'help'] : ['help', 'version'];
  const names = allowed.flatMap(flagNames);
  const where = command ? `glooha ${command}` : 'glooha';
  const given = raw.startsWith('--') ? raw.slice(2) : raw.slice(1);
  const isFlagElsewhere = Object.keys(FLAGS).some((f) => flagNames(f).includes(raw));
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
  values: FlagValues;
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
      if (!COMMANDS.includes(word)) {
        const near = closest(word, COMMANDS);
        throw new UsageError(
          `unknown command ${JSON.stringify(word)}${near ? `; did you mean ${near}?` : ''} (commands: ${COMMANDS.join(', ')})`,
        );
      }
      command = word;
      continue;
    }
    positionals.push(t.value);
  }
  const values: FlagValues = {};
  const allowed = new Set<string>(
    command ? [...(COMMAND_FLAGS[command] ?? []), 'help'] : ['help', 'version'],
  );
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const raw = t.rawName;
    if (!(t.name in FLAGS) || !allowed.has(t.name)) {
      // `glooha status --help --foo`: help wins, as with kubectl.
      if (tokens.some((x) => x.kind === 'option' && x.name === 'help'))
        return { command, values: { help: true }, positionals };
      throw unknownFlag(raw, command);
    }
    const name = t.name;
    const spec = FLAGS[name] as FlagSpec;
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
function objectName(value: string): string {
  if (value.length > 253 || !NAME.test(value)) {
    throw new UsageError(
      `NAME must be a ${kinds(' or ')} name (lowercase letters, digits, '-' and '.'), not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function kindFlag(values: FlagValues): HAKind | undefined {
  const v = values.kind as string | undefined;
  if (v === undefined) return undefined;
  const kind = KIND_NAMES[v.toLowerCase()];
  if (!kind)
    throw new UsageError(
      `--kind must be ${kindFlagValues} (or ${shortNames.join(', ')}, ...), not ${JSON.stringify(v)}`,
    );
  return kind;
}

const clusterFlags = (values: FlagValues): ClusterFlags => ({
  ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig as string }),
  ...(values.context === undefined ? {} : { context: values.context as string }),
});

function timeoutFlag(values: FlagValues): number {
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
      if (!COMMANDS.includes(topic)) {
        const near = closest(topic, COMMANDS);
        throw new UsageError(
          `no help for ${JSON.stringify(topic)}${near ? `; did you mean ${near}?` : ''} (commands: ${COMMANDS.join(', ')})`,
        );
      }
      if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
      return { command: 'help', topic: topic };
    }
    if (word !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(word)}`);
    return { command: 'help' };
  }
  if (values.help) return { command: 'help', topic: command };
  try {
    const { min, max, name } = POSITIONALS[command] as { min: number; max: number; name?: string };
    if (positionals.length > max)
      throw new UsageError(`unexpected argument ${JSON.stringify(positionals[max])}`);
    if (positionals.length < min) throw new UsageError(`missing ${name}`);
    const own = PRODUCT_COMMANDS.find((c) => c.name === command);
    if (own) return own.parse(values, positionals);
    const str = (f: Flag) => values[f] as string | undefined;
    const shared = command as SharedCommand;
    switch (shared) {
      case 'status': {
        const allNamespaces = values['all-namespaces'] === true;
        // As kubectl: -A wins over -n (`kubectl get pods -n x -A` lists every namespace).
        const namespace = allNamespaces ? undefined : namespaceFlag(values);
        const kind = kindFlag(values);
        if (allNamespaces && positionals[0] !== undefined)
          throw new UsageError('NAME needs one namespace: give -n NS instead of -A');
        return {
          command: shared,
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
          command: shared,
          ...(operatorNamespace ? { operatorNamespace } : {}),
          ...(namespace ? { namespace } : {}),
          ...clusterFlags(values),
        };
      }
      case 'helm-values': {
        const namespace = namespaceFlag(values);
        const kind = kindFlag(values);
        return {
          command: shared,
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
          command: shared,
          name: objectName(positionals[0] as string),
          ...(namespace === undefined ? {} : { namespace }),
          ...(kind === undefined ? {} : { kind }),
          wait: shared !== 'suspend' && values.wait !== false,
          timeoutMs: timeoutFlag(values),
          ...clusterFlags(values),
        };
      }
      case 'completion':
        return { command: shared, shell: oneOf(positionals[0], 'SHELL', SHELLS, 'bash') };
    }
  } catch (err) {
    if (err instanceof UsageError && err.topic === undefined) throw new UsageError(err.message, command);
    throw err;
  }
}
