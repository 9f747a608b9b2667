// What the process does when something goes wrong that no caller handled, and how it ends. One policy
// for every way out:
//   - an unhandled promise rejection or an uncaught exception: log it (safely), stop — which releases
//     the Lease if this replica leads — and exit 1, so Kubernetes restarts the pod instead of leaving a
//     half-alive leader;
//   - a fatal error reported by the manager (a controller that cannot start): the same;
//   - SIGTERM/SIGINT: stop and exit 0.
// Whatever the stop does, the process exits by the deadline: a hard timer (unref'd, so it never keeps
// a finished process alive) exits 1 if stopping hangs. A second failure during the stop does not
// start another one.
import type { Logger } from '../log.js';

export interface FailurePolicyOptions {
  log: Logger;
  /** Stops everything (bounded by its own budget, which should be below `deadlineMs`). */
  stop: (reason: string) => Promise<void>;
  exit: (code: number) => void;
  /** Hard deadline for any shutdown, from its start. */
  deadlineMs: number;
  /** Where the process events come from (default: process). */
  events?: NodeJS.EventEmitter;
  setTimer?: (fn: () => void, ms: number) => { unref?(): unknown };
}

export interface FailurePolicy {
  /** Stop and exit with `code` (once; later calls return the same promise). */
  terminate(code: number, reason: string): Promise<void>;
  /** Whether a termination (a signal, a fatal error) has begun: start-up then fails by design. */
  terminating(): boolean;
  uninstall(): void;
}

export function installFailurePolicy(opts: FailurePolicyOptions): FailurePolicy {
  const events = opts.events ?? process;
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  let terminating: Promise<void> | undefined;
  const terminate = (code: number, reason: string): Promise<void> => {
    terminating ??= (async () => {
      setTimer(() => {
        opts.log.error('shutdown did not finish within its deadline; exiting', {
          deadlineMs: opts.deadlineMs,
        });
        opts.exit(1);
      }, opts.deadlineMs).unref?.();
      let exitCode = code;
      try {
        await opts.stop(reason);
      } catch (err) {
        opts.log.error('shutdown failed', { err });
        exitCode = 1;
      }
      opts.exit(exitCode);
    })();
    return terminating;
  };
  const onRejection = (reason: unknown) => {
    opts.log.error('unhandled promise rejection: stopping', { err: reason });
    void terminate(1, 'unhandled promise rejection');
  };
  const onException = (err: unknown) => {
    opts.log.error('uncaught exception: stopping', { err });
    void terminate(1, 'uncaught exception');
  };
  const onSignal = (sig: NodeJS.Signals) => void terminate(0, sig);
  events.on('unhandledRejection', onRejection);
  events.on('uncaughtException', onException);
  events.once('SIGTERM', onSignal);
  events.once('SIGINT', onSignal);
  return {
    terminate,
    terminating: () => terminating !== undefined,
    uninstall: () => {
      events.off('unhandledRejection', onRejection);
      events.off('uncaughtException', onException);
      events.off('SIGTERM', onSignal);
      events.off('SIGINT', onSignal);
    },
  };
}
