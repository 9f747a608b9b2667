// The README's shell blocks, for the tests that run them as written (test/unit/cli/readme.test.ts
// lists every one and how it is checked).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const readmePath = join(import.meta.dirname, '..', '..', 'README.md');

/** The ```sh blocks of a Markdown text, in order, without their trailing newline. */
export function shellBlocks(markdown: string = readFileSync(readmePath, 'utf8')): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => (m[1] as string).trimEnd());
}

/** The README block that is exactly `text`; throws when the README no longer has it. */
export function readmeBlock(text: string): string {
  const block = shellBlocks().find((b) => b === text);
  if (!block) throw new Error(`README.md has no shell block ${JSON.stringify(text)} any more`);
  return block;
}
