// Command-line parsing for `glooha`: kubectl-style flags (-f, -o, -n, --flag=value), no dependencies.

export const OUTPUTS = ['manifests', 'helm-values', 'all'] as const;
export type Output = (typeof OUTPUTS)[number];

export interface RenderArgs {
  command: 'render';
  filename: string;
  output: Output;
  install?: string;
  namespace?: string;
}

export type Args = RenderArgs | { command: 'help'; topic?: 'render' } | { command: 'version' };

export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `glooha - offline tools for the glooha-operator (Gloo high availability)

Usage:
  glooha render -f FILE|- [--output manifests|helm-values|all] [--install FILE] [--namespace NS]
  glooha --help | glooha render --help
  glooha --version

Run 'glooha render --help' for details.
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
  -n, --namespace NS    namespace for a GlooHA without metadata.namespace (default "default")
  -h, --help            this help

Invalid input exits with status 2 and lists every problem as "path: message". Warnings (single
replica, no PodDisruptionBudget, ...) and problems the install shows go to stderr; the exit status
stays 0.

Examples:
  glooha render -f examples/glooha.yaml
  glooha render -f examples/glooha.yaml -o helm-values > gloo-ha-values.yaml
  kubectl get gha prod -o yaml | glooha render -f - -o all
`;

const takesValue = new Set(['-f', '--filename', '-o', '--output', '--install', '-n', '--namespace']);

export function parseArgs(argv: readonly string[]): Args {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help')
    return { command: 'help' };
  if (command === '--version' || command === 'version') return { command: 'version' };
  if (command !== 'render')
    throw new UsageError(`unknown command ${JSON.stringify(command)}: the only command is render`);

  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '-h' || arg === '--help') return { command: 'help', topic: 'render' };
    const eq = arg.startsWith('-') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!takesValue.has(name)) {
      throw new UsageError(
        arg.startsWith('-') ? `unknown flag ${arg}` : `unexpected argument ${JSON.stringify(arg)}`,
      );
    }
    let value: string | undefined;
    if (eq > 0) {
      value = arg.slice(eq + 1);
    } else {
      value = rest[i + 1];
      i++;
    }
    if (value === undefined || value === '') throw new UsageError(`flag ${name} needs a value`);
    const canonical = { '-f': '--filename', '-o': '--output', '-n': '--namespace' }[name] ?? name;
    if (flags.has(canonical)) throw new UsageError(`flag ${canonical} given twice`);
    flags.set(canonical, value);
  }

  const filename = flags.get('--filename');
  if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
  const output = flags.get('--output') ?? 'manifests';
  if (!(OUTPUTS as readonly string[]).includes(output)) {
    throw new UsageError(`--output must be one of ${OUTPUTS.join(', ')}, not ${JSON.stringify(output)}`);
  }
  const namespace = flags.get('--namespace');
  if (
    namespace !== undefined &&
    (namespace.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace))
  ) {
    throw new UsageError(
      `--namespace must be a namespace name (at most 63 lowercase letters, digits and dashes), not ${JSON.stringify(namespace)}`,
    );
  }
  return {
    command: 'render',
    filename,
    output: output as Output,
    install: flags.get('--install'),
    namespace,
  };
}
