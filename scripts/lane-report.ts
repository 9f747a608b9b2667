// The closing lines of scripts/test-lanes.ts, after every lane: each lane's time, what failed in which
// lane (the reporter's `vitest: FAILED` lines, a failed build, a lane with no summary), and the summed
// counts. They come last because side-by-side lanes print their output whole as each ends, and CI and
// people read a run's tail: a failure must be named there, not only somewhere in thousands of lines.

export interface LaneOutcome {
  name: string;
  code: number;
  seconds: number;
  /** The lane's whole output: its builds' and vitest's. */
  out: string;
}

const SUMMARY = /^vitest: (\d+) passed, (\d+) failed, (\d+) skipped$/m;
const FAILED = /^vitest: FAILED (.*)$/gm;
const BUILD_FAILED = /^---- lane "[^"]*": (.*) FAILED \(exit \d+\) in \d+s$/gm;

/** passed, failed, skipped from the lane's vitest summary line, or undefined if it printed none. */
export function laneCounts(out: string): [number, number, number] | undefined {
  const m = SUMMARY.exec(out);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** What failed in one lane, a line each; empty when it passed. */
export function laneFailures(lane: LaneOutcome): string[] {
  const tests = [...lane.out.matchAll(FAILED)].map((m) => m[1]!);
  const builds = [...lane.out.matchAll(BUILD_FAILED)].map((m) => `build: ${m[1]!} failed`);
  const found = [...builds, ...tests];
  if (found.length === 0 && lane.code !== 0)
    found.push(
      laneCounts(lane.out)
        ? `vitest exited ${lane.code} with no failed test (see the lane's output above)`
        : `exited ${lane.code} without vitest's summary (see the lane's output above)`,
    );
  else if (found.length === 0 && !laneCounts(lane.out)) found.push('printed no summary');
  return found.map((f) => `  ${lane.name}: ${f}`);
}

export function closingReport(lanes: readonly LaneOutcome[]): string {
  const sum = lanes.reduce<[number, number, number]>(
    (acc, l) => {
      const c = laneCounts(l.out);
      return c ? [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]] : acc;
    },
    [0, 0, 0],
  );
  const failures = lanes.flatMap(laneFailures);
  return (
    `\nlanes: ${lanes.map((l) => `${l.name} ${l.seconds}s`).join(', ')}\n` +
    (failures.length > 0 ? `failed:\n${failures.join('\n')}\n` : '') +
    `vitest: ${sum[0]} passed, ${sum[1]} failed, ${sum[2]} skipped (all lanes)\n`
  );
}

/** The exit code of the whole run: 0 only if every lane exited 0 and printed its summary. */
export function runPassed(lanes: readonly LaneOutcome[]): boolean {
  return lanes.every((l) => l.code === 0 && laneCounts(l.out) !== undefined);
}
