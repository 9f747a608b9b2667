// Child processes of the test control plane: started with their output in a log file, stopped with
// SIGTERM then SIGKILL, and never left behind. Three layers make sure of the last part:
//  - stop() on the normal path;
//  - a process 'exit' hook that SIGKILLs whatever is still alive (runs on errors and signals too,
//    once the signal handlers installed by the callers turn signals into exits);
//  - a pid file per control plane, so the next start reaps what a SIGKILLed run (which runs no hook)
//    left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const RUN_DIR_PREFIX = 'glooha-cp-';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export class ManagedProcess {
  private child: ChildProcess;
  private exited: Promise<number | null>;
  private stopping = false;
  exitCode: number | null | undefined = undefined;

  constructor(
    readonly name: string,
    readonly binary: string,
    readonly args: string[],
    readonly logPath: string,
    onUnexpectedExit: (proc: ManagedProcess, code: number | null, signal: string | null) => void,
    pidFile?: string,
  ) {
    installExitHook();
    const fd = openSync(logPath, 'a');
    // Own process group: a terminal's Ctrl-C (SIGINT to the foreground group) reaches only us, and we
    // stop the components in order instead of having them all die at once mid-request.
    this.child = spawn(binary, args, { stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    live.add(this.child);
    if (pidFile && this.child.pid) writeFileSync(pidFile, `${this.child.pid}\n`, { flag: 'a' });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        live.delete(this.child);
        this.exitCode = code;
        if (!this.stopping) onUnexpectedExit(this, code, signal);
        resolve(code);
      });
      this.child.once('error', (err) => {
        live.delete(this.child);
        this.exitCode = -1;
        writeFileSync(logPath, `\nspawn failed: ${err.message}\n`, { flag: 'a' });
        if (!this.stopping) onUnexpectedExit(this, -1, null);
        resolve(-1);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The last lines of the process's log, for error messages. */
  tail(lines = 30): string {
    if (!existsSync(this.logPath)) return '(no log)';
    return readFileSync(this.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Sends a signal without marking the process as stopping (for fault-injection tests). */
  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  async stop(graceMs = 5000): Promise<void> {
    this.stopping = true;
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A free TCP port on 127.0.0.1 (the OS picks it; the small race until use is acceptable for tests). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Polls `check` until it returns true; fails early with `whileAlive`'s log when a process dies. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs: number; intervalMs?: number; whileAlive?: ManagedProcess[] },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = '';
  for (;;) {
    for (const proc of opts.whileAlive ?? []) {
      if (!proc.running) {
        throw new Error(
          `${proc.name} exited (code ${proc.exitCode}) while waiting for ${what}. Last log lines (${proc.logPath}):\n${proc.tail()}`,
        );
      }
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) {
      const logs = (opts.whileAlive ?? [])
        .map((p) => `--- ${p.name} (${p.logPath}):\n${p.tail(15)}`)
        .join('\n');
      throw new Error(
        `timed out after ${opts.timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}\n${logs}`,
      );
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills processes that an earlier control plane started and could not stop (its owner was SIGKILLed),
 * and removes its directory. A pid is only killed while its command line still names that directory,
 * so a recycled pid is never hit.
 */
export function reapStaleControlPlanes(log: (line: string) => void = () => {}): void {
  const root = tmpdir();
  for (const entry of readdirSync(root)) {
    if (!entry.startsWith(RUN_DIR_PREFIX)) continue;
    const dir = join(root, entry);
    const ownerFile = join(dir, 'owner.pid');
    if (!existsSync(ownerFile)) continue;
    const owner = Number(readFileSync(ownerFile, 'utf8').trim());
    if (owner && pidAlive(owner)) continue;
    const pidsFile = join(dir, 'children.pid');
    const pids = existsSync(pidsFile)
      ? readFileSync(pidsFile, 'utf8').split('\n').map(Number).filter(Boolean)
      : [];
    for (const pid of pids) {
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (cmdline.includes(dir)) {
        log(`reaping pid ${pid} left by a dead control plane in ${dir}`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
