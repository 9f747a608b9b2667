// What the operator's Helm chart says of Gloo (rendered into its generated part by
// scripts/gen-chart-parts.ts): the alert on Gloo's leader Lease and the install notes' example.
import type { ChartFacts } from '../../controller/product.js';

export const GLOO_CHART: ChartFacts = {
  leaderLeaseAlert: {
    // The name since the alert's first release: users route and silence by it.
    name: 'GlooHAGlooLeaderLeaseStale',
    summary: 'Gloo has no leader in the install of GlooHA {{ $labels.namespace }}/{{ $labels.name }}',
    description:
      'The gloo leader Lease of the install GlooHA {{ $labels.namespace }}/{{ $labels.name }} manages has not been renewed for longer than its lease duration: no gloo replica is writing statuses. Check the gloo pods.',
  },
  notes: [
    "Make a Gloo install highly available: apply a GlooHA in Gloo's namespace (see examples/glooha.yaml in",
    'the repository), then',
    '  kubectl -n gloo-system wait glooha --all --for=condition=Ready --timeout=2m',
    '  kubectl -n gloo-system get gloohas',
  ],
};
