// `glooha render` for KgatewayHAs (src/cli/render.ts hands it the stream's KgatewayHAs): validates them
// like the API server would, runs the core against an install laid out the way kgateway's chart and
// `glooha migrate kgateway` lay it out (chartLayout), and prints the objects the operator would own,
// the partial server-side-apply bodies (the controller's Deployment, each gateway's GatewayParameters)
// and the values overlay for kgateway's chart. Registered in cli.ts.

import { stringifyKubeYaml } from '../../api/kube-yaml.js';
import { MANAGER } from '../../api/constants.js';
import { installNamespaceOf } from '../../controller/product.js';
import { formatFinding } from '../../core/findings.js';
import { helmValuesYaml } from '../../core/helm-values-yaml.js';
import type { KubeObject } from '../../core/templates.js';
import { formatError, validateObjects } from '../../cli/input.js';
import { InvalidInput } from '../../cli/io.js';
import type { ProductRender, RenderContext } from '../../cli/render.js';
import { KGATEWAY_KIND } from './api.js';
import { desiredKgateway, kgatewayValuesNotes, upgradeTarget, type ObservedKgateway } from './desired.js';
import {
  CHART_ENV_AFTER_EXTRA_ENV_BY_LINE,
  CHART_VERSION_LABEL,
  CONTROLLER_CONTAINER,
  DEFAULT_RELEASE,
  GATEWAY_PARAMETERS_GROUP,
  GATEWAY_PARAMETERS_KIND,
  GATEWAY_PARAMETERS_COVER_FIELDS,
  KGATEWAY_VERSION,
  controllerSelectorLabels,
} from './facts.js';
import type { DefaultedKgatewayHA } from './types.js';
import { validateKgatewayHA } from './validate.js';

/**
 * The install a KgatewayHA targets, offline: kgateway's chart (KGATEWAY_VERSION, the line `glooha
 * migrate kgateway` installs) with the controller Deployment `kgateway` of the release, and for each
 * spec.gateways key a Gateway of that name naming GatewayParameters of that name (what migrate
 * prints), not yet rendered by the deployer; no HPAs or PDBs of the chart's.
 */
export function chartLayout(g: DefaultedKgatewayHA): ObservedKgateway {
  const release = g.spec.target?.helmRelease ?? DEFAULT_RELEASE;
  const selector = controllerSelectorLabels(release);
  const gateways = Object.keys(g.spec.gateways ?? {});
  return {
    namespace: installNamespaceOf(g),
    controller: {
      name: DEFAULT_RELEASE,
      labels: { ...selector, [CHART_VERSION_LABEL]: KGATEWAY_VERSION },
      selector: { matchLabels: selector },
      podLabels: { ...selector },
      containers: [
        // KGATEWAY_VERSION's entry after controller.extraEnv.
        {
          name: CONTROLLER_CONTAINER,
          env: [{ name: CHART_ENV_AFTER_EXTRA_ENV_BY_LINE['2.4'], value: '[]' }],
        },
      ],
      replicas: 1,
    },
    hpas: [],
    pdbs: [],
    gatewayApi: true,
    gateways: gateways.map((name) => ({
      name,
      parametersRef: { group: GATEWAY_PARAMETERS_GROUP, kind: GATEWAY_PARAMETERS_KIND, name },
    })),
    gatewayParameters: gateways,
    proxies: [],
    // KGATEWAY_VERSION's GatewayParameters: the deployer renders each proxy's PDB and HPA from them.
    parameterFields: GATEWAY_PARAMETERS_COVER_FIELDS,
  };
}

function prepare(
  entries: readonly { value: unknown; index: number }[],
  ctx: RenderContext,
): Promise<() => Promise<void>> {
  const total = Math.max(...entries.map((e) => e.index + 1));
  const objects = validateObjects(
    entries,
    total,
    ctx.source,
    ctx.args.namespace ?? 'default',
    KGATEWAY_KIND,
    validateKgatewayHA,
  );
  return Promise.resolve(() => renderAll(objects, ctx));
}

async function renderAll(objects: DefaultedKgatewayHA[], ctx: RenderContext): Promise<void> {
  const { args, emit, stderr } = ctx;
  for (const k of objects) {
    const result = desiredKgateway(k, chartLayout(k));
    if (!result.ok)
      throw new InvalidInput(
        ctx.source,
        'errors' in result ? result.errors.map(formatError) : [result.stall.message],
      );
    const d = result.desired;
    const who = `${d.owner.namespace}/${d.owner.name}`;
    if (!d.owner.uid && args.output !== 'helm-values')
      stderr(
        `note: ${who}: no metadata.uid (offline render), so owned objects carry no ownerReferences; the operator adds them`,
      );
    for (const w of d.warnings) stderr(`warning: ${who}: ${formatFinding(w)}`);
    for (const p of d.problems) stderr(`problem: ${who}: ${formatFinding(p)}`);
    if (args.output !== 'helm-values') {
      for (const o of d.owned) await emit(stringifyKubeYaml(o, { blockQuote: 'literal' }));
      for (const o of d.patches) await emit(stringifyKubeYaml(o, { comment: patchComment(o) }));
    }
    if (args.output !== 'manifests') {
      // The installed chart version is not known offline: the header says to add --version.
      const { configMap: _exported, ...target } = upgradeTarget(k, d.installNamespace, undefined);
      await emit(
        helmValuesYaml(d.helmValues, {
          source: `${k.kind} ${who}`,
          target,
          notes: kgatewayValuesNotes(k),
        }),
      );
    }
  }
}

function patchComment(o: KubeObject): string {
  const owner = o.kind === GATEWAY_PARAMETERS_KIND ? 'yours' : "Helm's";
  return ` Partial ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: server-side apply only (kubectl apply --server-side --field-manager=${MANAGER}); the rest of the object stays ${owner}.`;
}

export const KGATEWAY_RENDER: ProductRender = {
  inProse: `the objects glooha owns, the partial server-side-apply bodies for kgateway's controller
    Deployment and each gateway's GatewayParameters, and the values overlay (replicaCount, leader
    election, PDB, scheduling) for kgateway's chart, against an install laid out the way kgateway's
    chart ${KGATEWAY_VERSION} and \`glooha migrate kgateway\` lay it out`,
  examples: `  glooha render -f examples/kgatewayha.yaml
  glooha render -f examples/kgatewayha.yaml -o helm-values > values-kgatewayha.yaml
`,
  prepare,
};
