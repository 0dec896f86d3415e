/**
 * Applies generated objects to a hub the way Argo CD syncs them: wave by wave (annotation
 * `argocd.argoproj.io/sync-wave`), server-side apply with field manager `siteforge`, never
 * forcing another manager's fields, and waiting until a wave's objects exist before the next.
 * Works on the KubeClient port only, so it runs against any implementation.
 */
import { setTimeout as sleepMs } from 'node:timers/promises';
import { SiteForgeError } from '../shared/errors.js';
import { KubeApiError } from '../kube/errors.js';
import { objectName, refOf } from '../kube/kube-client.js';
import type { KubeClient, KubeObject, ObjectRef } from '../kube/kube-client.js';

/** The field manager of every apply SiteForge makes. */
export const FIELD_MANAGER = 'siteforge';

const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';

/**
 * Where a dry run puts namespaced objects whose namespace an earlier wave of the same input
 * would create. A dry-run Namespace is not persisted, and the API server answers anything in a
 * missing namespace with 404 before it validates the object; so without a stand-in the objects
 * that matter most would never be checked. `default` exists on every cluster.
 */
export const DRY_RUN_STAND_IN_NAMESPACE = 'default';

/** What applying one object did. */
export const ApplyOutcome = {
  Created: 'created',
  Configured: 'configured',
  Unchanged: 'unchanged',
  /** Applied without reading it first (`confirm: false`): created or changed, not told which. */
  Applied: 'applied',
} as const;
export type ApplyOutcome = (typeof ApplyOutcome)[keyof typeof ApplyOutcome];

/** An object to apply and whatever the caller needs to report on it (e.g. its source). */
export interface ApplyItem<S> {
  readonly object: KubeObject;
  readonly source: S;
}

/** An object the server accepted. */
export interface AppliedObject<S> {
  readonly item: ApplyItem<S>;
  readonly wave: number;
  readonly outcome: ApplyOutcome;
  /** In a dry run: the namespace it was checked in instead of its own (see above). */
  readonly standInNamespace?: string;
}

/** An object the server rejected. */
export interface RejectedObject<S> {
  readonly item: ApplyItem<S>;
  readonly wave: number;
  readonly error: KubeApiError;
}

/** Options of applyInWaves. */
export interface ApplyWavesOptions<S> {
  /** Server-side dry run: every check, nothing persisted. @default false */
  readonly dryRun?: boolean;
  /**
   * Go on with later waves after a wave had rejections, to report every problem at once (what
   * `check` wants). Apply stops instead, as Argo CD does. @default false
   */
  readonly continueAfterRejection?: boolean;
  /** Called after each wave with its results, in input order. */
  readonly onWave?: (
    wave: number,
    applied: readonly AppliedObject<S>[],
    rejected: readonly RejectedObject<S>[],
  ) => void;
  /** How long to wait for a wave's objects to exist. @default 60_000 */
  readonly waitTimeoutMs?: number;
  /** Pause between two reads while waiting. @default 250 */
  readonly pollIntervalMs?: number;
  /** Requests in flight at once. @default 8 */
  readonly concurrency?: number;
  /**
   * Read each object before applying it (to tell created, configured and unchanged apart) and
   * wait until a wave's objects can be read before the next wave. `false` sends the applies and
   * goes on once each is answered (a server-side apply's answer is the stored object): a third
   * of the requests, for a simulated fleet of thousands of sites. @default true
   */
  readonly confirm?: boolean;
  /** Injected for tests. @default node:timers/promises setTimeout */
  readonly sleep?: (ms: number) => Promise<unknown>;
}

/** What applyInWaves did. */
export interface ApplyWavesResult<S> {
  readonly applied: AppliedObject<S>[];
  readonly rejected: RejectedObject<S>[];
  /** Waves not attempted because an earlier one had rejections. */
  readonly skippedWaves: number[];
}

/** A wave's objects did not all appear in time. */
export class WaveTimeoutError extends SiteForgeError {
  constructor(
    readonly wave: number,
    readonly missing: readonly string[],
    timeoutMs: number,
  ) {
    super(
      'KUBE_WAVE_TIMEOUT',
      `wave ${String(wave)}: ${String(missing.length)} object(s) still missing after ${String(timeoutMs / 1000)} s: ${missing.slice(0, 5).join(', ')}`,
    );
  }
}

/** The sync wave of an object (0 without the annotation, as in Argo CD). */
export function syncWave(object: KubeObject): number {
  const wave = Number(object.metadata.annotations?.[SYNC_WAVE] ?? 0);
  return Number.isFinite(wave) ? wave : 0;
}

/** Groups items by wave, lowest first, keeping input order inside a wave. */
export function groupByWave<S>(items: readonly ApplyItem<S>[]): [number, ApplyItem<S>[]][] {
  const waves = new Map<number, ApplyItem<S>[]>();
  for (const item of items) {
    const wave = syncWave(item.object);
    const list = waves.get(wave);
    if (list) list.push(item);
    else waves.set(wave, [item]);
  }
  return [...waves.entries()].sort(([a], [b]) => a - b);
}

/**
 * Server-side applies `items` wave by wave. Rejections (KubeApiError) are collected, not
 * thrown; any other error (unreachable server, bad credentials, timeout) is thrown.
 */
export async function applyInWaves<S>(
  client: KubeClient,
  items: readonly ApplyItem<S>[],
  options: ApplyWavesOptions<S> = {},
): Promise<ApplyWavesResult<S>> {
  const dryRun = options.dryRun ?? false;
  const confirm = options.confirm ?? true;
  const sleep = options.sleep ?? sleepMs;
  const result: ApplyWavesResult<S> = { applied: [], rejected: [], skippedWaves: [] };
  const namespaces = new NamespaceExistence(
    client,
    items.filter((i) => i.object.kind === 'Namespace').map((i) => i.object.metadata.name),
  );

  for (const [wave, waveItems] of groupByWave(items)) {
    if (result.rejected.length > 0 && options.continueAfterRejection !== true) {
      result.skippedWaves.push(wave);
      continue;
    }
    const outcomes = await mapLimit(waveItems, options.concurrency ?? 8, async (item) => {
      let object = item.object;
      let standInNamespace: string | undefined;
      const ns = object.metadata.namespace;
      if (dryRun && ns !== undefined && (await namespaces.willBeCreated(ns))) {
        standInNamespace = DRY_RUN_STAND_IN_NAMESPACE;
        object = { ...object, metadata: { ...object.metadata, namespace: standInNamespace } };
      }
      try {
        const before = confirm ? await client.get(refOf(object)) : undefined;
        const after = await client.apply(object, { fieldManager: FIELD_MANAGER, dryRun });
        const outcome = !confirm
          ? ApplyOutcome.Applied
          : !before
            ? ApplyOutcome.Created
            : before.metadata.resourceVersion === after.metadata.resourceVersion
              ? ApplyOutcome.Unchanged
              : ApplyOutcome.Configured;
        const applied: AppliedObject<S> = {
          item,
          wave,
          outcome,
          ...(standInNamespace !== undefined && { standInNamespace }),
        };
        return applied;
      } catch (err) {
        // 401 is about the credentials, not the object: nothing else will work either.
        if (err instanceof KubeApiError && err.status !== 401) return { item, wave, error: err };
        throw err;
      }
    });
    const applied = outcomes.filter((o): o is AppliedObject<S> => 'outcome' in o);
    const rejected = outcomes.filter((o): o is RejectedObject<S> => 'error' in o);
    result.applied.push(...applied);
    result.rejected.push(...rejected);
    if (!dryRun && confirm && rejected.length === 0) {
      await waitUntilExist(
        client,
        wave,
        applied.map((a) => refOf(a.item.object)),
        options.waitTimeoutMs ?? 60_000,
        options.pollIntervalMs ?? 250,
        sleep,
      );
    }
    options.onWave?.(wave, applied, rejected);
  }
  return result;
}

/** Polls until every object exists; bounded by `timeoutMs`. */
async function waitUntilExist(
  client: KubeClient,
  wave: number,
  refs: readonly ObjectRef[],
  timeoutMs: number,
  pollIntervalMs: number,
  sleep: (ms: number) => Promise<unknown>,
): Promise<void> {
  let missing = [...refs];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await mapLimit(missing, 8, async (ref) => (await client.get(ref)) !== undefined);
    missing = missing.filter((_, i) => !found[i]);
    if (missing.length === 0) return;
    if (Date.now() >= deadline)
      throw new WaveTimeoutError(
        wave,
        missing.map((ref) => `${ref.kind} ${objectName(ref)}`),
        timeoutMs,
      );
    await sleep(pollIntervalMs);
  }
}

/**
 * Whether a namespace is missing on the server but created by the input, asked once per
 * namespace. Only these get the dry-run stand-in: a namespace that neither exists nor is
 * created is a real error, and the server reports it.
 */
class NamespaceExistence {
  private readonly answers = new Map<string, Promise<boolean>>();

  constructor(
    private readonly client: KubeClient,
    private readonly created: readonly string[],
  ) {}

  willBeCreated(namespace: string): Promise<boolean> {
    let answer = this.answers.get(namespace);
    if (!answer) {
      answer = this.created.includes(namespace)
        ? this.client
            .get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
            .then((ns) => ns === undefined)
        : Promise.resolve(false);
      this.answers.set(namespace, answer);
    }
    return answer;
  }
}

/** Maps with at most `limit` calls in flight; results keep the input order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
