// YAML as kubectl and Helm read it. Both turn YAML into JSON with sigs.k8s.io/yaml, which resolves
// plain scalars the way go-yaml v2 does: YAML 1.1 booleans (y, yes, on, off, n, ...), Go integer
// literals (010 is octal 8, 0o10, 0x1F, 0b11, underscores ignored), floats such as 1e3 or 3.0 that
// then become JSON numbers, timestamps left as strings, no sexagesimal (1:20 stays a string), `<<`
// merge keys, and duplicate keys where the last one wins. `glooha render` reads files with this
// schema so that its answer is the cluster's answer, and everything glooha writes as YAML (the CRD,
// rendered objects, Helm values) is stringified with it, so that any string that go-yaml would read
// as something else (off, 010, 0o10) is quoted.
//
// The `yaml` package does the parsing; only the resolution of plain scalars is replaced.

import {
  CST,
  Composer,
  Document,
  Lexer,
  Parser,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type DocumentOptions,
  type ParseOptions,
  type ScalarTag,
  type SchemaOptions,
  type ToStringOptions,
} from 'yaml';
import { collectGarbageIfGrown } from '../process/collect-garbage.js';

/** go-yaml v2's yamlStyleFloat: what it accepts as a float after removing underscores. */
const GO_YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt/ParseUint with base 0 (sign, then 0b / 0o / 0x / leading-0 octal / decimal). */
const GO_INT = /^([-+]?)(0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
/** go-yaml v2 resolves these by table, before trying numbers. */
const SPECIAL_FLOATS: Record<string, number> = {
  '.inf': Infinity,
  '.Inf': Infinity,
  '.INF': Infinity,
  '+.inf': Infinity,
  '+.Inf': Infinity,
  '+.INF': Infinity,
  '-.inf': -Infinity,
  '-.Inf': -Infinity,
  '-.INF': -Infinity,
  '.nan': NaN,
  '.NaN': NaN,
  '.NAN': NaN,
};

/**
 * An integer as go-yaml v2 reads it: a number while it is exact as one (|n| ≤ 2^53 − 1), beyond that a
 * bigint, so that a value is never rounded (9223372036854775807 stays itself; as a number it would be
 * 9223372036854775808, which is not an int64). Validation then judges it exactly; render prints it
 * exactly or refuses it.
 */
function goInteger(plain: string): number | bigint | undefined {
  const m = GO_INT.exec(plain);
  if (!m) return undefined;
  const [, sign = '', body = ''] = m;
  const digits = /^0[bBoOxX]/.test(body)
    ? body
    : body.length > 1 && body.startsWith('0')
      ? `0o${body.slice(1)}`
      : body;
  const magnitude = BigInt(digits);
  const value = sign === '-' ? -magnitude : magnitude;
  // ParseInt, then ParseUint: anything from int64's minimum to uint64's maximum is an integer.
  if (value < INT64_MIN || value > UINT64_MAX) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

/**
 * The number go-yaml v2 reads from a plain scalar, or undefined when it stays a string. Mirrors
 * resolve() in gopkg.in/yaml.v2 (used by sigs.k8s.io/yaml): table lookups, then, for a scalar
 * starting with a digit or sign, int, uint and float; for one starting with '.', a float.
 */
export function goYamlNumber(text: string): number | bigint | undefined {
  const special = SPECIAL_FLOATS[text];
  if (special !== undefined) return special;
  const first = text[0];
  if (first === '.') return GO_YAML_FLOAT.test(text) ? finite(Number(text)) : undefined;
  if (first === undefined || !/[-+0-9]/.test(first)) return undefined;
  const plain = text.replaceAll('_', '');
  const int = goInteger(plain);
  if (int !== undefined) return int;
  // strconv.ParseFloat fails with a range error beyond float64 (1e400): the scalar stays a string.
  if (GO_YAML_FLOAT.test(plain)) return finite(Number(plain));
  return undefined;
}

const finite = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);

/** A duck-typed RegExp: the yaml package only ever calls .test() on a tag's `test`. */
const matcher = (fn: (text: string) => boolean) => ({ test: fn }) as unknown as RegExp;

const goNumber: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  test: matcher((text) => goYamlNumber(text) !== undefined),
  resolve: (text) => goYamlNumber(text) ?? text,
  identify: (value) => typeof value === 'number' || typeof value === 'bigint',
};

/** go-yaml v2's short name of what a plain scalar resolves to, for its "cannot decode" message. */
const shortKind = (text: string): string => {
  const n = goYamlNumber(text);
  if (n === undefined) return '!!str';
  return /^[-+0-9]/.test(text) && goInteger(text.replaceAll('_', '')) !== undefined ? '!!int' : '!!float';
};

/**
 * Explicit `!!int` / `!!float` (never used for untagged scalars, which goNumber resolves): as go-yaml
 * v2, the text is resolved as if plain, quoted or not, and must come out a number of that kind
 * (`!!int "3"` is 3; `!!int 1.5` is an error; an integer is a valid !!float).
 */
function explicitNumber(kind: 'int' | 'float'): ScalarTag {
  return {
    tag: `tag:yaml.org,2002:${kind}`,
    default: false,
    identify: () => false,
    resolve: (text, onError) => {
      const n = goYamlNumber(text);
      if (n !== undefined && (kind === 'float' || shortKind(text) === '!!int')) return n;
      onError(`cannot decode ${shortKind(text)} \`${text}\` as a !!${kind}`);
      return text;
    },
  };
}

/**
 * `!!binary`: go-yaml v2 decodes standard base64 (line breaks allowed) and hands the bytes on as a
 * string, which is what kubectl sends (the yaml package would make a Uint8Array).
 */
const binary: ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  default: false,
  identify: () => false,
  resolve: (text, onError) => {
    const b64 = text.replace(/[\r\n]/g, '');
    if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) {
      onError('!!binary value contains invalid base64 data');
      return text;
    }
    return Buffer.from(b64, 'base64').toString('utf8');
  },
};

/**
 * YAML 1.1's tags with go-yaml v2's numbers: the yaml package's own int, float, sexagesimal and
 * timestamp tags go (go-yaml keeps 1:20 and 2001-12-14 as strings; it reads 0o10 and 08 as numbers),
 * and its binary tag is go-yaml's.
 */
type Tags = Exclude<SchemaOptions['customTags'], ((tags: never) => unknown) | null | undefined>;
function goYamlTags(tags: Tags): Tags {
  const dropped = new Set([
    'tag:yaml.org,2002:int',
    'tag:yaml.org,2002:float',
    'tag:yaml.org,2002:timestamp',
    'tag:yaml.org,2002:binary',
  ]);
  const kept = tags.filter((t) => typeof t === 'string' || !dropped.has(t.tag));
  return [...kept, goNumber, explicitNumber('int'), explicitNumber('float'), binary];
}

const SCHEMA: SchemaOptions = { schema: 'yaml-1.1', customTags: goYamlTags };

/**
 * For writing only: go-yaml v2 keeps a timestamp-shaped plain scalar a string, but YAML 1.1 readers
 * with the timestamp tag (go-yaml v3, the yaml package's own 1.1 schema) turn 1970-01-01T00:00:00Z
 * into a time. A default tag that matches such text makes the writer quote it; it never resolves
 * anything, since reading uses SCHEMA.
 */
const YAML_11_TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$/;
const timestampShaped: ScalarTag = {
  tag: 'tag:yaml.org,2002:timestamp',
  default: true,
  test: YAML_11_TIMESTAMP,
  resolve: (text) => text,
  identify: () => false,
};
const WRITE_SCHEMA: SchemaOptions = {
  schema: 'yaml-1.1',
  customTags: (tags: Tags) => [...goYamlTags(tags), timestampShaped],
};

/**
 * Parse options for YAML as kubectl reads it. Merge keys are applied by toKubeJS, in go-yaml v2's
 * order (the yaml package's own toJS follows the YAML spec's order instead).
 */
export const KUBE_YAML_PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  ...SCHEMA,
  version: '1.1',
  uniqueKeys: false,
  prettyErrors: false,
};

/**
 * The most alias expansions (nested ones and those of merge keys included) a document may need; more
 * is an alias bomb.
 */
export const MAX_ALIAS_COUNT = 100;

const MiB = 1024 * 1024;

/**
 * Bounds on what `glooha render` reads, so that any input costs bounded time and memory. The `yaml`
 * package keeps about a kilobyte per node of the document it builds, and a node can cost its input 2
 * bytes ("1,"), so the input size alone (4 MiB) bounds nothing useful: 2 million nodes took 1.9 GB.
 * Nodes are counted twice: in the source, by a streaming lexer pass before anything is built (so
 * input beyond a limit costs only that pass), and after alias expansion, while each document is
 * turned into JSON (an alias counts the nodes it stands for, so one anchored value aliased 99 times
 * counts 100 times, and conversion stops at the first node or byte over a limit). Documents are built
 * and dropped one at a time, so memory follows the largest document, not the stream.
 *
 * Sized for real installs: `helm template gloo … --include-crds` (Gloo 1.22, 2.76 MB) has 73
 * documents, 125,000 nodes, the largest document (a CRD) 25,000; kgateway's CRDs are smaller. The
 * bound that holds for any input within these limits (docs/api.md, `glooha render --help`) is measured
 * by test/unit/api/kube-yaml-bounds.test.ts on a hostile corpus.
 */
export const YAML_LIMITS = {
  /** Scalars, list items and map entries of one document, after alias expansion. */
  maxDocumentNodes: 32_000,
  /** The same over all documents. */
  maxNodes: 160_000,
  /**
   * Lines of one document: the yaml package builds a multi-line scalar a line at a time, each line a
   * string of its own until the value is flattened.
   */
  maxDocumentLines: 32_000,
  /** The same over all documents. */
  maxLines: 160_000,
  /**
   * One document's size as the JSON kubectl sends (after alias expansion): the API server refuses a
   * request body over 3 MiB (--max-request-bytes) with 413 Request Entity Too Large.
   */
  maxDocumentBytes: 3 * MiB,
  /** The same over all documents: what validation and output may walk. */
  maxBytes: 16 * MiB,
  /** Collections nested in one another. */
  maxDepth: 100,
  maxDocuments: 1_000,
  maxAliasCount: MAX_ALIAS_COUNT,
} as const;
export type YamlLimits = { readonly [K in keyof typeof YAML_LIMITS]: number };

/** A document that kubectl could not turn into JSON either, or input beyond YAML_LIMITS. */
export class KubeYamlError extends Error {
  override name = 'KubeYamlError';
}

/** Where a document starts, for a message: "document 3 (line 120)". */
const documentAt = (index: number, line: number) => `document ${index + 1} (line ${line})`;

const HELM_HINT =
  'a helm template of a chart is far below it; without --include-crds it is smaller still (glooha reads only Deployments, HPAs and PDBs from it)';

/** A token that makes a node: a scalar (plain, quoted or block), an alias, or a flow collection. */
const NODE_TOKENS = new Set<string>([
  'scalar',
  'single-quoted-scalar',
  'double-quoted-scalar',
  'alias',
  'flow-map-start',
  'flow-seq-start',
  'seq-item-ind',
  'explicit-key-ind',
  'map-value-ind',
]);
/** Lexer markers that are not source text (they do not move the offset). */
const MARKERS = new Set(['doc-mode', 'flow-error-end', 'scalar']);

/**
 * Checks the limits that need no tree, in one streaming pass of the lexer (memory independent of the
 * input): node counts (per document and in all), the document count, and the nesting that costs a
 * byte or two per level (flow `[[[`, compact `- - -`). Nesting through indentation costs n²/2 bytes
 * for n levels; the tree walk in checkDepth bounds it. Also refuses directives, as kubectl does (it
 * splits documents on `---` before parsing, so a `%YAML 1.1` line is a document without content:
 * "did not find expected <document start>").
 */
function scanTokens(text: string, limits: YamlLimits): void {
  let nodes = 0;
  let documentNodes = 0;
  let documentLines = 0;
  let lines = 0;
  let document = 0;
  let open = false;
  let documentOffset = 0;
  let offset = 0;
  let flowDepth = 0;
  let onLine = 0;
  const where = () => documentAt(document, lineAt(text, documentOffset));
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'directive-line') {
      throw new KubeYamlError(
        `a ${token.split(/\s/)[0] ?? '%'} directive: kubectl refuses it ("did not find expected <document start>"); remove the line`,
      );
    }
    if (type === 'newline') onLine = 0;
    else if (type === 'doc-start' || type === 'doc-end') {
      // As the composer numbers them: `---` opens a document (the first one, or after another).
      if (open) {
        if (++document >= limits.maxDocuments)
          throw new KubeYamlError(`more than ${limits.maxDocuments} YAML documents`);
        documentNodes = 0;
        documentLines = 0;
      }
      open = type === 'doc-start';
      documentOffset = offset;
    } else if (type !== 'space' && type !== 'comment' && !MARKERS.has(type ?? '')) open = true;
    if (type && NODE_TOKENS.has(type)) {
      // Weights from measured peak memory per node: a flow collection, and anything inside one, costs
      // the parser about twice what a block node does.
      const weight = type === 'flow-map-start' || type === 'flow-seq-start' || flowDepth > 0 ? 2 : 1;
      nodes += weight;
      documentNodes += weight;
      if (documentNodes > limits.maxDocumentNodes)
        throw new KubeYamlError(
          `${where()}: more than ${limits.maxDocumentNodes} YAML nodes in one document, the limit (${HELM_HINT})`,
        );
      if (nodes > limits.maxNodes)
        throw new KubeYamlError(
          `${where()}: more than ${limits.maxNodes} YAML nodes in all documents up to this one, the limit (${HELM_HINT})`,
        );
      if (type === 'flow-map-start' || type === 'flow-seq-start') flowDepth++;
      if (type === 'seq-item-ind' || type === 'explicit-key-ind') onLine++;
      if (flowDepth + onLine > limits.maxDepth)
        throw new KubeYamlError(`${where()}: YAML nested more than ${limits.maxDepth} levels deep`);
    } else if (type === 'flow-map-end' || type === 'flow-seq-end') flowDepth = Math.max(0, flowDepth - 1);
    if (!MARKERS.has(type ?? '')) offset += token.length;
    // Line breaks: newline tokens, and those inside a scalar (a block scalar's content, a multi-line
    // flow or plain scalar).
    const breaks = type === 'newline' ? 1 : token.length > 1 ? countLineBreaks(token) : 0;
    if (breaks > 0) {
      documentLines += breaks;
      lines += breaks;
      if (documentLines > limits.maxDocumentLines)
        throw new KubeYamlError(
          `${where()}: more than ${limits.maxDocumentLines} lines in one document, the limit (${HELM_HINT})`,
        );
      if (lines > limits.maxLines)
        throw new KubeYamlError(
          `${where()}: more than ${limits.maxLines} lines in all documents up to this one, the limit (${HELM_HINT})`,
        );
    }
  }
}

function countLineBreaks(token: string): number {
  let n = 0;
  for (let i = token.indexOf('\n'); i >= 0; i = token.indexOf('\n', i + 1)) n++;
  return n;
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Double-quoted scalars longer than this are resolved here instead of by the yaml package, which
 * builds their value a character at a time (`res += ch`): ~32 bytes of memory per character, kept
 * until the document is dropped (125 MB for a 3.9 MB string). Shorter ones are flat strings.
 */
const SHORT_QUOTED = 12;
/**
 * A tagged double-quoted scalar (`!!int "3"`, `!!binary "…"`) is resolved by its tag, from the yaml
 * package's value: its characters in a document are bounded instead.
 */
const MAX_TAGGED_QUOTED = 64 * 1024;
/** Tags that leave a double-quoted scalar a string. */
const STRING_TAGS = new Set(['!!str', '!<tag:yaml.org,2002:str>']);

/**
 * The values of a document's long double-quoted scalars (by their offset), resolved here; their
 * tokens are emptied so that the yaml package does not resolve them again.
 */
type LongScalars = Map<number, string>;

/**
 * Walks a document's concrete syntax tree without recursion: checks its nesting depth, and takes
 * over its double-quoted scalars (SHORT_QUOTED), except tagged ones, which are bounded
 * (MAX_TAGGED_QUOTED).
 */
function prepareDocument(doc: CST.Document, maxDepth: number, long: LongScalars): void {
  let tagged = 0;
  const stack: [CST.Token | undefined, number, CST.SourceToken[] | undefined][] = [[doc.value, 0, doc.start]];
  while (stack.length > 0) {
    const [token, depth, props] = stack.pop()!;
    if (!token) continue;
    if (depth > maxDepth) throw new KubeYamlError(`YAML nested more than ${maxDepth} levels deep`);
    if (token.type === 'double-quoted-scalar' && token.source.length > SHORT_QUOTED) {
      if (props?.some((t) => t.type === 'tag' && !STRING_TAGS.has(t.source))) {
        tagged += token.source.length;
        if (tagged > MAX_TAGGED_QUOTED)
          throw new KubeYamlError(
            `more than ${MAX_TAGGED_QUOTED} characters of tagged double-quoted scalars in one document: write them without the tag (or with !!str)`,
          );
        continue;
      }
      long.set(token.offset, doubleQuotedValue(token.source));
      // The same length keeps the offsets the composer derives from it; spaces cost the yaml package
      // one slice.
      token.source = `"${' '.repeat(token.source.length - 2)}"`;
    }
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      for (const item of token.items) {
        const { start, key, sep, value } = item;
        if (key) stack.push([key, depth + 1, start]);
        stack.push([value, depth + 1, sep ?? start]);
      }
    }
  }
}

/** YAML's double-quoted escapes (the yaml package's table, which go-yaml v2's agrees with). */
const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/**
 * A double-quoted scalar's value, as the yaml package resolves it (line folding, trailing white space
 * before a line break dropped, escapes), but built from slices of the source: memory and time linear
 * in its length. Throws KubeYamlError where the yaml package reports an error.
 */
export function doubleQuotedValue(source: string): string {
  // Parts are joined a thousand at a time: an escape is a part, and a million parts in one array
  // would cost more than the string.
  const chunks: string[] = [];
  const parts: string[] = [];
  const push = (part: string) => {
    if (parts.push(part) < 1024) return;
    chunks.push(parts.join(''));
    parts.length = 0;
  };
  const end = source.length - 1;
  let run = 1;
  const flush = (to: number) => {
    if (to > run) push(source.slice(run, to));
  };
  let i = 1;
  for (; i < end; ++i) {
    const ch = source[i];
    if (ch === '\r' && source[i + 1] === '\n') {
      flush(i);
      run = i + 1;
    } else if (ch === '\n') {
      flush(i);
      // A line break folds into a space, or into the empty lines after it.
      let fold = '';
      let next = source[i + 1];
      while (next === ' ' || next === '\t' || next === '\n' || next === '\r') {
        if (next === '\r' && source[i + 2] !== '\n') break;
        if (next === '\n') fold += '\n';
        next = source[++i + 1];
      }
      push(fold || ' ');
      run = i + 1;
    } else if (ch === '\\') {
      flush(i);
      const next = source[++i] ?? '';
      const escaped = ESCAPES[next];
      if (escaped !== undefined) push(escaped);
      else if (next === '\n' || (next === '\r' && source[i + 1] === '\n')) {
        // An escaped line break: skipped, with the indentation of the next line.
        if (next === '\r') i++;
        while (source[i + 1] === ' ' || source[i + 1] === '\t') i++;
      } else if (next === 'x' || next === 'u' || next === 'U') {
        const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
        const code = source.slice(i + 1, i + 1 + length);
        const point = /^[0-9a-fA-F]+$/.test(code) && code.length === length ? parseInt(code, 16) : NaN;
        if (!(point <= 0x10ffff)) throw new KubeYamlError(`Invalid escape sequence \\${next}${code}`);
        push(String.fromCodePoint(point));
        i += length;
      } else throw new KubeYamlError(`Invalid escape sequence \\${next}`);
      run = i + 1;
    } else if (ch === ' ' || ch === '\t') {
      // White space before a line break is dropped; elsewhere it stays in the run.
      const from = i;
      while (source[i + 1] === ' ' || source[i + 1] === '\t') i++;
      const next = source[i + 1];
      if (next === '\n' || (next === '\r' && source[i + 2] === '\n')) {
        flush(from);
        run = i + 1;
      }
    }
  }
  flush(Math.min(i, end));
  if (source[end] !== '"' || source.length === 1) throw new KubeYamlError('Missing closing "quote');
  chunks.push(parts.join(''));
  return chunks.join('');
}

/** One document of a stream as kubectl reads it: its JSON value, or why kubectl could not read it. */
export type KubeYamlDocument = { ok: true; value: unknown } | { ok: false; errors: string[] };

/**
 * The documents of a YAML stream as kubectl reads them, each its JSON value or its errors. Throws
 * KubeYamlError at the first excess of a limit that bounds the whole stream (nodes, bytes, documents,
 * nesting), naming the document and the limit; a document over its own limits (aliases, nodes or
 * bytes after expansion) is an error of that document. One parse, one document at a time: each is
 * checked for depth, composed, turned into JSON and dropped.
 */
export function readKubeYaml(text: string, limits: YamlLimits = YAML_LIMITS): KubeYamlDocument[] {
  scanTokens(text, limits);
  const composer = new Composer(KUBE_YAML_PARSE_OPTIONS);
  const budget: StreamBudget = { nodes: 0, bytes: 0 };
  const out: KubeYamlDocument[] = [];
  const take = (doc: Document.Parsed, long: LongScalars) => {
    const index = out.length;
    if (doc.errors.length > 0) {
      out.push({ ok: false, errors: doc.errors.map((e) => e.message.split('\n')[0] ?? '') });
      return;
    }
    try {
      out.push({ ok: true, value: toKubeJS(doc, limits, budget, long) });
      collectGarbageIfGrown();
    } catch (err) {
      if (!(err instanceof KubeYamlError)) throw err;
      if (err instanceof StreamLimitError)
        throw new KubeYamlError(`${documentAt(index, lineAt(text, doc.range[0]))}: ${err.message}`);
      out.push({ ok: false, errors: [err.message] });
    }
  };
  // Offsets are the stream's, so one map serves every document.
  const long: LongScalars = new Map();
  let documents = 0;
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') {
      try {
        prepareDocument(token, limits.maxDepth, long);
      } catch (err) {
        if (!(err instanceof KubeYamlError)) throw err;
        throw new KubeYamlError(`${documentAt(documents, lineAt(text, token.offset))}: ${err.message}`);
      }
      documents++;
    }
    for (const doc of composer.next(token)) take(doc, long);
  }
  for (const doc of composer.end(false, text.length)) take(doc, long);
  return out;
}

/** What the documents read so far have used of the stream's limits. */
interface StreamBudget {
  nodes: number;
  bytes: number;
}

/** A limit of the whole stream: reading stops there. */
class StreamLimitError extends KubeYamlError {}

/**
 * The document's value as sigs.k8s.io/yaml gives it to kubectl: keys in order, a later key replacing
 * an earlier one, and a `<<` merge key setting the merged map's entries at its position (so it
 * replaces keys before it and is replaced by keys after it; of a list of merged maps, the first wins).
 * Keys that are not strings become strings (true, false, 8); a null or collection key is an error.
 * Nodes are counted as they are made, aliases expanded, and the value's size as JSON after: either
 * beyond its limit (of the document, or what is left of the stream's) is a KubeYamlError.
 */
function toKubeJS(
  doc: Document.Parsed,
  limits: YamlLimits = YAML_LIMITS,
  budget: StreamBudget = { nodes: 0, bytes: 0 },
  long: LongScalars = new Map(),
): unknown {
  let expansions = 0;
  let nodes = 0;
  const count = (n: number) => {
    nodes += n;
    if (nodes > limits.maxDocumentNodes)
      throw new KubeYamlError(
        `more than ${limits.maxDocumentNodes} nodes after alias expansion, the limit of one document`,
      );
    if (budget.nodes + nodes > limits.maxNodes)
      throw new StreamLimitError(
        `more than ${limits.maxNodes} YAML nodes in all documents up to this one after alias expansion, the limit (${HELM_HINT})`,
      );
  };
  const convert = (node: unknown): unknown => {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      if (++expansions > limits.maxAliasCount) {
        throw new KubeYamlError(
          `more than ${limits.maxAliasCount} alias expansions: a document that expands aliases this much is a resource exhaustion attack ("billion laughs")`,
        );
      }
      return convert(node.resolve(doc));
    }
    // Counted as the lexer pass counts a document without aliases (scalars, list items and map
    // entries), so that such a document within that pass's limit is within this one.
    if (isScalar(node)) {
      count(1);
      const offset = node.range?.[0];
      if (node.type === 'QUOTE_DOUBLE' && offset !== undefined && long.has(offset)) return long.get(offset);
      return node.value;
    }
    if (isSeq(node)) {
      count(node.items.length);
      return node.items.map(convert);
    }
    if (isMap(node)) {
      count(node.items.length);
      const out: Record<string, unknown> = {};
      // go-yaml v2's merge: a mapping, an alias of one, or a LIST (not an alias of a list) of those.
      // Each alias merged is an expansion like any other (convert counts it): before that, a merge key
      // whose alias named a list of maps merging the previous level cost ×10 per level uncounted.
      const mergeable = (source: unknown): boolean => {
        const target = isAlias(source) ? source.resolve(doc) : source;
        return isMap(target);
      };
      const merge = (source: unknown): void => {
        if (isSeq(source)) {
          if (!source.items.every(mergeable)) throw new KubeYamlError(MERGE_VALUE);
          for (const item of [...source.items].reverse()) merge(item);
          return;
        }
        if (!mergeable(source)) throw new KubeYamlError(MERGE_VALUE);
        const value = convert(source) as Record<string, unknown>;
        for (const [k, v] of Object.entries(value)) setOwn(out, k, v);
      };
      for (const pair of node.items) {
        if (isMergeKey(pair.key)) {
          merge(pair.value);
          continue;
        }
        setOwn(out, keyString(convert(pair.key)), convert(pair.value));
      }
      return out;
    }
    return null;
  };
  const value = convert(doc.contents);
  const documentCap = Math.min(limits.maxDocumentBytes, limits.maxBytes - budget.bytes);
  const bytes = goJsonBytes(value, documentCap);
  if (bytes > limits.maxDocumentBytes)
    throw new KubeYamlError(
      `more than ${limits.maxDocumentBytes / MiB} MiB as the JSON kubectl sends${expansions > 0 ? ' (after alias expansion)' : ''}: the API server refuses a request over ${limits.maxDocumentBytes / MiB} MiB (413 Request Entity Too Large)`,
    );
  if (bytes > documentCap)
    throw new StreamLimitError(
      `more than ${limits.maxBytes / MiB} MiB as JSON in all documents up to this one (after alias expansion), the limit`,
    );
  budget.nodes += nodes;
  budget.bytes += bytes;
  return value;
}

/**
 * The size of `value` as Go's encoding/json writes it compactly (what kubectl sends, and what the API
 * server's request limit counts): UTF-8, `"` `\` and \n \r \t \b \f escaped in 2 bytes, other control
 * characters, <, >, &, U+2028 and U+2029 in 6 (Go escapes HTML characters by default). Stops counting
 * once beyond `cap` (a string aliased 99 times is not measured 99 times over), so the answer is
 * exact up to `cap` and only "more" above it.
 */
export function goJsonBytes(value: unknown, cap = Infinity): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes <= cap) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += goJsonStringBytes(v);
    else if (typeof v === 'number') bytes += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === 'bigint') bytes += v.toString().length;
    else if (typeof v === 'boolean') bytes += v ? 4 : 5;
    else if (Array.isArray(v)) {
      bytes += 2 + Math.max(0, v.length - 1);
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      bytes += 2 + Math.max(0, keys.length - 1) + keys.length; // braces, commas, colons
      for (const k of keys) {
        bytes += goJsonStringBytes(k);
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else bytes += 4; // null
  }
  return bytes;
}

function goJsonStringBytes(s: string): number {
  let extra = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26) {
      if (c === 0x2028 || c === 0x2029) extra += 3; // 3 bytes of UTF-8 become 6
      continue;
    }
    const short =
      c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c;
    extra += short ? 1 : 5;
  }
  return 2 + Buffer.byteLength(s) + extra;
}

/** kubectl's (go-yaml v2's) own words. */
const MERGE_VALUE =
  'map merge requires map or sequence of maps as the value (a merge key (<<) takes a mapping, an alias of one, or a list of those; not an alias of a list)';

/** A plain `<<` key (YAML 1.1's merge tag resolves it to a symbol; a quoted "<<" is a string key). */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key) || (key.type !== undefined && key.type !== 'PLAIN')) return false;
  return key.value === '<<' || (typeof key.value === 'symbol' && key.value.description === '<<');
}

function keyString(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean' || typeof key === 'number' || typeof key === 'bigint') return String(key);
  throw new KubeYamlError(`unsupported map key ${JSON.stringify(key)}: keys must be strings`);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Object.defineProperty, not assignment: a "__proto__" key must stay a key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** YAML text that kubectl and Helm read back as exactly `value`. */
export function stringifyKubeYaml(
  value: unknown,
  options: ToStringOptions & { comment?: string } = {},
): string {
  const { comment, ...toString } = options;
  const doc = new Document(value, { ...WRITE_SCHEMA, version: '1.1', aliasDuplicateObjects: false });
  // No %YAML directive: kubectl refuses one (it splits documents on `---` first, leaving the directive alone).
  if (doc.directives) doc.directives.yaml.explicit = false;
  if (comment) doc.commentBefore = comment;
  return doc.toString({ lineWidth: 0, ...toString });
}
