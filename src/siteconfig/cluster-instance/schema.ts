/**
 * JSON Schema (draft-07) of a ClusterInstance (`siteconfig.open-cluster-management.io/v1alpha1`)
 * as users write it, following the CRD in crds/. Structural checks live here; the rules across
 * fields (networks, VIPs, MACs, topology per clusterType) live in validate.ts.
 */
import {
  cidrListSchema,
  clusterNetworkSchema,
  documentSchema,
  nodeNetworkSchema,
  proxySchema,
  rootDeviceHintsSchema,
  tangServersSchema,
} from '../schema.js';

const stringLike = { type: ['string', 'number', 'boolean', 'null'] } as const;
const stringMap = { type: 'object', additionalProperties: stringLike } as const;
const stringList = { type: 'array', items: { type: 'string' } } as const;
const nameRef = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1 } },
} as const;
const namespacedRef = {
  type: 'object',
  required: ['name', 'namespace'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    namespace: { type: 'string', minLength: 1 },
  },
} as const;
const templateRefs = { type: 'array', minItems: 1, items: namespacedRef } as const;
/** Kind → labels or annotations; any kind a template renders. */
const extraMetadata = { type: 'object', additionalProperties: stringMap } as const;
const resourceRefs = {
  type: 'array',
  items: {
    type: 'object',
    required: ['apiVersion', 'kind'],
    additionalProperties: false,
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' } },
  },
} as const;
const jsonText = (what: string): object => ({
  type: 'string',
  description: `${what}, as a JSON string`,
});

const nodeSchema = {
  type: 'object',
  required: ['hostName', 'bmcAddress', 'bmcCredentialsName', 'bootMACAddress', 'templateRefs'],
  additionalProperties: false,
  properties: {
    hostName: { type: 'string', minLength: 1 },
    role: { enum: ['master', 'worker', 'arbiter'], default: 'master' },
    bmcAddress: { type: 'string', minLength: 1 },
    bmcCredentialsName: nameRef,
    bootMACAddress: { type: 'string' },
    bootMode: { enum: ['UEFI', 'UEFISecureBoot', 'legacy'], default: 'UEFI' },
    automatedCleaningMode: { enum: ['disabled', 'metadata'], default: 'disabled' },
    rootDeviceHints: rootDeviceHintsSchema,
    nodeNetwork: nodeNetworkSchema,
    nodeLabels: stringMap,
    hostRef: namespacedRef,
    cpuArchitecture: { enum: ['x86_64', 'aarch64'] },
    installerArgs: jsonText('Installer arguments (an array of strings)'),
    ignitionConfigOverride: jsonText('Ignition override for the installed host'),
    ironicInspect: { enum: ['', 'disabled'], default: '' },
    extraAnnotations: extraMetadata,
    extraLabels: extraMetadata,
    suppressedManifests: stringList,
    pruneManifests: resourceRefs,
    templateRefs,
  },
} as const;

/** The ClusterInstance JSON Schema. */
export const clusterInstanceSchema = documentSchema({
  id: 'clusterinstance',
  title: 'ClusterInstance (siteconfig.open-cluster-management.io/v1alpha1)',
  apiVersion: { const: 'siteconfig.open-cluster-management.io/v1alpha1' },
  kind: 'ClusterInstance',
  spec: {
    type: 'object',
    required: [
      'clusterName',
      'baseDomain',
      'pullSecretRef',
      'clusterImageSetNameRef',
      'templateRefs',
      'nodes',
    ],
    additionalProperties: false,
    properties: {
      clusterName: { type: 'string', minLength: 1 },
      baseDomain: { type: 'string', minLength: 1 },
      pullSecretRef: nameRef,
      clusterImageSetNameRef: { type: 'string', minLength: 1 },
      sshPublicKey: { type: 'string' },
      clusterType: {
        enum: ['SNO', 'HighlyAvailable', 'HostedControlPlane', 'HighlyAvailableArbiter'],
      },
      apiVIPs: { ...stringList, maxItems: 2 },
      ingressVIPs: { ...stringList, maxItems: 2 },
      holdInstallation: { type: 'boolean', default: false },
      additionalNTPSources: stringList,
      machineNetwork: cidrListSchema,
      clusterNetwork: clusterNetworkSchema,
      serviceNetwork: cidrListSchema,
      networkType: { enum: ['OVNKubernetes', 'OpenShiftSDN'], default: 'OVNKubernetes' },
      platformType: { enum: ['', 'BareMetal', 'None', 'VSphere', 'Nutanix', 'External'] },
      extraAnnotations: extraMetadata,
      extraLabels: extraMetadata,
      installConfigOverrides: jsonText('install-config overrides (an object)'),
      ignitionConfigOverride: jsonText('Ignition override for the discovery ISO'),
      diskEncryption: {
        type: 'object',
        additionalProperties: false,
        properties: {
          type: { type: 'string', default: 'none' },
          tang: tangServersSchema,
        },
      },
      proxy: proxySchema,
      extraManifestsRefs: { type: 'array', items: nameRef },
      suppressedManifests: stringList,
      pruneManifests: resourceRefs,
      cpuPartitioningMode: { enum: ['None', 'AllNodes'], default: 'None' },
      cpuArchitecture: { enum: ['x86_64', 'aarch64', 'multi'], default: 'x86_64' },
      templateRefs,
      caBundleRef: nameRef,
      reinstall: {
        type: 'object',
        required: ['generation'],
        additionalProperties: false,
        properties: {
          generation: { type: 'string', minLength: 1, maxLength: 153 },
          preservationMode: { enum: ['None', 'All', 'ClusterIdentity'], default: 'None' },
        },
      },
      nodes: { type: 'array', minItems: 1, items: nodeSchema },
    },
  },
});
