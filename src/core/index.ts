// The pure core: from a GlooHA and the observed install to the objects glooha applies, the Helm
// values, and findings. No I/O beyond reading the bundled templates once.
export { desired } from '../products/gloo/desired.js';
export {
  installNamespaceOf,
  type Desired,
  type DesiredResult,
  type ComponentPlan,
} from '../controller/product.js';
export { helmValues, helmValuesNotes, type HelmValues } from '../products/gloo/helm-values.js';
export { helmValuesYaml } from './helm-values-yaml.js';
export {
  chartInstall,
  chartLabels,
  kebabCase,
  proxyDeploymentName,
  type ObservedInstall,
} from '../products/gloo/install.js';
export type { ObservedDeployment, ObservedContainer, ObservedHPA, ObservedPDB } from './observed.js';
export { ownedSelector, ownerLabels, names, type Owner } from './ownership.js';
export {
  formatFinding,
  type Finding,
  type FindingCode,
  type WarningCode,
  type ProblemCode,
} from './findings.js';
export { LEASE_RULES, leaderElectionEnv } from '../products/gloo/leader-election.js';
export { TemplateError, type KubeObject } from './templates.js';
