// Hostile YAML for `glooha render`, each close to its 4 MiB input cap (src/cli/input.ts) unless it
// needs less: the shapes fuzzing found to cost exponential time or gigabytes of memory.
const MiB = 1024 * 1024;
const fill = (unit: string, bytes = 4 * MiB - 64) => unit.repeat(Math.floor(bytes / unit.length));

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
  lines.push(`apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: x}\nspec: {<<: *l${levels}}`);
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
  lines.push(`apiVersion: glooha.io/v1alpha1\nkind: GlooHA\nmetadata: {name: x}\nspec: {<<: *m${levels}}`);
  return lines.join('\n') + '\n';
}

export const HOSTILE_KINDS = [
  'empty-documents',
  'nested-flow',
  'flow-numbers',
  'compact-sequences',
  'flow-maps',
  'block-maps',
  'merge-key-bomb',
  'merge-list-bomb',
  'most-nodes-flow',
  'most-nodes-block',
  'most-documents',
  'deepest',
] as const;

export function hostileYaml(kind: string): string {
  switch (kind) {
    case 'empty-documents':
      return fill('---\n'); // 1M empty documents
    case 'nested-flow':
      return fill('['); // ~4M levels of [
    case 'flow-numbers':
      return '[' + fill('1,') + '1]'; // 2M numbers
    case 'compact-sequences':
      return fill('- '); // 2M levels of compact block sequences
    case 'flow-maps':
      return '[' + fill('{a: 1},') + '{}]';
    case 'block-maps':
      return fill('- a: 1\n  b: x\n');
    case 'merge-key-bomb':
      return mergeKeyBomb();
    case 'merge-list-bomb':
      return mergeListBomb();
    // Just inside the limits (src/api/kube-yaml.ts YAML_LIMITS): parsed in full.
    case 'most-nodes-flow':
      return '[' + '1,'.repeat(7_990) + '1]'; // each plain scalar is 2 tokens
    case 'most-nodes-block':
      return '- a: 1\n  b: x\n'.repeat(2_270);
    case 'most-documents':
      return '---\nk0: 0\nk1: 1\nk2: 2\n'.repeat(999);
    case 'deepest':
      return ('- ' + '['.repeat(98) + ']'.repeat(98) + '\n').repeat(80);
    default:
      throw new Error(`unknown hostile input ${kind}`);
  }
}
