/**
 * The hub side of a simulated fleet: the compiled objects pointed at the simulated BMCs, and
 * what a hub administrator provides beside the sites' git repository (the ClusterImageSets the
 * sites name, the pull secret in each site namespace, the BMC credentials Secrets the
 * BareMetalHosts name).
 */
import type { KubeObject } from '../kube/index.js';
import type { SimBmcAccess } from './sim-fleet.js';

/** The release image a ClusterImageSet named like `openshift-4.18.12` points at. */
export function releaseImageOf(imageSetName: string): string {
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(imageSetName)?.[1] ?? '4.18.12';
  return `quay.io/openshift-release-dev/ocp-release:${version.split('.').length === 2 ? `${version}.0` : version}-x86_64`;
}

/** `major.minor` of a release image or ClusterImageSet name. */
export function openshiftVersionOf(text: string): string {
  return /(\d+\.\d+)/.exec(text)?.[1] ?? '4.18';
}

/**
 * The objects with every BareMetalHost's `spec.bmc.address` replaced by its simulated BMC's
 * (same scheme, HTTP to loopback) and certificate checks off (the simulators speak HTTP).
 * @throws Error when a BareMetalHost has no simulated BMC
 */
export function pointAtSimulatedBmcs(
  objects: readonly KubeObject[],
  bmcs: readonly SimBmcAccess[],
): KubeObject[] {
  const byKey = new Map(bmcs.map((b) => [b.key, b]));
  return objects.map((object) => {
    if (object.kind !== 'BareMetalHost') return object;
    const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    const bmc = byKey.get(key);
    if (bmc === undefined) throw new Error(`no simulated BMC for BareMetalHost ${key}`);
    const spec = (object['spec'] ?? {}) as Record<string, unknown>;
    const current = (spec['bmc'] ?? {}) as Record<string, unknown>;
    return {
      ...object,
      spec: {
        ...spec,
        bmc: { ...current, address: bmc.address, disableCertificateVerification: true },
      },
    };
  });
}

/** The names the compiled objects refer to but do not contain. */
export interface FleetReferences {
  /** ClusterImageSet names (cluster-scoped). */
  readonly imageSets: readonly string[];
  /** `namespace` → pull secret names used there. */
  readonly pullSecrets: ReadonlyMap<string, readonly string[]>;
  /** `namespace/name` of a BareMetalHost → its BMC credentials Secret's name. */
  readonly bmcSecrets: ReadonlyMap<string, string>;
  /**
   * `namespace` → manifests ConfigMaps an AgentClusterInstall names that the fleet does not
   * contain (accelerated ZTP's `<cluster>-aztp`, which the ZTP policies application makes).
   */
  readonly manifestConfigMaps: ReadonlyMap<string, readonly string[]>;
}

function field(object: KubeObject, ...path: string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** What the objects refer to that a hub administrator creates. */
export function fleetReferences(objects: readonly KubeObject[]): FleetReferences {
  const imageSets = new Set<string>();
  const pullSecrets = new Map<string, Set<string>>();
  const bmcSecrets = new Map<string, string>();
  const configMaps = new Map<string, Set<string>>();
  const emitted = new Set(
    objects
      .filter((o) => o.kind === 'Secret')
      .map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`),
  );
  const emittedConfigMaps = new Set(
    objects
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`),
  );
  const pull = (namespace: string | undefined, name: unknown): void => {
    if (namespace === undefined || typeof name !== 'string') return;
    if (emitted.has(`${namespace}/${name}`)) return;
    const set = pullSecrets.get(namespace) ?? new Set<string>();
    set.add(name);
    pullSecrets.set(namespace, set);
  };
  for (const object of objects) {
    const namespace = object.metadata.namespace;
    switch (object.kind) {
      case 'AgentClusterInstall': {
        const name = field(object, 'spec', 'imageSetRef', 'name');
        if (typeof name === 'string') imageSets.add(name);
        const refs = [
          ...((field(object, 'spec', 'manifestsConfigMapRefs') ?? []) as { name?: unknown }[]),
          (field(object, 'spec', 'manifestsConfigMapRef') ?? {}) as { name?: unknown },
        ];
        for (const ref of refs) {
          if (typeof ref.name !== 'string' || namespace === undefined) continue;
          if (emittedConfigMaps.has(`${namespace}/${ref.name}`)) continue;
          const set = configMaps.get(namespace) ?? new Set<string>();
          set.add(ref.name);
          configMaps.set(namespace, set);
        }
        break;
      }
      case 'ClusterDeployment':
      case 'InfraEnv':
        pull(namespace, field(object, 'spec', 'pullSecretRef', 'name'));
        break;
      case 'BareMetalHost': {
        const name = field(object, 'spec', 'bmc', 'credentialsName');
        const key = `${namespace ?? ''}/${object.metadata.name}`;
        if (typeof name === 'string' && !emitted.has(`${namespace ?? ''}/${name}`))
          bmcSecrets.set(key, name);
        break;
      }
      default:
        break;
    }
  }
  return {
    imageSets: [...imageSets].sort(),
    pullSecrets: new Map([...pullSecrets].map(([ns, names]) => [ns, [...names].sort()])),
    bmcSecrets,
    manifestConfigMaps: new Map([...configMaps].map(([ns, names]) => [ns, [...names].sort()])),
  };
}

/** An empty manifests ConfigMap (the policies application's, which the demo does not run). */
export function manifestsConfigMapObject(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: {} };
}

/** A pull secret as a user's looks (docker config JSON); simulated hosts pull nothing. */
export function pullSecretObject(namespace: string, name: string): KubeObject {
  const config = { auths: { 'quay.io': { auth: Buffer.from('demo:demo').toString('base64') } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

/** The BMC credentials Secret BMO reads (`username`, `password`). */
export function bmcSecretObject(namespace: string, name: string, bmc: SimBmcAccess): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: {
      username: Buffer.from(bmc.username).toString('base64'),
      password: Buffer.from(bmc.password).toString('base64'),
    },
  };
}

/** A ClusterImageSet for `name`. */
export function clusterImageSetObject(name: string): KubeObject {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name },
    spec: { releaseImage: releaseImageOf(name) },
  };
}
