// Dispatch and exit codes for the `glooha` CLI. 0: success; 2: invalid input or usage (the problems are
// listed, no stack trace); 1: a bug (one line; GLOOHA_DEBUG=1 adds the stack).

import { RENDER_USAGE, USAGE, UsageError, parseArgs } from './args.js';
import { escapeControl } from './escape.js';
import { readFileCapped, readStreamCapped } from './input.js';
import { EXIT_INVALID, InvalidInput, render, type CliIO } from './render.js';
import { version } from '../version.js';

export async function main(
  argv: readonly string[],
  io: CliIO,
  env: Record<string, string | undefined> = {},
): Promise<number> {
  try {
    const args = parseArgs(argv);
    switch (args.command) {
      case 'help':
        io.stdout(args.topic === 'render' ? RENDER_USAGE : USAGE);
        return 0;
      case 'version':
        io.stdout(`glooha ${version()}\n`);
        return 0;
      case 'render':
        return await render(args, io);
    }
  } catch (err) {
    // Everything echoed from the input is escaped: one problem stays one line, and no escape
    // sequence reaches the terminal.
    if (err instanceof UsageError) {
      io.stderr(`glooha: ${escapeControl(err.message)}\nRun 'glooha render --help' for usage.\n`);
      return EXIT_INVALID;
    }
    if (err instanceof InvalidInput) {
      io.stderr(
        `glooha: ${escapeControl(err.source)} is invalid:\n${err.problems.map((p) => `  ${escapeControl(p)}\n`).join('')}`,
      );
      return EXIT_INVALID;
    }
    const e = err as Error;
    io.stderr(
      `glooha: internal error: ${escapeControl(String(e.message))}\n${env.GLOOHA_DEBUG ? `${e.stack}\n` : ''}`,
    );
    return 1;
  }
}

/** The real process's I/O: capped reads, stdout with backpressure. */
export function processIO(): CliIO {
  // `glooha render ... | head` closes the pipe early: that is not an error worth a message.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  return {
    readFile: (path, maxBytes) => readFileCapped(path, maxBytes),
    // process.stdin throws or errors (EBADF) when fd 0 is closed (`glooha render -f - <&-`).
    readStdin: (maxBytes) => readStreamCapped(process.stdin, maxBytes, 'stdin'),
    stdout: (text) =>
      new Promise<void>((resolve) => {
        if (process.stdout.write(text)) resolve();
        else process.stdout.once('drain', resolve);
      }),
    stderr: (text) => process.stderr.write(text),
  };
}
