// `npm run testenv`: the test control plane in the foreground, for a person or a benchmark. Prints
// `KUBECONFIG=<path>` on its own line once the API server is ready; SIGINT/SIGTERM stop every process
// and remove the temp data. Exits non-zero with the failing component's log tail if anything dies.
import { startControlPlane, type ControlPlane } from './controlplane.js';

const log = (line: string) => process.stderr.write(`[testenv] ${line}\n`);

async function main(): Promise<void> {
  let plane: ControlPlane | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping the control plane');
    await plane?.stop();
    log('stopped; temp data removed');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  try {
    plane = await startControlPlane({ log });
  } catch (err) {
    log(`failed to start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  process.stdout.write(`KUBECONFIG=${plane.kubeconfigPath}\n`);
  log(`API server ${plane.server}; nodes ${plane.nodes.join(', ')}; audit log ${plane.auditLogPath}`);
  log('press Ctrl-C (or send SIGTERM) to stop');
  // A component that dies takes the environment with it: say which, and exit non-zero.
  const watchdog = setInterval(() => {
    const failures = plane?.failures() ?? [];
    if (failures.length > 0 && !stopping) {
      log(failures.join('\n\n'));
      clearInterval(watchdog);
      void shutdown(1);
    }
  }, 500);
}

void main();
