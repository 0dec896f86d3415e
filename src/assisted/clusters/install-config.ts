/**
 * The install-config.yaml of a cluster, built from its ClusterDeployment, AgentClusterInstall and
 * hosts the way assisted-service's builder does (AS `internal/installcfg/builder/builder.go`,
 * `internal/provider/{baremetal,none}`), then the ACI's `install-config-overrides` merged on top
 * as upstream decodes the override JSON into the built config: objects merge key by key, arrays
 * and scalars are replaced, an unknown top-level field is refused.
 */
import { stringify } from 'yaml';
import { cidrContains, parseCidr, parseIp } from '../../shared/ip.js';
import type { ClusterRecord, HostRecord } from '../model.js';
import { effectiveRole } from './roles.js';

/** What the install-config needs beyond the cluster record. */
export interface InstallConfigInput {
  readonly cluster: ClusterRecord;
  readonly hosts: readonly HostRecord[];
  readonly pullSecret: string;
  readonly proxy?: {
    readonly httpProxy?: string;
    readonly httpsProxy?: string;
    readonly noProxy?: string;
  };
  /** The `install-config-overrides` annotation, as JSON text. */
  readonly overrides?: string;
}

/** The install-config as data. */
export type InstallConfig = Record<string, unknown>;

/** The top-level fields of upstream's install-config type (others are unknown fields). */
const KNOWN_FIELDS = new Set([
  'apiVersion',
  'baseDomain',
  'proxy',
  'networking',
  'metadata',
  'compute',
  'controlPlane',
  'arbiter',
  'platform',
  'bootstrapInPlace',
  'fips',
  'cpuPartitioningMode',
  'pullSecret',
  'sshKey',
  'additionalTrustBundle',
  'additionalTrustBundlePolicy',
  'imageContentSources',
  'imageDigestSources',
  'capabilities',
  'featureSet',
  'featureGates',
  'osImageStream',
]);

/** The overrides are not what upstream accepts: the message says why. */
export class InstallConfigOverridesError extends Error {
  constructor(detail: string) {
    super(
      `Failed to parse 'agent-install.openshift.io/install-config-overrides' annotation: ${detail}`,
    );
    this.name = 'InstallConfigOverridesError';
  }
}

/**
 * The overrides as an object.
 * @throws InstallConfigOverridesError when they are not a JSON object of known fields
 */
export function parseOverrides(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InstallConfigOverridesError((err as Error).message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InstallConfigOverridesError(
      `json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type installcfg.InstallerConfigBaremetal`,
    );
  for (const key of Object.keys(parsed))
    if (!KNOWN_FIELDS.has(key))
      throw new InstallConfigOverridesError(`json: unknown field "${key}"`);
  return parsed as Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `base` with `patch` decoded over it: objects merge, everything else is replaced. */
export function mergeOverrides(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    merged[key] = isObject(current) && isObject(value) ? mergeOverrides(current, value) : value;
  }
  return merged;
}

function ipInCidr(address: string, cidrText: string): boolean {
  const ip = parseIp(address);
  const cidr = parseCidr(cidrText);
  return ip !== undefined && cidr !== undefined && cidrContains(cidr, ip);
}

function hostName(host: HostRecord): string {
  return host.requestedHostname ?? host.inventory?.hostname ?? host.id;
}

/** Upstream's host order: masters, then arbiters, then workers; by name within a role. */
function sortedHosts(hosts: readonly HostRecord[]): HostRecord[] {
  const rank = (h: HostRecord): number => {
    const role = effectiveRole(h);
    return role === 'master' ? 0 : role === 'arbiter' ? 1 : 2;
  };
  return [...hosts].sort((a, b) => rank(a) - rank(b) || hostName(a).localeCompare(hostName(b)));
}

/** The MAC of the interface on the first machine network the host has an address in. */
function bootMac(host: HostRecord, machineNetworks: readonly string[]): string {
  for (const iface of host.inventory?.interfaces ?? [])
    for (const address of [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])])
      for (const cidr of machineNetworks)
        if (ipInCidr(address.split('/')[0] ?? '', cidr)) return iface.mac_address ?? '';
  return '';
}

/** The disk a single-node host installs to (bootstrapInPlace.installationDisk). */
export function installationDiskPath(host: HostRecord): string | undefined {
  const id = host.installationDiskId;
  if (id === undefined || id === '') return undefined;
  if (id.startsWith('/dev/')) return id;
  const disk = host.inventory?.disks?.find((d) => d.id === id);
  return disk?.by_id ?? disk?.path ?? (disk?.name === undefined ? undefined : `/dev/${disk.name}`);
}

function noProxy(cluster: ClusterRecord, configured: string | undefined): string {
  const given = (configured ?? '').trim();
  if (given === '*') return given;
  return [
    ...given.split(',').filter((s) => s !== ''),
    `.${cluster.name}.${cluster.baseDnsDomain}`,
    ...cluster.clusterNetworks.map((n) => n.cidr),
    ...cluster.serviceNetworks,
    ...cluster.machineNetworks,
  ].join(',');
}

/**
 * The install-config as upstream builds it, overrides merged.
 * @throws InstallConfigOverridesError when the overrides are not valid
 */
export function buildInstallConfig(input: InstallConfigInput): InstallConfig {
  const { cluster, hosts } = input;
  const count = (role: string): number => hosts.filter((h) => effectiveRole(h) === role).length;
  const singleNode = cluster.highAvailabilityMode === 'None';
  const networking: Record<string, unknown> = {
    ...(cluster.networkType !== 'None' && { networkType: cluster.networkType }),
    clusterNetwork: cluster.clusterNetworks.map((n) => ({
      cidr: n.cidr,
      hostPrefix: n.hostPrefix,
    })),
    ...(cluster.machineNetworks.length > 0 && {
      machineNetwork: cluster.machineNetworks.map((cidr) => ({ cidr })),
    }),
    serviceNetwork: [...cluster.serviceNetworks],
  };
  const config: InstallConfig = {
    apiVersion: 'v1',
    baseDomain: cluster.baseDnsDomain,
    ...((input.proxy?.httpProxy ?? '') !== '' || (input.proxy?.httpsProxy ?? '') !== ''
      ? {
          proxy: {
            ...(input.proxy?.httpProxy && { httpProxy: input.proxy.httpProxy }),
            ...(input.proxy?.httpsProxy && { httpsProxy: input.proxy.httpsProxy }),
            noProxy: noProxy(cluster, input.proxy?.noProxy),
          },
        }
      : {}),
    networking,
    metadata: { name: cluster.name },
    compute: [{ hyperthreading: 'Enabled', name: 'worker', replicas: count('worker') }],
    controlPlane: { hyperthreading: 'Enabled', name: 'master', replicas: count('master') },
    ...(count('arbiter') > 0 && {
      arbiter: { hyperthreading: 'Enabled', name: 'arbiter', replicas: count('arbiter') },
    }),
  };
  if (cluster.platformType === 'baremetal' && !cluster.userManagedNetworking) {
    config['platform'] = {
      baremetal: {
        provisioningNetwork: 'Disabled',
        apiVIPs: [...cluster.apiVips],
        ingressVIPs: [...cluster.ingressVips],
        hosts: sortedHosts(hosts).map((h) => ({
          name: hostName(h),
          role: effectiveRole(h),
          bootMACAddress: bootMac(h, cluster.machineNetworks),
          bootMode: h.inventory?.boot?.current_boot_mode === 'uefi' ? 'UEFI' : 'legacy',
        })),
      },
    };
  } else {
    config['platform'] = { none: {} };
    if (singleNode) {
      networking['networkType'] ??= 'OVNKubernetes';
      const bootstrap = hosts.find((h) => h.bootstrap);
      const disk = bootstrap && installationDiskPath(bootstrap);
      if (disk !== undefined) config['bootstrapInPlace'] = { installationDisk: disk };
    }
  }
  config['fips'] = false;
  config['pullSecret'] = input.pullSecret;
  config['sshKey'] = cluster.sshPublicKey ?? '';
  const overrides = input.overrides ?? '';
  return overrides === '' ? config : mergeOverrides(config, parseOverrides(overrides));
}

/** The install-config.yaml text. */
export function installConfigYaml(config: InstallConfig): string {
  return stringify(config);
}
