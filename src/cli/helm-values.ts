// `glooha helm-values NAME`: prints the values overlay the operator keeps for a GlooHA (its
// <name>-helm-values ConfigMap) or a KgatewayHA (<name>-kgateway-helm-values), key values.yaml, for
// the product's `helm upgrade -f`. The ConfigMap's name is the one the operator reports in status.
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, type HelmValuesArgs } from './args.js';
import { ClusterError, explain, type Cluster } from './cluster.js';
import { findObject } from './kinds.js';
import type { CliIO } from './render.js';

/** The ConfigMap key the operator writes (src/templates/helm-values-configmap.yaml.hbs). */
export const VALUES_KEY = 'values.yaml';

/** The name the operator gives the ConfigMap when status does not say it yet. */
const DEFAULT_SUFFIX = { GlooHA: '-helm-values', KgatewayHA: '-kgateway-helm-values' } as const;

export async function helmValuesCommand(args: HelmValuesArgs, io: CliIO, cluster: Cluster): Promise<number> {
  const ns = args.namespace ?? cluster.namespace;
  const { kind, object } = await findObject(cluster, args.name, ns, args.kind);
  const id = `${kind} ${ns}/${args.name}`;
  const cmName = object.status?.helmValuesConfigMap ?? `${args.name}${DEFAULT_SUFFIX[kind]}`;
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
