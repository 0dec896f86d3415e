/**
 * The assisted core's records: what assisted-service keeps in its database for each host and
 * cluster, here kept in memory and persisted in the status of the Agent and AgentClusterInstall
 * that show them (so a controller restart loses nothing). Exact upstream strings
 * (`../shared/reference/assisted.md` §4, §5, §7); the wire forms are snake_case as the agent
 * sends them.
 */

/** Host statuses (assisted.md §4.1). */
export const HostStatus = {
  Discovering: 'discovering',
  Known: 'known',
  Insufficient: 'insufficient',
  PendingForInput: 'pending-for-input',
  Disconnected: 'disconnected',
  Disabled: 'disabled',
  PreparingForInstallation: 'preparing-for-installation',
  PreparingSuccessful: 'preparing-successful',
  PreparingFailed: 'preparing-failed',
  Installing: 'installing',
  InstallingInProgress: 'installing-in-progress',
  InstallingPendingUserAction: 'installing-pending-user-action',
  Installed: 'installed',
  Error: 'error',
  Cancelled: 'cancelled',
  Resetting: 'resetting',
  ResettingPendingUserAction: 'resetting-pending-user-action',
  AddedToExistingCluster: 'added-to-existing-cluster',
  Binding: 'binding',
  Unbinding: 'unbinding',
  UnbindingPendingUserAction: 'unbinding-pending-user-action',
  Reclaiming: 'reclaiming',
  ReclaimingRebooting: 'reclaiming-rebooting',
  DiscoveringUnbound: 'discovering-unbound',
  KnownUnbound: 'known-unbound',
  InsufficientUnbound: 'insufficient-unbound',
  DisconnectedUnbound: 'disconnected-unbound',
  DisabledUnbound: 'disabled-unbound',
} as const;
export type HostStatus = (typeof HostStatus)[keyof typeof HostStatus];

/** Cluster statuses (assisted.md §4.4). */
export const ClusterStatus = {
  Insufficient: 'insufficient',
  PendingForInput: 'pending-for-input',
  Ready: 'ready',
  PreparingForInstallation: 'preparing-for-installation',
  Installing: 'installing',
  InstallingPendingUserAction: 'installing-pending-user-action',
  Finalizing: 'finalizing',
  Installed: 'installed',
  Error: 'error',
  Cancelled: 'cancelled',
  AddingHosts: 'adding-hosts',
  Unmonitored: 'unmonitored',
} as const;
export type ClusterStatus = (typeof ClusterStatus)[keyof typeof ClusterStatus];

/** Host roles (assisted.md §4.1). */
export const HostRole = {
  AutoAssign: 'auto-assign',
  Master: 'master',
  Arbiter: 'arbiter',
  Worker: 'worker',
  Bootstrap: 'bootstrap',
} as const;
export type HostRole = (typeof HostRole)[keyof typeof HostRole];

/** Install progress stages (assisted.md §4.3). */
export const HostStage = {
  StartingInstallation: 'Starting installation',
  WaitingForControlPlane: 'Waiting for control plane',
  WaitingForBootkube: 'Waiting for bootkube',
  WaitingForController: 'Waiting for controller',
  Installing: 'Installing',
  WritingImageToDisk: 'Writing image to disk',
  CopyingRegistryData: 'Copying registry data to disk',
  Rebooting: 'Rebooting',
  WaitingForIgnition: 'Waiting for ignition',
  Configuring: 'Configuring',
  Joined: 'Joined',
  Done: 'Done',
  Failed: 'Failed',
} as const;
export type HostStage = (typeof HostStage)[keyof typeof HostStage];

/** Next-step types the agent runs (assisted.md §7.1). */
export const StepType = {
  ConnectivityCheck: 'connectivity-check',
  Execute: 'execute',
  Inventory: 'inventory',
  Install: 'install',
  FreeNetworkAddresses: 'free-network-addresses',
  DhcpLeaseAllocate: 'dhcp-lease-allocate',
  ApiVipConnectivityCheck: 'api-vip-connectivity-check',
  TangConnectivityCheck: 'tang-connectivity-check',
  NtpSynchronizer: 'ntp-synchronizer',
  InstallationDiskSpeedCheck: 'installation-disk-speed-check',
  ContainerImageAvailability: 'container-image-availability',
  DomainResolution: 'domain-resolution',
  StopInstallation: 'stop-installation',
  LogsGather: 'logs-gather',
  NextStepRunner: 'next-step-runner',
  UpgradeAgent: 'upgrade-agent',
  DownloadBootArtifacts: 'download-boot-artifacts',
  RebootForReclaim: 'reboot-for-reclaim',
  VerifyVips: 'verify-vips',
} as const;
export type StepType = (typeof StepType)[keyof typeof StepType];

/** Validation result statuses (assisted.md §5). */
export type ValidationStatus =
  'success' | 'success-suppress-output' | 'failure' | 'pending' | 'error' | 'disabled';

/** One validation's outcome, as in `validationsInfo`. */
export interface ValidationResult {
  readonly id: string;
  readonly status: ValidationStatus;
  readonly message: string;
}

/** `validationsInfo`: category (network, hardware, operators, hosts-data, configuration) → results. */
export type ValidationsInfo = Readonly<Record<string, readonly ValidationResult[]>>;

// ---- The inventory as the agent sends it (assisted.md §7.1, AS models/inventory.go) ----------

export interface WireInterface {
  readonly name?: string;
  readonly mac_address?: string;
  readonly ipv4_addresses?: readonly string[];
  readonly ipv6_addresses?: readonly string[];
  readonly vendor?: string;
  readonly product?: string;
  readonly has_carrier?: boolean;
  readonly mtu?: number;
  readonly biosdevname?: string;
  readonly client_id?: string;
  readonly flags?: readonly string[];
  readonly speed_mbps?: number;
  readonly type?: string;
}

export interface WireDisk {
  readonly id?: string;
  readonly name?: string;
  readonly path?: string;
  readonly by_path?: string;
  readonly by_id?: string;
  readonly drive_type?: string;
  readonly has_uuid?: boolean;
  readonly vendor?: string;
  readonly model?: string;
  readonly hctl?: string;
  readonly wwn?: string;
  readonly serial?: string;
  readonly size_bytes?: number;
  readonly bootable?: boolean;
  readonly removable?: boolean;
  readonly is_installation_media?: boolean;
  readonly installation_eligibility?: {
    readonly eligible?: boolean;
    readonly not_eligible_reasons?: readonly string[];
  };
  readonly smart?: string;
  readonly io_perf?: { readonly sync_duration?: number };
  readonly holders?: string;
}

export interface WireInventory {
  readonly hostname?: string;
  readonly bmc_address?: string;
  readonly bmc_v6address?: string;
  readonly interfaces?: readonly WireInterface[];
  readonly disks?: readonly WireDisk[];
  readonly boot?: {
    readonly current_boot_mode?: string;
    readonly pxe_interface?: string;
    readonly command_line?: string;
    readonly secure_boot_state?: string;
    readonly device_type?: string;
  };
  readonly system_vendor?: {
    readonly serial_number?: string;
    readonly product_name?: string;
    readonly manufacturer?: string;
    readonly virtual?: boolean;
  };
  readonly memory?: {
    readonly physical_bytes?: number;
    readonly usable_bytes?: number;
    readonly physical_bytes_method?: string;
  };
  readonly cpu?: {
    readonly count?: number;
    readonly frequency?: number;
    readonly flags?: readonly string[];
    readonly model_name?: string;
    readonly architecture?: string;
  };
  readonly gpus?: readonly Record<string, unknown>[];
  readonly routes?: readonly {
    readonly interface?: string;
    readonly gateway?: string;
    readonly destination?: string;
    readonly family?: number;
    readonly metric?: number;
  }[];
  readonly tpm_version?: string;
}

/** Install progress of a host. Times are RFC 3339. */
export interface HostProgress {
  readonly currentStage?: HostStage;
  readonly progressInfo?: string;
  readonly stageStartedAt?: string;
  readonly stageUpdatedAt?: string;
  /** (index + 1) / stages of the role × 100 (assisted.md §4.3). */
  readonly installationPercentage?: number;
}

/** Results of steps other than inventory, kept for validations (wire JSON, parsed). */
export interface HostStepResults {
  readonly ntp?: unknown;
  readonly connectivity?: unknown;
  readonly domainResolution?: unknown;
  readonly freeAddresses?: unknown;
  readonly diskSpeed?: unknown;
  readonly imageAvailability?: unknown;
  readonly apiVipConnectivity?: unknown;
  readonly tangConnectivity?: unknown;
  readonly verifyVips?: unknown;
}

/**
 * A host as the assisted core knows it (assisted-service's `models.Host`). `id` is the host id
 * the agent registered with, and the name of its Agent; `infraEnvId` and `clusterId` are the
 * `metadata.uid` of its InfraEnv and of the bound ClusterDeployment.
 */
export interface HostRecord {
  readonly id: string;
  readonly namespace: string;
  readonly infraEnvName: string;
  readonly infraEnvId: string;
  /** ClusterDeployment the host is bound to (unbound: absent). */
  readonly clusterDeploymentName?: string;
  readonly clusterId?: string;
  readonly status: HostStatus;
  readonly statusInfo: string;
  readonly statusUpdatedAt: string;
  readonly role: HostRole;
  readonly suggestedRole: HostRole;
  readonly bootstrap: boolean;
  readonly approved: boolean;
  /** From the Agent spec. */
  readonly requestedHostname?: string;
  readonly installationDiskId?: string;
  readonly installerArgs?: readonly string[];
  readonly ignitionConfigOverrides?: string;
  readonly machineConfigPool?: string;
  readonly nodeLabels?: Readonly<Record<string, string>>;
  readonly discoveryAgentVersion?: string;
  readonly inventory?: WireInventory;
  readonly registeredAt: string;
  /** Last time the agent called the service. */
  readonly checkedInAt: string;
  readonly validationsInfo: ValidationsInfo;
  readonly progress: HostProgress;
  readonly stepResults: HostStepResults;
  /** When the host entered `installing` (host stage timeouts count from the stage start). */
  readonly installStartedAt?: string;
  readonly logsCollectedAt?: string;
}

/** A cluster as the assisted core knows it, from its ClusterDeployment and AgentClusterInstall. */
export interface ClusterRecord {
  /** The ClusterDeployment's `metadata.uid`. */
  readonly id: string;
  readonly namespace: string;
  readonly clusterDeploymentName: string;
  readonly agentClusterInstallName: string;
  readonly name: string;
  readonly baseDnsDomain: string;
  readonly openshiftVersion: string;
  readonly status: ClusterStatus;
  readonly statusInfo: string;
  readonly statusUpdatedAt: string;
  /** `None` for a single-node cluster (controlPlaneAgents 1, workerAgents 0). */
  readonly highAvailabilityMode: 'Full' | 'None';
  readonly controlPlaneAgents: number;
  readonly workerAgents: number;
  readonly arbiterAgents: number;
  readonly userManagedNetworking: boolean;
  readonly platformType: string;
  readonly networkType: string;
  readonly clusterNetworks: readonly { readonly cidr: string; readonly hostPrefix: number }[];
  readonly serviceNetworks: readonly string[];
  readonly machineNetworks: readonly string[];
  readonly apiVips: readonly string[];
  readonly ingressVips: readonly string[];
  readonly pullSecretSet: boolean;
  readonly sshPublicKey?: string;
  readonly ignoredHostValidations: readonly string[];
  readonly ignoredClusterValidations: readonly string[];
  readonly validationsInfo: ValidationsInfo;
  readonly holdInstallation: boolean;
  readonly installStartedAt?: string;
  readonly installCompletedAt?: string;
  /** The last preparation: never tried, succeeded, or failed with a reason. */
  readonly lastPreparation: {
    readonly status: 'never' | 'success' | 'failed';
    readonly reason?: string;
  };
  readonly totalPercentage?: number;
}
