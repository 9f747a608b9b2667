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

/**
 * Bounds on what `glooha render` parses, so that hostile input costs bounded time and memory. The
 * `yaml` package keeps several hundred bytes per node, and a node can cost its input 2 bytes ("1,"),
 * so the input size alone (4 MiB) bounds nothing useful: 2 million nodes took 1.9 GB. These limits are
 * checked by a streaming lexer pass before anything is built, so input beyond them costs no more than
 * that pass. With them, peak memory stays below 10 × the largest input (40 MiB) and a parse below
 * about a second; test/unit/api/kube-yaml-bounds.test.ts measures both on hostile input. The limits
 * are far above what any GlooHA, KgatewayHA or install file needs (a GlooHA has ~100 nodes, depth ~10).
 */
export const YAML_LIMITS = {
  /** Scalars, collections and aliases, over all documents. */
  maxNodes: 16_000,
  /** Collections nested in one another. */
  maxDepth: 100,
  maxDocuments: 1_000,
} as const;

/** A document that kubectl could not turn into JSON either, or input beyond YAML_LIMITS. */
export class KubeYamlError extends Error {
  override name = 'KubeYamlError';
}

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

/**
 * Checks the limits that need no tree, in one streaming pass of the lexer (memory independent of the
 * input): node and document counts, and the nesting that costs a byte or two per level (flow `[[[`,
 * compact `- - -`). Nesting through indentation costs n²/2 bytes for n levels; the tree walk in
 * checkDepth bounds it. Also refuses directives, as kubectl does (it splits documents on `---`
 * before parsing, so a `%YAML 1.1` line is a document without content: "did not find expected
 * <document start>").
 */
function scanTokens(text: string): void {
  let nodes = 0;
  let documents = 1;
  let flowDepth = 0;
  let onLine = 0;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === 'directive-line') {
      throw new KubeYamlError(
        `a ${token.split(/\s/)[0] ?? '%'} directive: kubectl refuses it ("did not find expected <document start>"); remove the line`,
      );
    }
    if (type === 'newline') onLine = 0;
    else if (type === 'doc-start' || type === 'doc-end') {
      if (++documents > YAML_LIMITS.maxDocuments)
        throw new KubeYamlError(`more than ${YAML_LIMITS.maxDocuments} YAML documents`);
    } else if (type && NODE_TOKENS.has(type)) {
      // Weights from measured peak memory per node: a flow collection, and anything inside one, costs
      // the parser about twice what a block node does.
      nodes += type === 'flow-map-start' || type === 'flow-seq-start' || flowDepth > 0 ? 2 : 1;
      if (nodes > YAML_LIMITS.maxNodes)
        throw new KubeYamlError(`more than ${YAML_LIMITS.maxNodes} YAML nodes`);
      if (type === 'flow-map-start' || type === 'flow-seq-start') flowDepth++;
      if (type === 'seq-item-ind' || type === 'explicit-key-ind') onLine++;
      if (flowDepth + onLine > YAML_LIMITS.maxDepth)
        throw new KubeYamlError(`YAML nested more than ${YAML_LIMITS.maxDepth} levels deep`);
    } else if (type === 'flow-map-end' || type === 'flow-seq-end') flowDepth = Math.max(0, flowDepth - 1);
  }
}

/** The nesting depth of a document's concrete syntax tree, walked without recursion. */
function checkDepth(doc: CST.Token): void {
  const stack: [CST.Token | undefined, number][] = [[doc.type === 'document' ? doc.value : undefined, 0]];
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (!token) continue;
    if (depth > YAML_LIMITS.maxDepth)
      throw new KubeYamlError(`YAML nested more than ${YAML_LIMITS.maxDepth} levels deep`);
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      for (const item of token.items) {
        const { key, value } = item as { key?: CST.Token | null; value?: CST.Token };
        if (key) stack.push([key, depth + 1]);
        stack.push([value, depth + 1]);
      }
    }
  }
}

/**
 * The documents of a YAML stream as kubectl reads them; throws KubeYamlError beyond YAML_LIMITS. One
 * parse: each document's syntax tree is checked for depth, then composed.
 */
export function parseAllKubeYaml(text: string): Document.Parsed[] {
  scanTokens(text);
  const composer = new Composer(KUBE_YAML_PARSE_OPTIONS);
  const docs: Document.Parsed[] = [];
  for (const token of new Parser().parse(text)) {
    checkDepth(token);
    for (const doc of composer.next(token)) docs.push(doc as Document.Parsed);
  }
  for (const doc of composer.end(false, text.length)) docs.push(doc as Document.Parsed);
  return docs;
}

/**
 * The document's value as sigs.k8s.io/yaml gives it to kubectl: keys in order, a later key replacing
 * an earlier one, and a `<<` merge key setting the merged map's entries at its position (so it
 * replaces keys before it and is replaced by keys after it; of a list of merged maps, the first wins).
 * Keys that are not strings become strings (true, false, 8); a null or collection key is an error.
 */
export function toKubeJS(doc: Document.Parsed, maxAliasCount = MAX_ALIAS_COUNT): unknown {
  let expansions = 0;
  const convert = (node: unknown): unknown => {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      if (++expansions > maxAliasCount) {
        throw new KubeYamlError(
          `more than ${maxAliasCount} alias expansions: a document that expands aliases this much is a resource exhaustion attack ("billion laughs")`,
        );
      }
      return convert(node.resolve(doc));
    }
    if (isScalar(node)) return node.value;
    if (isSeq(node)) return node.items.map(convert);
    if (isMap(node)) {
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
  return convert(doc.contents);
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
