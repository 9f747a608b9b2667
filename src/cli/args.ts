// Command-line parsing for `glooha`: kubectl-style flags (-f, -o, -n, -A, --flag=value), no dependencies.

export const OUTPUTS = ['manifests', 'helm-values', 'all'] as const;
export type Output = (typeof OUTPUTS)[number];
export const STATUS_OUTPUTS = ['table', 'json', 'yaml'] as const;
export type StatusOutput = (typeof STATUS_OUTPUTS)[number];
export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

export const COMMANDS = ['render', 'migrate', 'status', 'check', 'helm-values', 'completion'] as const;
/** Products `glooha migrate` carries a GlooHA's settings to. */
export const MIGRATE_TARGETS = ['kgateway'] as const;
export type MigrateTarget = (typeof MIGRATE_TARGETS)[number];
export type Command = (typeof COMMANDS)[number];

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
  /** One GlooHA; all in the namespace when absent. */
  name?: string;
  namespace?: string;
  allNamespaces: boolean;
  output: StatusOutput;
}

export interface CheckArgs extends ClusterFlags {
  command: 'check';
  /** Where the operator runs; searched in every namespace when absent. */
  operatorNamespace?: string;
}

export interface HelmValuesArgs extends ClusterFlags {
  command: 'helm-values';
  name: string;
  namespace?: string;
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

/** Exit statuses, for scripts (README "glooha exit codes"). */
export const EXIT = {
  /** Done; for status and check: everything is healthy. */
  OK: 0,
  /** A bug in glooha (one line; GLOOHA_DEBUG=1 adds the stack). */
  INTERNAL: 1,
  /** Bad flags or invalid input: the problems are listed. */
  INVALID: 2,
  /** The cluster cannot be used: no kubeconfig, API server unreachable, not authenticated or authorized, CRD not installed. */
  CLUSTER: 3,
  /** The GlooHA (or its values ConfigMap) named on the command line does not exist. */
  NOT_FOUND: 4,
  /** status: a GlooHA is not Ready; check: a check failed. */
  UNHEALTHY: 5,
} as const;

const CLUSTER_FLAGS = `      --kubeconfig FILE  kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)
      --context NAME    kubeconfig context (default: its current-context)
  -h, --help            this help`;

export const USAGE = `glooha - tools for the glooha-operator (Gloo high availability)

Usage:
  glooha render -f FILE|- [-o manifests|helm-values|all] [--install FILE | --merge-into FILE] [-n NS]
                                                                                    offline
  glooha migrate kgateway -f FILE|- [-o manifests|helm-values|all] [--release NAME] [-n NS]
                                                                                    offline
  glooha status [NAME] [-n NS | -A] [-o table|json|yaml]                           cluster
  glooha check [--operator-namespace NS]                                            cluster
  glooha helm-values NAME [-n NS]                                                   cluster
  glooha completion bash|zsh
  glooha --help | glooha COMMAND --help
  glooha --version

Exit status: 0 done (status/check: healthy), 1 internal error, 2 bad flags or input,
3 cluster unusable (kubeconfig, connection, authentication, permission, CRD missing),
4 named GlooHA or its values not found, 5 status: not every GlooHA Ready / check: a check failed.
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
prints what makes the kgateway install that replaces it just as available (kgateway v2.2.0):
  - the values overlay for kgateway's chart: the controller's replicas, leader election, PDB,
    anti-affinity and rollout strategy;
  - per gateway proxy, the GatewayParameters kgateway's deployer builds the Gateway's proxy from
    (replicas, anti-affinity, topology spread, rollout strategy), and the PodDisruptionBudget and
    HPA that GatewayParameters cannot express.
What kgateway cannot take (leader-election timings, discovery, ...) and the steps left to you are
printed on stderr as notes, and listed in the values' header. docs/migrate-to-kgateway.md walks
through a migration.

Flags:
  -f, --filename FILE   GlooHA YAML ("-" reads stdin); several documents are carried over in turn
  -o, --output WHAT     manifests (default): GatewayParameters, PodDisruptionBudgets and HPAs, for
                        kubectl apply --server-side
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

export const STATUS_USAGE = `glooha status - the health of GlooHA resources, as the operator reports it

Usage:
  glooha status [NAME] [flags]

For each GlooHA: Ready and Stalled with their reason, each component's ready/desired replicas, who
leads gloo and whether its Lease is fresh, and drift. A GlooHA the operator has not reported on yet
(operator down, namespace not watched) shows Ready Unknown, reason NoStatus.

Flags:
  -n, --namespace NS    namespace (default: the context's, else "default")
  -A, --all-namespaces  every namespace
  -o, --output FORMAT   table (default), json or yaml
${CLUSTER_FLAGS}

Exit status: 0 every GlooHA shown is Ready (or there is none), 5 one is not, 4 NAME not found,
3 the cluster cannot be used.
`;

export const CHECK_USAGE = `glooha check - pre-flight checks of a cluster for glooha-operator

Usage:
  glooha check [flags]

Checks: the GlooHA CRD is installed and serves v1alpha1; the operator's Deployment has ready
replicas; its leader Lease has a holder that renews it; you may read GlooHAs and their values
ConfigMaps (SelfSubjectAccessReview); the operator's ServiceAccount holds every permission it needs
(SubjectAccessReview; skipped with a warning if you may not create those); Gloo installs found and
whether a GlooHA targets each.

Flags:
      --operator-namespace NS  where the operator runs (default: found by its labels in any namespace)
${CLUSTER_FLAGS}

Exit status: 0 every check passed (warnings allowed), 5 a check failed, 3 the cluster cannot be used.
`;

export const HELM_VALUES_USAGE = `glooha helm-values - print a GlooHA's settings as values for Gloo's Helm chart

Usage:
  glooha helm-values NAME [flags]

Prints the values overlay the operator keeps in the GlooHA's <NAME>-helm-values ConfigMap, so that a
Helm upgrade of Gloo keeps what the operator applies:
  glooha helm-values gloo -n gloo-system | helm upgrade gloo gloo/gloo -n gloo-system --reset-then-reuse-values -f my-values.yaml -f -

Flags:
  -n, --namespace NS    the GlooHA's namespace (default: the context's, else "default")
${CLUSTER_FLAGS}

Exit status: 0 printed, 4 no such GlooHA or its ConfigMap is not written yet, 3 the cluster cannot
be used.
`;

export const COMPLETION_USAGE = `glooha completion - shell completion script

Usage:
  glooha completion bash|zsh

  bash:  source <(glooha completion bash)        (or write it to /etc/bash_completion.d/glooha)
  zsh:   source <(glooha completion zsh)          (or write it as _glooha into a directory of $fpath)

Completes commands, flags, flag values and, through kubectl when it is installed, GlooHA names.
`;

export const TOPIC_USAGE: Record<Command, string> = {
  render: RENDER_USAGE,
  migrate: MIGRATE_USAGE,
  status: STATUS_USAGE,
  check: CHECK_USAGE,
  'helm-values': HELM_VALUES_USAGE,
  completion: COMPLETION_USAGE,
};

interface FlagSpec {
  /** Canonical long name → short alias. */
  values: Record<string, string | undefined>;
  /** Boolean flags: canonical long name → short alias. */
  booleans?: Record<string, string | undefined>;
  /** How many positional arguments: [min, max]. */
  positionals: [number, number];
  positionalName?: string;
}

const CLUSTER_VALUES = { '--kubeconfig': undefined, '--context': undefined };

export const FLAGS: Record<Command, FlagSpec> = {
  render: {
    values: {
      '--filename': '-f',
      '--output': '-o',
      '--install': undefined,
      '--merge-into': undefined,
      '--namespace': '-n',
    },
    positionals: [0, 0],
  },
  migrate: {
    values: { '--filename': '-f', '--output': '-o', '--release': undefined, '--namespace': '-n' },
    positionals: [1, 1],
    positionalName: 'TARGET',
  },
  status: {
    values: { '--namespace': '-n', '--output': '-o', ...CLUSTER_VALUES },
    booleans: { '--all-namespaces': '-A' },
    positionals: [0, 1],
    positionalName: 'NAME',
  },
  check: { values: { '--operator-namespace': undefined, ...CLUSTER_VALUES }, positionals: [0, 0] },
  'helm-values': {
    values: { '--namespace': '-n', ...CLUSTER_VALUES },
    positionals: [1, 1],
    positionalName: 'NAME',
  },
  completion: { values: {}, positionals: [1, 1], positionalName: 'SHELL' },
};

interface Parsed {
  flags: Map<string, string>;
  booleans: Set<string>;
  positionals: string[];
}

function parseFlags(command: Command, rest: readonly string[]): Parsed | 'help' {
  const spec = FLAGS[command];
  const byAlias = new Map<string, { name: string; boolean: boolean }>();
  for (const [name, short] of Object.entries(spec.values)) {
    byAlias.set(name, { name, boolean: false });
    if (short) byAlias.set(short, { name, boolean: false });
  }
  for (const [name, short] of Object.entries(spec.booleans ?? {})) {
    byAlias.set(name, { name, boolean: true });
    if (short) byAlias.set(short, { name, boolean: true });
  }
  const out: Parsed = { flags: new Map(), booleans: new Set(), positionals: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    if (!arg.startsWith('-') || arg === '-') {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const given = eq > 0 ? arg.slice(0, eq) : arg;
    const flag = byAlias.get(given);
    if (!flag) throw new UsageError(`unknown flag ${arg}`, command);
    if (flag.boolean) {
      if (eq > 0) throw new UsageError(`flag ${flag.name} takes no value`, command);
      out.booleans.add(flag.name);
      continue;
    }
    let value: string | undefined;
    if (eq > 0) {
      value = arg.slice(eq + 1);
    } else {
      value = rest[i + 1];
      i++;
    }
    if (value === undefined || value === '') throw new UsageError(`flag ${given} needs a value`, command);
    if (out.flags.has(flag.name)) throw new UsageError(`flag ${flag.name} given twice`, command);
    out.flags.set(flag.name, value);
  }
  const [min, max] = spec.positionals;
  if (out.positionals.length > max) {
    const extra = out.positionals[max] as string;
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`, command);
  }
  if (out.positionals.length < min) throw new UsageError(`missing ${spec.positionalName}`, command);
  return out;
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function namespaceFlag(flags: Map<string, string>, name = '--namespace'): string | undefined {
  const ns = flags.get(name);
  if (ns !== undefined && (ns.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns))) {
    throw new UsageError(
      `${name} must be a namespace name (at most 63 lowercase letters, digits and dashes), not ${JSON.stringify(ns)}`,
    );
  }
  return ns;
}

function objectName(value: string, command: Command): string {
  if (value.length > 253 || !NAME.test(value)) {
    throw new UsageError(
      `NAME must be a GlooHA name (lowercase letters, digits, '-' and '.'), not ${JSON.stringify(value)}`,
      command,
    );
  }
  return value;
}

function oneOf<T extends string>(
  flags: Map<string, string>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = flags.get(name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new UsageError(`${name} must be one of ${allowed.join(', ')}, not ${JSON.stringify(v)}`);
  }
  return v as T;
}

const cluster = (flags: Map<string, string>): ClusterFlags => ({
  ...(flags.has('--kubeconfig') ? { kubeconfig: flags.get('--kubeconfig') } : {}),
  ...(flags.has('--context') ? { context: flags.get('--context') } : {}),
});

export function parseArgs(argv: readonly string[]): Args {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help') return { command: 'help' };
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { command: 'help' };
    if (!(COMMANDS as readonly string[]).includes(topic))
      throw new UsageError(`no help for ${JSON.stringify(topic)}: commands are ${COMMANDS.join(', ')}`);
    return { command: 'help', topic: topic as Command };
  }
  if (first === '--version' || first === 'version') return { command: 'version' };
  if (!(COMMANDS as readonly string[]).includes(first))
    throw new UsageError(`unknown command ${JSON.stringify(first)}: commands are ${COMMANDS.join(', ')}`);
  const command = first as Command;
  const parsed = parseFlags(command, rest);
  if (parsed === 'help') return { command: 'help', topic: command };
  const { flags, booleans, positionals } = parsed;
  try {
    switch (command) {
      case 'render': {
        const filename = flags.get('--filename');
        if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
        if (flags.has('--install') && flags.has('--merge-into'))
          throw new UsageError(
            'give --install or --merge-into, not both (--merge-into reads the install from its manifests)',
          );
        return {
          command,
          filename,
          output: oneOf(flags, '--output', OUTPUTS, 'manifests'),
          install: flags.get('--install'),
          mergeInto: flags.get('--merge-into'),
          namespace: namespaceFlag(flags),
        };
      }
      case 'migrate': {
        const target = positionals[0] as string;
        if (!(MIGRATE_TARGETS as readonly string[]).includes(target))
          throw new UsageError(
            `TARGET must be one of ${MIGRATE_TARGETS.join(', ')}, not ${JSON.stringify(target)}`,
          );
        const filename = flags.get('--filename');
        if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
        const release = flags.get('--release') ?? 'kgateway';
        // A Helm release name: lowercase letters, digits and dashes, at most 53 characters.
        if (release.length > 53 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(release))
          throw new UsageError(
            `--release must be a Helm release name (at most 53 lowercase letters, digits and dashes), not ${JSON.stringify(release)}`,
          );
        return {
          command,
          target: target as MigrateTarget,
          filename,
          output: oneOf(flags, '--output', OUTPUTS, 'manifests'),
          release,
          namespace: namespaceFlag(flags),
        };
      }
      case 'status': {
        const allNamespaces = booleans.has('--all-namespaces');
        const namespace = namespaceFlag(flags);
        if (allNamespaces && namespace !== undefined) throw new UsageError('give -n NS or -A, not both');
        if (allNamespaces && positionals[0] !== undefined)
          throw new UsageError('NAME needs one namespace: give -n NS instead of -A');
        return {
          command,
          ...(positionals[0] === undefined ? {} : { name: objectName(positionals[0], command) }),
          ...(namespace === undefined ? {} : { namespace }),
          allNamespaces,
          output: oneOf(flags, '--output', STATUS_OUTPUTS, 'table'),
          ...cluster(flags),
        };
      }
      case 'check': {
        const operatorNamespace = namespaceFlag(flags, '--operator-namespace');
        return { command, ...(operatorNamespace ? { operatorNamespace } : {}), ...cluster(flags) };
      }
      case 'helm-values': {
        const namespace = namespaceFlag(flags);
        return {
          command,
          name: objectName(positionals[0] as string, command),
          ...(namespace === undefined ? {} : { namespace }),
          ...cluster(flags),
        };
      }
      case 'completion': {
        const shell = positionals[0] as string;
        if (!(SHELLS as readonly string[]).includes(shell))
          throw new UsageError(`SHELL must be one of ${SHELLS.join(', ')}, not ${JSON.stringify(shell)}`);
        return { command, shell: shell as Shell };
      }
    }
  } catch (err) {
    if (err instanceof UsageError && err.topic === undefined) throw new UsageError(err.message, command);
    throw err;
  }
}
