// Dispatch and exit codes for the `glooha` CLI (EXIT in args.ts, listed in `glooha --help` and the
// README): 0 success; 1 a bug (one line; GLOOHA_DEBUG=1 adds the stack); 2 invalid input or usage (the
// problems are listed); 3 the cluster cannot be used; 4 the named object is missing; 5 not healthy.
// Nothing but a bug prints a stack trace.

import {
  EXIT,
  TOPIC_USAGE,
  USAGE,
  UsageError,
  parseArgs,
  type ClusterFlags,
  type SharedArgs,
} from './args.js';
import { check } from './check.js';
import { ClusterError, connect, explain, type Cluster } from './cluster.js';
import { completionScript } from './completion.js';
import { escapeControl } from './escape.js';
import { helmValuesCommand } from './helm-values.js';
import { readFileCapped, readStreamCapped } from './input.js';
import { lifecycle } from './lifecycle.js';
import { InvalidInput, collectingGarbage, type CliIO } from './io.js';
import { PRODUCT_COMMANDS } from './registry.js';
import { status } from './status.js';
import { errorStatus } from '../kube/client.js';
import { version } from '../version.js';

export async function main(
  argv: readonly string[],
  cliIO: CliIO,
  env: Record<string, string | undefined> = {},
): Promise<number> {
  const io = collectingGarbage(cliIO);
  let cluster: Cluster | undefined;
  const connectTo = (flags: ClusterFlags) => (cluster = connect(flags, env));
  try {
    const parsed = parseArgs(argv);
    // A product's own command (glooha render, glooha migrate ...) runs as its product says.
    const own = PRODUCT_COMMANDS.find((c) => c.name === parsed.command);
    if (own) return await own.run(parsed, io);
    const args = parsed as SharedArgs;
    switch (args.command) {
      case 'help':
        await io.stdout((args.topic && TOPIC_USAGE[args.topic]) || USAGE);
        return EXIT.OK;
      case 'version':
        await io.stdout(`glooha ${version()}\n`);
        return EXIT.OK;
      case 'completion':
        await io.stdout(completionScript(args.shell));
        return EXIT.OK;
      case 'status':
        return await status(args, io, connectTo(args));
      case 'check':
        return await check(args, io, connectTo(args));
      case 'helm-values':
        return await helmValuesCommand(args, io, connectTo(args));
      case 'suspend':
      case 'resume':
      case 'reconcile':
        return await lifecycle(args, io, connectTo(args));
      default:
        return args satisfies never;
    }
  } catch (err) {
    // Everything echoed from the input is escaped: one problem stays one line, and no escape
    // sequence reaches the terminal.
    if (err instanceof UsageError) {
      const help = err.topic ? `glooha ${err.topic} --help` : 'glooha --help';
      io.stderr(`glooha: ${escapeControl(err.message)}\nRun '${help}' for usage.\n`);
      return EXIT.INVALID;
    }
    if (err instanceof InvalidInput) {
      io.stderr(
        `glooha: ${escapeControl(err.source)} is invalid:\n${err.problems.map((p) => `  ${escapeControl(p)}\n`).join('')}`,
      );
      return EXIT.INVALID;
    }
    // An API answer or a transport failure that no command turned into a ClusterError.
    let clusterErr = err instanceof ClusterError ? err : undefined;
    if (!clusterErr && cluster && (errorStatus(err) !== undefined || isTransportError(err))) {
      try {
        explain(err, 'request', cluster.client);
      } catch (e) {
        clusterErr = e as ClusterError;
      }
    }
    if (clusterErr) {
      io.stderr(`glooha: ${escapeControl(clusterErr.message)}\n`);
      return clusterErr.exitCode;
    }
    const e = err as Error;
    io.stderr(
      `glooha: internal error: ${escapeControl(String(e.message))}\n${env.GLOOHA_DEBUG ? `${e.stack}\n` : ''}`,
    );
    return EXIT.INTERNAL;
  } finally {
    cluster?.client.close();
  }
}

/** node-fetch's errors (connection refused, DNS, TLS) and timeouts: no HTTP status, a system code. */
function isTransportError(err: unknown): boolean {
  const e = err as { name?: unknown; type?: unknown; code?: unknown };
  return (
    e.name === 'FetchError' ||
    e.name === 'AbortError' ||
    e.name === 'TimeoutError' ||
    typeof e.code === 'string'
  );
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
