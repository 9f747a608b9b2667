// Runs test/support/yaml-cost.ts in a fresh process per input, from a bundle of it built once per test
// file (scripts/bundle.mjs, as the image and bin/glooha.js bundle the source; ~1 s). Through tsx each
// process spent ~2 s of CPU transpiling before its run, against ~0.25 s to load the bundle: 26 inputs
// in kube-yaml-bounds, on two Node versions in CI. The figures measured are the run's own (yaml-cost.ts
// takes its baseline after loading), so how the script was loaded does not enter them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundle } from '../../scripts/bundle.mjs';

const run = promisify(execFile);

/** What yaml-cost.ts prints for one input. */
export interface YamlCost {
  kind: string;
  bytes: number;
  ms: number;
  cpuMs: number;
  peakBytes: number;
  code: number;
  stdoutBytes: number;
  stderrBytes: number;
  outcome: string;
}

let script: Promise<string> | undefined;

/** The bundled yaml-cost.ts, built on first use into a temp directory removed when this process exits. */
function yamlCostScript(): Promise<string> {
  script ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glooha-yaml-cost-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    return (await bundle(dir, 'test/support/yaml-cost.ts')).file;
  })();
  return script;
}

/**
 * Measures `glooha render` on one input (a hostile kind of test/support/hostile-yaml.ts, or `file:PATH`)
 * in its own process. The young generation is held at 1 MiB semi-spaces so that the peak is what the
 * command keeps: with Node 22+'s default (semi-spaces grown up to 16 MiB under a high allocation rate)
 * it also holds garbage V8 has not collected yet, and varies run to run (31–47 MB for most-documents
 * against 15–18 MB held here, Node 26 on a loaded 2-core machine).
 */
export async function measureYamlCost(input: string): Promise<YamlCost> {
  const { stdout } = await run(process.execPath, ['--max-semi-space-size=1', await yamlCostScript(), input], {
    encoding: 'utf8',
    // CPU time is bounded, not wall time: on a loaded machine a child waits its turn.
    timeout: 240_000,
  });
  return JSON.parse(stdout) as YamlCost;
}
