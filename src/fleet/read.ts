/**
 * Defensive readers of hub objects: every field may be missing or of another type (a person may
 * edit any object), so each reader returns a typed value or undefined, never throws.
 */
import type { KubeObject } from '../kube/index.js';

type Json = Record<string, unknown>;

/** A condition as both conditionsv1 (Agent, InfraEnv) and hive (ACI) write it. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
}

/** `object[path[0]][path[1]]…`, or undefined. */
export function at(object: unknown, ...path: readonly string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Json)[key];
  }
  return value;
}

/** A string field, or undefined (also for ''). */
export function str(object: unknown, ...path: readonly string[]): string | undefined {
  const value = at(object, ...path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number field, or undefined. */
export function num(object: unknown, ...path: readonly string[]): number | undefined {
  const value = at(object, ...path);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An array field, or []. */
export function list(object: unknown, ...path: readonly string[]): readonly unknown[] {
  const value = at(object, ...path);
  return Array.isArray(value) ? value : [];
}

/** `status.conditions`, the well-formed ones. */
export function conditionsOf(object: KubeObject | undefined): readonly Condition[] {
  const out: Condition[] = [];
  for (const raw of list(object, 'status', 'conditions')) {
    const type = str(raw, 'type');
    const status = str(raw, 'status');
    if (type === undefined || (status !== 'True' && status !== 'False' && status !== 'Unknown'))
      continue;
    const lastTransitionTime = str(raw, 'lastTransitionTime');
    out.push({
      type,
      status,
      reason: str(raw, 'reason') ?? '',
      message: str(raw, 'message') ?? '',
      ...(lastTransitionTime !== undefined && { lastTransitionTime }),
    });
  }
  return out;
}

/** The condition of `type`, if any. */
export function conditionOf(object: KubeObject | undefined, type: string): Condition | undefined {
  return conditionsOf(object).find((c) => c.type === type);
}

/** Whether the object has the condition `type` with `status` (and `reason`, when given). */
export function hasCondition(
  object: KubeObject | undefined,
  type: string,
  status: Condition['status'],
  reason?: string,
): boolean {
  const c = conditionOf(object, type);
  return c?.status === status && (reason === undefined || c.reason === reason);
}

/** `metadata.creationTimestamp`, if set. */
export function createdAt(object: KubeObject | undefined): string | undefined {
  return str(object?.metadata, 'creationTimestamp');
}

/** `namespace/name` of an object. */
export function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** The earliest of some RFC 3339 times (undefined ones skipped). */
export function earliest(times: readonly (string | undefined)[]): string | undefined {
  let best: string | undefined;
  let bestMs = Infinity;
  for (const t of times) {
    if (t === undefined) continue;
    const ms = Date.parse(t);
    if (!Number.isNaN(ms) && ms < bestMs) {
      best = t;
      bestMs = ms;
    }
  }
  return best;
}

/** The latest of some RFC 3339 times (undefined ones skipped). */
export function latest(times: readonly (string | undefined)[]): string | undefined {
  let best: string | undefined;
  let bestMs = -Infinity;
  for (const t of times) {
    if (t === undefined) continue;
    const ms = Date.parse(t);
    if (!Number.isNaN(ms) && ms > bestMs) {
      best = t;
      bestMs = ms;
    }
  }
  return best;
}
