// `glooha render`: prints what the operator would apply for each object of a YAML stream, without a
// cluster. Each document is judged by its kind, by the product that registered it (CliProduct.render):
// a GlooHA as a GlooHA, a KgatewayHA as a KgatewayHA. Every document is validated before anything is
// printed (invalid input prints nothing on stdout); then each product prints its objects, in the
// order of the stream's kinds.
import { escapeControl } from './escape.js';
import {
  EXIT,
  OUTPUTS,
  UsageError,
  namespaceFlag,
  oneOf,
  type FlagSpec,
  type FlagValues,
  type Output,
} from './flags.js';
import { parseDocuments, readOrFail } from './input.js';
import { InvalidInput, type CliIO } from './io.js';
import type { CliProduct, ProductArgs, ProductCommand } from './product.js';

export interface RenderArgs extends ProductArgs {
  command: 'render';
  filename: string;
  output: Output;
  namespace?: string;
  /** The products' own flags (--install, --merge-into), as given. */
  flags: FlagValues;
}

/** What a product's render is handed: where the input came from, what was asked, and where to print. */
export interface RenderContext {
  /** The input as problems name it: the file, or stdin. */
  source: string;
  args: RenderArgs;
  io: CliIO;
  /** Prints one YAML document (separated from the previous one), waiting for stdout to drain. */
  emit: (doc: string) => Promise<void>;
  /** One line on stderr (a note, a warning), control characters escaped. */
  stderr: (line: string) => void;
}

/** `glooha render` for one product's kind. */
export interface ProductRender {
  /** Flags of its own (they apply to its kind only), and their lines in `glooha render --help`. */
  flags?: Readonly<Record<string, FlagSpec>>;
  /** Those flags in the synopsis: "[--install FILE | --merge-into FILE]". */
  synopsisFlags?: string;
  flagsUsage?: string;
  /** Checks its flags together (a UsageError for a bad combination). */
  checkFlags?(flags: FlagValues): void;
  /** What render prints for an object of the kind, for the help: "the GatewayParameters ...". */
  inProse: string;
  /** Its lines in the help's examples. */
  examples: string;
  /**
   * Validates its objects of the stream (`values`, in order; each as the API server judges it on
   * create), throwing InvalidInput with every problem, and returns what prints them.
   */
  prepare(
    values: readonly { value: unknown; index: number }[],
    ctx: RenderContext,
  ): Promise<() => Promise<void>>;
}

const kindOf = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;

/** The `glooha render` command over the products that render. */
export function renderCommand(products: readonly CliProduct[]): ProductCommand {
  const renderers = products.flatMap((p) => (p.render ? [{ kind: p.api.kind, render: p.render }] : []));
  const kinds = renderers.map((r) => r.kind);
  const ownFlags = renderers.flatMap((r) => Object.keys(r.render.flags ?? {}));
  return {
    name: 'render',
    flags: Object.assign({}, ...renderers.map((r) => r.render.flags ?? {})) as Record<string, FlagSpec>,
    commandFlags: ['filename', 'output', ...ownFlags, 'namespace'],
    outputs: OUTPUTS,
    positionals: { min: 0, max: 0 },
    synopsis: `  glooha render -f FILE|- [-o manifests|helm-values|all] ${renderers.flatMap((r) => (r.render.synopsisFlags ? [`${r.render.synopsisFlags} `] : [])).join('')}[-n NS]
                                                                                    offline
`,
    usage: renderUsage(renderers),
    parse(values): RenderArgs {
      const filename = values.filename as string | undefined;
      if (!filename) throw new UsageError('missing -f FILE (use -f - to read stdin)');
      for (const r of renderers) r.render.checkFlags?.(values);
      return {
        command: 'render',
        filename,
        output: oneOf(values.output as string | undefined, '--output', OUTPUTS, 'manifests'),
        namespace: namespaceFlag(values),
        flags: Object.fromEntries(ownFlags.filter((f) => values[f] !== undefined).map((f) => [f, values[f]])),
      };
    },
    run: (args, io) => render(args as RenderArgs, io, renderers, kinds),
  };
}

async function render(
  args: RenderArgs,
  io: CliIO,
  renderers: readonly { kind: string; render: ProductRender }[],
  kinds: readonly string[],
): Promise<number> {
  const source = args.filename === '-' ? 'stdin' : args.filename;
  const text = await readOrFail(io, args.filename, kinds.join(' or '));
  const { values, problems } = parseDocuments(text);
  if (problems.length > 0) throw new InvalidInput(source, problems);
  const byKind = new Map<string, { value: unknown; index: number }[]>();
  values.forEach((value, index) => {
    if (value === null || value === undefined) return;
    const kind = kindOf(value);
    const where = values.length > 1 ? `document ${index + 1}: ` : '';
    if (typeof kind !== 'string' || !kinds.includes(kind)) {
      problems.push(
        `${where}kind: ${typeof kind === 'string' ? `${JSON.stringify(kind)} is not a kind glooha renders` : 'missing'} (known kinds: ${kinds.join(', ')})`,
      );
      return;
    }
    byKind.set(kind, [...(byKind.get(kind) ?? []), { value, index }]);
  });
  if (problems.length === 0 && byKind.size === 0)
    problems.push(`no ${kinds.join(' or ')} found (the input is empty)`);
  for (const r of renderers) {
    for (const flag of Object.keys(r.render.flags ?? {})) {
      if (args.flags[flag] === undefined) continue;
      const others = [...byKind.keys()].filter((k) => k !== r.kind);
      if (others.length > 0)
        problems.push(`--${flag} is for a ${r.kind} only; the input holds ${others.join(', ')} too`);
    }
  }
  if (problems.length > 0) throw new InvalidInput(source, problems);

  let first = true;
  const ctx: RenderContext = {
    source,
    args,
    io,
    emit: async (doc) => {
      await io.stdout(first ? doc : `---\n${doc}`);
      first = false;
    },
    stderr: (line) => io.stderr(`${escapeControl(line)}\n`),
  };
  // Every product validates first: nothing is printed unless all of the input is valid.
  const invalid: string[] = [];
  const runs: (() => Promise<void>)[] = [];
  for (const r of renderers) {
    const own = byKind.get(r.kind);
    if (!own) continue;
    try {
      runs.push(await r.render.prepare(own, ctx));
    } catch (err) {
      if (!(err instanceof InvalidInput)) throw err;
      // Another file a product reads (--install, --merge-into) is reported under its own name.
      if (err.source !== source) throw err;
      invalid.push(...err.problems);
    }
  }
  if (invalid.length > 0) throw new InvalidInput(source, invalid);
  for (const run of runs) await run();
  return EXIT.OK;
}

function renderUsage(renderers: readonly { kind: string; render: ProductRender }[]): string {
  const kinds = renderers.map((r) => r.kind);
  return `glooha render - print what glooha-operator would apply for a ${kinds.join(' or ')}, without a cluster

Usage:
  glooha render -f FILE|- [flags]

Each document is judged by its kind:
${renderers.map((r) => `  ${r.kind}: ${r.render.inProse}`).join('\n')}

Flags:
  -f, --filename FILE   YAML to render ("-" reads stdin); several documents are rendered in turn
  -o, --output WHAT     manifests (default): objects glooha owns and the partial server-side-apply
                        bodies for the objects Helm (or the product) owns
                        helm-values: the equivalent values overlay for the product's Helm chart
                        all: both
${renderers.map((r) => r.render.flagsUsage ?? '').join('')}  -n, --namespace NS    namespace for an object without metadata.namespace (default "default")
  -h, --help            this help

Invalid input exits with status 2 and lists every problem as "path: message". Warnings (single
replica, no PodDisruptionBudget, ...) and problems the install shows go to stderr; the exit status
stays 0.

Input is bounded, so any input costs little: at most 4 MiB; per document 32,000 YAML nodes and
32,000 lines, 100 alias expansions (merge keys included) and 3 MiB as the JSON kubectl sends (the
API server's request limit); 160,000 nodes, 160,000 lines and 16 MiB of JSON in all, 1,000 documents,
nesting 100 deep. Nodes and bytes are counted after alias expansion, and reading stops at the first
excess (naming the document and the limit); a helm template of each product's chart with its CRDs
is within them. Any input peaks below 64 MiB of memory above the process's own and a few
seconds of CPU, and an error quotes at most the start of a value and a few problems of one kind.
YAML is read as kubectl reads it, so a %YAML or %TAG directive is refused, as kubectl refuses it.

Each object is judged as the API server judges it on create (strict field validation, kubectl's
default): metadata as ObjectMeta (field types, labels, annotations), an unknown field anywhere,
status included, refused; status otherwise ignored (the API server drops it); then the schema and the
CRD's own CEL rules. Integers are read exactly, never rounded: beyond 2^53 render keeps the exact value
(and prints it so with --merge-into); an integer beyond int64 is a float to Kubernetes, refused where
an integer belongs.

Examples:
${renderers.map((r) => r.render.examples).join('')}`;
}
