/**
 * Bundles `entry` (a path from the repository root, src/main.ts by default) into
 * OUT/dist/src/<entry's name>.js, with the templates and a package.json beside it.
 */
export function bundle(out: string, entry?: string): Promise<{ file: string; bytes: number }>;
