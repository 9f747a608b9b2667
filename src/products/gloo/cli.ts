// Gloo in the `glooha` CLI (src/cli/product.ts): how status, check and helm-values read a Gloo
// install and its GlooHAs, and `glooha render`, which prints what the operator would apply for a GlooHA.
import { UsageError } from '../../cli/flags.js';
import type { CliProduct } from '../../cli/product.js';
import type { ProductRender } from '../../cli/render.js';
import { GLOO_API, GLOO_LEASE_NAME } from './api.js';
import { GLOO_HELM_CHART } from './helm-values.js';
import { prepareGlooRender } from './render.js';

const RENDER: ProductRender = {
  inProse: `the objects glooha owns, the partial server-side-apply bodies for Gloo's Deployments and
    HPAs, and the values overlay for Gloo's Helm chart, against --install, --merge-into, or an install
    laid out the way Gloo's chart names things`,
  flags: {
    install: { type: 'string', arg: 'FILE', file: true },
    'merge-into': { type: 'string', arg: 'FILE', file: true },
  },
  synopsisFlags: '[--install FILE | --merge-into FILE]',
  flagsUsage: `      --install FILE    GlooHA only: YAML describing the observed install (the ObservedInstall
                        shape: namespace, gloo, discovery, gatewayProxies, hpas, pdbs); default: an
                        install laid out the way Gloo's chart names things (Deployments gloo,
                        discovery and the kebab-case of each gatewayProxies key, ServiceAccount gloo,
                        no HPAs or PDBs)
      --merge-into FILE GlooHA only: the install's own manifests (e.g. helm template of Gloo's
                        chart): glooha reads the install from them and prints them with its partial
                        bodies merged in (as server-side apply merges them), followed by the objects
                        it owns, so that linters (kube-score, Polaris) judge each Deployment as the
                        cluster will hold it; not with --install
`,
  checkFlags(flags) {
    if (flags.install !== undefined && flags['merge-into'] !== undefined)
      throw new UsageError(
        'give --install or --merge-into, not both (--merge-into reads the install from its manifests)',
      );
  },
  examples: `  glooha render -f examples/glooha.yaml
  glooha render -f examples/glooha.yaml -o helm-values > values-glooha.yaml
  kubectl get gha prod -o yaml | glooha render -f - -o all
  helm template gloo gloo/gloo -n gloo-system > gloo.yaml
  glooha render -f examples/glooha.yaml --merge-into gloo.yaml | kube-score score -
`,
  prepare: prepareGlooRender,
};

export const GLOO_CLI: CliProduct = {
  api: GLOO_API,
  name: 'Gloo',
  leaseInProse: `Gloo's Lease ${GLOO_LEASE_NAME}`,
  // Gloo's chart labels its control-plane Deployment so.
  installSelector: 'gloo=gloo',
  statusComponents: [{ key: 'gloo' }, { key: 'discovery' }, { key: 'gatewayProxies', each: true }],
  helmValuesSuffix: '-helm-values',
  helmValuesExample: `  glooha helm-values gloo -n gloo-system > values-glooha.yaml
  helm upgrade gloo ${GLOO_HELM_CHART.reference} --version 1.22.1 -n gloo-system --reset-then-reuse-values -f values-glooha.yaml
`,
  render: RENDER,
  commands: [],
};
