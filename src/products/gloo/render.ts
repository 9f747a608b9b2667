// `glooha render` for GlooHAs (src/cli/render.ts hands it the stream's GlooHAs): validates them like
// the API server would, runs the core against an observed install (from --install, --merge-into, or
// Gloo's chart layout) and prints YAML. Everything it needs from the outside world comes through
// `CliIO`, so tests run it in-process. Registered in cli.ts.

import { stringifyKubeYaml } from '../../api/kube-yaml.js';
import { validateGlooHA } from './validate.js';
import type { GlooHA } from './types.js';
import { installNamespaceOf } from '../../controller/product.js';
import { desired, upgradeTarget } from './desired.js';
import { formatFinding } from '../../core/findings.js';
import { GLOO_VALUES_NOTES, helmValuesNotes } from './helm-values.js';
import { helmValuesYaml } from '../../core/helm-values-yaml.js';
import { chartInstall, type ObservedInstall } from './install.js';
import type { KubeObject } from '../../core/templates.js';
import { formatError, parseDocuments, parseObjects, readOrFail, validateObjects } from '../../cli/input.js';
import { InvalidInput, type CliIO } from '../../cli/io.js';
import type { RenderContext } from '../../cli/render.js';
import { parseObservedInstall } from './install-file.js';
import { mergePatches } from '../../cli/merge.js';
import { observeInstall } from './observe.js';
import { KIND } from './api.js';

/** The GlooHAs of a YAML stream, validated and defaulted (InvalidInput lists every problem). */
export const parseGlooHAs = (text: string, source: string, namespace: string): GlooHA[] =>
  parseObjects(text, source, namespace, KIND, validateGlooHA);

/**
 * Validates the stream's GlooHAs and reads --install or --merge-into (InvalidInput lists every
 * problem), then returns what renders each GlooHA, writing its documents as they are made.
 */
export async function prepareGlooRender(
  entries: readonly { value: unknown; index: number }[],
  ctx: RenderContext,
): Promise<() => Promise<void>> {
  const { args, io } = ctx;
  const install = typeof args.flags.install === 'string' ? args.flags.install : undefined;
  const mergeInto = typeof args.flags['merge-into'] === 'string' ? args.flags['merge-into'] : undefined;
  const total = Math.max(...entries.map((e) => e.index + 1));
  const glooHAs = validateObjects(
    entries,
    total,
    ctx.source,
    args.namespace ?? 'default',
    KIND,
    validateGlooHA,
  );
  const observedInstall = install ? await readInstall(io, install) : undefined;
  const manifests = mergeInto ? await readManifests(io, mergeInto) : undefined;
  return () => renderGlooHAs(glooHAs, ctx, observedInstall, manifests);
}

async function renderGlooHAs(
  glooHAs: GlooHA[],
  ctx: RenderContext,
  install: ObservedInstall | undefined,
  manifests: KubeObject[] | undefined,
): Promise<void> {
  const { args, emit, stderr } = ctx;
  const owned: KubeObject[] = [];
  const patches: KubeObject[] = [];
  for (const g of glooHAs) {
    const observed =
      install ??
      (manifests && observeManifests(manifests, g)) ??
      chartInstall(installNamespaceOf(g), g.spec?.gatewayProxies ?? {});
    const result = desired(g, observed);
    if (!result.ok) throw new InvalidInput(ctx.source, result.errors.map(formatError)); // unreachable: validated above
    const d = result.desired;
    const who = `${d.owner.namespace}/${d.owner.name}`;
    if (!d.owner.uid && args.output !== 'helm-values') {
      stderr(
        `note: ${who}: no metadata.uid (offline render), so owned objects carry no ownerReferences; the operator adds them`,
      );
    }
    for (const w of d.warnings) stderr(`warning: ${who}: ${formatFinding(w)}`);
    for (const p of d.problems) stderr(`problem: ${who}: ${formatFinding(p)}`);
    if (args.output !== 'manifests') {
      for (const n of helmValuesNotes(g)) stderr(`note: ${who}: ${formatFinding(n)}`);
    }
    if (args.output !== 'helm-values' && manifests) {
      owned.push(...d.owned);
      patches.push(...d.patches);
    } else if (args.output !== 'helm-values') {
      for (const o of d.owned) await emit(yamlDoc(o));
      for (const o of d.patches) await emit(yamlDoc(o, patchComment(o)));
    }
    if (args.output !== 'manifests') {
      // Saved by the user, not exported to a ConfigMap: the header's command upgrades from the file.
      const { configMap: _exported, ...target } = upgradeTarget(g, installNamespaceOf(g), observed);
      await emit(
        helmValuesYaml(d.helmValues, { source: `${g.kind} ${who}`, target, notes: GLOO_VALUES_NOTES }),
      );
    }
  }
  if (manifests && args.output !== 'helm-values') {
    const { merged, unmatched } = mergePatches(manifests, patches);
    for (const p of unmatched)
      stderr(
        `warning: ${p.kind} ${p.metadata.namespace}/${p.metadata.name} is not in ${String(args.flags['merge-into'])}: its patch is left out`,
      );
    for (const o of [...merged, ...owned]) await emit(yamlDoc(o));
  }
}

/** The objects of a manifest stream (--merge-into); a document without a namespace is left as it is. */
async function readManifests(io: CliIO, path: string): Promise<KubeObject[]> {
  const { values, problems } = parseDocuments(await readOrFail(io, path, KIND));
  const objects = values.filter((v): v is KubeObject => typeof v === 'object' && v !== null);
  objects.forEach((o, i) => {
    if (typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
      problems.push(`document ${i + 1}: not a Kubernetes object (kind and metadata.name are needed)`);
  });
  if (problems.length > 0) throw new InvalidInput(path, problems);
  return objects;
}

/** The install the GlooHA targets, read from manifests the way the operator reads it from the cluster. */
function observeManifests(objects: KubeObject[], g: GlooHA): ObservedInstall {
  const namespace = installNamespaceOf(g);
  // `helm template` without -n leaves some objects without a namespace: they would land in the one
  // given to `kubectl apply -n`, so they count as the install's.
  const inNs = objects.filter((o) => (o.metadata.namespace ?? namespace) === namespace);
  const ofKind = <T>(kind: string) =>
    inNs.filter((o) => o.kind === kind).map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }) as T);
  return observeInstall(
    {
      namespace,
      deployments: ofKind('Deployment'),
      hpas: ofKind('HorizontalPodAutoscaler'),
      pdbs: ofKind('PodDisruptionBudget'),
    },
    { name: g.metadata.name, namespace: g.metadata.namespace ?? namespace, kind: g.kind },
    g.spec?.target,
  );
}

async function readInstall(io: CliIO, path: string): Promise<ObservedInstall> {
  const { values, problems } = parseDocuments(await readOrFail(io, path, KIND));
  if (problems.length > 0) throw new InvalidInput(path, problems);
  if (values[0] === undefined) throw new InvalidInput(path, ['no YAML document']);
  const parsed = parseObservedInstall(values[0]);
  if (!parsed.ok) throw new InvalidInput(path, parsed.errors.map(formatError));
  return parsed.value;
}

export function patchComment(o: KubeObject): string {
  return ` Partial ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: server-side apply only (kubectl apply --server-side --field-manager=glooha-operator); the rest of the object stays Helm's.`;
}

export function yamlDoc(obj: KubeObject, comment?: string): string {
  return stringifyKubeYaml(obj, { comment, blockQuote: 'literal' });
}
