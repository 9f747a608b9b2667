// `glooha helm-values NAME`: prints the values overlay the operator keeps for a GlooHA (its
// <name>-helm-values ConfigMap, key values.yaml; src/products/gloo/helm-values.ts makes it), for
// `helm upgrade -f -`.
import { GROUP, PLURAL, VERSION } from '../api/constants.js';
import type { GlooHA } from '../api/types.js';
import { errorStatus } from '../kube/client.js';
import { resourcePath } from '../kube/paths.js';
import { EXIT, type HelmValuesArgs } from './args.js';
import { ClusterError, explain, type Cluster } from './cluster.js';
import type { CliIO } from './render.js';
import { crdMissing, isObjectNotFound } from './status.js';

/** The ConfigMap key the operator writes (src/templates/helm-values-configmap.yaml.hbs). */
export const VALUES_KEY = 'values.yaml';

export async function helmValuesCommand(args: HelmValuesArgs, io: CliIO, cluster: Cluster): Promise<number> {
  const ns = args.namespace ?? cluster.namespace;
  const id = `${ns}/${args.name}`;
  let g: GlooHA;
  try {
    g = await cluster.client.request<GlooHA>(
      'GET',
      resourcePath({ group: GROUP, version: VERSION, plural: PLURAL }, ns, args.name),
    );
  } catch (err) {
    if (isObjectNotFound(err, args.name)) throw new ClusterError(`GlooHA ${id} not found`, EXIT.NOT_FOUND);
    if (errorStatus(err) === 404) throw crdMissing(`get GlooHA ${id}`);
    explain(err, `get GlooHA ${id}`, cluster.client);
  }
  // The name the operator reports, else the one it always uses.
  const cmName = g.status?.helmValuesConfigMap ?? `${args.name}-helm-values`;
  let cm: { data?: Record<string, string> };
  try {
    cm = await cluster.client.request(
      'GET',
      resourcePath({ group: '', version: 'v1', plural: 'configmaps' }, ns, cmName),
    );
  } catch (err) {
    if (errorStatus(err) === 404) {
      throw new ClusterError(
        `ConfigMap ${ns}/${cmName} not found: the operator has not reconciled GlooHA ${id} yet (glooha status ${args.name} -n ${ns})`,
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
