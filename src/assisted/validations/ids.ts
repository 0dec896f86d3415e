/**
 * Validation ids, their categories and which of them a user may ignore: the exact strings of
 * assisted-service (`models/host_validation_id.go`, `models/cluster_validation_id.go`,
 * `internal/common/validations.go`; assisted.md §5.2, §5.3).
 */

/** The OLM operators assisted-service knows, with their validation ids (`internal/operators`). */
export const OPERATORS: readonly { readonly name: string; readonly validationId: string }[] = [
  { name: 'lso', validationId: 'lso-requirements-satisfied' },
  { name: 'odf', validationId: 'odf-requirements-satisfied' },
  { name: 'cnv', validationId: 'cnv-requirements-satisfied' },
  { name: 'lvm', validationId: 'lvm-requirements-satisfied' },
  { name: 'mce', validationId: 'mce-requirements-satisfied' },
  { name: 'mtv', validationId: 'mtv-requirements-satisfied' },
  { name: 'node-feature-discovery', validationId: 'node-feature-discovery-requirements-satisfied' },
  { name: 'nvidia-gpu', validationId: 'nvidia-gpu-requirements-satisfied' },
  { name: 'pipelines', validationId: 'pipelines-requirements-satisfied' },
  { name: 'servicemesh', validationId: 'servicemesh-requirements-satisfied' },
  { name: 'serverless', validationId: 'serverless-requirements-satisfied' },
  { name: 'openshift-ai', validationId: 'openshift-ai-requirements-satisfied' },
  { name: 'authorino', validationId: 'authorino-requirements-satisfied' },
  { name: 'osc', validationId: 'osc-requirements-satisfied' },
  { name: 'nmstate', validationId: 'nmstate-requirements-satisfied' },
  { name: 'amd-gpu', validationId: 'amd-gpu-requirements-satisfied' },
  { name: 'kmm', validationId: 'kmm-requirements-satisfied' },
  { name: 'node-healthcheck', validationId: 'node-healthcheck-requirements-satisfied' },
  { name: 'self-node-remediation', validationId: 'self-node-remediation-requirements-satisfied' },
  {
    name: 'fence-agents-remediation',
    validationId: 'fence-agents-remediation-requirements-satisfied',
  },
  { name: 'node-maintenance', validationId: 'node-maintenance-requirements-satisfied' },
  { name: 'kube-descheduler', validationId: 'kube-descheduler-requirements-satisfied' },
  { name: 'loki', validationId: 'loki-requirements-satisfied' },
  { name: 'openshift-logging', validationId: 'openshift-logging-requirements-satisfied' },
  { name: 'cluster-observability', validationId: 'cluster-observability-requirements-satisfied' },
  { name: 'numaresources', validationId: 'numa-resources-requirements-satisfied' },
  { name: 'oadp', validationId: 'oadp-requirements-satisfied' },
  { name: 'metallb', validationId: 'metallb-requirements-satisfied' },
];

/** Host validation ids computed here (operators are in {@link OPERATORS}). */
export const HostValidationId = {
  Connected: 'connected',
  MediaConnected: 'media-connected',
  HasInventory: 'has-inventory',
  InventoryNotPartiallyTruncated: 'inventory-not-partially-truncated',
  InventoryNotFullyTruncated: 'inventory-not-fully-truncated',
  HasMinCpuCores: 'has-min-cpu-cores',
  HasMinMemory: 'has-min-memory',
  HasMinValidDisks: 'has-min-valid-disks',
  MachineCidrDefined: 'machine-cidr-defined',
  HasCpuCoresForRole: 'has-cpu-cores-for-role',
  HasMemoryForRole: 'has-memory-for-role',
  HostnameUnique: 'hostname-unique',
  BelongsToMachineCidr: 'belongs-to-machine-cidr',
  HostnameValid: 'hostname-valid',
  IgnitionDownloadable: 'ignition-downloadable',
  BelongsToMajorityGroup: 'belongs-to-majority-group',
  MtuValid: 'mtu-valid',
  ValidPlatformNetworkSettings: 'valid-platform-network-settings',
  NtpSynced: 'ntp-synced',
  TimeSyncedBetweenHostAndService: 'time-synced-between-host-and-service',
  ContainerImagesAvailable: 'container-images-available',
  SufficientInstallationDiskSpeed: 'sufficient-installation-disk-speed',
  SufficientNetworkLatencyRequirementForRole: 'sufficient-network-latency-requirement-for-role',
  SufficientPacketLossRequirementForRole: 'sufficient-packet-loss-requirement-for-role',
  HasDefaultRoute: 'has-default-route',
  ApiDomainNameResolvedCorrectly: 'api-domain-name-resolved-correctly',
  ApiIntDomainNameResolvedCorrectly: 'api-int-domain-name-resolved-correctly',
  AppsDomainNameResolvedCorrectly: 'apps-domain-name-resolved-correctly',
  CompatibleWithClusterPlatform: 'compatible-with-cluster-platform',
  DnsWildcardNotConfigured: 'dns-wildcard-not-configured',
  DiskEncryptionRequirementsSatisfied: 'disk-encryption-requirements-satisfied',
  NonOverlappingSubnets: 'non-overlapping-subnets',
  VsphereDiskUuidEnabled: 'vsphere-disk-uuid-enabled',
  CompatibleAgent: 'compatible-agent',
  NoSkipInstallationDisk: 'no-skip-installation-disk',
  NoSkipMissingDisk: 'no-skip-missing-disk',
  NoIpCollisionsInNetwork: 'no-ip-collisions-in-network',
  NoIscsiNicBelongsToMachineCidr: 'no-iscsi-nic-belongs-to-machine-cidr',
} as const;
export type HostValidationId = (typeof HostValidationId)[keyof typeof HostValidationId];

/** Cluster validation ids computed here (operators are in {@link OPERATORS}). */
export const ClusterValidationId = {
  MachineCidrDefined: 'machine-cidr-defined',
  MachineCidrEqualsToCalculatedCidr: 'machine-cidr-equals-to-calculated-cidr',
  ApiVipsDefined: 'api-vips-defined',
  ApiVipsValid: 'api-vips-valid',
  NetworkTypeValid: 'network-type-valid',
  CustomManifestsRequirementsSatisfied: 'custom-manifests-requirements-satisfied',
  IngressVipsDefined: 'ingress-vips-defined',
  IngressVipsValid: 'ingress-vips-valid',
  AllHostsAreReadyToInstall: 'all-hosts-are-ready-to-install',
  SufficientMastersCount: 'sufficient-masters-count',
  DnsDomainDefined: 'dns-domain-defined',
  PullSecretSet: 'pull-secret-set',
  ClusterCidrDefined: 'cluster-cidr-defined',
  ServiceCidrDefined: 'service-cidr-defined',
  NoCidrsOverlapping: 'no-cidrs-overlapping',
  NetworkPrefixValid: 'network-prefix-valid',
  NtpServerConfigured: 'ntp-server-configured',
  NetworksSameAddressFamilies: 'networks-same-address-families',
  PlatformRequirementsSatisfied: 'platform-requirements-satisfied',
} as const;
export type ClusterValidationId = (typeof ClusterValidationId)[keyof typeof ClusterValidationId];

const HOST_NETWORK: ReadonlySet<string> = new Set([
  'connected',
  'media-connected',
  'machine-cidr-defined',
  'belongs-to-machine-cidr',
  'ignition-downloadable',
  'belongs-to-majority-group',
  'ntp-synced',
  'time-synced-between-host-and-service',
  'container-images-available',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
  'has-default-route',
  'api-domain-name-resolved-correctly',
  'api-int-domain-name-resolved-correctly',
  'valid-platform-network-settings',
  'apps-domain-name-resolved-correctly',
  'dns-wildcard-not-configured',
  'non-overlapping-subnets',
  'release-domain-name-resolved-correctly',
  'no-ip-collisions-in-network',
  'mtu-valid',
  'no-iscsi-nic-belongs-to-machine-cidr',
]);

const HOST_HARDWARE: ReadonlySet<string> = new Set([
  'has-inventory',
  'inventory-not-partially-truncated',
  'inventory-not-fully-truncated',
  'has-min-cpu-cores',
  'has-min-valid-disks',
  'has-min-memory',
  'sufficient-installation-disk-speed',
  'has-cpu-cores-for-role',
  'has-memory-for-role',
  'hostname-unique',
  'hostname-valid',
  'compatible-with-cluster-platform',
  'vsphere-disk-uuid-enabled',
  'disk-encryption-requirements-satisfied',
  'compatible-agent',
  'no-skip-installation-disk',
  'no-skip-missing-disk',
]);

const OPERATOR_IDS: ReadonlySet<string> = new Set([
  ...OPERATORS.map((o) => o.validationId),
  'ocs-requirements-satisfied',
]);

/** Every host validation id assisted-service knows (for checking ignore lists). */
export const ALL_HOST_VALIDATION_IDS: ReadonlySet<string> = new Set([
  ...HOST_NETWORK,
  ...HOST_HARDWARE,
  ...OPERATOR_IDS,
]);

const CLUSTER_NETWORK: ReadonlySet<string> = new Set([
  'machine-cidr-defined',
  'machine-cidr-equals-to-calculated-cidr',
  'api-vips-defined',
  'api-vips-valid',
  'ingress-vips-defined',
  'ingress-vips-valid',
  'cluster-cidr-defined',
  'service-cidr-defined',
  'no-cidrs-overlapping',
  'network-prefix-valid',
  'dns-domain-defined',
  'ntp-server-configured',
  'network-type-valid',
  'networks-same-address-families',
  'custom-manifests-requirements-satisfied',
]);

/** Every cluster validation id assisted-service knows (for checking ignore lists). */
export const ALL_CLUSTER_VALIDATION_IDS: ReadonlySet<string> = new Set([
  ...CLUSTER_NETWORK,
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'pull-secret-set',
  'platform-requirements-satisfied',
  ...OPERATOR_IDS,
  'openshift-ai-gpu-requirements-satisfied',
]);

/** The `validationsInfo` category of a host validation (`internal/host/validation_id.go`). */
export function hostValidationCategory(id: string): 'network' | 'hardware' | 'operators' {
  if (HOST_NETWORK.has(id)) return 'network';
  if (HOST_HARDWARE.has(id)) return 'hardware';
  return 'operators';
}

/** The `validationsInfo` category of a cluster validation (`internal/cluster/validation_id.go`). */
export function clusterValidationCategory(
  id: string,
): 'network' | 'hosts-data' | 'configuration' | 'operators' {
  if (CLUSTER_NETWORK.has(id)) return 'network';
  if (id === 'all-hosts-are-ready-to-install' || id === 'sufficient-masters-count') {
    return 'hosts-data';
  }
  if (id === 'pull-secret-set' || id === 'platform-requirements-satisfied') return 'configuration';
  return 'operators';
}

/** Host validations that an ignore list cannot silence. */
export const NON_IGNORABLE_HOST_VALIDATIONS: readonly string[] = [
  'connected',
  'has-inventory',
  'inventory-not-fully-truncated',
  'machine-cidr-defined',
  'hostname-unique',
  'hostname-valid',
];

/** Cluster validations that an ignore list cannot silence. */
export const NON_IGNORABLE_CLUSTER_VALIDATIONS: readonly string[] = [
  'api-vips-defined',
  'ingress-vips-defined',
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'pull-secret-set',
];
