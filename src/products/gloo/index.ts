// Gloo as a product: a GlooHA keeps a Gloo install (its gloo, discovery and gateway-proxy
// Deployments, labelled app=gloo by Gloo's chart) available.
import type { KubernetesObject, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { GLOO_API, GLOO_CONTAINER, GLOO_LEASE_NAME, KIND, PLURAL } from './api.js';
import { GROUP } from '../../api/constants.js';
import type { GlooHA } from './types.js';
import { durationSeconds } from '../../api/duration.js';
import { controllerRuntimeHolderPod } from '../../core/dead-holder.js';
import { ownerOf } from '../../core/ownership.js';
import { TARGET_REQUEUE_MS } from '../../controller/plan.js';
import { installNamespaceOf, type Product } from '../../controller/product.js';
import { GLOO_CHART } from './chart.js';
import { desired } from './desired.js';
import { inTarget, observeInstall } from './observe.js';

/** The GlooHA controller's name, in metrics and logs. */
export const CONTROLLER_NAME = 'glooha';

/** `computeDesired` is the pure core's desired(); a parameter only so tests can feed the guards. */
export const glooProduct = (computeDesired: typeof desired = desired): Product => ({
  api: GLOO_API,
  kind: KIND,
  plural: PLURAL,
  controllerName: CONTROLLER_NAME,
  chart: GLOO_CHART,
  // Releases before owner-kind labels were symmetric left a GlooHA's objects without one.
  ownsUnlabelledObjects: true,
  crdRequired: true,
  // Gloo's chart labels everything it creates app=gloo: watch that, not every Deployment.
  deploymentSelector: 'app=gloo',
  // No cover selector: every HPA and PDB of the namespace. What covers a Deployment is what targets
  // it (scaleTargetRef) or selects its pods, and a user's `kubectl autoscale` or `kubectl create pdb`
  // carries no label of the chart's (the observation matches them).
  leaseName: GLOO_LEASE_NAME,
  // The gloo Deployment's pods (Gloo's chart labels them gloo=gloo). Gloo's elector builds
  // controller-runtime's resource lock, whose identity is `<hostname>_<uuid>`: the pod's name.
  leaderPods: {
    labelSelector: 'gloo=gloo',
    podName: controllerRuntimeHolderPod,
    container: GLOO_CONTAINER,
    // Gloo's own default (LEADER_ELECTION_RETRY_PERIOD) and GlooHA's; a GlooHA may set another, which
    // the operator writes into that env var.
    retryPeriodSeconds: 2,
    retryPeriodSecondsOf: (g) => {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
      const retry = (g as GlooHA).spec?.gloo?.leaderElection?.retryPeriod;
      return retry === undefined ? undefined : durationSeconds(retry);
    },
  },
  relatedKinds: [],
  // patch: the finalizer is set by a merge patch of the GlooHA's metadata.finalizers (a custom resource
  // has no finalizers subresource; gloohas/finalizers only gates blockOwnerDeletion on ownerReferences).
  permissions: [
    { group: GROUP, resource: PLURAL, verbs: ['get', 'list', 'watch', 'patch'] },
    { group: GROUP, resource: `${PLURAL}/status`, verbs: ['get', 'update', 'patch'] },
    { group: GROUP, resource: `${PLURAL}/finalizers`, verbs: ['update'] },
  ],
  rivalFix: 'give them different spec.target selectors',
  selfConflictFix: 'give each gateway proxy its own Deployment (check the keys and deploymentName)',
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
  inTarget: (g, obj) => inTarget(obj, (g as GlooHA).spec?.target),
  desired(g, s, ownedOf) {
    const ns = installNamespaceOf(g);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
    const target = (g as GlooHA).spec?.target;
    const hpas = [...s.hpas, ...(ownedOf('HorizontalPodAutoscaler') as V2HorizontalPodAutoscaler[])];
    const pdbs = [...s.pdbs, ...ownedOf('PodDisruptionBudget')];
    const observed = observeInstall(
      {
        namespace: ns,
        deployments: s.deployments.filter((d) => inTarget(d as KubernetesObject, target)),
        hpas,
        pdbs,
      },
      ownerOf(g),
      target,
    );
    if (!observed.gloo) {
      return {
        ok: false,
        stall: {
          reason: 'TargetNotFound',
          message: `no Gloo install found in namespace ${ns}: no Deployment labelled app=gloo,gloo=gloo${target?.selector || target?.helmRelease ? ' matching spec.target' : ''}. Install Gloo there or fix spec.target; the operator waits for it`,
        },
        requeueAfterMs: TARGET_REQUEUE_MS,
      };
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- HAObject to this product's kind: the rule misreads the narrowing (its fix does not compile)
    return computeDesired(g as GlooHA, observed);
  },
});

export const GLOO: Product = glooProduct();
