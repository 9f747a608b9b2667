// Which cluster-scoped kinds to watch, decided from RBAC's answers (access reviews): the pure half of
// cluster-reads.ts, free of I/O. RBAC changes while the operator runs — a ClusterRoleBinding applied
// after it started, or removed — so the question is asked again, and each answer moves a kind in or
// out of the watched set. An answer that could not be had (the review failed: a 5xx, a timeout, the
// review itself forbidden) proves nothing either way: the kind keeps its previous decision, so a
// transient error never starts or stops a watch.
import { errorStatus } from '../kube/client.js';

/** One verb's answer: allowed or not, or the review failed (with why). */
export type VerbAnswer = boolean | { error: string };

/** One kind's answer: may it be listed AND watched, or could that not be told. */
export type ReadAnswer = { readable: boolean } | { error: string };

/**
 * Both verbs allowed: readable. One definitely denied: not readable, whatever the other's review did
 * (a watch cannot work without its list). Otherwise a failed review leaves it unknown.
 */
export function readAnswer(verbs: readonly VerbAnswer[]): ReadAnswer {
  if (verbs.some((v) => v === false)) return { readable: false };
  const failed = verbs.find((v): v is { error: string } => typeof v === 'object');
  return failed ? { error: failed.error } : { readable: true };
}

export interface ReadDecision {
  /** The kinds to watch from now on. */
  readable: string[];
  /** Newly readable: start their watches. */
  start: string[];
  /** No longer readable: stop their watches and drop their caches. */
  stop: string[];
  /** Not answered: each keeps what it had (`readable`), with the review's error. */
  kept: { kind: string; readable: boolean; reason: string }[];
}

/** The new watched set, from the current one and an answer per kind (a kind with no answer is kept). */
export function decideReads(
  current: ReadonlySet<string>,
  kinds: readonly string[],
  answers: ReadonlyMap<string, ReadAnswer>,
): ReadDecision {
  const decision: ReadDecision = { readable: [], start: [], stop: [], kept: [] };
  for (const kind of kinds) {
    const was = current.has(kind);
    const answer = answers.get(kind) ?? { error: 'not asked' };
    const now = 'readable' in answer ? answer.readable : was;
    if ('error' in answer) decision.kept.push({ kind, readable: was, reason: answer.error });
    if (now) decision.readable.push(kind);
    if (now && !was) decision.start.push(kind);
    if (!now && was) decision.stop.push(kind);
  }
  return decision;
}

/**
 * A list or watch refused by RBAC (403 Forbidden): the permission may have been revoked, so it is
 * asked again at once instead of at the next period.
 */
export function forbidden(err: unknown): boolean {
  return errorStatus(err) === 403;
}
