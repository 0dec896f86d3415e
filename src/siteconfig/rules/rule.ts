/**
 * What a validation rule is: its code, its severity and its compatibility note (what
 * siteconfig-generator does with the same input, and why ours is an error or a warning), and the
 * checks that report it. docs/compatibility.md's rule table is rendered from these definitions
 * (rules/table.ts), so the code, the severity and the note have one home.
 */
import type { Severity } from '../../shared/errors.js';
import type { Cidr, IpAddress } from '../../shared/ip.js';
import type { DocPlace, DocRef, FleetIndex, IssueSink, Path } from '../issue-collector.js';
import type { SiteConfig, SiteConfigCluster, SiteConfigNode } from '../types.js';

/** One finding SiteForge reports, with why it is reported at that severity. */
export interface Rule {
  /** The code in messages: `FILE:LINE:COLUMN: error CODE: ...`. */
  readonly code: string;
  /** error refuses the input; a warning becomes an error with `--strict`. */
  readonly severity: Exclude<Severity, 'note'>;
  /** What the rule is on, when one code has rules of two severities (`cpuset`, `diskPartition`). */
  readonly on?: string;
  /** The severity this code had before it changed (shown in the table: **warning** (was error)). */
  readonly was?: Severity;
  /** What siteconfig-generator (release-4.20) does with the same input. */
  readonly upstream: string;
  /** Why ours is an error or a warning: who would refuse the objects, or what fails. */
  readonly why: string;
  /**
   * The module (below src/siteconfig/) that reports the rule when it is not a check of this
   * registry: checks that need the files a site refers to run when it is compiled.
   * @default undefined (a check of rules/index.ts reports it)
   */
  readonly reportedBy?: string;
}

/** A rule definition, frozen: the registry hands out the same objects the checks report with. */
export function defineRule(rule: Rule): Rule {
  return Object.freeze({ ...rule });
}

/** True when a structural error lies at, below or above `pointer`. */
export function isBroken(broken: readonly string[], pointer: string): boolean {
  return broken.some(
    (p) => p === '' || p === pointer || p.startsWith(`${pointer}/`) || pointer.startsWith(`${p}/`),
  );
}

/** True for a YAML map (a structurally unchecked value may be anything). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reports an issue of `rule` at the rule's severity. */
export function reportRule(
  sink: IssueSink,
  doc: DocRef,
  rule: Rule,
  path: Path,
  message: string,
  hint?: string,
  at: 'value' | 'key' = 'value',
  related?: DocPlace,
): void {
  sink.add(doc, rule.severity, rule.code, path, message, hint, at, related);
}

/** What the site-level checks see: the document and its structurally unchecked spec. */
export interface SiteContext {
  readonly doc: DocRef;
  readonly site: SiteConfig;
  readonly spec: Readonly<Record<string, unknown>>;
  /** The clusters, when `spec.clusters` is a list. */
  readonly clusters: readonly unknown[] | undefined;
  readonly sink: IssueSink;
}

/** A machine network that parsed, where it is written. */
export interface ParsedNetwork {
  readonly cidr: Cidr;
  readonly path: Path;
}

/** A static node address from nodeNetwork.config, where it is written and whose it is. */
export interface NodeAddress {
  readonly ip: IpAddress;
  readonly path: Path;
  readonly host: string;
}

/**
 * One SiteConfig cluster (or a ClusterInstance spec seen as one) while its checks run: what the
 * checks read, and facts earlier checks gathered for later ones (the node addresses for the VIP
 * checks, the machine networks for the VIP checks).
 */
export class ClusterContext {
  readonly masters: number;
  readonly workers: number;
  /** False when a node's role has a structural error: the node counts are then unknown. */
  readonly topologySound: boolean;
  /** Set by the network check; the VIP check reads it. */
  machineNetworks: ParsedNetwork[] = [];
  /** Added to by the nmstate check, node by node; the VIP check reads them. */
  readonly nodeIps: NodeAddress[] = [];
  /** Host name → index of the first node that has it. */
  readonly hostNames = new Map<string, number>();

  /**
   * `broken` lists the JSON pointers of the document's structural errors: every check skips what
   * it would read from a broken value, and runs on the rest.
   */
  constructor(
    readonly doc: DocRef,
    readonly site: SiteConfig,
    readonly cluster: SiteConfigCluster,
    readonly at: Path,
    readonly sink: IssueSink,
    readonly fleet: FleetIndex,
    readonly broken: readonly string[] = [],
  ) {
    this.masters = cluster.nodes.filter((node) => (node.role ?? 'master') === 'master').length;
    this.workers = cluster.nodes.length - this.masters;
    this.topologySound = cluster.nodes.every((_, index) => this.sound('nodes', index, 'role'));
  }

  /** True when no structural error lies at, below or above the cluster's field `path`. */
  sound(...path: Path): boolean {
    return (
      this.broken.length === 0 || !isBroken(this.broken, `/${[...this.at, ...path].join('/')}`)
    );
  }

  get isSno(): boolean {
    return this.masters === 1;
  }

  /** Reports an issue of `rule` in this cluster's document. */
  report(
    rule: Rule,
    path: Path,
    message: string,
    hint?: string,
    at: 'value' | 'key' = 'value',
    related?: DocPlace,
  ): void {
    reportRule(this.sink, this.doc, rule, path, message, hint, at, related);
  }
}

/** One node of the cluster while the node checks run. */
export interface NodeContext {
  readonly node: SiteConfigNode;
  readonly index: number;
  /** The node's path in the document. */
  readonly at: Path;
  /** True when no structural error lies at, below or above the node's field `path`. */
  readonly sound: (...path: Path) => boolean;
}

/** The fields every check declares: its name and the rules it reports. */
interface CheckBase {
  readonly name: string;
  readonly rules: readonly Rule[];
}

/** A check of a site's own fields, run before (or, placed after the cluster checks, after) them. */
export interface SiteCheck extends CheckBase {
  readonly scope: 'site';
  check(site: SiteContext): void;
}

/** A check of one cluster. */
export interface ClusterCheck extends CheckBase {
  readonly scope: 'cluster';
  check(cluster: ClusterContext): void;
}

/** A check of one node; consecutive node checks run node by node, in one pass over the nodes. */
export interface NodeCheck extends CheckBase {
  readonly scope: 'node';
  check(cluster: ClusterContext, node: NodeContext): void;
}

export type Check = SiteCheck | ClusterCheck | NodeCheck;
