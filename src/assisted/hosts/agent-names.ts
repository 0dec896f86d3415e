/**
 * The strings an Agent carries, spelled as assisted-service's agent controller writes them
 * (assisted.md §3.2, §8; AS api/v1beta1/agent_types.go, ctl/agent_controller.go), so that
 * dashboards, runbooks and the BMAC find what they expect.
 */

/** The Agent finalizer: the backend host is deregistered before the Agent goes. */
export const AGENT_FINALIZER = 'agent.agent-install.openshift.io/ai-deprovision';

/** Annotations the agent controller keeps on an Agent (upstream's restoreHostByAgent reads them). */
export const AgentAnnotation = {
  State: 'agent.agent-install.openshift.io/state',
  Role: 'agent.agent-install.openshift.io/role',
  /** The inventory as the agent sent it (wire JSON). */
  Inventory: 'agent.agent-install.openshift.io/inventory',
  ValidationsInfo: 'agent.agent-install.openshift.io/validations-info',
  CurrentStage: 'agent.agent-install.openshift.io/current-stage',
  InventoryVersion: 'inventory.agent-install.openshift.io/version',
  SkipSpokeCleanup: 'agent.agent-install.openshift.io/skip-spoke-cleanup',
  /**
   * SiteForge's own: what the host record needs beyond upstream's projection (registration
   * and status times, step results, the InfraEnv and cluster ids), so a restart loses nothing.
   */
  HostRecord: 'siteforge.io/host-record',
} as const;

/** The value of AgentAnnotation.InventoryVersion. */
export const INVENTORY_VERSION = '0.1';

/** Labels the agent controller sets from the inventory and the binding. */
export const AgentLabel = {
  HasNonrotationalDisk: 'inventory.agent-install.openshift.io/storage-hasnonrotationaldisk',
  CpuArchitecture: 'inventory.agent-install.openshift.io/cpu-architecture',
  CpuVirtEnabled: 'inventory.agent-install.openshift.io/cpu-virtenabled',
  HostManufacturer: 'inventory.agent-install.openshift.io/host-manufacturer',
  HostProductName: 'inventory.agent-install.openshift.io/host-productname',
  HostIsVirtual: 'inventory.agent-install.openshift.io/host-isvirtual',
  ClusterDeploymentNamespace: 'agent-install.openshift.io/clusterdeployment-namespace',
} as const;

/** Agent condition types. */
export const AgentCondition = {
  SpecSynced: 'SpecSynced',
  Connected: 'Connected',
  RequirementsMet: 'RequirementsMet',
  Validated: 'Validated',
  Installed: 'Installed',
  Bound: 'Bound',
  Cleanup: 'Cleanup',
} as const;
export type AgentCondition = (typeof AgentCondition)[keyof typeof AgentCondition];

/** Agent condition reasons. */
export const AgentReason = {
  SyncOK: 'SyncOK',
  BackendError: 'BackendError',
  InputError: 'InputError',
  AgentIsConnected: 'AgentIsConnected',
  AgentIsDisconnected: 'AgentIsDisconnected',
  AgentIsReady: 'AgentIsReady',
  AgentIsNotApproved: 'AgentIsNotApproved',
  AgentNotReady: 'AgentNotReady',
  AgentAlreadyInstalling: 'AgentAlreadyInstalling',
  AgentInstallationStopped: 'AgentInstallationStopped',
  ValidationsPassing: 'ValidationsPassing',
  ValidationsUnknown: 'ValidationsUnknown',
  ValidationsFailing: 'ValidationsFailing',
  ValidationsUserPending: 'ValidationsUserPending',
  InstallationCompleted: 'InstallationCompleted',
  InstallationFailed: 'InstallationFailed',
  InstallationNotStarted: 'InstallationNotStarted',
  InstallationInProgress: 'InstallationInProgress',
  UnknownStatus: 'UnknownStatus',
  NotAvailable: 'NotAvailable',
  Bound: 'Bound',
  Unbound: 'Unbound',
  Binding: 'Binding',
  Unbinding: 'Unbinding',
  UnbindingPendingUserAction: 'UnbindingPendingUserAction',
  CleanupFailed: 'CleanupFailed',
} as const;

/** Agent condition messages; those ending in `:` are followed by one space and a detail. */
export const AgentMessage = {
  SyncOK: 'The Spec has been successfully applied',
  BackendError: 'The Spec could not be synced due to backend error:',
  InputError: 'The Spec could not be synced due to an input error:',
  Connected: "The agent's connection to the installation service is unimpaired",
  Disconnected:
    'The agent has not contacted the installation service in some time, user action should be taken',
  Ready: 'The agent is ready to begin the installation',
  NotReady: 'The agent is not ready to begin the installation',
  AlreadyInstalling: 'Installation already started and is in progress',
  NotApproved: 'The agent is not approved',
  InstallationStopped: 'The agent installation stopped',
  ValidationsPassing: "The agent's validations are passing",
  ValidationsUnknown: "The agent's validations have not yet been calculated",
  ValidationsFailing: "The agent's validations are failing:",
  ValidationsUserPending: "The agent's validations are pending for user:",
  Installed: 'The installation has completed:',
  InstallationFailed: 'The installation has failed:',
  InstallationNotStarted: 'The installation has not yet started',
  InstallationInProgress: 'The installation is in progress:',
  UnknownStatus: 'The installation status is currently not recognized:',
  NotAvailable: 'Information not available',
  Bound: 'The agent is bound to a cluster deployment',
  Unbound: 'The agent is not bound to any cluster deployment',
  Binding: 'The agent is currently binding to a cluster deployment',
  Unbinding: 'The agent is currently unbinding from a cluster deployment',
  UnbindingPendingUserAction:
    'The agent is currently unbinding; Pending host reboot from infraenv image',
} as const;

/** `status.kind` of an Agent. */
export const HostKind = {
  Host: 'Host',
  AddToExistingClusterHost: 'AddToExistingClusterHost',
} as const;
export type HostKind = (typeof HostKind)[keyof typeof HostKind];
