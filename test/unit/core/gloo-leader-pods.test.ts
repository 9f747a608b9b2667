// Gloo's elected pods as the operator's handover of Lease gloo finds them (docs/leader-election.md,
// "The managed product's leader"): the gloo Deployment's pods, and the pod a holder identity names.
import { describe, expect, it } from 'vitest';
import { selectionMatcher } from '../../../src/runtime/selection.js';
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
