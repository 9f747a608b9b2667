// Vitest global setup for the integration project: one control plane per test run, shared by all
// files (each test makes its own namespace). Its coordinates reach the test workers through
// `provide('controlPlane', ...)`; test/support/cluster.ts reads them.
import type { TestProject } from 'vitest/node';
import { startControlPlane, type ControlPlane, type ControlPlaneInfo } from './controlplane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    controlPlane: ControlPlaneInfo;
  }
}

let plane: ControlPlane | undefined;

function stopOnSignal(signal: NodeJS.Signals) {
  // Vitest may be interrupted before teardown runs; stop the processes ourselves, then exit.
  void (plane?.stop() ?? Promise.resolve()).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
}

export async function setup(project: TestProject): Promise<void> {
  const log = (line: string) => process.stderr.write(`[testenv] ${line}\n`);
  plane = await startControlPlane({ log });
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const { failures: _f, stop: _s, ...info } = plane;
  project.provide('controlPlane', info);
}

export async function teardown(): Promise<void> {
  if (!plane) return;
  const failures = plane.failures();
  await plane.stop();
  plane = undefined;
  // A control-plane process that died mid-run makes every later result suspect: fail the run.
  if (failures.length > 0)
    throw new Error(`the test control plane failed during the run:\n${failures.join('\n\n')}`);
}
