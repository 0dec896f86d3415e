/**
 * Kubernetes `metav1.Condition` lists, set the way apimachinery's `meta.SetStatusCondition` does:
 * a condition's `lastTransitionTime` moves only when its status flips; reason, message and
 * observedGeneration always take the new values.
 */

/** Condition status values. */
export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** One `metav1.Condition`. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  /** RFC 3339, seconds precision, as metav1.Time serialises. */
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** What a caller sets; the time comes from the list's history and the clock. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/**
 * `conditions` with `update` applied (added or replaced in place).
 * @param now milliseconds since the epoch, used when the status flips or the type is new
 */
export function setCondition(
  conditions: readonly Condition[],
  update: ConditionUpdate,
  now: number,
): Condition[] {
  const time = new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const index = conditions.findIndex((c) => c.type === update.type);
  const previous = conditions[index];
  const next: Condition = {
    ...update,
    lastTransitionTime: previous?.status === update.status ? previous.lastTransitionTime : time,
  };
  if (index < 0) return [...conditions, next];
  return conditions.map((c, i) => (i === index ? next : c));
}

/** The condition of `type`, if any. */
export function findCondition(
  conditions: readonly Condition[],
  type: string,
): Condition | undefined {
  return conditions.find((c) => c.type === type);
}
