// Access reviews: "may this client (or `subject`) do `verb` on `resource`, in `namespace` or at cluster
// scope?", answered by the API server's own authorizers (RBAC, webhooks) instead of guessed from the
// Roles the client can read. A review stores nothing — a question, not a write — so it goes out
// unfenced: a standby asks before it leads (the chart's fencing policy lets reviews through too).
import type { KubeClient } from './client.js';
import { resourcePath } from './paths.js';

export interface Access {
  /** API group; '' for the core group. */
  group: string;
  /** Plural resource, optionally `resource/subresource`. */
  resource: string;
  verb: string;
  /** Omitted: at cluster scope (all namespaces). */
  namespace?: string;
}

/** Asks one access review: a SelfSubjectAccessReview, or a SubjectAccessReview for `subject`. */
export async function accessAllowed(
  client: KubeClient,
  access: Access,
  subject?: { user: string; groups: string[] },
): Promise<boolean> {
  const plural = subject ? 'subjectaccessreviews' : 'selfsubjectaccessreviews';
  const [resource, subresource] = access.resource.split('/');
  const body = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: subject ? 'SubjectAccessReview' : 'SelfSubjectAccessReview',
    spec: {
      ...subject,
      resourceAttributes: {
        group: access.group,
        resource,
        ...(subresource ? { subresource } : {}),
        verb: access.verb,
        ...(access.namespace ? { namespace: access.namespace } : {}),
      },
    },
  };
  const path = resourcePath({ group: 'authorization.k8s.io', version: 'v1', plural });
  const res = await client.request<{ status?: { allowed?: boolean } }>('POST', path, { body, fenced: false });
  return res.status?.allowed === true;
}
