/**
 * Validation of SiteConfig input: the driver. It walks a SiteConfig (the site, each cluster, each
 * node), runs the registered checks (rules/index.ts) in their order, and leaves every issue in the
 * collector; nothing stops at the first one. The rules themselves, with their codes, severities
 * and compatibility notes, live in rules/<topic>.ts.
 */
import type { DocRef, IssueSink, Path } from './issue-collector.js';
import { FleetIndex, IssueCollector } from './issue-collector.js';
import { checks } from './rules/index.js';
import type { ClusterCheck, NodeCheck, SiteCheck } from './rules/index.js';
import { checkClusterName } from './rules/names.js';
import { ClusterContext, isBroken, isPlainObject } from './rules/rule.js';
import type { NodeContext, SiteContext } from './rules/rule.js';
import type { SiteConfig, SiteConfigCluster } from './types.js';

export { checkStructure } from './rules/structure.js';
export { FleetIndex, IssueCollector, isBroken };
export type { DocPlace, DocRef, IssueSink } from './issue-collector.js';
// constructs/fleet.ts reads it from here.
export { normalizeSiteConfig } from './normalize.js';

/** The checks of one cluster, in order; a run of consecutive node checks is one pass over the nodes. */
type ClusterStage = ClusterCheck | readonly NodeCheck[];

/** The registry split where the driver runs it: before the clusters, per cluster, after them. */
const plan = ((): {
  before: SiteCheck[];
  cluster: ClusterStage[];
  after: SiteCheck[];
} => {
  const before: SiteCheck[] = [];
  const cluster: ClusterStage[] = [];
  const after: SiteCheck[] = [];
  for (const check of checks) {
    if (check.scope === 'site') {
      (cluster.length === 0 ? before : after).push(check);
    } else if (after.length > 0) {
      throw new Error(
        `check ${check.name} is registered after the site checks that follow the clusters`,
      );
    } else if (check.scope === 'cluster') {
      cluster.push(check);
    } else {
      const last = cluster[cluster.length - 1];
      if (Array.isArray(last)) (last as NodeCheck[]).push(check);
      else cluster.push([check]);
    }
  }
  return { before, cluster, after };
})();

/** True when a structural error lies at or above `pointer` (the value itself is unusable). */
function isBrokenAt(broken: readonly string[], pointer: string): boolean {
  return broken.some((p) => p === '' || p === pointer || pointer.startsWith(`${p}/`));
}

/**
 * True when the cluster rules can run on a cluster with structural errors: the cluster is a map
 * and its nodes a list of maps. Each rule then skips what it reads from a broken value. Also
 * asked of a ClusterInstance spec (cluster-instance/validate.ts).
 */
export function hasSoundShape(
  broken: readonly string[],
  pointer: string,
  cluster: object,
): boolean {
  if (isBrokenAt(broken, pointer) || isBrokenAt(broken, `${pointer}/nodes`)) return false;
  const nodes = (cluster as { nodes?: unknown }).nodes;
  return Array.isArray(nodes) && nodes.every((node) => isPlainObject(node));
}

/**
 * Runs the cluster checks of the registry on one cluster at `at` (also on a ClusterInstance spec
 * seen as a SiteConfig cluster, see cluster-instance/). `broken` lists the JSON pointers of the
 * document's structural errors: every check skips what it would read from a broken value.
 */
export function checkCluster(
  doc: DocRef,
  site: SiteConfig,
  cluster: SiteConfigCluster,
  at: Path,
  report: IssueSink,
  fleet: FleetIndex,
  broken: readonly string[] = [],
): void {
  const context = new ClusterContext(doc, site, cluster, at, report, fleet, broken);
  for (const stage of plan.cluster) {
    if (!Array.isArray(stage)) {
      (stage as ClusterCheck).check(context);
      continue;
    }
    cluster.nodes.forEach((node, index) => {
      const nodeContext: NodeContext = {
        node,
        index,
        at: [...at, 'nodes', index],
        sound: (...path) => context.sound('nodes', index, ...path),
      };
      for (const check of stage as readonly NodeCheck[]) check.check(context, nodeContext);
    });
  }
}

/** Runs every registered check on a SiteConfig document whose structure `broken` describes. */
export function checkSemantics(
  doc: DocRef,
  site: SiteConfig,
  report: IssueCollector,
  fleet: FleetIndex,
  broken: string[],
): void {
  const spec = (site as Partial<SiteConfig>).spec as unknown;
  if (!isPlainObject(spec)) return;
  const clusters = Array.isArray(spec['clusters']) ? (spec['clusters'] as unknown[]) : undefined;
  const context: SiteContext = { doc, site, spec, clusters, sink: report };
  for (const check of plan.before) check.check(context);
  if (clusters === undefined) return;
  clusters.forEach((cluster, index) => {
    const pointer = `/spec/clusters/${String(index)}`;
    if (cluster === null || typeof cluster !== 'object') return;
    const at = ['spec', 'clusters', index];
    if (hasSoundShape(broken, pointer, cluster)) {
      // A structural error elsewhere in the cluster only skips the checks that read it.
      checkCluster(doc, site, cluster as SiteConfigCluster, at, report, fleet, broken);
    } else if (!isBroken(broken, `${pointer}/clusterName`)) {
      // The cluster or its node list is no map or list: only its name can still be checked.
      checkClusterName(doc, cluster as SiteConfigCluster, at, report, fleet);
    }
  });
  for (const check of plan.after) check.check(context);
}
