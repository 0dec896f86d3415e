/**
 * The kinds and the well-known strings the controllers read and write, with the exact spelling
 * assisted-service and the Bare Metal Operator use (../shared/reference/assisted.md §1, §2, §8),
 * so that objects, runbooks and dashboards that know those projects find what they expect.
 */
import type { GroupVersionKind } from '../kube/index.js';

/** The kinds the controllers read or write. */
export const Gvk = {
  BareMetalHost: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' },
  PreprovisioningImage: { apiVersion: 'metal3.io/v1alpha1', kind: 'PreprovisioningImage' },
  InfraEnv: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv' },
  Agent: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'Agent' },
  ClusterDeployment: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment' },
  Secret: { apiVersion: 'v1', kind: 'Secret' },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  Event: { apiVersion: 'v1', kind: 'Event' },
  Lease: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
  Deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  // The assisted core's (issue 12).
  NMStateConfig: { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'NMStateConfig' },
  ClusterImageSet: { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterImageSet' },
  AgentServiceConfig: {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'AgentServiceConfig',
  },
} as const satisfies Record<string, GroupVersionKind>;

/** Labels (assisted.md §1.1, §2). */
export const Label = {
  /** On a BMH: the name of its InfraEnv, in the same namespace. Also on Agents and PPIs. */
  InfraEnv: 'infraenvs.agent-install.openshift.io',
  /** On an Agent: the name of its BMH. */
  AgentBmh: 'agent-install.openshift.io/bmh',
  /** `"true"` on a BMH that names an InfraEnv, and on Secrets/ConfigMaps the controllers read. */
  Backup: 'cluster.open-cluster-management.io/backup',
  /** `"true"` on Secrets/ConfigMaps the controllers watch. */
  Watch: 'agent-install.openshift.io/watch',
  /** `"true"` on a PreprovisioningImage. */
  VeleroExclude: 'velero.io/exclude-from-backup',
} as const;

/** Annotations on a BareMetalHost read or written by the BMAC (assisted.md §1.1). */
export const BmhAnnotation = {
  Role: 'bmac.agent-install.openshift.io/role',
  Hostname: 'bmac.agent-install.openshift.io/hostname',
  MachineConfigPool: 'bmac.agent-install.openshift.io/machine-config-pool',
  InstallerArgs: 'bmac.agent-install.openshift.io/installer-args',
  IgnitionConfigOverrides: 'bmac.agent-install.openshift.io/ignition-config-overrides',
  ClusterReference: 'bmac.agent-install.openshift.io/cluster-reference',
  /** Prefix: `<prefix><key>` → agent.spec.nodeLabels[key]. */
  NodeLabelPrefix: 'bmac.agent-install.openshift.io.node-label.',
  /** Prefix: `<prefix><key>` → label `key` on the Agent. */
  AgentLabelPrefix: 'bmac.agent-install.openshift.io.agent-label.',
  FencingCredentialsSecretName: 'bmac.agent-install.openshift.io/fencing-credentials-secret-name',
  CreateFencingCredentialsSecret:
    'bmac.agent-install.openshift.io/create-fencing-credentials-secret',
  RemoveAgentAndNodeOnDelete: 'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete',
  AllowProvisionedHostManagement:
    'bmac.agent-install.openshift.io/allow-provisioned-host-management',
  SpokeBmhMachineCreated: 'bmac.agent-install.openshift.io/spoke-bmh-machine-created',
  Inspect: 'inspect.metal3.io',
  HardwareDetails: 'inspect.metal3.io/hardwaredetails',
  Detached: 'baremetalhost.metal3.io/detached',
  Paused: 'baremetalhost.metal3.io/paused',
  Status: 'baremetalhost.metal3.io/status',
  Reboot: 'reboot.metal3.io',
} as const;

/** The value the BMAC writes in the detached and paused annotations. */
export const ASSISTED_OWNER_VALUE = 'assisted-service-controller';

/** Finalizers (assisted.md §8). */
export const Finalizer = {
  Bmac: 'bmac.agent-install.openshift.io/deprovision',
  PreprovisioningImage: 'preprovisioningimage.agent-install.openshift.io/ai-deprovision',
  /** The Bare Metal Operator's own finalizer on a PreprovisioningImage. */
  BmoPreprovisioningImage: 'preprovisioningimage.metal3.io',
  /** SiteForge's redfish-mode provisioner on a BareMetalHost (BMO's own is `baremetalhost.metal3.io`). */
  RedfishHost: 'baremetalhost.metal3.io',
} as const;

/** `spec.customDeploy.method` of a BMH in the converged flow. */
export const ASSISTED_DEPLOY_METHOD = 'start_assisted_install';

/** Seconds an InfraEnv image must exist before a host is pointed at it (InfraEnvImageCooldownPeriod). */
export const INFRAENV_IMAGE_COOLDOWN_MS = 60_000;

/** More labels the BMAC reads or writes (assisted.md §1.1, §1.9; AS agent_controller.go). */
export const BmacLabel = {
  /** On an Agent: the namespace of the ClusterDeployment it is bound to (set by the agent controller). */
  ClusterDeploymentNamespace: 'agent-install.openshift.io/clusterdeployment-namespace',
  /** On a spoke Machine: the ClusterDeployment name. */
  MachineCluster: 'machine.openshift.io/cluster-api-cluster',
  /** On a spoke Machine: its role (`master`, `worker`). */
  MachineRole: 'machine.openshift.io/cluster-api-machine-role',
  /** On a spoke Machine: its type (the role again). */
  MachineType: 'machine.openshift.io/cluster-api-machine-type',
} as const;

/** More annotations the BMAC reads or writes (assisted.md §1.1, §1.9). */
export const BmacAnnotation = {
  DrainStartedAt: 'bmac.agent-install.openshift.io/drain-started-at',
  /** A Go duration (`90s`, `1h30m`) the user sets; after it the BMAC gives up draining. */
  DrainTimeout: 'bmac.agent-install.openshift.io/drain-timeout',
  DrainStatus: 'bmac.agent-install.openshift.io/drain-status',
  /** On a spoke Machine: `openshift-machine-api/<bmh>`. */
  MachineBareMetalHost: 'metal3.io/BareMetalHost',
  /** On an AgentClusterInstall: install-config overrides as JSON (capabilities). */
  InstallConfigOverrides: 'agent-install.openshift.io/install-config-overrides',
} as const;

/** Values of the drain-status annotation (besides `failed to drain node: <error>`). */
export const DrainStatus = {
  Succeeded: 'drain succeeded',
  InProgress: 'draining in progress',
  TimedOut: 'drain timed out',
} as const;

/** More kinds the BMAC reads (live) or writes on a spoke cluster. */
export const BmacGvk = {
  AgentClusterInstall: {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
  },
  Machine: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine' },
  Node: { apiVersion: 'v1', kind: 'Node' },
} as const satisfies Record<string, GroupVersionKind>;

/** The Agent `Bound` condition and the reason the BMAC reacts to (assisted.md §1.7, §3.2). */
export const AGENT_BOUND_CONDITION = 'Bound';
export const UNBINDING_PENDING_USER_ACTION = 'UnbindingPendingUserAction';
/** The PreprovisioningImage `Ready` reason meaning the InfraEnv's ISO is in place. */
export const INFRAENV_AVAILABLE_REASON = 'InfraEnvAvailable';
/** The installation disk the BMAC asks for when no disk matches rootDeviceHints. */
export const DISK_NOT_FOUND_BY_HINTS = '/dev/not-found-by-hints';
/** The namespace of Machines and BareMetalHosts on a spoke cluster. */
export const OPENSHIFT_MACHINE_API_NAMESPACE = 'openshift-machine-api';

/** Annotations on an InfraEnv read or written by the PreprovisioningImage controller (assisted.md §2). */
export const InfraEnvAnnotation = {
  /** `"true"` once the ironic agent is part of the InfraEnv's image (informational). */
  EnableIronicAgent: 'infraenv.agent-install.openshift.io/enable-ironic-agent',
  /** An ironic agent image to use instead of the configured one. */
  IronicAgentImageOverride: 'infraenv.agent-install.openshift.io/ironic-agent-image-override',
  /** `v4`, `v6` or `v4,v6`: the address families of the hosts booting the image. */
  IpFamily: 'infraenv.agent-install.openshift.io/ip-family',
} as const;

/** The value of BmhAnnotation.Reboot that makes the Bare Metal Operator reboot a host at once. */
export const FORCE_REBOOT_VALUE = '{"force": true}';

/** BareMetalHost `status.provisioning.state` values the controllers compare with (BMO spelling). */
export const BmhProvisioningState = {
  Provisioned: 'provisioned',
  PoweringOffBeforeDelete: 'powering off before delete',
  Deleting: 'deleting',
} as const;

/** `spec.automatedCleaningMode` of a BareMetalHost that never cleans disks. */
export const CLEANING_MODE_DISABLED = 'disabled';
