// Where a resource lives on the API server: `/apis/g/v[/namespaces/ns]/plural[/name[/subresource]]`
// (or `/api/v/...` for the core group).

export interface ResourceRef {
  /** API group; '' for the core group (ConfigMaps, Pods, ...). */
  group: string;
  version: string;
  /** Lower-case plural resource name, e.g. 'deployments'. */
  plural: string;
}

export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

export function resourcePath(
  ref: ResourceRef,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  let path = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${ref.plural}`;
  if (name) path += `/${encodeURIComponent(name)}`;
  if (name && subresource) path += `/${subresource}`;
  return path;
}
