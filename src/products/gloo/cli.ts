// Gloo in the `glooha` CLI (src/cli/product.ts): how status, check and helm-values read a Gloo
// install and its GlooHAs, and `glooha render`, which prints what the operator would apply for a GlooHA.
import { OUTPUTS, UsageError, namespaceFlag, oneOf } from '../../cli/flags.js';
import type { CliProduct, ProductCommand } from '../../cli/product.js';
import { GLOO_API, GLOO_LEASE_NAME } from './api.js';
import { render, type RenderArgs } from './render.js';

const RENDER_USAGE = `glooha render - print what glooha-operator would apply for a GlooHA, without a cluster

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

Input is bounded, so any input costs little: at most 4 MiB; per document 32,000 YAML nodes and
32,000 lines, 100 alias expansions (merge keys included) and 3 MiB as the JSON kubectl sends (the
API server's request limit); 160,000 nodes, 160,000 lines and 16 MiB of JSON in all, 1,000 documents,
nesting 100 deep. Nodes and bytes are counted after alias expansion, and reading stops at the first
excess (naming the document and the limit); a helm template of Gloo's chart with its CRDs (125,000
nodes) is within them. Any input peaks below 64 MiB of memory above the process's own and a few
seconds of CPU, and an error quotes at most the start of a value and a few problems of one kind.
YAML is read as kubectl reads it, so a %YAML or %TAG directive is refused, as kubectl refuses it.

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

const RENDER: ProductCommand = {
  name: 'render',
  flags: {
    install: { type: 'string', arg: 'FILE', file: true },
    'merge-into': { type: 'string', arg: 'FILE', file: true },
  },
  commandFlags: ['filename', 'output', 'install', 'merge-into', 'namespace'],
  outputs: OUTPUTS,
  positionals: { min: 0, max: 0 },
  synopsis: `  glooha render -f FILE|- [-o manifests|helm-values|all] [--install FILE | --merge-into FILE] [-n NS]
                                                                                    offline
`,
  usage: RENDER_USAGE,
  parse(values): RenderArgs {
    const str = (f: string) => values[f] as string | undefined;
    const filename = str('filename');
    if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
    if (values.install !== undefined && values['merge-into'] !== undefined)
      throw new UsageError(
        'give --install or --merge-into, not both (--merge-into reads the install from its manifests)',
      );
    return {
      command: 'render',
      filename,
      output: oneOf(str('output'), '--output', OUTPUTS, 'manifests'),
      install: str('install'),
      mergeInto: str('merge-into'),
      namespace: namespaceFlag(values),
    };
  },
  run: (args, io) => render(args as RenderArgs, io),
};

export const GLOO_CLI: CliProduct = {
  api: GLOO_API,
  name: 'Gloo',
  leaseInProse: `Gloo's Lease ${GLOO_LEASE_NAME}`,
  // Gloo's chart labels its control-plane Deployment so.
  installSelector: 'gloo=gloo',
  statusComponents: [{ key: 'gloo' }, { key: 'discovery' }, { key: 'gatewayProxies', each: true }],
  helmValuesSuffix: '-helm-values',
  helmValuesExample: `  glooha helm-values gloo -n gloo-system > values-glooha.yaml
  helm upgrade gloo gloo/gloo -n gloo-system --reset-then-reuse-values -f values-glooha.yaml
`,
  commands: [RENDER],
};
