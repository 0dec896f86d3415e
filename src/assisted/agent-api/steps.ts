/**
 * The instructions the agent runs and what it answers, as assisted-service builds and reads
 * them (`internal/host/hostcommands/*_cmd.go`, `internal/bminventory/inventory.go`
 * filterReplyByType). Each step's `args` are what the agent's action for that step type
 * validates (`assisted-installer-agent src/commands/actions/*.go`): for most, one argument, the
 * JSON of the step's request model, with the keys in the order Go marshals them (the models'
 * fields, alphabetical) and Go's HTML escaping, so the bytes match upstream's. Pure: no I/O.
 */
import { randomBytes } from 'node:crypto';
import type {
  ClusterRecord,
  HostRecord,
  HostRole,
  WireDisk,
  WireInterface,
  WireInventory,
} from '../model.js';
import { HostStatus, StepType } from '../model.js';
import { cidrContains, formatCidrNetwork, parseCidr, parseIp } from '../../shared/ip.js';
import type { Instruction, StepReply, Steps } from './backend.js';

/** Images the steps name (assisted-service `InstructionConfig` and the release payload). */
export interface StepImages {
  /** The agent image (`AGENT_DOCKER_IMAGE`); next-step-runner and upgrade-agent. */
  readonly agent: string;
  /** `INSTALLER_IMAGE`. @default quay.io/edge-infrastructure/assisted-installer:latest */
  readonly installer?: string;
  /** `CONTROLLER_IMAGE`. @default quay.io/edge-infrastructure/assisted-installer-controller:latest */
  readonly controller?: string;
  /** The cluster's release image (`ocpReleaseImage`). */
  readonly release?: string;
  /** The machine-config-operator image of the release. */
  readonly mco?: string;
  /** Must-gather images by operator (`ocp`, `cnv`, `odf`, …). */
  readonly mustGather?: Readonly<Record<string, string>>;
}

/** Service settings the steps carry (assisted-service `InstructionConfig`). */
export interface StepSettings {
  /** `AGENT_INVENTORY_MAX_SIZE`; 0 leaves the flag out. @default 0 */
  readonly inventoryMaxSize?: number;
  /** `AGENT_INVENTORY_DISK_MIN_SIZE`; 0 leaves the flag out. @default 0 */
  readonly inventoryDiskMinSize?: number;
  /** `DISK_CHECK_TIMEOUT` in seconds. @default 480 */
  readonly diskCheckTimeoutSeconds?: number;
  /** `IMAGE_AVAILABILITY_TIMEOUT` in seconds. @default 960 */
  readonly imageAvailabilityTimeoutSeconds?: number;
  /** `check_cvo` of the install request. @default false */
  readonly checkClusterVersion?: boolean;
  /** `ENABLE_SKIP_MCO_REBOOT` (applies from OpenShift 4.15, not on s390x). @default false */
  readonly enableSkipMcoReboot?: boolean;
  /**
   * Kube-API mode (the operator, as here): free-network-addresses is never sent and the install
   * request does not ask the controller to count reboots. @default true
   */
  readonly kubeApi?: boolean;
  /** `HOST_FS_MOUNT_DIR`, for reclaim steps. @default "" */
  readonly hostFsMountDir?: string;
}

/** The cluster's proxy, as the install request passes it to the installer. */
export interface StepProxy {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  readonly noProxy?: string;
}

/** Everything a step builder reads: the host, its cluster, the cluster's other hosts. */
export interface StepContext {
  readonly host: HostRecord;
  /** The cluster the host is bound to; steps that need one are not built without it. */
  readonly cluster?: ClusterRecord;
  /** The hosts of the same cluster (the host itself may be among them; it is skipped). */
  readonly clusterHosts?: readonly HostRecord[];
  readonly images: StepImages;
  readonly settings?: StepSettings;
  /** Comma-separated NTP sources (the InfraEnv's `additionalNTPSources`). @default "" */
  readonly ntpSources?: string;
  /** The InfraEnv has static network configuration (NMStateConfigs): `--copy-network`. */
  readonly staticNetwork?: boolean;
  readonly proxy?: StepProxy;
  /** Leases DHCP gave the VIPs so far (VIP DHCP allocation only). */
  readonly vipDhcpAllocation?: {
    readonly apiVipLease?: string;
    readonly ingressVipLease?: string;
  };
  /** `TangServers` of the cluster's disk encryption, when Tang applies to this host's role. */
  readonly tangServers?: string;
  /** Reclaim: URLs of the InfraEnv's boot artifacts. */
  readonly bootArtifacts?: {
    readonly kernelUrl: string;
    readonly initrdUrl: string;
    readonly rootfsUrl: string;
  };
}

const DEFAULT_INSTALLER_IMAGE = 'quay.io/edge-infrastructure/assisted-installer:latest';
const DEFAULT_CONTROLLER_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-controller:latest';
/** assisted-service `constants.AppsSubDomainNameHostDNSValidation`. */
const APPS_PROBE_NAME = 'console-openshift-console';
/** assisted-service `constants.DNSWildcardFalseDomainName`. */
const WILDCARD_PROBE_NAME = 'validateNoWildcardDNS';
/** Free addresses are scanned only in IPv4 networks of at most 2^10 addresses. */
const MAX_SMALL_V4_HOST_BITS = 10;

/** Random bytes for step ids, drawn 4 at a time from a block (one RNG call per 1,024 ids). */
let entropy = Buffer.alloc(0);
let entropyUsed = 0;

/** A step id as upstream makes them: `<step_type>-<8 hex>`. */
export function newStepId(stepType: StepType): string {
  if (entropyUsed + 4 > entropy.length) {
    entropy = randomBytes(4096);
    entropyUsed = 0;
  }
  const hex = entropy.toString('hex', entropyUsed, entropyUsed + 4);
  entropyUsed += 4;
  return `${stepType}-${hex}`;
}

/**
 * JSON as Go's encoding/json writes it: like JSON.stringify, but `<`, `>`, `&`, U+2028 and
 * U+2029 escaped as `\u00XX`, so args are byte-for-byte what assisted-service sends.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The role a host installs as (upstream `GetEffectiveRole`: the suggestion when auto-assign). */
export function effectiveRole(host: HostRecord): HostRole {
  return host.role === 'auto-assign' ? host.suggestedRole : host.role;
}

/** The args of the next-step-runner command of a registration (`next_step_cmd_request`). */
export function nextStepRunnerArgs(
  infraEnvId: string,
  hostId: string,
  agentImage: string,
): string[] {
  return [goJson({ agent_version: agentImage, host_id: hostId, infra_env_id: infraEnvId })];
}

/**
 * One instruction of the given type for the host, with its args as upstream builds them, or
 * undefined where upstream sends no such step (no other host to check, nothing left to check,
 * a value the step needs is missing, or a type the service never sends, like `execute`).
 */
export function buildInstruction(
  type: StepType,
  ctx: StepContext,
  stepId: string = newStepId(type),
): Instruction | undefined {
  const args = buildArgs(type, ctx);
  return args === undefined ? undefined : { stepType: type, stepId, args };
}

function buildArgs(type: StepType, ctx: StepContext): string[] | undefined {
  switch (type) {
    case StepType.Inventory:
      return inventoryArgs(ctx);
    case StepType.ConnectivityCheck:
      return one(connectivityParams(ctx));
    case StepType.FreeNetworkAddresses:
      return one(freeAddressesParams(ctx));
    case StepType.NtpSynchronizer:
      return [goJson({ ntp_source: ctx.ntpSources ?? '' })];
    case StepType.DomainResolution:
      return one(domainResolutionParams(ctx));
    case StepType.InstallationDiskSpeedCheck:
      return diskSpeedArgs(ctx);
    case StepType.ContainerImageAvailability:
      return one(imageAvailabilityParams(ctx));
    case StepType.Install:
      return one(installParams(ctx));
    case StepType.LogsGather:
      return one(logsGatherParams(ctx));
    case StepType.StopInstallation:
      return [];
    case StepType.DhcpLeaseAllocate:
      return one(dhcpParams(ctx));
    case StepType.TangConnectivityCheck:
      return ctx.tangServers === undefined
        ? undefined
        : [goJson({ tang_servers: ctx.tangServers })];
    case StepType.VerifyVips:
      return one(verifyVipsParams(ctx));
    case StepType.NextStepRunner:
      return nextStepRunnerArgs(ctx.host.infraEnvId, ctx.host.id, ctx.images.agent);
    case StepType.UpgradeAgent:
      return [goJson({ agent_image: ctx.images.agent })];
    case StepType.RebootForReclaim:
      return [goJson({ host_fs_mount_dir: ctx.settings?.hostFsMountDir ?? '' })];
    case StepType.DownloadBootArtifacts: {
      const urls = ctx.bootArtifacts;
      if (!urls) return undefined;
      return [
        goJson({
          host_fs_mount_dir: ctx.settings?.hostFsMountDir ?? '',
          initrd_url: urls.initrdUrl,
          kernel_url: urls.kernelUrl,
          rootfs_url: urls.rootfsUrl,
        }),
      ];
    }
    case StepType.ApiVipConnectivityCheck:
    case StepType.Execute:
      // Day-2 only (the imported cluster's ignition endpoint) / never sent by the service.
      return undefined;
  }
}

function one(param: string | undefined): string[] | undefined {
  return param === undefined ? undefined : [param];
}

function inventoryArgs(ctx: StepContext): string[] {
  const args = [ctx.host.id];
  const maxSize = ctx.settings?.inventoryMaxSize ?? 0;
  const diskMinSize = ctx.settings?.inventoryDiskMinSize ?? 0;
  if (maxSize > 0) args.push(`--output-max-size=${String(maxSize)}`);
  if (diskMinSize > 0) args.push(`--disk-min-size=${String(diskMinSize)}`);
  return args;
}

/** `connectivity-check-params`: the NICs of every other host that has an inventory. */
function connectivityParams(ctx: StepContext): string | undefined {
  const skipped: readonly string[] = [HostStatus.Discovering, HostStatus.Disconnected];
  const hosts = (ctx.clusterHosts ?? []).filter(
    (other) => other.id !== ctx.host.id && !skipped.includes(other.status),
  );
  const params = hosts.flatMap((other) => {
    const interfaces = other.inventory?.interfaces ?? [];
    // Upstream's validator fails a host without interfaces, which drops the whole step.
    if (interfaces.length === 0) return [];
    return [
      {
        host_id: other.id,
        nics: interfaces.map((nic) => {
          const addresses = [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].map(
            (address) => address.split('/')[0] ?? address,
          );
          return {
            ip_addresses: addresses.length > 0 ? addresses : null,
            ...(nic.mac_address ? { mac: nic.mac_address } : {}),
            ...(nic.name ? { name: nic.name } : {}),
          };
        }),
      },
    ];
  });
  return params.length === 0 ? undefined : goJson(params);
}

/** `free_addresses_request`: the host's small IPv4 networks (never in kube-API mode). */
function freeAddressesParams(ctx: StepContext): string | undefined {
  if (ctx.settings?.kubeApi ?? true) return undefined;
  const networks = inventoryNetworks(ctx.host.inventory, 4).filter(
    (text) => (parseCidr(text)?.prefix ?? 0) >= 32 - MAX_SMALL_V4_HOST_BITS,
  );
  return networks.length === 0 ? undefined : goJson(networks);
}

/** The distinct networks of the inventory's addresses of one family, in inventory order. */
function inventoryNetworks(inventory: WireInventory | undefined, family: 4 | 6): string[] {
  const seen = new Set<string>();
  for (const nic of inventory?.interfaces ?? []) {
    for (const address of (family === 4 ? nic.ipv4_addresses : nic.ipv6_addresses) ?? []) {
      const cidr = parseCidr(address);
      if (cidr) seen.add(formatCidrNetwork(cidr));
    }
  }
  return [...seen];
}

/** `domain_resolution_request`: api, api-int, an apps name, the wildcard probes, the registry. */
function domainResolutionParams(ctx: StepContext): string | undefined {
  const cluster = ctx.cluster;
  if (!cluster || cluster.name === '' || cluster.baseDnsDomain === '') return undefined;
  const suffix = `${cluster.name}.${cluster.baseDnsDomain}`;
  const names = [
    `api.${suffix}`,
    `api-int.${suffix}`,
    `${APPS_PROBE_NAME}.apps.${suffix}`,
    `${WILDCARD_PROBE_NAME}.${suffix}.`,
    `${WILDCARD_PROBE_NAME}.${suffix}`,
  ];
  const registry = ctx.images.release === undefined ? undefined : imageHost(ctx.images.release);
  if (registry !== undefined && parseIp(registry) === undefined) names.push(registry);
  return goJson({ domains: names.map((name) => ({ domain_name: name })) });
}

/** The registry host of an image reference, without its port (upstream GetReleaseImageHost). */
function imageHost(image: string): string | undefined {
  const first = image.split('/')[0];
  if (first === undefined || first === image) return undefined;
  if (first.startsWith('[')) return first.slice(1, first.indexOf(']'));
  return first.split(':')[0];
}

function diskSpeedArgs(ctx: StepContext): string[] | undefined {
  const { host } = ctx;
  if (host.inventory?.boot?.device_type === 'persistent') return undefined;
  const bootDevice = host.installationDiskId;
  if (bootDevice === undefined || bootDevice === '') return undefined;
  if (diskSpeedKnown(host, bootDevice)) return undefined;
  if (
    host.installerArgs?.includes('--save-partlabel') ||
    host.installerArgs?.includes('--save-partindex')
  )
    return undefined;
  const timeout = ctx.settings?.diskCheckTimeoutSeconds ?? 480;
  return [goJson({ path: bootDevice }), timeout.toFixed(2)];
}

function diskSpeedKnown(host: HostRecord, path: string): boolean {
  const result = host.stepResults.diskSpeed;
  if (Array.isArray(result))
    return result.some((entry) => isRecord(entry) && entry['path'] === path);
  return isRecord(result) && result['path'] === path;
}

/** `container_image_availability_request`: release, MCO, must-gather (ocp), installer. */
function imageAvailabilityParams(ctx: StepContext): string | undefined {
  const { images } = ctx;
  if (images.release === undefined || images.mco === undefined) return undefined;
  const candidates = [images.release, images.mco];
  const ocpMustGather = images.mustGather?.['ocp'];
  if (ocpMustGather !== undefined) candidates.push(ocpMustGather);
  candidates.push(images.installer ?? DEFAULT_INSTALLER_IMAGE);
  const known = knownImages(ctx.host);
  const toCheck = candidates.filter((image) => !known.has(image));
  if (toCheck.length === 0) return undefined;
  const timeout = Math.trunc(ctx.settings?.imageAvailabilityTimeoutSeconds ?? 960);
  return goJson({ images: toCheck, ...(timeout !== 0 ? { timeout } : {}) });
}

function knownImages(host: HostRecord): Set<string> {
  const known = new Set<string>();
  const result = host.stepResults.imageAvailability;
  const images = isRecord(result) ? result['images'] : result;
  if (Array.isArray(images)) {
    for (const image of images) {
      if (isRecord(image) && typeof image['name'] === 'string') known.add(image['name']);
    }
  }
  return known;
}

/** `install_cmd_request`, as installCmd.getFullInstallerCommand fills it. */
function installParams(ctx: StepContext): string | undefined {
  const { host, cluster, images } = ctx;
  const inventory = host.inventory;
  const bootDevice = host.installationDiskId;
  if (!cluster || !inventory || bootDevice === undefined || bootDevice === '') return undefined;
  if (images.release === undefined || images.mco === undefined) return undefined;
  const settings = ctx.settings ?? {};
  const installerArgs = hostInstallerArgs(ctx, inventory);
  if (installerArgs === undefined) return undefined;
  const saveDisks =
    installerArgs.includes('--save-partlabel') || installerArgs.includes('--save-partindex');
  const skipMcoReboot =
    (settings.enableSkipMcoReboot ?? false) &&
    versionAtLeast(cluster.openshiftVersion, 4, 15) &&
    inventory.cpu?.architecture !== 's390x' &&
    !installationDiskIsDeviceMapper(inventory, bootDevice);
  const request: Record<string, unknown> = {
    boot_device: bootDevice,
    check_cvo: settings.checkClusterVersion ?? false,
    cluster_id: host.clusterId,
    ...(cluster.controlPlaneAgents !== 0
      ? { control_plane_count: cluster.controlPlaneAgents }
      : {}),
    controller_image: images.controller ?? DEFAULT_CONTROLLER_IMAGE,
    disks_to_format: disksToFormat(inventory),
    ...(skipMcoReboot ? { enable_skip_mco_reboot: true } : {}),
    host_id: host.id,
    infra_env_id: host.infraEnvId,
    ...(installerArgs.length > 0 ? { installer_args: goJson(installerArgs) } : {}),
    installer_image: images.installer ?? DEFAULT_INSTALLER_IMAGE,
    mco_image: images.mco,
    ...mustGatherField(images.mustGather),
    ...((settings.kubeApi ?? true) ? {} : { notify_num_reboots: true }),
    ...(cluster.openshiftVersion !== '' ? { openshift_version: cluster.openshiftVersion } : {}),
    ...proxyField(ctx.proxy, cluster),
    role: host.bootstrap ? 'bootstrap' : effectiveRole(host),
    service_ips: null,
    ...(saveDisks ? { skip_installation_disk_cleanup: true } : {}),
  };
  return goJson(request);
}

function mustGatherField(images: Readonly<Record<string, string>> | undefined): object {
  if (!images || Object.keys(images).length === 0) return {};
  const keys = Object.keys(images);
  if (keys.length === 1 && images['ocp']) return { must_gather_image: images['ocp'] };
  // Go marshals a map with its keys sorted.
  const sorted = Object.fromEntries(keys.sort().map((key) => [key, images[key]]));
  return { must_gather_image: goJson(sorted) };
}

function proxyField(proxy: StepProxy | undefined, cluster: ClusterRecord): object {
  const http = proxy?.httpProxy ?? '';
  const https = proxy?.httpsProxy ?? '';
  if (http === '' && https === '') return {};
  const noProxyText = (proxy?.noProxy ?? '').trim();
  let noProxy: string;
  if (noProxyText === '*') {
    noProxy = '*';
  } else {
    const entries = [
      ...(noProxyText === '' ? [] : noProxyText.split(',')),
      '127.0.0.1',
      'localhost',
      '.svc',
      '.cluster.local',
      `api-int.${cluster.name}.${cluster.baseDnsDomain}`,
    ];
    noProxy = [...new Set(entries)].join(',');
  }
  return {
    proxy: {
      ...(http !== '' ? { http_proxy: http } : {}),
      ...(https !== '' ? { https_proxy: https } : {}),
      no_proxy: noProxy,
    },
  };
}

/**
 * The coreos-installer args of the host (constructHostInstallerArgs): the user's args, then
 * `--copy-network` for static networking, else `ip=<mac>:dhcp` for each NIC in the machine
 * network unless the user set an `ip=` of their own. Undefined where upstream fails the step
 * (no machine network to pick the DHCP family from).
 */
function hostInstallerArgs(ctx: StepContext, inventory: WireInventory): string[] | undefined {
  const args = [...(ctx.host.installerArgs ?? [])];
  const disk = findDisk(inventory, ctx.host.installationDiskId);
  if (disk?.drive_type === 'Multipath')
    args.push('--append-karg', 'rw', '--append-karg', 'rd.multipath=default');
  if (disk?.drive_type === 'iSCSI' && !args.includes('rd.iscsi.firmware=1'))
    args.push('--append-karg', 'rd.iscsi.firmware=1');
  if (disk?.drive_type === 'RAID') {
    for (const karg of ['rd.md=1', 'rd.auto=1']) {
      if (!args.includes(karg)) args.push('--append-karg', karg);
    }
  }
  if (ctx.staticNetwork) {
    if (!args.includes('--copy-network')) args.push('--copy-network');
    return args;
  }
  if (args.some((arg) => arg.startsWith('ip='))) return args;
  const machineNetwork = primaryMachineNetwork(ctx, inventory);
  if (machineNetwork === undefined) return undefined;
  const cidr = parseCidr(machineNetwork);
  if (!cidr) return undefined;
  const dualStack =
    new Set(ctx.cluster?.machineNetworks.map((text) => parseCidr(text)?.family)).size > 1;
  const dhcp = dualStack ? 'dhcp,dhcp6' : cidr.family === 6 ? 'dhcp6' : 'dhcp';
  for (const nic of inventory.interfaces ?? []) {
    const addresses = (cidr.family === 6 ? nic.ipv6_addresses : nic.ipv4_addresses) ?? [];
    const inNetwork = addresses.some((address) => {
      const ip = parseIp(address.split('/')[0] ?? '');
      return ip !== undefined && cidrContains(cidr, ip);
    });
    if (inNetwork) args.push('--append-karg', `ip=${dhcpNicName(nic)}:${dhcp}`);
  }
  return args;
}

function dhcpNicName(nic: WireInterface): string {
  return (nic.mac_address ?? '').replaceAll(':', '-');
}

/** The first machine network, or for user-managed networking the host's first IPv4 network. */
function primaryMachineNetwork(ctx: StepContext, inventory: WireInventory): string | undefined {
  const first = ctx.cluster?.machineNetworks[0];
  if (first !== undefined) return first;
  if (ctx.cluster?.userManagedNetworking) {
    return inventoryNetworks(inventory, 4)[0] ?? inventoryNetworks(inventory, 6)[0];
  }
  return undefined;
}

function findDisk(inventory: WireInventory, diskId: string | undefined): WireDisk | undefined {
  if (diskId === undefined) return undefined;
  return (inventory.disks ?? []).find((disk) => disk.id === diskId || disk.path === diskId);
}

function installationDiskIsDeviceMapper(inventory: WireInventory, diskId: string): boolean {
  const path = findDisk(inventory, diskId)?.path ?? '';
  return path.replace('/dev/', '').startsWith('dm-');
}

/** Disks a quick format clears: bootable, fixed, not FC/iSCSI/LVM/multipath, not the ISO. */
function disksToFormat(inventory: WireInventory): string[] {
  const skipped = ['FC', 'iSCSI', 'LVM', 'Multipath'];
  return (inventory.disks ?? [])
    .filter((disk) => {
      const removable = (disk.removable ?? false) || (disk.by_path ?? '').includes('mmcblk');
      return (
        (disk.bootable ?? false) &&
        !removable &&
        !skipped.includes(disk.drive_type ?? '') &&
        !(disk.is_installation_media ?? false)
      );
    })
    .map((disk) => (disk.id !== undefined && disk.id !== '' ? disk.id : `/dev/${disk.name ?? ''}`));
}

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version);
  if (!match) return false;
  const [gotMajor, gotMinor] = [Number(match[1]), Number(match[2])];
  return gotMajor > major || (gotMajor === major && gotMinor >= minor);
}

/** `logs_gather_cmd_request`; none once the host's logs were collected. */
function logsGatherParams(ctx: StepContext): string | undefined {
  const { host, cluster } = ctx;
  if (host.logsCollectedAt !== undefined) return undefined;
  let masterIps: string[] | null = null;
  if (host.bootstrap && cluster) {
    const ips = masterAddresses(ctx, cluster);
    masterIps = ips.length > 0 ? ips : null;
  }
  return goJson({
    bootstrap: host.bootstrap,
    cluster_id: host.clusterId,
    host_id: host.id,
    infra_env_id: host.infraEnvId,
    installer_gather: true,
    master_ips: masterIps,
  });
}

/** The addresses the bootstrap gathers logs from: the other control-plane hosts. */
function masterAddresses(ctx: StepContext, cluster: ClusterRecord): string[] {
  const masters = (ctx.clusterHosts ?? []).filter(
    (other) => !other.bootstrap && effectiveRole(other) !== 'worker',
  );
  const machineCidr =
    cluster.machineNetworks[0] === undefined ? undefined : parseCidr(cluster.machineNetworks[0]);
  return masters.flatMap((other) => {
    const addresses = (other.inventory?.interfaces ?? []).flatMap((nic) => [
      ...(nic.ipv4_addresses ?? []),
      ...(nic.ipv6_addresses ?? []),
    ]);
    const ips = addresses.map((address) => address.split('/')[0] ?? address);
    if (cluster.userManagedNetworking || !machineCidr) return ips;
    const inNetwork = ips.find((text) => {
      const ip = parseIp(text);
      return ip !== undefined && cidrContains(machineCidr, ip);
    });
    return inNetwork === undefined ? [] : [inNetwork];
  });
}

/** `dhcp_allocation_request`, only with VIP DHCP allocation and a machine network. */
function dhcpParams(ctx: StepContext): string | undefined {
  const { host, cluster } = ctx;
  const dhcp = ctx.vipDhcpAllocation;
  if (!dhcp || !cluster || !host.inventory || host.clusterId === undefined) return undefined;
  const machineCidr =
    cluster.machineNetworks[0] === undefined ? undefined : parseCidr(cluster.machineNetworks[0]);
  if (!machineCidr) return undefined;
  const nic = (host.inventory.interfaces ?? []).find((candidate) =>
    [...(candidate.ipv4_addresses ?? []), ...(candidate.ipv6_addresses ?? [])].some((address) => {
      const ip = parseIp(address.split('/')[0] ?? '');
      return ip !== undefined && cidrContains(machineCidr, ip);
    }),
  );
  if (nic?.name === undefined) return undefined;
  return goJson({
    ...(dhcp.apiVipLease ? { api_vip_lease: dhcp.apiVipLease } : {}),
    api_vip_mac: vipMac(host.clusterId, 'api'),
    ...(dhcp.ingressVipLease ? { ingress_vip_lease: dhcp.ingressVipLease } : {}),
    ingress_vip_mac: vipMac(host.clusterId, 'ingress'),
    interface: nic.name,
  });
}

/** RFC 3074's Pearson table, as assisted-service's `network/mac_utils.go` uses it. */
const PEARSON = [
  251, 175, 119, 215, 81, 14, 79, 191, 103, 49, 181, 143, 186, 157, 0, 232, 31, 32, 55, 60, 152, 58,
  17, 237, 174, 70, 160, 144, 220, 90, 57, 223, 59, 3, 18, 140, 111, 166, 203, 196, 134, 243, 124,
  95, 222, 179, 197, 65, 180, 48, 36, 15, 107, 46, 233, 130, 165, 30, 123, 161, 209, 23, 97, 16, 40,
  91, 219, 61, 100, 10, 210, 109, 250, 127, 22, 138, 29, 108, 244, 67, 207, 9, 178, 204, 74, 98,
  126, 249, 167, 116, 34, 77, 193, 200, 121, 5, 20, 113, 71, 35, 128, 13, 182, 94, 25, 226, 227,
  199, 75, 27, 41, 245, 230, 224, 43, 225, 177, 26, 155, 150, 212, 142, 218, 115, 241, 73, 88, 105,
  39, 114, 62, 255, 192, 201, 145, 214, 168, 158, 221, 148, 154, 122, 12, 84, 82, 163, 44, 139, 228,
  236, 205, 242, 217, 11, 187, 146, 159, 64, 86, 239, 195, 42, 106, 198, 118, 112, 184, 172, 87, 2,
  173, 117, 176, 229, 247, 253, 137, 185, 99, 164, 102, 147, 45, 66, 231, 52, 141, 211, 194, 206,
  246, 238, 56, 110, 78, 248, 63, 240, 189, 93, 92, 51, 53, 183, 19, 171, 72, 50, 33, 104, 101, 69,
  8, 252, 83, 120, 76, 135, 85, 54, 202, 125, 188, 213, 96, 235, 136, 208, 162, 129, 190, 132, 156,
  38, 47, 1, 7, 254, 24, 4, 216, 131, 89, 21, 28, 133, 37, 153, 149, 80, 170, 68, 6, 169, 234, 151,
];

/** The MAC a VIP's DHCP lease is requested for: Qumranet prefix + Pearson hash of `<id>-<vip>`. */
export function vipMac(clusterId: string, vip: 'api' | 'ingress'): string {
  const key = Buffer.from(`${clusterId}-${vip}`, 'utf8');
  const bytes = [0x00, 0x1a, 0x4a];
  for (let i = 0; i < 3; i++) {
    let h = PEARSON[(key[0]! + i) % 256]!;
    for (const c of key) h = PEARSON[h ^ c]!;
    bytes.push(h);
  }
  return bytes.map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/** `verify_vips_request`: API VIPs, then ingress VIPs. */
function verifyVipsParams(ctx: StepContext): string | undefined {
  const { cluster } = ctx;
  if (!cluster || !ctx.host.inventory) return undefined;
  if (cluster.apiVips.length === 0 && cluster.ingressVips.length === 0) return undefined;
  return goJson([
    ...cluster.apiVips.map((vip) => ({ vip, vip_type: 'api' })),
    ...cluster.ingressVips.map((vip) => ({ vip, vip_type: 'ingress' })),
  ]);
}

// ---- Step replies ------------------------------------------------------------------------------

/** One NTP source as the agent reports it. */
export interface NtpSource {
  readonly source_name?: string;
  readonly source_state?:
    'synced' | 'combined' | 'not_combined' | 'error' | 'variable' | 'unreachable';
}

/** `connectivity-report`. */
export interface ConnectivityReport {
  readonly remote_hosts?: readonly {
    readonly host_id?: string;
    readonly l2_connectivity?: readonly Record<string, unknown>[];
    readonly l3_connectivity?: readonly Record<string, unknown>[];
    readonly mtu_report?: readonly Record<string, unknown>[];
  }[];
}

/** `domain_resolution_response`. */
export interface DomainResolutionResponse {
  readonly resolutions: readonly {
    readonly domain_name: string;
    readonly ipv4_addresses?: readonly string[];
    readonly ipv6_addresses?: readonly string[];
    readonly cnames?: readonly string[];
  }[];
}

/** `free_networks_addresses`. */
export type FreeNetworksAddresses = readonly {
  readonly network?: string;
  readonly free_addresses?: readonly string[];
}[];

/** `disk_speed_check_response`. */
export interface DiskSpeedCheckResponse {
  readonly io_sync_duration?: number;
  readonly path?: string;
}

/** `container_image_availability_response`. */
export interface ImageAvailabilityResponse {
  readonly images: readonly {
    readonly name?: string;
    readonly result?: 'success' | 'failure';
    readonly size_bytes?: number;
    readonly time?: number;
    readonly download_rate?: number;
  }[];
}

/** What a step reply says, typed by step type. */
export type ParsedStepReply =
  | { readonly stepType: 'inventory'; readonly inventory: WireInventory }
  | { readonly stepType: 'ntp-synchronizer'; readonly ntpSources: readonly NtpSource[] }
  | { readonly stepType: 'connectivity-check'; readonly report: ConnectivityReport }
  | { readonly stepType: 'domain-resolution'; readonly response: DomainResolutionResponse }
  | { readonly stepType: 'free-network-addresses'; readonly networks: FreeNetworksAddresses }
  | {
      readonly stepType: 'installation-disk-speed-check';
      readonly response: DiskSpeedCheckResponse;
      readonly exitCode: number;
    }
  | {
      readonly stepType: 'container-image-availability';
      readonly response: ImageAvailabilityResponse;
    }
  /** The install step's reply: exit code 0 is the installer started; else the install failed. */
  | {
      readonly stepType: 'install';
      readonly failed: boolean;
      /** The installer container is already running (exit 125, upstream ignores the failure). */
      readonly alreadyRunning: boolean;
      readonly error: string;
    }
  /** A step that failed (exit code not 0) whose output upstream does not read. */
  | {
      readonly stepType: 'failed';
      readonly type: string;
      readonly exitCode: number;
      readonly error: string;
    }
  /** A reply upstream does not act on (empty disk-speed or image output) or reads as-is. */
  | { readonly stepType: 'other'; readonly type: string; readonly output: unknown };

/** A reply assisted-service answers 400 (its output is not the JSON its step type returns). */
export interface StepReplyRejection {
  readonly ok: false;
  readonly reason: string;
}

/** Exit code of `podman run` when the container name is taken (agent `install` step). */
const CONTAINER_ALREADY_RUNNING = 125;

/**
 * Reads a step reply as upstream does: a non-zero exit code is a failure whose output is
 * read only for disk speed and image availability; an empty output of those two is ignored;
 * otherwise the output must be the JSON of the step's response model, or the reply is refused
 * (assisted-service answers 400 with the JSON error as the reason).
 */
export function parseStepReply(
  reply: StepReply,
): { readonly ok: true; readonly value: ParsedStepReply } | StepReplyRejection {
  const { stepType: type, exitCode, output } = reply;
  if (type === StepType.Install) {
    return ok({
      stepType: 'install',
      failed: exitCode !== 0,
      alreadyRunning:
        exitCode === CONTAINER_ALREADY_RUNNING &&
        reply.error.includes('the container name "assisted-installer" is already in use'),
      error: reply.error,
    });
  }
  const readsOutputOnFailure =
    type === StepType.InstallationDiskSpeedCheck || type === StepType.ContainerImageAvailability;
  if (exitCode !== 0 && !readsOutputOnFailure) {
    return ok({ stepType: 'failed', type, exitCode, error: reply.error });
  }
  if (readsOutputOnFailure && output.length === 0) {
    return ok({ stepType: 'other', type, output: undefined });
  }
  const modelled: readonly string[] = [
    StepType.Inventory,
    StepType.ConnectivityCheck,
    StepType.ApiVipConnectivityCheck,
    StepType.TangConnectivityCheck,
    StepType.FreeNetworkAddresses,
    StepType.DhcpLeaseAllocate,
    StepType.NtpSynchronizer,
    StepType.ContainerImageAvailability,
    StepType.InstallationDiskSpeedCheck,
    StepType.DomainResolution,
    StepType.UpgradeAgent,
    StepType.VerifyVips,
  ];
  if (!modelled.includes(type)) return ok({ stepType: 'other', type, output });
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const expectsArray = type === StepType.FreeNetworkAddresses || type === StepType.VerifyVips;
  // Go's decoder takes JSON null as an empty model; any other kind mismatch is an error.
  if (value === null) value = expectsArray ? [] : {};
  if (expectsArray ? !Array.isArray(value) : !isRecord(value)) {
    return {
      ok: false,
      reason: `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${goModelName(type)}`,
    };
  }
  return ok(typedReply(type, value, exitCode));
}

function typedReply(type: StepType, value: unknown, exitCode: number): ParsedStepReply {
  const record = isRecord(value) ? value : {};
  const list = (key: string): unknown[] => {
    const field = record[key];
    return Array.isArray(field) ? field : [];
  };
  if (type === StepType.Inventory) return { stepType: 'inventory', inventory: record };
  if (type === StepType.NtpSynchronizer)
    return { stepType: 'ntp-synchronizer', ntpSources: list('ntp_sources') as NtpSource[] };
  if (type === StepType.ConnectivityCheck)
    return { stepType: 'connectivity-check', report: record };
  if (type === StepType.DomainResolution) {
    const resolutions = list('resolutions') as DomainResolutionResponse['resolutions'];
    return { stepType: 'domain-resolution', response: { resolutions } };
  }
  if (type === StepType.FreeNetworkAddresses)
    return { stepType: 'free-network-addresses', networks: value as FreeNetworksAddresses };
  if (type === StepType.InstallationDiskSpeedCheck)
    return { stepType: 'installation-disk-speed-check', response: record, exitCode };
  if (type === StepType.ContainerImageAvailability) {
    const images = list('images') as ImageAvailabilityResponse['images'];
    return { stepType: 'container-image-availability', response: { images } };
  }
  return { stepType: 'other', type, output: value };
}

function ok(value: ParsedStepReply): { readonly ok: true; readonly value: ParsedStepReply } {
  return { ok: true, value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function goModelName(type: StepType): string {
  const names: Partial<Record<StepType, string>> = {
    [StepType.Inventory]: 'models.Inventory',
    [StepType.ConnectivityCheck]: 'models.ConnectivityReport',
    [StepType.ApiVipConnectivityCheck]: 'models.APIVipConnectivityResponse',
    [StepType.TangConnectivityCheck]: 'models.TangConnectivityResponse',
    [StepType.FreeNetworkAddresses]: 'models.FreeNetworksAddresses',
    [StepType.DhcpLeaseAllocate]: 'models.DhcpAllocationResponse',
    [StepType.NtpSynchronizer]: 'models.NtpSynchronizationResponse',
    [StepType.ContainerImageAvailability]: 'models.ContainerImageAvailabilityResponse',
    [StepType.InstallationDiskSpeedCheck]: 'models.DiskSpeedCheckResponse',
    [StepType.DomainResolution]: 'models.DomainResolutionResponse',
    [StepType.UpgradeAgent]: 'models.UpgradeAgentResponse',
    [StepType.VerifyVips]: 'models.VerifyVipsResponse',
  };
  return names[type] ?? 'models.StepReply';
}

// ---- The instruction manager: which steps each host status gets ----------------------------

/** Steps of one host status: the step types in order, the poll interval, what to do after. */
interface StatusSteps {
  readonly types: readonly StepType[];
  readonly seconds: number;
  readonly action: 'continue' | 'exit';
}

const POLL = 60;
const BACKED_OFF = 120;
const DISCOVERY_CHECKS: readonly StepType[] = [
  StepType.ConnectivityCheck,
  StepType.TangConnectivityCheck,
  StepType.FreeNetworkAddresses,
  StepType.DhcpLeaseAllocate,
  StepType.NtpSynchronizer,
  StepType.DomainResolution,
  StepType.VerifyVips,
];
const GATHER_LOGS_AND_STOP: StatusSteps = {
  types: [StepType.LogsGather, StepType.StopInstallation],
  seconds: BACKED_OFF,
  action: 'continue',
};
const IDLE: StatusSteps = { types: [], seconds: BACKED_OFF, action: 'continue' };

/** A host bound to a cluster being installed (instruction_manager.go installingClusterStateToSteps). */
const DAY1_STEPS: Readonly<Partial<Record<string, StatusSteps>>> = {
  [HostStatus.Known]: {
    types: [
      StepType.ConnectivityCheck,
      StepType.TangConnectivityCheck,
      StepType.FreeNetworkAddresses,
      StepType.DhcpLeaseAllocate,
      StepType.Inventory,
      StepType.NtpSynchronizer,
      StepType.DomainResolution,
      StepType.VerifyVips,
    ],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Insufficient]: {
    types: [StepType.Inventory, ...DISCOVERY_CHECKS],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.PendingForInput]: {
    types: [StepType.Inventory, ...DISCOVERY_CHECKS],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Disconnected]: {
    types: [StepType.Inventory],
    seconds: BACKED_OFF,
    action: 'continue',
  },
  [HostStatus.Discovering]: { types: [StepType.Inventory], seconds: POLL, action: 'continue' },
  [HostStatus.Installing]: {
    types: [StepType.Install, StepType.DhcpLeaseAllocate],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.InstallingInProgress]: {
    types: [StepType.DhcpLeaseAllocate],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.PreparingForInstallation]: {
    types: [
      StepType.DhcpLeaseAllocate,
      StepType.InstallationDiskSpeedCheck,
      StepType.ContainerImageAvailability,
    ],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Disabled]: IDLE,
  [HostStatus.Resetting]: IDLE,
  [HostStatus.Error]: GATHER_LOGS_AND_STOP,
  [HostStatus.Cancelled]: GATHER_LOGS_AND_STOP,
  [HostStatus.Binding]: { types: [], seconds: 0, action: 'exit' },
};

/** A host added to an installed cluster (addHostsClusterToSteps). */
const DAY2_STEPS: Readonly<Partial<Record<string, StatusSteps>>> = {
  [HostStatus.Known]: {
    types: [
      StepType.ConnectivityCheck,
      StepType.ApiVipConnectivityCheck,
      StepType.TangConnectivityCheck,
      StepType.Inventory,
      StepType.NtpSynchronizer,
      StepType.DomainResolution,
    ],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Insufficient]: {
    types: [
      StepType.Inventory,
      StepType.ConnectivityCheck,
      StepType.ApiVipConnectivityCheck,
      StepType.TangConnectivityCheck,
      StepType.NtpSynchronizer,
      StepType.DomainResolution,
    ],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Disconnected]: {
    types: [StepType.Inventory],
    seconds: BACKED_OFF,
    action: 'continue',
  },
  [HostStatus.Discovering]: {
    types: [StepType.Inventory, StepType.NtpSynchronizer, StepType.DomainResolution],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.PendingForInput]: {
    types: [
      StepType.Inventory,
      StepType.ConnectivityCheck,
      StepType.ApiVipConnectivityCheck,
      StepType.TangConnectivityCheck,
    ],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Installing]: { types: [StepType.Install], seconds: POLL, action: 'continue' },
  [HostStatus.InstallingInProgress]: { types: [], seconds: POLL, action: 'continue' },
  [HostStatus.Disabled]: IDLE,
  [HostStatus.Resetting]: IDLE,
  [HostStatus.Error]: GATHER_LOGS_AND_STOP,
  [HostStatus.Cancelled]: GATHER_LOGS_AND_STOP,
};

/** A host not bound to any cluster (poolHostToSteps). */
const UNBOUND_STEPS: Readonly<Partial<Record<string, StatusSteps>>> = {
  [HostStatus.DiscoveringUnbound]: {
    types: [StepType.Inventory, StepType.NtpSynchronizer],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.DisconnectedUnbound]: {
    types: [StepType.Inventory],
    seconds: BACKED_OFF,
    action: 'continue',
  },
  [HostStatus.DisabledUnbound]: IDLE,
  [HostStatus.InsufficientUnbound]: {
    types: [StepType.Inventory, StepType.NtpSynchronizer],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.KnownUnbound]: {
    types: [StepType.Inventory, StepType.NtpSynchronizer],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.Unbinding]: { types: [], seconds: 0, action: 'exit' },
  [HostStatus.UnbindingPendingUserAction]: { types: [], seconds: 0, action: 'exit' },
  [HostStatus.Reclaiming]: {
    types: [StepType.DownloadBootArtifacts],
    seconds: POLL,
    action: 'continue',
  },
  [HostStatus.ReclaimingRebooting]: {
    types: [StepType.RebootForReclaim],
    seconds: BACKED_OFF,
    action: 'exit',
  },
};

/** Options of stepsForHost. */
export interface StepsForHostOptions {
  /** The host is added to an installed cluster (kind AddToExistingClusterHost). @default false */
  readonly day2?: boolean;
  /** `DISABLED_STEPS`: step types never sent. */
  readonly disabledSteps?: readonly StepType[];
}

/**
 * The answer to `GET …/instructions` for the host's status, as assisted-service's instruction
 * manager builds it: the status's step types in order (an unbound host's table when it has no
 * cluster, the day-2 table for added hosts), each built by buildInstruction and left out when
 * upstream would send none, with the status's poll interval and post-step action. A status
 * without a table polls again in 60 s with no instructions.
 */
export function stepsForHost(ctx: StepContext, options: StepsForHostOptions = {}): Steps {
  const table =
    ctx.host.clusterId === undefined
      ? UNBOUND_STEPS
      : options.day2 === true
        ? DAY2_STEPS
        : DAY1_STEPS;
  const entry = table[ctx.host.status];
  if (!entry) return { nextInstructionSeconds: POLL, postStepAction: 'continue', instructions: [] };
  const disabled = new Set(options.disabledSteps ?? []);
  const instructions = entry.types.flatMap((type) => {
    if (disabled.has(type)) return [];
    const instruction = buildInstruction(type, ctx);
    return instruction ? [instruction] : [];
  });
  return { nextInstructionSeconds: entry.seconds, postStepAction: entry.action, instructions };
}
