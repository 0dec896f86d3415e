/**
 * The port through which a runner moves released sites into their desired state on the hub:
 * Argo CD Applications (argocd-target.ts) or server-side apply (apply-target.ts). The runner
 * records a release in the Rollout's status before it calls the target and records that the
 * target acted afterwards, so every method must be idempotent: after a crash the next runner
 * calls it again for the same sites.
 */
import type { Rollout, SyncStrategy } from './rollout-resource.js';

/** Sites of one wave to bring to the hub. */
export interface Release {
  readonly wave: number;
  /** Sites the wave installs or changes. */
  readonly sites: readonly string[];
  /** Sites the wave deletes. */
  readonly removals: readonly string[];
}

/** What a target found when the runner took the rollout over. */
export interface Preparation {
  /** The sync strategy in use (Argo CD). */
  readonly syncStrategy?: SyncStrategy;
  /** Things the user should know (changes that go out ungated, sites deployed already). */
  readonly notes: readonly string[];
}

/** Moves released sites onto the hub. */
export interface RolloutTarget {
  /**
   * Called once a runner holds the rollout, before any release: checks that the target can do
   * the plan and holds back every site not released yet (Argo CD: the Applications' `sites`
   * selection), given the sites released so far.
   * @throws SiteForgeError with what to fix, when the target cannot carry out the plan
   */
  prepare(rollout: Rollout, released: ReadonlySet<string>): Promise<Preparation>;
  /** Brings the sites of a release to the hub. Idempotent. */
  release(rollout: Rollout, release: Release): Promise<void>;
  /** Frees what prepare set up (nothing, for most targets). */
  close?(): Promise<void>;
}
