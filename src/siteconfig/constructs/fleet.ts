/**
 * cdk8s constructs for writing sites in TypeScript: a Fleet of Sites, each Site of
 * EdgeClusters, each EdgeCluster of EdgeNodes. They validate with the same rules as the YAML
 * path and emit the same objects, because both run the same compiler.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { formatIssue, SiteConfigError } from '../../shared/errors.js';
import { compileSiteConfig } from '../compile.js';
import { emptyResources } from '../resources.js';
import type { SiteResources } from '../resources.js';
import type { CompiledCluster, Manifest } from '../compile.js';
import type {
  SiteConfigApiVersion,
  SiteConfigCluster,
  SiteConfigNode,
  SiteConfigSpec,
} from '../types.js';
import { validateSiteConfig } from '../load.js';
import { FleetIndex, normalizeSiteConfig } from '../validate.js';
import { EmittedKinds } from './kinds.js';

/** Props of a Site: the `spec` of a SiteConfig, plus its name and format version. */
export interface SiteProps extends SiteConfigSpec {
  /** Name of the site (`metadata.name` of a SiteConfig). */
  readonly name: string;
  /**
   * Template set: v2 writes `manifestsConfigMapRefs` (a list) instead of `manifestsConfigMapRef`.
   * @default "ran.openshift.io/v2"
   */
  readonly apiVersion?: SiteConfigApiVersion;
}

/** A group of sites validated together: cluster names and MACs must be unique across it. */
export class Fleet extends Construct {
  private readonly index = new FleetIndex();

  /**
   * Adds a site to the fleet. Throws SiteConfigError, listing every problem, if it is invalid.
   * @param resources what loadSiteConfigs read for this same SiteConfig (templates, extra
   *   manifests, credentials), for sites loaded from files; sites written in code have none.
   */
  addSite(props: SiteProps, resources?: SiteResources): Site {
    return new Site(this, props.name, props, this.index, resources);
  }
}

/** One SiteConfig: site-wide defaults and its clusters. */
export class Site extends Construct {
  /** The clusters of the site, in the order given. */
  readonly clusters: readonly EdgeCluster[];

  constructor(
    scope: Construct,
    id: string,
    props: SiteProps,
    index = new FleetIndex(),
    resources?: SiteResources,
  ) {
    super(scope, id);
    const { name, apiVersion = 'ran.openshift.io/v2', ...spec } = props;
    const siteConfig = { apiVersion, kind: 'SiteConfig' as const, metadata: { name }, spec };
    const issues = validateSiteConfig(siteConfig, this.node.path, index);
    for (const warning of issues.filter((issue) => issue.severity === 'warning')) {
      this.node.addMetadata('siteforge:warning', formatIssue(warning));
    }
    if (issues.some((issue) => issue.severity === 'error')) throw new SiteConfigError(issues);
    const normalized = normalizeSiteConfig(siteConfig);
    const compiled = compileSiteConfig(normalized, resources ?? emptyResources(normalized));
    this.clusters = compiled.map(
      (cluster, i) => new EdgeCluster(this, cluster.clusterName, spec.clusters[i]!, cluster),
    );
  }
}

const NODE_KINDS = new Set(['BareMetalHost', 'NMStateConfig', 'HostFirmwareSettings']);

/** One cluster: its cluster-level objects, and one EdgeNode per host. */
export class EdgeCluster extends Construct {
  readonly clusterName: string;
  readonly nodes: readonly EdgeNode[];

  constructor(scope: Construct, id: string, cluster: SiteConfigCluster, compiled: CompiledCluster) {
    super(scope, id);
    this.clusterName = cluster.clusterName;
    for (const manifest of compiled.manifests) {
      if (!NODE_KINDS.has(manifest.kind)) emit(this, manifest);
    }
    this.nodes = cluster.nodes.map(
      (node) =>
        new EdgeNode(
          this,
          node.hostName,
          node,
          compiled.manifests.filter(
            (m) => NODE_KINDS.has(m.kind) && m.metadata.name === node.hostName,
          ),
        ),
    );
  }
}

/** One host: its BareMetalHost and, when it has network settings, its NMStateConfig. */
export class EdgeNode extends Construct {
  readonly hostName: string;

  constructor(scope: Construct, id: string, node: SiteConfigNode, manifests: readonly Manifest[]) {
    super(scope, id);
    this.hostName = node.hostName;
    for (const manifest of manifests) emit(this, manifest);
  }
}

function emit(scope: Construct, manifest: Manifest): ApiObject {
  const versions = EmittedKinds[manifest.kind] ?? [];
  if (!versions.some((gvk) => gvk.apiVersion === manifest.apiVersion)) {
    throw new Error(
      `compiler emitted ${manifest.apiVersion} ${manifest.kind}, which crds/ does not define`,
    );
  }
  return new ApiObject(scope, `${manifest.kind}-${manifest.metadata.name}`, { ...manifest });
}
