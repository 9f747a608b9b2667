// `glooha render`: reads GlooHA YAML, validates it like the API server would, runs the core against an
// observed install (from --install, or Gloo's chart layout) and prints YAML. Everything it needs from
// the outside world comes through `CliIO`, so tests run it in-process.

import { KubeYamlError, parseAllKubeYaml, stringifyKubeYaml, toKubeJS } from '../api/kube-yaml.js';
import { validateGlooHA } from '../products/gloo/validate.js';
import { type FieldError } from '../api/validate.js';
import type { GlooHA } from '../products/gloo/types.js';
import { installNamespaceOf } from '../controller/product.js';
import { desired } from '../products/gloo/desired.js';
import { formatFinding } from '../core/findings.js';
import { helmValuesNotes } from '../products/gloo/helm-values.js';
import { helmValuesYaml } from '../core/helm-values-yaml.js';
import { chartInstall, type ObservedInstall } from '../products/gloo/install.js';
import type { KubeObject } from '../core/templates.js';
import { EXIT, type RenderArgs } from './args.js';
import { escapeControl } from './escape.js';
import { MAX_INPUT_BYTES, UnreadableInput, tooLarge } from './input.js';
import { parseObservedInstall } from './install-file.js';
import { mergePatches } from './merge.js';
import { observeInstall } from '../products/gloo/observe.js';

export interface CliIO {
  /** The file's text; may stop reading (and throw UnreadableInput) beyond maxBytes. */
  readFile(path: string, maxBytes: number): string | Promise<string>;
  readStdin(maxBytes: number): Promise<string>;
  /** Resolves when the text may be followed by more (stdout's backpressure). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
}

/** Input the user must fix: printed as a list, exit status 2, no stack trace. */
export class InvalidInput extends Error {
  override name = 'InvalidInput';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is invalid`);
  }
}

/**
 * Validates every document first (invalid input prints nothing on stdout), then renders each GlooHA
 * and writes its documents as they are made, waiting for stdout to drain, so that memory does not
 * grow with the output.
 */
export async function render(args: RenderArgs, io: CliIO): Promise<number> {
  const source = args.filename === '-' ? 'stdin' : args.filename;
  const text = await readOrFail(io, args.filename);
  const glooHAs = parseGlooHAs(text, source, args.namespace ?? 'default');
  const install = args.install ? await readInstall(io, args.install) : undefined;
  const manifests = args.mergeInto ? await readManifests(io, args.mergeInto) : undefined;
  const owned: KubeObject[] = [];
  const patches: KubeObject[] = [];

  const stderr = (line: string) => io.stderr(`${escapeControl(line)}\n`);
  let first = true;
  const emit = async (doc: string) => {
    await io.stdout(first ? doc : `---\n${doc}`);
    first = false;
  };
  for (const g of glooHAs) {
    const observed =
      install ??
      (manifests && observeManifests(manifests, g)) ??
      chartInstall(installNamespaceOf(g), g.spec?.gatewayProxies ?? {});
    const result = desired(g, observed);
    if (!result.ok) throw new InvalidInput(source, result.errors.map(formatError)); // unreachable: validated above
    const d = result.desired;
    const who = `${d.owner.namespace}/${d.owner.name}`;
    if (!d.owner.uid && args.output !== 'helm-values') {
      stderr(
        `note: ${who}: no metadata.uid (offline render), so owned objects carry no ownerReferences; the operator adds them`,
      );
    }
    for (const w of d.warnings) stderr(`warning: ${who}: ${formatFinding(w)}`);
    for (const p of d.problems) stderr(`problem: ${who}: ${formatFinding(p)}`);
    if (args.output !== 'manifests') {
      for (const n of helmValuesNotes(g)) stderr(`note: ${who}: ${formatFinding(n)}`);
    }
    if (args.output !== 'helm-values' && manifests) {
      owned.push(...d.owned);
      patches.push(...d.patches);
    } else if (args.output !== 'helm-values') {
      for (const o of d.owned) await emit(yamlDoc(o));
      for (const o of d.patches) await emit(yamlDoc(o, patchComment(o)));
    }
    if (args.output !== 'manifests') await emit(helmValuesYaml(d.helmValues, who));
  }
  if (manifests && args.output !== 'helm-values') {
    const { merged, unmatched } = mergePatches(manifests, patches);
    for (const p of unmatched)
      stderr(
        `warning: ${p.kind} ${p.metadata.namespace}/${p.metadata.name} is not in ${args.mergeInto}: its patch is left out`,
      );
    for (const o of [...merged, ...owned]) await emit(yamlDoc(o));
  }
  return EXIT.OK;
}

/** The objects of a manifest stream (--merge-into); a document without a namespace is left as it is. */
async function readManifests(io: CliIO, path: string): Promise<KubeObject[]> {
  const { values, problems } = parseDocuments(await readOrFail(io, path));
  const objects = values.filter((v): v is KubeObject => typeof v === 'object' && v !== null);
  objects.forEach((o, i) => {
    if (typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
      problems.push(`document ${i + 1}: not a Kubernetes object (kind and metadata.name are needed)`);
  });
  if (problems.length > 0) throw new InvalidInput(path, problems);
  return objects;
}

/** The install the GlooHA targets, read from manifests the way the operator reads it from the cluster. */
function observeManifests(objects: KubeObject[], g: GlooHA): ObservedInstall {
  const namespace = installNamespaceOf(g);
  // `helm template` without -n leaves some objects without a namespace: they would land in the one
  // given to `kubectl apply -n`, so they count as the install's.
  const inNs = objects.filter((o) => (o.metadata.namespace ?? namespace) === namespace);
  const ofKind = <T>(kind: string) =>
    inNs.filter((o) => o.kind === kind).map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }) as T);
  return observeInstall(
    {
      namespace,
      deployments: ofKind('Deployment'),
      hpas: ofKind('HorizontalPodAutoscaler'),
      pdbs: ofKind('PodDisruptionBudget'),
    },
    { name: g.metadata.name, namespace: g.metadata.namespace ?? namespace, kind: g.kind },
    g.spec?.target,
  );
}

/** The input's text ("-" is stdin), at most MAX_INPUT_BYTES of it. */
export async function readOrFail(io: CliIO, path: string): Promise<string> {
  const what = path === '-' ? 'stdin' : path;
  let text: string;
  try {
    text = path === '-' ? await io.readStdin(MAX_INPUT_BYTES) : await io.readFile(path, MAX_INPUT_BYTES);
  } catch (err) {
    if (err instanceof UnreadableInput) throw new InvalidInput(what, [err.message]);
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? ': no such file'
        : code === 'EISDIR'
          ? ': it is a directory'
          : code === 'EBADF' || code === 'EINVAL'
            ? ': it is closed'
            : code
              ? `: ${code}`
              : '';
    throw new InvalidInput(what, [`cannot read ${what}${why}`]);
  }
  if (Buffer.byteLength(text) > MAX_INPUT_BYTES)
    throw new InvalidInput(what, [tooLarge(what, MAX_INPUT_BYTES).message]);
  return text;
}

/** The documents of a YAML stream as kubectl reads them, or the problems that stop that. */
function parseDocuments(text: string): { values: unknown[]; problems: string[] } {
  let docs;
  try {
    docs = parseAllKubeYaml(text);
  } catch (err) {
    // Beyond the parse limits (YAML_LIMITS), or a directive kubectl refuses.
    if (err instanceof KubeYamlError) return { values: [], problems: [`YAML: ${err.message}`] };
    throw err;
  }
  const list = Array.isArray(docs) ? docs : [];
  const problems: string[] = [];
  if (!Array.isArray(docs)) problems.push('not a YAML stream');
  const values: unknown[] = [];
  list.forEach((doc, i) => {
    const where = list.length > 1 ? `document ${i + 1}: ` : '';
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push(`${where}YAML: ${e.message.split('\n')[0]}`);
      return;
    }
    try {
      values.push(toKubeJS(doc));
    } catch (err) {
      // Too many alias expansions (a "billion laughs"), a null key, a merge of a non-mapping.
      problems.push(`${where}YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  });
  return { values, problems };
}

function formatError(e: FieldError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

export function parseGlooHAs(text: string, source: string, namespace: string): GlooHA[] {
  const { values, problems } = parseDocuments(text);
  const glooHAs: GlooHA[] = [];
  values.forEach((value, i) => {
    if (value === null || value === undefined) return;
    const where = values.length > 1 ? `document ${i + 1}: ` : '';
    const result = validateGlooHA(value);
    if (!result.ok) {
      const name = (value as { metadata?: { name?: unknown } }).metadata?.name;
      const prefix = values.length > 1 ? `${where}${typeof name === 'string' ? `${name}: ` : ''}` : '';
      for (const e of result.errors) problems.push(prefix + formatError(e));
      return;
    }
    // The validated, defaulted copy: the raw value may hold nulls the validator dropped.
    const g = result.value;
    glooHAs.push({ ...g, metadata: { ...g.metadata, namespace: g.metadata.namespace ?? namespace } });
  });
  if (problems.length === 0 && glooHAs.length === 0) problems.push('no GlooHA found (the input is empty)');
  if (problems.length > 0) throw new InvalidInput(source, problems);
  return glooHAs;
}

async function readInstall(io: CliIO, path: string): Promise<ObservedInstall> {
  const { values, problems } = parseDocuments(await readOrFail(io, path));
  if (problems.length > 0) throw new InvalidInput(path, problems);
  if (values[0] === undefined) throw new InvalidInput(path, ['no YAML document']);
  const parsed = parseObservedInstall(values[0]);
  if (!parsed.ok) throw new InvalidInput(path, parsed.errors.map(formatError));
  return parsed.value;
}

function patchComment(o: KubeObject): string {
  return ` Partial ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: server-side apply only (kubectl apply --server-side --field-manager=glooha-operator); the rest of the object stays Helm's.`;
}

function yamlDoc(obj: KubeObject, comment?: string): string {
  return stringifyKubeYaml(obj, { comment, blockQuote: 'literal' });
}
