// The syntax of Kubernetes names (k8s.io/apimachinery/pkg/util/validation), for schemas and the
// validation of an object's metadata.

/**
 * A Kubernetes qualified name (label key, topologyKey): an optional DNS-subdomain prefix and '/', then
 * a name of at most 63 characters (k8s.io/apimachinery validation.IsQualifiedName). The prefix's own
 * 253-character limit is a CEL rule (RE2 cannot count it alongside the name).
 */
export const QUALIFIED_NAME =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
/** Longest qualified name: a 253-character prefix, '/', a 63-character name. */
export const QUALIFIED_NAME_MAX_LENGTH = 317;
