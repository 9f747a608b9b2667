// The outside world of a CLI command: its I/O (so tests run commands in-process) and the error for
// input the user must fix.
import { collectGarbageIfGrown } from '../process/collect-garbage.js';

export interface CliIO {
  /** The file's text; may stop reading (and throw UnreadableInput) beyond maxBytes. */
  readFile(path: string, maxBytes: number): string | Promise<string>;
  readStdin(maxBytes: number): Promise<string>;
  /** Resolves when the text may be followed by more (stdout's backpressure). */
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
}

/**
 * `io` with garbage collected after each write once the heap has grown (collect-garbage.ts): render
 * --merge-into writes a chart's objects back one YAML tree at a time, and V8 collected the trees late
 * (Gloo's chart with its CRDs peaked at 59-75 MB, 44-46 MB this way). The CLI's only: the operator
 * never runs it.
 */
export function collectingGarbage(io: CliIO): CliIO {
  return {
    ...io,
    stdout: (text) => {
      const written = io.stdout(text);
      collectGarbageIfGrown();
      return written;
    },
  };
}

/**
 * Input the user must fix: printed as a list, exit status 2, no stack trace. The list is bounded
 * (boundProblems), so that no input makes the answer large.
 */
export class InvalidInput extends Error {
  override name = 'InvalidInput';
  readonly problems: string[];
  constructor(
    readonly source: string,
    problems: string[],
  ) {
    super(`${source} is invalid`);
    this.problems = boundProblems(problems);
  }
}

/** The most problems listed, of one kind, and characters of one problem. */
export const PROBLEM_LIMITS = { total: 50, perKind: 3, chars: 300 } as const;

/**
 * At most a few problems of one kind (the same message at the same field of different list items,
 * map keys or documents: `a[0].b: x` and `a[7].b: x`), at most PROBLEM_LIMITS.total in all, each at most
 * PROBLEM_LIMITS.chars long; what is left out is counted. A value aliased 99 times is one kind, and a
 * 3 MB value quoted in a message is cut, so the answer stays a screenful for any input.
 */
export function boundProblems(problems: readonly string[], limits = PROBLEM_LIMITS): string[] {
  const out: string[] = [];
  const left = new Map<string, { example: string; more: number }>();
  let omitted = 0;
  for (const problem of problems) {
    const line = shorten(shortenKeys(problem), limits.chars);
    const kind = kindOf(line);
    const seen = left.get(kind) ?? { example: line, more: -limits.perKind };
    left.set(kind, seen);
    if (++seen.more > 0) continue;
    if (out.length < limits.total) out.push(line);
    else omitted++;
  }
  for (const { example, more } of left.values())
    if (more > 0) out.push(`... and ${more} more like ${JSON.stringify(shorten(example, 120))}`);
  if (omitted > 0) out.push(`... and ${omitted} more problems`);
  return out;
}

/** A problem's kind: its text with list indexes, map keys, quoted values and numbers made alike. */
function kindOf(problem: string): string {
  return problem
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/"(?:[^"\\]|\\.)*"?/g, '""')
    .replace(/[0-9]+/g, '0');
}

/** Map keys in a path (`labels[…]`) cut to their first 60 characters, so that the message shows. */
function shortenKeys(problem: string): string {
  return problem.replace(/\[([^\]]{60})[^\]]+\]/g, (_, head: string) => `[${head}...]`);
}

/** `text` cut to `max` characters, saying how long it was. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}... (${text.length} characters)`;
}
