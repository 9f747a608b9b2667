// Dispatch and exit codes for the `glooha` CLI. 0: success; 2: invalid input or usage (the problems are
// listed, no stack trace); 1: a bug (one line; GLOOHA_DEBUG=1 adds the stack).

import { readFileSync } from 'node:fs';
import { RENDER_USAGE, USAGE, UsageError, parseArgs } from './args.js';
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
    if (err instanceof UsageError) {
      io.stderr(`glooha: ${err.message}\nRun 'glooha render --help' for usage.\n`);
      return EXIT_INVALID;
    }
    if (err instanceof InvalidInput) {
      io.stderr(`glooha: ${err.source} is invalid:\n${err.problems.map((p) => `  ${p}\n`).join('')}`);
      return EXIT_INVALID;
    }
    const e = err as Error;
    io.stderr(`glooha: internal error: ${e.message}\n${env.GLOOHA_DEBUG ? `${e.stack}\n` : ''}`);
    return 1;
  }
}

/** The real process's I/O. */
export function processIO(): CliIO {
  return {
    readFile: (path) => readFileSync(path, 'utf8'),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
}
