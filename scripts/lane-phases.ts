// The order of scripts/test-lanes.ts's two phases, apart from what a lane runs: phase 1's lanes side by
// side; phase 2's once phase 1's CPU-bound lanes have ended. A phase-1 lane that mostly waits (`waits`:
// the products lane, for its controller's build on a cold machine) runs on beside phase 2, since the
// timing lanes there only need to be kept from CPU-bound neighbours.

export interface PhasedLane {
  /** Mostly waiting rather than computing: the second phase does not wait for it. */
  waits?: boolean;
}

/**
 * Runs both phases and resolves with every lane's result, phase 1's first, in order. `stream`: whether
 * the lane runs with no other lane beside it for its whole run (its output can be streamed).
 */
export async function runPhases<L extends PhasedLane, R>(
  phase1: readonly L[],
  phase2: readonly L[],
  run: (lane: L, stream: boolean) => Promise<R>,
): Promise<R[]> {
  const overlap = phase2.length > 0 && phase1.some((l) => l.waits);
  const first = phase1.map((lane) => ({ lane, result: run(lane, phase1.length === 1 && !overlap) }));
  await Promise.all(first.filter((r) => !r.lane.waits).map((r) => r.result));
  const second = phase2.map((lane) => run(lane, phase2.length === 1 && !overlap));
  return Promise.all([...first.map((r) => r.result), ...second]);
}
