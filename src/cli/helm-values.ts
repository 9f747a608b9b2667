// `glooha helm-values NAME`: prints the values overlay the operator keeps for an object (its
// ConfigMap, <name><the product's suffix>: <name>-helm-values for a GlooHA), key values.yaml, for the
// product's `helm upgrade -f`. The ConfigMap's name is the one the operator reports in status.
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, type HelmValuesArgs } from './args.js';
import { ClusterError, explain, type Cluster } from './cluster.js';
import { findObject } from './kinds.js';
import type { CliIO } from './io.js';
import { productOfKind } from './registry.js';

/** The ConfigMap key the operator writes (src/templates/helm-values-configmap.yaml.hbs). */
export const VALUES_KEY = 'values.yaml';

export async function helmValuesCommand(args: HelmValuesArgs, io: CliIO, cluster: Cluster): Promise<number> {
  const ns = args.namespace ?? cluster.namespace;
  const { kind, object } = await findObject(cluster, args.name, ns, args.kind);
  const id = `${kind} ${ns}/${args.name}`;
  // Until status says it, the name the operator gives the ConfigMap.
  const cmName =
    object.status?.helmValuesConfigMap ?? `${args.name}${productOfKind(kind)?.helmValuesSuffix ?? ''}`;
  let cm: { data?: Record<string, string> };
  try {
    cm = await cluster.client.request(
      'GET',
      resourcePath({ group: '', version: 'v1', plural: 'configmaps' }, ns, cmName),
    );
  } catch (err) {
    if (errorStatus(err) === 404) {
      throw new ClusterError(
        `ConfigMap ${ns}/${cmName} not found: the operator has not reconciled ${id} yet (glooha status ${args.name} -n ${ns})`,
        EXIT.NOT_FOUND,
      );
    }
    explain(err, `get ConfigMap ${ns}/${cmName}`, cluster.client);
  }
  const values = cm.data?.[VALUES_KEY];
  if (values === undefined)
    throw new ClusterError(`ConfigMap ${ns}/${cmName} has no ${VALUES_KEY} key`, EXIT.NOT_FOUND);
  await io.stdout(values.endsWith('\n') ? values : `${values}\n`);
  return EXIT.OK;
}
