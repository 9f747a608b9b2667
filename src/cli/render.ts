// `glooha render`: reads GlooHA YAML, validates it like the API server would, runs the core against an
// observed install (from --install, or Gloo's chart layout) and prints YAML. Everything it needs from
// the outside world comes through `CliIO`, so tests run it in-process.

import { Document, parseAllDocuments } from 'yaml';
import { validateGlooHA, type FieldError } from '../api/validate.js';
import type { GlooHA } from '../api/types.js';
import { desired, installNamespaceOf } from '../core/desired.js';
import { formatFinding } from '../core/findings.js';
import { helmValuesNotes } from '../core/helm-values.js';
import { helmValuesYaml } from '../core/helm-values-yaml.js';
import { chartInstall, type ObservedInstall } from '../core/observed.js';
import type { KubeObject } from '../core/templates.js';
import type { RenderArgs } from './args.js';
import { parseObservedInstall } from './install-file.js';

export interface CliIO {
  readFile(path: string): string;
  readStdin(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
}

export const EXIT_OK = 0;
export const EXIT_INVALID = 2;

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

export async function render(args: RenderArgs, io: CliIO): Promise<number> {
  const source = args.filename === '-' ? 'stdin' : args.filename;
  const text = args.filename === '-' ? await io.readStdin() : readOrFail(io, args.filename);
  const glooHAs = parseGlooHAs(text, source, args.namespace ?? 'default');
  const install = args.install ? readInstall(io, args.install) : undefined;

  const docs: string[] = [];
  for (const g of glooHAs) {
    const observed = install ?? chartInstall(installNamespaceOf(g), g.spec?.gatewayProxies ?? {});
    const result = desired(g, observed);
    if (!result.ok) throw new InvalidInput(source, result.errors.map(formatError)); // unreachable: validated above
    const d = result.desired;
    const who = `${d.owner.namespace}/${d.owner.name}`;
    if (!d.owner.uid && args.output !== 'helm-values') {
      io.stderr(
        `note: ${who}: no metadata.uid (offline render), so owned objects carry no ownerReferences; the operator adds them\n`,
      );
    }
    for (const w of d.warnings) io.stderr(`warning: ${who}: ${formatFinding(w)}\n`);
    for (const p of d.problems) io.stderr(`problem: ${who}: ${formatFinding(p)}\n`);
    if (args.output !== 'manifests') {
      for (const n of helmValuesNotes(g)) io.stderr(`note: ${who}: ${formatFinding(n)}\n`);
    }
    if (args.output !== 'helm-values') {
      docs.push(...d.owned.map((o) => yamlDoc(o)));
      docs.push(...d.patches.map((o) => yamlDoc(o, patchComment(o))));
    }
    if (args.output !== 'manifests') docs.push(helmValuesYaml(d.helmValues, who));
  }
  io.stdout(docs.join('---\n'));
  return EXIT_OK;
}

function readOrFail(io: CliIO, path: string): string {
  try {
    return io.readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InvalidInput(path, [
      `cannot read ${path}${code === 'ENOENT' ? ': no such file' : code ? `: ${code}` : ''}`,
    ]);
  }
}

function formatError(e: FieldError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

function parseGlooHAs(text: string, source: string, namespace: string): GlooHA[] {
  const docs = parseAllDocuments(text, { prettyErrors: true });
  const problems: string[] = [];
  const glooHAs: GlooHA[] = [];
  const list = Array.isArray(docs) ? docs : [];
  if (!Array.isArray(docs)) problems.push('not a YAML stream');
  list.forEach((doc, i) => {
    const where = list.length > 1 ? `document ${i + 1}: ` : '';
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push(`${where}YAML: ${e.message.split('\n')[0]}`);
      return;
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) return;
    const result = validateGlooHA(value);
    if (!result.ok) {
      const name = (value as { metadata?: { name?: unknown } }).metadata?.name;
      const prefix = list.length > 1 ? `${where}${typeof name === 'string' ? `${name}: ` : ''}` : '';
      for (const e of result.errors) problems.push(prefix + formatError(e));
      return;
    }
    const g = value as GlooHA;
    glooHAs.push({ ...g, metadata: { ...g.metadata, namespace: g.metadata.namespace ?? namespace } });
  });
  if (problems.length === 0 && glooHAs.length === 0) problems.push('no GlooHA found (the input is empty)');
  if (problems.length > 0) throw new InvalidInput(source, problems);
  return glooHAs;
}

function readInstall(io: CliIO, path: string): ObservedInstall {
  const docs = parseAllDocuments(readOrFail(io, path));
  const first = Array.isArray(docs) ? docs[0] : undefined;
  if (!first || first.errors.length > 0) {
    throw new InvalidInput(
      path,
      first?.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`) ?? ['no YAML document'],
    );
  }
  const parsed = parseObservedInstall(first.toJS());
  if (!parsed.ok) throw new InvalidInput(path, parsed.errors.map(formatError));
  return parsed.value;
}

function patchComment(o: KubeObject): string {
  return ` Partial ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: server-side apply only (kubectl apply --server-side --field-manager=glooha-operator); the rest of the object stays Helm's.`;
}

function yamlDoc(obj: KubeObject, comment?: string): string {
  const doc = new Document(obj, { aliasDuplicateObjects: false });
  if (comment) doc.commentBefore = comment;
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}
