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
  Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
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

function goInteger(plain: string): number | undefined {
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
  return Number(value);
}

/**
 * The number go-yaml v2 reads from a plain scalar, or undefined when it stays a string. Mirrors
 * resolve() in gopkg.in/yaml.v2 (used by sigs.k8s.io/yaml): table lookups, then, for a scalar
 * starting with a digit or sign, int, uint and float; for one starting with '.', a float.
 */
export function goYamlNumber(text: string): number | undefined {
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
  identify: (value) => typeof value === 'number',
};

/**
 * YAML 1.1's tags with go-yaml v2's numbers: the yaml package's own int, float, sexagesimal and
 * timestamp tags go (go-yaml keeps 1:20 and 2001-12-14 as strings; it reads 0o10 and 08 as numbers).
 */
type Tags = Exclude<SchemaOptions['customTags'], ((tags: never) => unknown) | null | undefined>;
function goYamlTags(tags: Tags): Tags {
  const dropped = new Set([
    'tag:yaml.org,2002:int',
    'tag:yaml.org,2002:float',
    'tag:yaml.org,2002:timestamp',
  ]);
  const kept = tags.filter((t) => typeof t === 'string' || !dropped.has(t.tag));
  return [...kept, goNumber];
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

/** The most alias expansions (nested ones included) a document may need; more is an alias bomb. */
export const MAX_ALIAS_COUNT = 100;

export function parseAllKubeYaml(text: string) {
  return parseAllDocuments(text, KUBE_YAML_PARSE_OPTIONS);
}

/** A document that kubectl could not turn into JSON either. */
export class KubeYamlError extends Error {
  override name = 'KubeYamlError';
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
      const merge = (source: unknown): void => {
        const target = isAlias(source) ? source.resolve(doc) : source;
        if (isSeq(target)) {
          for (const item of [...target.items].reverse()) merge(item);
          return;
        }
        const value = convert(source);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          throw new KubeYamlError('a merge key (<<) must be followed by a mapping or a list of mappings');
        }
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

/** A plain `<<` key (YAML 1.1's merge tag resolves it to a symbol; a quoted "<<" is a string key). */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key) || (key.type !== undefined && key.type !== 'PLAIN')) return false;
  return key.value === '<<' || (typeof key.value === 'symbol' && key.value.description === '<<');
}

function keyString(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean' || typeof key === 'number') return String(key);
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
  // No %YAML directive: kubectl accepts it, but the files stay plain for every other reader.
  if (doc.directives) doc.directives.yaml.explicit = false;
  if (comment) doc.commentBefore = comment;
  return doc.toString({ lineWidth: 0, ...toString });
}
