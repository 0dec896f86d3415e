/**
 * The rollout target for hubs without Argo CD: each release is `siteforge apply` of its sites'
 * objects at the plan's target commit (server-side apply, field manager `siteforge`, wave by
 * wave, never forced), and each removal deletes the site's objects as they were at the plan's
 * base commit, last sync wave first (BareMetalHosts before their InfraEnv, as Argo CD's prune
 * does). The files are read from a temporary git worktree of each commit, made once per runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { simpleGit } from 'simple-git';
import type { KubeClient } from '../kube/index.js';
import { objectName, Propagation, refOf } from '../kube/index.js';
import { SiteForgeError } from '../shared/errors.js';
import type { Limits } from '../shared/limits.js';
import type { Logger } from '../shared/logger.js';
import type { SecretSource, SourceFile } from '../siteconfig/index.js';
import type { Rollout } from '../rollout/rollout-resource.js';
import type { Preparation, Release, RolloutTarget } from '../rollout/target.js';
import { applyInWaves, syncWave } from './apply-waves.js';
import type { ApplyItem } from './apply-waves.js';
import { listInputFiles, readInputFiles } from './cli/read-inputs.js';
import { fsSiteFiles } from './fs-site-files.js';
import { kustomizationRoots } from './kustomization-root.js';
import { renderFleet, reportIssues } from './render-fleet.js';
import type { ManifestSource } from './render-fleet.js';
import { RunBudget } from './run-budget.js';

/** The hub refused a site's objects, or the sites do not compile at the plan's commit. */
export class RolloutApplyError extends SiteForgeError {
  constructor(message: string) {
    super('ROLLOUT_APPLY', message);
  }
}

/** Options of ApplyTarget. */
export interface ApplyTargetOptions {
  readonly client: KubeClient;
  /** A folder inside the git repository of the sites. */
  readonly repository: string;
  readonly limits: Limits;
  readonly secrets?: (root: string, budget: RunBudget) => SecretSource;
  readonly log: Logger;
}

/** A checked-out commit and its site files, read once. */
interface Checkout {
  readonly dir: string;
  readonly files: readonly SourceFile[];
  /** The files by their path in the repository. */
  readonly byPath: ReadonlyMap<string, SourceFile>;
}

/** RolloutTarget by server-side apply. */
export class ApplyTarget implements RolloutTarget {
  private readonly checkouts = new Map<string, Checkout>();
  private top: string | undefined;

  constructor(private readonly options: ApplyTargetOptions) {}

  async prepare(rollout: Rollout): Promise<Preparation> {
    // Fails early, before anything is released, when a commit is not in the repository.
    await this.checkout(rollout.spec.to.commit, rollout);
    if (rollout.spec.waves.some((w) => w.removed.length > 0))
      await this.checkout(rollout.spec.from.commit, rollout);
    return { notes: [] };
  }

  async release(rollout: Rollout, release: Release): Promise<void> {
    if (release.sites.length > 0) await this.applySites(rollout, release.sites);
    if (release.removals.length > 0) await this.removeSites(rollout, release.removals);
  }

  async close(): Promise<void> {
    const top = this.top;
    for (const { dir } of this.checkouts.values()) {
      if (top !== undefined)
        await simpleGit(top)
          .raw(['worktree', 'remove', '--force', dir])
          .catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
    this.checkouts.clear();
  }

  private async applySites(rollout: Rollout, sites: readonly string[]): Promise<void> {
    const objects = await this.render(rollout, rollout.spec.to.commit, sites);
    const result = await applyInWaves(this.options.client, objects);
    if (result.rejected.length > 0) {
      const lines = result.rejected.map(
        (r) =>
          `  ${r.item.source.file}: ${r.item.object.kind} ${objectName(r.item.object)}: ${r.error.message}`,
      );
      throw new RolloutApplyError(
        `the hub rejected ${String(result.rejected.length)} object(s) of the release:\n${lines.join('\n')}`,
      );
    }
  }

  /** Deletes the sites' objects, last sync wave first, as they were at the base commit. */
  private async removeSites(rollout: Rollout, sites: readonly string[]): Promise<void> {
    const objects = await this.render(rollout, rollout.spec.from.commit, sites);
    const byWave = [...objects].sort((a, b) => syncWave(b.object) - syncWave(a.object));
    for (const { object } of byWave) {
      const existed = await this.options.client.delete(refOf(object), {
        propagation: Propagation.Background,
      });
      if (existed) this.options.log.info({ object: objectName(object) }, `deleted ${object.kind}`);
    }
  }

  /** The objects of `sites` at `commit`. */
  private async render(
    rollout: Rollout,
    commit: string,
    sites: readonly string[],
  ): Promise<ApplyItem<ManifestSource>[]> {
    const checkout = await this.checkout(commit, rollout);
    const budget = new RunBudget(this.options.limits);
    const wanted = new Set(sites);
    // The whole revision was validated when it was checked out; a release compiles only the
    // files of its sites when the plan says which they are.
    const files = sites.map((s) => checkout.byPath.get(rollout.spec.sources?.[s]?.file ?? ''));
    const { clusters, issues } = renderFleet(
      files.every((f) => f !== undefined) ? [...new Set(files)] : checkout.files,
      {
        selectCluster: (name) => wanted.has(name),
        withObjects: true,
        files: fsSiteFiles(checkout.dir, checkout.dir, budget),
        kustomizationRoot: kustomizationRoots({ base: checkout.dir, fallback: '.' }),
        ...(this.options.secrets && { secrets: this.options.secrets(checkout.dir, budget) }),
        limits: budget.limits,
        deadline: budget,
      },
    );
    const report = reportIssues(issues, false);
    if (report.errors > 0)
      throw new RolloutApplyError(
        `the sites do not compile at ${commit.slice(0, 12)}; nothing of the release was applied:\n${report.text}`,
      );
    const missing = sites.filter((s) => !clusters.some((c) => c.clusterName === s));
    if (missing.length > 0)
      throw new RolloutApplyError(
        `site(s) ${missing.join(', ')} of the release are not in ${rollout.spec.target.apply?.path ?? '.'} at ${commit.slice(0, 12)}`,
      );
    return clusters.flatMap((c) =>
      (c.objects ?? []).map(({ manifest, source }) => ({ object: manifest, source })),
    );
  }

  /** A worktree of `commit` with the site files read, made on first use. */
  private async checkout(commit: string, rollout: Rollout): Promise<Checkout> {
    const known = this.checkouts.get(commit);
    if (known) return known;
    const git = simpleGit(this.options.repository);
    this.top ??= (await git.revparse(['--show-toplevel'])).trim();
    const dir = mkdtempSync(join(tmpdir(), 'siteforge-rollout-'));
    try {
      await simpleGit(this.top).raw(['worktree', 'add', '--detach', '--quiet', dir, commit]);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw new RolloutApplyError(
        `commit ${commit} of rollout ${rollout.namespace}/${rollout.name} is not in the repository at ${this.top}: ${err instanceof Error ? err.message.trim() : String(err)}; fetch it first`,
      );
    }
    const path = rollout.spec.target.apply?.path ?? '.';
    const inside = relative(dir, resolve(dir, path));
    if (inside.startsWith('..'))
      throw new RolloutApplyError(`the rollout's path ${path} leaves the repository`);
    const budget = new RunBudget(this.options.limits);
    const files = readInputFiles(listInputFiles([inside || '.'], dir, budget), dir, budget);
    // Every site of the revision must compile, as Argo CD's generation needs, before any is
    // applied: a release must not be the first to find a duplicate name or MAC.
    const { issues } = renderFleet(files, {
      validateOnly: true,
      files: fsSiteFiles(dir, dir, budget),
      kustomizationRoot: kustomizationRoots({ base: dir, fallback: '.' }),
      ...(this.options.secrets && { secrets: this.options.secrets(dir, budget) }),
      limits: budget.limits,
      deadline: budget,
    });
    const report = reportIssues(issues, false);
    if (report.errors > 0)
      throw new RolloutApplyError(
        `the sites do not compile at ${commit.slice(0, 12)}; nothing was applied:\n${report.text}`,
      );
    const checkout = { dir, files, byPath: new Map(files.map((f) => [f.path, f])) };
    this.checkouts.set(commit, checkout);
    return checkout;
  }
}
