// Reading an offline command's input (`glooha render`, `glooha migrate`) with a size cap, and the
// objects in it. Without a cap, `-f /dev/zero` or an endless stdin grows memory until the process
// dies, and a large value costs ~40× its size once parsed. An object cannot be larger than the API
// server accepts in one request (3 MiB, --max-request-bytes), so the cap is set just above it: room for
// a few objects and comments in one stream, nothing like a heap.

import { open } from 'node:fs/promises';
import { KubeYamlError, readKubeYaml, type KubeYamlDocument } from '../api/kube-yaml.js';
import type { FieldError } from '../api/structural.js';
import type { ValidationResult } from '../api/validate.js';
import { InvalidInput, type CliIO } from './io.js';

export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** Input over the cap, or not readable as text. */
export class UnreadableInput extends Error {
  override name = 'UnreadableInput';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text of `bytes`; kubectl refuses invalid UTF-8 too. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UnreadableInput(`${what} is not UTF-8 text`);
  }
}

/** Input beyond the cap: what it was (a path, stdin) and the cap. */
export class InputTooLarge extends UnreadableInput {
  override name = 'InputTooLarge';
  constructor(
    readonly what: string,
    readonly maxBytes: number,
  ) {
    super(`${what} is larger than ${maxBytes / (1024 * 1024)} MiB`);
  }
}

/** Why the cap, for the user: no object of the kind read can be larger than the API server takes. */
const tooLargeMessage = (err: InputTooLarge, kind: string) =>
  `${err.message}, the most glooha render reads (a ${kind} cannot exceed the API server's 3 MiB request limit)`;

/** Reads at most maxBytes of a file (a FIFO or device too), failing beyond that without reading on. */
export async function readFileCapped(path: string, maxBytes: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length <= maxBytes) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new InputTooLarge(path, maxBytes);
    return decodeUtf8(buffer.subarray(0, length), path);
  } finally {
    await file.close();
  }
}

/** Reads a stream to its end, at most maxBytes of it. */
export async function readStreamCapped(
  stream: AsyncIterable<Buffer | string>,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += bytes.length;
    if (length > maxBytes) throw new InputTooLarge(what, maxBytes);
    chunks.push(bytes);
  }
  return decodeUtf8(Buffer.concat(chunks), what);
}

/** The input's text ("-" is stdin), at most MAX_INPUT_BYTES of it; `kind` is what it should hold. */
export async function readOrFail(io: CliIO, path: string, kind: string): Promise<string> {
  const what = path === '-' ? 'stdin' : path;
  let text: string;
  try {
    text = path === '-' ? await io.readStdin(MAX_INPUT_BYTES) : await io.readFile(path, MAX_INPUT_BYTES);
  } catch (err) {
    if (err instanceof InputTooLarge) throw new InvalidInput(what, [tooLargeMessage(err, kind)]);
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
    throw new InvalidInput(what, [tooLargeMessage(new InputTooLarge(what, MAX_INPUT_BYTES), kind)]);
  return text;
}

/** The documents of a YAML stream as kubectl reads them, or the problems that stop that. */
export function parseDocuments(text: string): { values: unknown[]; problems: string[] } {
  let docs: KubeYamlDocument[];
  try {
    docs = readKubeYaml(text);
  } catch (err) {
    // Beyond a limit of the stream (YAML_LIMITS), or a directive kubectl refuses.
    if (err instanceof KubeYamlError) return { values: [], problems: [`YAML: ${err.message}`] };
    throw err;
  }
  const problems: string[] = [];
  const values: unknown[] = [];
  docs.forEach((doc, i) => {
    const where = docs.length > 1 ? `document ${i + 1}: ` : '';
    // Too many alias expansions (a "billion laughs"), a null key, a merge of a non-mapping, a
    // document over the API server's request limit, or what the YAML parser found.
    if (doc.ok) values.push(doc.value);
    else for (const e of doc.errors) problems.push(`${where}YAML: ${e}`);
  });
  return { values, problems };
}

/** A field error as one line of a list. */
export function formatError(e: FieldError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

/**
 * The objects of kind `kind` in a YAML stream, each validated (and defaulted) by `validate` as the
 * API server would; an object without a namespace gets `namespace`. Every problem of every document
 * is listed in one InvalidInput.
 */
export function parseObjects<T extends { metadata: { namespace?: string } }>(
  text: string,
  source: string,
  namespace: string,
  kind: string,
  validate: (value: unknown) => ValidationResult<T>,
): T[] {
  const { values, problems } = parseDocuments(text);
  const entries = values.map((value, index) => ({ value, index }));
  return validateObjects(entries, values.length, source, namespace, kind, validate, problems);
}

/**
 * parseObjects for documents already read: `entries` are documents of a stream of `total`, by their
 * index in it (problems name "document N" when the stream has several); `problems`, those found in
 * reading the stream, are listed first.
 */
export function validateObjects<T extends { metadata: { namespace?: string } }>(
  entries: readonly { value: unknown; index: number }[],
  total: number,
  source: string,
  namespace: string,
  kind: string,
  validate: (value: unknown) => ValidationResult<T>,
  problems: string[] = [],
): T[] {
  const objects: T[] = [];
  for (const { value, index } of entries) {
    if (value === null || value === undefined) continue;
    const where = total > 1 ? `document ${index + 1}: ` : '';
    const result = validate(value);
    if (!result.ok) {
      const name = (value as { metadata?: { name?: unknown } }).metadata?.name;
      const prefix = total > 1 ? `${where}${typeof name === 'string' ? `${name}: ` : ''}` : '';
      for (const e of result.errors) problems.push(prefix + formatError(e));
      continue;
    }
    // The validated, defaulted copy: the raw value may hold nulls the validator dropped.
    const g = result.value;
    objects.push({ ...g, metadata: { ...g.metadata, namespace: g.metadata.namespace ?? namespace } });
  }
  if (problems.length === 0 && objects.length === 0) problems.push(`no ${kind} found (the input is empty)`);
  if (problems.length > 0) throw new InvalidInput(source, problems);
  return objects;
}
