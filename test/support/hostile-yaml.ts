// Hostile YAML for `glooha render`, each close to its 4 MiB input cap (src/cli/input.ts) unless it
// needs less: the shapes fuzzing and review found to cost exponential time, gigabytes of memory or
// hundreds of megabytes of output, and inputs just inside each limit (src/api/kube-yaml.ts YAML_LIMITS),
// which are read in full. Each case says how render is run on it: as the GlooHA input (-f) or as the
// install's manifests (--merge-into, beside a valid GlooHA).
const MiB = 1024 * 1024;
const fill = (unit: string, bytes = 4 * MiB - 64) => unit.repeat(Math.floor(bytes / unit.length));
const GLOOHA_HEAD = 'apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: x}\n';

/** ~1 KB: each level a list of 10 maps merging an alias of the previous level's list (×10 per level). */
export function mergeKeyBomb(levels = 9): string {
  const lines = ['l0: &l0 [' + Array(10).fill('{a: 1}').join(', ') + ']'];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `l${i}: &l${i} [` +
        Array(10)
          .fill(`{<<: *l${i - 1}}`)
          .join(', ') +
        ']',
    );
  lines.push(`${GLOOHA_HEAD}spec: {<<: *l${levels}}`);
  return lines.join('\n') + '\n';
}

/** The same through lists of aliases of maps (what kubectl accepts as a merge value): counted aliases. */
export function mergeListBomb(levels = 9): string {
  const lines = ['m0: &m0 {a: 1}'];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `m${i}: &m${i} {<<: [${Array(10)
        .fill(`*m${i - 1}`)
        .join(', ')}]}`,
    );
  lines.push(`${GLOOHA_HEAD}spec: {<<: *m${levels}}`);
  return lines.join('\n') + '\n';
}

/**
 * A GlooHA whose topologyKey is one `length`-character string anchored once and aliased `aliases`
 * times (the review's case: 3.9 MB aliased 99 times cost 1.98 GB, 55 s and 386 MB of stderr).
 */
export function aliasedString(length: number, aliases: number): string {
  const item = (key: string) => `      - {maxSkew: 1, topologyKey: ${key}, whenUnsatisfiable: DoNotSchedule}`;
  const items = [item(`&s "${'a'.repeat(length)}"`), ...Array.from({ length: aliases }, () => item('*s'))];
  return `${GLOOHA_HEAD}spec:\n  gloo:\n    replicas: 3\n    topologySpreadConstraints:\n${items.join('\n')}\n`;
}

/** One document: a map of `keys` entries anchored, then merged into `aliases` maps. */
function aliasedMap(keys: number, aliases: number): string {
  const base = Array.from({ length: keys }, (_, i) => `k${i}: ${i}`).join(', ');
  const uses = Array.from({ length: aliases }, (_, i) => `  m${i}: *b`).join('\n');
  return `base: &b {${base}}\nuses:\n${uses}\n`;
}

/**
 * A stream like `helm template … --include-crds` of a large chart: `crds` CRD-sized documents of
 * about `nodesPerCrd` nodes (long descriptions, deep schemas), then Gloo's Deployments.
 */
export function chartLike(crds: number, nodesPerCrd: number): string {
  const property = (i: number) =>
    `              p${i}:\n                description: A field of the resource, described at length.\n                type: string\n`;
  const crd = (n: number) =>
    `---\n# Source: chart/crds/crd-${n}.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things${n}.example.io\nspec:\n  group: example.io\n  names: {kind: Thing${n}, plural: things${n}}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n` +
    Array.from({ length: Math.floor(nodesPerCrd / 8) }, (_, i) => property(i)).join('');
  const deployment = (name: string) =>
    `---\n# Source: chart/templates/${name}.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: gloo-system\nspec:\n  replicas: 1\n  selector: {matchLabels: {gloo: ${name}}}\n  template:\n    metadata: {labels: {gloo: ${name}}}\n    spec:\n      containers:\n        - name: ${name}\n          image: quay.io/solo-io/${name}:1.22.1\n          env:\n            - {name: POD_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}\n`;
  const docs = Array.from({ length: crds }, (_, n) => crd(n));
  return docs.join('') + ['gloo', 'discovery', 'gateway-proxy'].map(deployment).join('');
}

/** A valid GlooHA, for the cases that are the install's manifests. */
export const VALID_GLOOHA = `${GLOOHA_HEAD.replace('{name: x}', '{name: x, namespace: gloo-system}')}spec:\n  gloo: {replicas: 1}\n`;

export interface HostileCase {
  text: string;
  /** Given as the GlooHA input (-f), or as the install's manifests (--merge-into). */
  as: 'input' | 'merge-into';
}

export const HOSTILE_KINDS = [
  'empty-documents',
  'nested-flow',
  'flow-numbers',
  'compact-sequences',
  'flow-maps',
  'block-maps',
  'indented-maps',
  'merge-key-bomb',
  'merge-list-bomb',
  'aliased-long-string',
  'aliased-map',
  'aliased-documents',
  'long-keys',
  'long-scalars',
  'escaped-string',
  'block-scalar-lines',
  'plain-scalar-lines',
  'many-document-lines',
  'tagged-quoted',
  'most-nodes-flow',
  'most-nodes-block',
  'most-nodes-stream',
  'most-documents',
  'most-aliased-bytes',
  'deepest',
  'chart-like',
] as const;

export function hostileYaml(kind: string): HostileCase {
  const input = (text: string): HostileCase => ({ text, as: 'input' });
  const manifests = (text: string): HostileCase => ({ text, as: 'merge-into' });
  switch (kind) {
    case 'empty-documents':
      return input(fill('---\n')); // 1M empty documents
    case 'nested-flow':
      return input(fill('[')); // ~4M levels of [
    case 'flow-numbers':
      return input('[' + fill('1,') + '1]'); // 2M numbers
    case 'compact-sequences':
      return input(fill('- ')); // 2M levels of compact block sequences
    case 'flow-maps':
      return input('[' + fill('{a: 1},') + '{}]');
    case 'block-maps':
      return manifests(fill('- a: 1\n  b: x\n'));
    case 'indented-maps': // 2,000 levels of block maps by indentation (n²/2 bytes)
      return input(Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n');
    case 'merge-key-bomb':
      return input(mergeKeyBomb());
    case 'merge-list-bomb':
      return input(mergeListBomb());
    case 'aliased-long-string': // the review's case: 3.9 MB aliased 99 times, 386 MB as JSON
      return input(aliasedString(3_900_000, 99));
    case 'aliased-map': // 1,000 entries merged into 99 maps: 300,000 nodes after expansion
      return manifests(aliasedMap(1_000, 99));
    case 'aliased-documents': // 130 documents of 30 KB, each aliased 99 times: 3 MB apiece as JSON
      return manifests(
        Array.from(
          { length: 130 },
          (_, i) =>
            `---\nkind: C${i}\nmetadata: {name: c}\ns: &s "${'x'.repeat(30_000)}"\nl: [${Array(99).fill('*s').join(', ')}]\n`,
        ).join(''),
      );
    case 'long-keys': // 3,900 invalid label keys of 1,000 characters: 3,900 errors, each naming its key
      return input(
        `${GLOOHA_HEAD.replace('{name: x}', '')}  name: x\n  labels:\n` +
          Array.from({ length: 3_900 }, (_, i) => `    "${'!'.repeat(1_000)}${i}": v\n`).join('') +
          'spec: {}\n',
      );
    case 'long-scalars': // an apiVersion, kind and enum value of 1.3 MB each
      return input(
        `apiVersion: "${'v'.repeat(1_300_000)}"\nkind: "${'k'.repeat(1_300_000)}"\nmetadata: {name: x}\nspec: {driftPolicy: "${'d'.repeat(1_300_000)}"}\n`,
      );
    case 'escaped-string': // 1.3M escapes in one double-quoted string
      return input(`${GLOOHA_HEAD}spec: {driftPolicy: "${fill('\\n', 3 * MiB - 100)}"}\n`);
    case 'block-scalar-lines': // a block scalar of 1M lines
      return input(`${GLOOHA_HEAD}spec: {}\nx: |\n${fill('  a\n', 4 * MiB - 200)}`);
    case 'plain-scalar-lines': // a plain scalar folded from 1M lines
      return manifests(`kind: C\nx: a\n${fill('  a\n', 4 * MiB - 200)}`);
    case 'many-document-lines': // 125 documents of 8,000 lines, each a block scalar: 1M lines in all
      return manifests(
        Array(125)
          .fill(`---\nkind: C\nmetadata: {name: c}\nx: |\n${'  a\n'.repeat(8_000)}`)
          .join(''),
      );
    case 'tagged-quoted': // 3,900 tagged double-quoted scalars of 1,000 characters
      return input(
        `${GLOOHA_HEAD}spec: {}\nx:\n${Array(3_900)
          .fill(`- !!int "${'1'.repeat(1_000)}"\n`)
          .join('')}`,
      );
    // Just inside the limits: read in full.
    case 'most-nodes-flow': // one document, 31,990 nodes counted (each in a flow list counts 2)
      return input('[' + '1,'.repeat(15_994) + '1]');
    case 'most-nodes-block': // one document, 4,570 × 7 = 31,990 nodes
      return manifests('- a: 1\n  b: x\n'.repeat(4_570));
    case 'most-nodes-stream': // 5 documents of 31,990 nodes, 159,950 in all
      return manifests(
        Array(5)
          .fill('---\n' + '- a: 1\n  b: x\n'.repeat(4_570))
          .join(''),
      );
    case 'most-documents':
      return manifests('---\nk0: 0\nk1: 1\nk2: 2\n'.repeat(999));
    case 'most-aliased-bytes': // 31 KB aliased 99 times: 3.1 MB as JSON, inside 3 MiB
      return manifests(`s: &s "${'x'.repeat(31_000)}"\nl: [${Array(99).fill('*s').join(', ')}]\n`);
    case 'deepest':
      return input(('- ' + '['.repeat(98) + ']'.repeat(98) + '\n').repeat(80));
    case 'chart-like': // 5 CRDs of ~31,000 nodes (Gloo's largest has 25,000) and Gloo's Deployments
      return manifests(chartLike(5, 31_000));
    default:
      throw new Error(`unknown hostile input ${kind}`);
  }
}
