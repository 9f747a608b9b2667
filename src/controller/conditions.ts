// metav1.Condition bookkeeping: lastTransitionTime moves only when the status flips, so a condition
// rewritten with the same status (every reconcile) leaves the object byte-for-byte unchanged and
// causes no status write.
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

export function setCondition(existing: readonly Condition[], next: ConditionInput, now: Date): Condition[] {
  const previous = existing.find((c) => c.type === next.type);
  const lastTransitionTime =
    previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString();
  const merged: Condition = { ...next, lastTransitionTime };
  return previous ? existing.map((c) => (c.type === next.type ? merged : c)) : [...existing, merged];
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
