/**
 * The fields of BareMetalHost, Agent, InfraEnv, ClusterDeployment and PreprovisioningImage the
 * BMAC reads and writes, as mutable plain data. A reconcile pass works on deep copies typed with
 * these views and sends each copy back once (every other field rides along untouched).
 */
import type { KubeObject } from '../../../kube/index.js';

/** Metadata as the BMAC edits it. */
export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  [field: string]: unknown;
}

/** A Kubernetes condition (metav1 or custom-resource-status shape). */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** `spec.rootDeviceHints` of a BareMetalHost. */
export interface RootDeviceHints {
  deviceName?: string;
  hctl?: string;
  model?: string;
  vendor?: string;
  serialNumber?: string;
  minSizeGigabytes?: number;
  wwn?: string;
  wwnWithExtension?: string;
  wwnVendorExtension?: string;
  rotational?: boolean;
}

/** A BareMetalHost (metal3.io/v1alpha1). */
export interface BareMetalHost {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: {
    bootMACAddress?: string;
    online?: boolean;
    automatedCleaningMode?: string;
    image?: { url: string; format?: string; [field: string]: unknown };
    customDeploy?: { method: string };
    rootDeviceHints?: RootDeviceHints;
    bmc?: { address?: string; credentialsName?: string; disableCertificateVerification?: boolean };
    [field: string]: unknown;
  };
  status?: {
    operationalStatus?: string;
    provisioning?: { state?: string };
    hardware?: { hostname?: string };
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** A disk of an Agent's inventory. */
export interface AgentDisk {
  id?: string;
  driveType?: string;
  vendor?: string;
  name?: string;
  path?: string;
  hctl?: string;
  byPath?: string;
  model?: string;
  wwn?: string;
  serial?: string;
  sizeBytes?: number;
  installationEligibility?: { eligible?: boolean };
}

/** A network interface of an Agent's inventory. */
export interface AgentInterface {
  name?: string;
  vendor?: string;
  macAddress?: string;
  speedMbps?: number;
  ipV4Addresses?: string[];
  ipV6Addresses?: string[];
}

/** The hardware inventory the agent reports. */
export interface AgentInventory {
  hostname?: string;
  interfaces?: AgentInterface[];
  disks?: AgentDisk[];
  memory?: { physicalBytes?: number };
  cpu?: {
    count?: number;
    clockMegahertz?: number;
    flags?: string[];
    modelName?: string;
    architecture?: string;
  };
  systemVendor?: { manufacturer?: string; productName?: string; serialNumber?: string };
}

/** `namespace/name` of a ClusterDeployment. */
export interface ClusterReference {
  namespace: string;
  name: string;
}

/** An Agent (agent-install.openshift.io/v1beta1). */
export interface Agent {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: {
    role?: string;
    hostname?: string;
    machineConfigPool?: string;
    installerArgs?: string;
    ignitionConfigOverrides?: string;
    approved?: boolean;
    installation_disk_id?: string;
    clusterDeploymentName?: ClusterReference;
    nodeLabels?: Record<string, string>;
    fencingCredentialsSecretRef?: string;
    [field: string]: unknown;
  };
  status?: {
    role?: string;
    inventory?: AgentInventory;
    progress?: { currentStage?: string };
    conditions?: Condition[];
    debugInfo?: { state?: string };
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** An InfraEnv, as far as the BMAC reads it. */
export interface InfraEnv {
  metadata: Meta;
  spec?: { clusterRef?: ClusterReference | null };
  status?: { isoDownloadURL?: string; createdTime?: string };
}

/** A ClusterDeployment, as far as the BMAC reads it. */
export interface ClusterDeployment {
  metadata: Meta;
  spec?: {
    installed?: boolean;
    clusterInstallRef?: { name?: string };
    clusterMetadata?: { adminKubeconfigSecretRef?: { name?: string } };
  };
}

/** A PreprovisioningImage, as far as the BMAC reads it. */
export interface PreprovisioningImage {
  metadata: Meta;
  status?: { conditions?: Condition[] };
}

/** A deep, mutable copy of `object` seen through `T`. */
// The caller names the view it wants: that is the point of the type parameter.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function draft<T>(object: KubeObject): T {
  return structuredClone(object) as unknown as T;
}

/** A view of `object` as `T` (no copy: read only by convention). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function view<T>(object: KubeObject): T {
  return object as unknown as T;
}

/** The object `o` as the writer takes it. */
export function asKube(o: { metadata: Meta }): KubeObject {
  return o as unknown as KubeObject;
}

/** The annotation map of `meta`, created when absent. */
export function annotationsOf(meta: Meta): Record<string, string> {
  return (meta.annotations ??= {});
}

/** Deletes annotation `key`; true when it was there. */
export function removeAnnotation(meta: Meta, key: string): boolean {
  if (meta.annotations?.[key] === undefined) return false;
  // The annotations map is a plain record the BMAC owns in its draft.
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
  delete meta.annotations[key];
  return true;
}

/** Whether annotation `key` is present (even with an empty value). */
export function hasAnnotation(meta: Meta, key: string): boolean {
  return meta.annotations?.[key] !== undefined;
}

/** The condition of `type`, if any. */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
