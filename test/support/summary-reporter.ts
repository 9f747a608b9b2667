// Prints one plain closing line, `vitest: N passed, N failed, N skipped`, after vitest's own summary,
// then a `vitest: FAILED <file> > <test>: <first line of the error>` line per failure (a test, a file
// that failed outside its tests, an unhandled error), so tools that read a run's last lines (CI, and
// scripts/test-lanes.ts, which repeats them after all lanes) see the counts and what failed without
// parsing vitest's layout or scrolling back through lanes run side by side.
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** A failure line's error part: the first line of its message, bounded so one line stays one line. */
export function firstLine(error: SerializedError | undefined): string {
  const text = (error?.message ?? error?.name ?? 'no error message').split('\n')[0]!.trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function failureLines(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
): string[] {
  const lines: string[] = [];
  for (const mod of testModules) {
    for (const error of mod.errors())
      lines.push(`vitest: FAILED ${mod.relativeModuleId}: ${firstLine(error)}`);
    for (const test of mod.children.allTests('failed'))
      lines.push(
        `vitest: FAILED ${mod.relativeModuleId} > ${test.fullName}: ${firstLine(test.result().errors?.[0])}`,
      );
  }
  for (const error of unhandledErrors) lines.push(`vitest: FAILED (unhandled error): ${firstLine(error)}`);
  return lines;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const failures = failureLines(testModules, unhandledErrors);
    process.stdout.write(
      `\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n` +
        failures.map((l) => `${l}\n`).join(''),
    );
  }
}
