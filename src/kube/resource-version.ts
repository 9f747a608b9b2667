// resourceVersions are opaque strings to clients; the API server's are etcd revisions (decimal
// integers), and comparing them is how a client tells a cached copy older than a response it already
// holds. Anything not decimal compares as "not older", so a server with other versions is never
// treated as stale.

/** Whether resourceVersion `a` is older than `b` (both decimal); otherwise false. */
export function isOlderResourceVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) < BigInt(b);
}
