// Gloo's elected pods as the operator's handover of Lease gloo finds them (docs/leader-election.md,
// "The managed product's leader"): the gloo Deployment's pods, and the pod a holder identity names.
import { describe, expect, it } from 'vitest';
import { selectionMatcher } from '../../../src/runtime/selection.js';
import type { HAObject } from '../../../src/api/types.js';
import { GLOO } from '../../../src/products/gloo/index.js';
import { chartLabels } from '../../../src/products/gloo/install.js';

describe("Gloo's leaderPods", () => {
  const lp = GLOO.leaderPods!;
  const matches = (labels: Record<string, string>) =>
    selectionMatcher({ labelSelector: lp.labelSelector })({ metadata: { labels } });

  it("selects the pods of Gloo's chart's gloo Deployment, not discovery's nor a proxy's", () => {
    expect(matches(chartLabels.gloo)).toBe(true);
    expect(matches(chartLabels.discovery)).toBe(false);
    expect(matches(chartLabels.gatewayProxy('gatewayProxy'))).toBe(false);
  });

  it("maps controller-runtime's `<hostname>_<uuid>` (the pod's name) to the pod, nothing else", () => {
    expect(lp.podName('gloo-5d8f7c9b6-x2k4q_0f6d2a3e-7b1c-4e8f-9a2d-3c4b5e6f7a8b')).toBe(
      'gloo-5d8f7c9b6-x2k4q',
    );
    // Not a pod: a bare hostname, another elector's form, an empty holder.
    expect(lp.podName('gloo-5d8f7c9b6-x2k4q')).toBeUndefined();
    expect(lp.podName('gloo-5d8f7c9b6-x2k4q_external')).toBeUndefined();
    expect(lp.podName('')).toBeUndefined();
  });
});

describe("Gloo's retry period for the LeaderlessGap bound", () => {
  const lp = GLOO.leaderPods!;
  const glooha = (leaderElection?: Record<string, unknown>) =>
    ({
      apiVersion: 'glooha.io/v1alpha1',
      kind: 'GlooHA',
      metadata: { name: 'ha', namespace: 'ns' },
      spec: leaderElection ? { gloo: { leaderElection } } : {},
    }) as unknown as HAObject;

  it("is the GlooHA's spec.gloo.leaderElection.retryPeriod (what the operator writes to Gloo's env)", () => {
    expect(lp.retryPeriodSecondsOf?.(glooha({ retryPeriod: '3s' }))).toBe(3);
    expect(lp.retryPeriodSecondsOf?.(glooha({ retryPeriod: '1500ms' }))).toBe(1.5);
  });

  it("falls back to Gloo's default (2 s) when the GlooHA sets none", () => {
    expect(lp.retryPeriodSecondsOf?.(glooha())).toBeUndefined();
    expect(lp.retryPeriodSeconds).toBe(2);
  });
});
