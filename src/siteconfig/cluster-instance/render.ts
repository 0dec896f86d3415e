/**
 * Output for hubs that run the SiteConfig operator (`--format clusterinstance`): per cluster a
 * ClusterInstance, plus the objects the operator's default templates do not render but the
 * cluster needs: its Namespace, the credentials Secrets or ExternalSecrets, the extra-manifests
 * ConfigMaps the ClusterInstance's extraManifestsRefs name, and (from a SiteConfig) the v2 site
 * ConfigMap and HostFirmwareSettings. Pure: no I/O.
 *
 * Waves (Argo CD): Namespace 0; Secrets, ExternalSecrets, ConfigMaps, HostFirmwareSettings 1
 * (site ConfigMap 2, as before); ClusterInstance 2, so everything the operator checks for when
 * it validates the ClusterInstance exists already.
 */
import { compileSiteConfig, copyFields, Keys, sortManifests } from '../compile.js';
import type { CompiledCluster } from '../compile.js';
import type { ClusterInstanceObject } from '../emitted-objects.js';
import type { SiteResources } from '../resources.js';
import type { SiteConfig } from '../types.js';
import { compileClusterInstance } from './compile.js';
import { clusterInstancesFor, conversionWarnings, isRenderedBeside } from './from-siteconfig.js';
import type { ClusterInstanceOptions, ConversionWarning } from './from-siteconfig.js';
import type { ClusterInstance } from './types.js';

/** The Argo CD wave of a ClusterInstance: after the objects it refers to. */
export const CLUSTER_INSTANCE_WAVE = 2;

/** What rendering a SiteConfig as ClusterInstances gives. */
export interface RenderedClusterInstances {
  /** Per cluster in spec order: the ClusterInstance and the objects beside it, in apply order. */
  readonly clusters: CompiledCluster[];
  /** Fields the rendered objects lose (`rendered: 'lost'`); the others are carried beside. */
  readonly warnings: ConversionWarning[];
}

/** A SiteConfig's clusters as ClusterInstances, with what the operator does not render. */
export function renderClusterInstances(
  site: SiteConfig,
  resources: SiteResources,
  options: ClusterInstanceOptions = {},
): RenderedClusterInstances {
  const instances = clusterInstancesFor(site, options, resources);
  const compiled = compileSiteConfig(site, resources);
  return {
    clusters: compiled.map((cluster, index) => ({
      clusterName: cluster.clusterName,
      manifests: sortManifests([
        ...cluster.manifests.filter(isRenderedBeside),
        withWave(instances[index]!),
      ]),
    })),
    warnings: conversionWarnings(site).filter((w) => w.rendered === 'lost'),
  };
}

/** A ClusterInstance given as input, with the Namespace the operator leaves to the user. */
export function renderClusterInstance(ci: ClusterInstance): CompiledCluster {
  const name = ci.spec.clusterName;
  // The same Namespace as --format crs gives: labels, extraAnnotations, suppression.
  const namespace = compileClusterInstance(ci).manifests.filter((m) => m.kind === 'Namespace');
  return {
    clusterName: name,
    manifests: [
      ...namespace,
      withWave({ ...ci, metadata: { ...ci.metadata, namespace: ci.metadata.namespace ?? name } }),
    ],
  };
}

/**
 * The ClusterInstance as an object to apply, in its Argo CD wave unless it names its own. Its
 * spec is the input model's, checked field by field against the CRD's.
 */
function withWave(ci: ClusterInstance): ClusterInstanceObject {
  // Without a status: the operator writes it.
  return {
    apiVersion: ci.apiVersion,
    kind: ci.kind,
    spec: copyFields(ci.spec),
    metadata: {
      ...ci.metadata,
      annotations: { [Keys.SyncWave]: String(CLUSTER_INSTANCE_WAVE), ...ci.metadata.annotations },
    },
  };
}
