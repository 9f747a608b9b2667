// What the operator's Helm chart says of kgateway (rendered into its generated part by
// scripts/gen-chart-parts.ts): the alert on its controller's leader Lease and the install notes' example.
import type { ChartFacts } from '../../controller/product.js';

export const KGATEWAY_CHART: ChartFacts = {
  leaderLeaseAlert: {
    // The name since the alert's first release: users route and silence by it.
    name: 'GlooHAKgatewayLeaderLeaseStale',
    summary: 'kgateway has no leader in the install of KgatewayHA {{ $labels.namespace }}/{{ $labels.name }}',
    description:
      'The kgateway-envoy leader Lease of the install KgatewayHA {{ $labels.namespace }}/{{ $labels.name }} manages has not been renewed for longer than its lease duration: no kgateway controller replica leads, so Gateway statuses are not written and the deployer does not render proxies. Check the kgateway controller pods.',
  },
  notes: [
    "Make a kgateway install highly available: apply a KgatewayHA in kgateway's namespace (see",
    'examples/kgatewayha.yaml in the repository), then',
    '  kubectl -n kgateway-system wait kgatewayha --all --for=condition=Ready --timeout=5m',
    '  kubectl -n kgateway-system get kgatewayhas',
  ],
};
