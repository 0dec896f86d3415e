/**
 * JSON Schema (draft-07) of SiteConfig v1/v2 as SiteForge reads it. Structural checks live here;
 * the rules that need more than one field (networks, topology, uniqueness) live in validate.ts.
 * `siteforge schema` prints this object so editors can offer completion and inline errors.
 */

/** The known CR kinds a SiteConfig can override, annotate or suppress, by level. */
export const ClusterKinds = [
  'AgentClusterInstall',
  'ClusterDeployment',
  'ConfigMap',
  'InfraEnv',
  'KlusterletAddonConfig',
  'ManagedCluster',
  'Namespace',
] as const;
export const NodeKinds = ['BareMetalHost', 'HostFirmwareSettings', 'NMStateConfig'] as const;

const stringLike = { type: ['string', 'number', 'boolean', 'null'] } as const;
const stringMap = { type: 'object', additionalProperties: stringLike } as const;
const nameRef = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1 } },
} as const;
const filePathRef = {
  type: 'object',
  required: ['filePath'],
  additionalProperties: false,
  properties: { filePath: { type: 'string', minLength: 1 } },
} as const;
const kindMap = (kinds: readonly string[], value: object): object => ({
  type: 'object',
  propertyNames: { enum: kinds },
  additionalProperties: value,
});
const crAnnotations = (kinds: readonly string[]): object => ({
  type: 'object',
  additionalProperties: false,
  properties: { add: kindMap(kinds, { type: 'object', additionalProperties: stringLike }) },
});
const crSuppression = (kinds: readonly string[]): object => ({
  type: 'array',
  items: { type: 'string', enum: kinds },
});
const jsonText = (what: string): object => ({
  type: 'string',
  description: `${what}, as a JSON string`,
});
const stringList = { type: 'array', items: { type: 'string' } } as const;
const allKinds = [...ClusterKinds, ...NodeKinds];

const credentialsSource = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  description: 'exactly one of externalSecret or fromDirectory',
  properties: {
    externalSecret: {
      type: 'object',
      required: ['storeRef', 'key'],
      additionalProperties: false,
      properties: {
        storeRef: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1 },
            kind: { enum: ['SecretStore', 'ClusterSecretStore'], default: 'ClusterSecretStore' },
          },
        },
        key: { type: 'string', minLength: 1 },
        refreshInterval: {
          type: 'string',
          pattern: '^([0-9]+(ns|us|µs|ms|s|m|h))+$',
          default: '1h',
        },
        apiVersion: {
          enum: ['external-secrets.io/v1', 'external-secrets.io/v1beta1'],
          default: 'external-secrets.io/v1',
        },
      },
    },
    fromDirectory: { type: 'string', minLength: 1, pattern: '^[^/]' },
  },
} as const;

/** A list of `{cidr}` entries (machineNetwork, and serviceNetwork of a ClusterInstance). */
export const cidrListSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['cidr'],
    additionalProperties: false,
    properties: { cidr: { type: 'string' } },
  },
} as const;

/** clusterNetwork: `{cidr, hostPrefix}` entries. */
export const clusterNetworkSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['cidr'],
    additionalProperties: false,
    properties: {
      cidr: { type: 'string' },
      hostPrefix: { type: 'integer', minimum: 1, maximum: 128 },
    },
  },
} as const;

/** Tang servers of network-bound disk encryption. */
export const tangServersSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['url', 'thumbprint'],
    additionalProperties: false,
    properties: { url: { type: 'string' }, thumbprint: { type: 'string' } },
  },
} as const;

/** Cluster-wide proxy settings (assisted-service Proxy). */
export const proxySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    httpProxy: { type: 'string' },
    httpsProxy: { type: 'string' },
    noProxy: { type: 'string' },
  },
} as const;

/** metal3 RootDeviceHints, as SiteConfig and ClusterInstance nodes write them. */
export const rootDeviceHintsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    deviceName: { type: 'string' },
    hctl: { type: 'string' },
    model: { type: 'string' },
    vendor: { type: 'string' },
    serialNumber: { type: 'string' },
    minSizeGigabytes: { type: 'integer', minimum: 0 },
    wwn: { type: 'string' },
    wwnWithExtension: { type: 'string' },
    wwnVendorExtension: { type: 'string' },
    rotational: { type: 'boolean' },
  },
} as const;

/** A node's static network: nmstate config plus NIC/MAC bindings (assisted NMStateConfigSpec). */
export const nodeNetworkSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    interfaces: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'macAddress'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, macAddress: { type: 'string' } },
      },
    },
    config: { type: 'object', description: 'nmstate configuration' },
  },
} as const;

const nodeSchema = {
  type: 'object',
  required: ['hostName', 'bmcAddress', 'bootMACAddress'],
  anyOf: [{ required: ['bmcCredentialsName'] }, { required: ['bmcCredentials'] }],
  additionalProperties: false,
  properties: {
    hostName: { type: 'string', minLength: 1, description: 'Host name; names the BareMetalHost' },
    role: { enum: ['master', 'worker'], default: 'master' },
    bmcAddress: {
      type: 'string',
      minLength: 1,
      description: 'BMC URL, e.g. redfish-virtualmedia+https://10.0.0.1/redfish/v1/Systems/1',
    },
    bmcCredentialsName: nameRef,
    bmcCredentials: credentialsSource,
    bootMACAddress: { type: 'string' },
    bootMode: { enum: ['UEFI', 'UEFISecureBoot', 'legacy'], default: 'UEFI' },
    automatedCleaningMode: { enum: ['disabled', 'metadata'], default: 'disabled' },
    rootDeviceHints: rootDeviceHintsSchema,
    nodeNetwork: nodeNetworkSchema,
    nodeLabels: stringMap,
    installerArgs: jsonText('Installer arguments (an array of strings)'),
    ignitionConfigOverride: jsonText('Ignition override for the installed host'),
    ironicInspect: { enum: ['', 'enabled', 'disabled'], default: 'enabled' },
    userData: { type: 'object' },
    cpuset: { type: 'string', pattern: '^[0-9]+([-,][0-9]+)*$', deprecated: true },
    diskPartition: {
      type: 'array',
      items: {
        type: 'object',
        required: ['device', 'partitions'],
        additionalProperties: false,
        properties: {
          device: { type: 'string', minLength: 1 },
          partitions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['mount_point', 'size', 'start'],
              additionalProperties: false,
              properties: {
                mount_point: { type: 'string', minLength: 1 },
                size: { type: 'integer' },
                start: { type: 'integer' },
                file_system_format: { type: 'string', default: 'xfs' },
              },
            },
          },
        },
      },
    },
    biosConfigRef: filePathRef,
    crTemplates: kindMap(NodeKinds, { type: 'string', minLength: 1 }),
    crAnnotations: crAnnotations(NodeKinds),
    crSuppression: crSuppression(NodeKinds),
    hardwareProfile: {
      type: 'string',
      description: 'In the upstream CRD but ignored by every generator',
    },
    remove: {
      type: 'boolean',
      default: false,
      description: 'remove this host from the cluster (its Agent and Node) on the next sync',
    },
  },
} as const;

const clusterSchema = {
  type: 'object',
  required: ['clusterName', 'nodes'],
  additionalProperties: false,
  properties: {
    clusterName: { type: 'string', minLength: 1 },
    clusterImageSetNameRef: { type: 'string', minLength: 1 },
    networkType: { enum: ['OVNKubernetes', 'OpenShiftSDN'], default: 'OVNKubernetes' },
    installConfigOverrides: jsonText('install-config overrides (an object)'),
    cpuPartitioningMode: { enum: ['None', 'AllNodes'], default: 'None' },
    holdInstallation: { type: 'boolean', default: false },
    apiVIP: { type: 'string', deprecated: true },
    ingressVIP: { type: 'string', deprecated: true },
    apiVIPs: { ...stringList, maxItems: 2 },
    ingressVIPs: { ...stringList, maxItems: 2 },
    machineNetwork: cidrListSchema,
    clusterNetwork: clusterNetworkSchema,
    serviceNetwork: stringList,
    additionalNTPSources: stringList,
    ignitionConfigOverride: jsonText('Ignition override for the discovery ISO'),
    proxy: proxySchema,
    clusterLabels: stringMap,
    diskEncryption: {
      type: 'object',
      additionalProperties: false,
      properties: {
        type: { enum: ['none', 'nbde', 'tpm2'], default: 'none' },
        tang: tangServersSchema,
        tpm2: {
          type: 'object',
          additionalProperties: false,
          properties: { pcrList: { type: 'string' } },
        },
      },
    },
    extraManifestPath: { type: 'string', deprecated: true },
    extraManifests: {
      type: 'object',
      additionalProperties: false,
      properties: {
        searchPaths: stringList,
        defaultSet: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', default: 'default' },
        filter: {
          type: 'object',
          additionalProperties: false,
          properties: {
            inclusionDefault: { enum: ['include', 'exclude'], default: 'include' },
            include: stringList,
            exclude: stringList,
          },
        },
      },
    },
    mergeDefaultMachineConfigs: { type: 'boolean', default: false },
    siteConfigMap: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        namespace: { type: 'string' },
        data: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    biosConfigRef: filePathRef,
    crTemplates: kindMap(allKinds, { type: 'string', minLength: 1 }),
    crAnnotations: crAnnotations(allKinds),
    crSuppression: crSuppression(ClusterKinds),
    baseDomain: {
      type: 'string',
      description: 'In the upstream CRD but ignored: the site baseDomain applies',
    },
    manifestsConfig: {
      type: 'object',
      description: 'In the upstream CRD but ignored by every generator',
    },
    nodes: { type: 'array', minItems: 1, items: nodeSchema },
  },
} as const;

/**
 * The JSON Schema of a Kubernetes-style document: `apiVersion`, `kind`, `metadata` with a name,
 * `spec`, and a `status` that input may carry but nothing reads.
 */
export function documentSchema(document: {
  readonly id: string;
  readonly title: string;
  readonly apiVersion: object;
  readonly kind: string;
  readonly spec: object;
}): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://siteforge.dev/schemas/${document.id}.json`,
    title: document.title,
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: document.apiVersion,
      kind: { const: document.kind },
      metadata: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          namespace: { type: 'string' },
          labels: stringMap,
          annotations: stringMap,
        },
      },
      spec: document.spec,
      status: { type: 'object' },
    },
  };
}

/** The SiteConfig JSON Schema. */
export const siteConfigSchema = documentSchema({
  id: 'siteconfig',
  title: 'SiteConfig (ran.openshift.io/v1, v2)',
  apiVersion: { enum: ['ran.openshift.io/v1', 'ran.openshift.io/v2'] },
  kind: 'SiteConfig',
  spec: {
    type: 'object',
    required: ['baseDomain', 'pullSecretRef', 'clusters'],
    additionalProperties: false,
    properties: {
      baseDomain: { type: 'string', minLength: 1 },
      pullSecretRef: nameRef,
      pullSecret: credentialsSource,
      clusterImageSetNameRef: { type: 'string', minLength: 1 },
      sshPublicKey: { type: 'string' },
      sshPrivateKeySecretRef: nameRef,
      crTemplates: kindMap(allKinds, { type: 'string', minLength: 1 }),
      crAnnotations: crAnnotations(allKinds),
      biosConfigRef: filePathRef,
      clusters: { type: 'array', minItems: 1, items: clusterSchema },
    },
  },
});
