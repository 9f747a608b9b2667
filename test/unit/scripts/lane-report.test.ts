// The closing lines of npm test's lanes: a failure is named, with its lane, in the run's last lines
// (CI shows a run's tail), and the exit code says failed for anything short of every lane passing.
import { describe, expect, it } from 'vitest';
import { closingReport, laneFailures, runPassed, type LaneOutcome } from '../../../scripts/lane-report.js';

const passed = (name: string, n: number): LaneOutcome => ({
  name,
  code: 0,
  seconds: 10,
  out: `lots of output\n\nvitest: ${n} passed, 0 failed, 0 skipped\n`,
});

describe('the closing report of the lanes', () => {
  it('names each failed test with its lane after the lanes line, and sums the counts', () => {
    const failing: LaneOutcome = {
      name: 'integration: timing',
      code: 1,
      seconds: 265,
      out:
        ' FAIL  test/integration/fencing.test.ts > fencing > x\nAssertionError: long\n' +
        '\nvitest: 40 passed, 1 failed, 0 skipped\n' +
        'vitest: FAILED test/integration/fencing.test.ts > fencing > a write after the lease: expected 1 to be 0\n',
    };
    const report = closingReport([passed('unit', 1400), failing]);
    expect(report).toBe(
      '\nlanes: unit 10s, integration: timing 265s\n' +
        'failed:\n' +
        '  integration: timing: test/integration/fencing.test.ts > fencing > a write after the lease: expected 1 to be 0\n' +
        'vitest: 1440 passed, 1 failed, 0 skipped (all lanes)\n',
    );
    expect(runPassed([passed('unit', 1400), failing])).toBe(false);
  });

  it('says nothing failed, and passes, when every lane passed', () => {
    const lanes = [passed('unit', 3), passed('charts', 4)];
    expect(closingReport(lanes)).not.toContain('failed:');
    expect(runPassed(lanes)).toBe(true);
  });

  it('names a failed build, a non-zero exit with no failed test, and a lane with no summary', () => {
    const build: LaneOutcome = {
      name: 'products',
      code: 1,
      seconds: 5,
      out: 'go: error\n---- lane "products": kgateway v2.4.2\'s controller FAILED (exit 2) in 5s\n',
    };
    const crashed: LaneOutcome = { name: 'charts', code: 1, seconds: 3, out: 'Error: config\n' };
    const exitOnly: LaneOutcome = { ...passed('unit', 3), code: 1 };
    const silent: LaneOutcome = { name: 'integration', code: 0, seconds: 3, out: 'no summary\n' };
    expect([build, crashed, exitOnly, silent].flatMap(laneFailures)).toEqual([
      "  products: build: kgateway v2.4.2's controller failed",
      "  charts: exited 1 without vitest's summary (see the lane's output above)",
      "  unit: vitest exited 1 with no failed test (see the lane's output above)",
      '  integration: printed no summary',
    ]);
    expect(runPassed([silent])).toBe(false);
    expect(runPassed([exitOnly])).toBe(false);
  });
});
