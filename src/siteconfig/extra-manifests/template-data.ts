/**
 * The data extra-manifest templates see: `{{ .Role }}` and `{{ .Data }}`, where `.Data` is the
 * cluster as siteconfig-generator's Go struct `siteConfig.Clusters` exposes it.
 *
 * Templates written for the Go tool name fields by their Go names (`.Data.DiskEncryption.Type`,
 * `.URL`, `.MountPoint`, `.NumMasters`); our own templates may also use the YAML names
 * (`.Data.diskEncryption.type`, `.mount_point`). A name is looked up case-insensitively with
 * underscores ignored, among the Go and YAML names of the struct's fields. As in Go, a field of
 * the struct that the SiteConfig leaves out has its zero value (or the default the Go reader
 * applied), and a name that is no field at all is an execution error. Fields SiteForge added
 * that the Go struct lacks are reachable by their YAML names.
 */
import { posix } from 'node:path';
import { NO_FIELD, normalizeFieldName, TemplateStruct } from './go-template.js';
import type { SiteConfigCluster } from '../types.js';

type Zero = 'string' | 'int' | 'bool' | 'list' | 'map' | 'nil' | Shape;

interface FieldSpec {
  /** Position in its shape (set by shape()). */
  slot?: number;
  /** The Go field name. */
  readonly go: string;
  /** The YAML key; undefined for computed fields. */
  readonly yaml?: string;
  readonly zero: Zero;
  /** The element shape of a list of structs. */
  readonly elem?: Shape;
  /** The value the Go reader puts in when the key is absent. */
  readonly fallback?: unknown;
  /** Computes the field from the whole struct's YAML value. */
  readonly compute?: (raw: Readonly<Record<string, unknown>>) => unknown;
}

interface Shape {
  readonly goType: string;
  readonly fields: readonly FieldSpec[];
  /** By Go name and YAML name, as written. */
  readonly exact: ReadonlyMap<string, FieldSpec>;
  /** By normalized Go and YAML name. */
  readonly index: ReadonlyMap<string, FieldSpec>;
}

function shape(goType: string, fields: FieldSpec[]): Shape {
  const index = new Map<string, FieldSpec>();
  const exact = new Map<string, FieldSpec>();
  fields.forEach((field, slot) => {
    field.slot = slot;
    index.set(normalizeFieldName(field.go), field);
    exact.set(field.go, field);
    if (field.yaml !== undefined) {
      index.set(normalizeFieldName(field.yaml), field);
      exact.set(field.yaml, field);
    }
  });
  return { goType, fields, exact, index };
}

/** A field whose YAML key is the Go name with a lower-case first letter. */
function f(go: string, zero: Zero, extra: Partial<FieldSpec> = {}): FieldSpec {
  return { go, yaml: go[0]!.toLowerCase() + go.slice(1), zero, ...extra };
}

/** systemd-escape --path: the unit name of a mount point, without `.mount`. */
export function systemdPathEscape(path: string): string {
  const trimmed = posix.normalize(path).replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '-';
  let out = '';
  for (let k = 0; k < trimmed.length; k++) {
    const c = trimmed[k]!;
    if (c === '/') out += '-';
    else if (/[A-Za-z0-9:_]/.test(c) || (c === '.' && k > 0)) out += c;
    else {
      for (const byte of new TextEncoder().encode(c))
        out += `\\x${byte.toString(16).padStart(2, '0')}`;
    }
  }
  return out;
}

/** A mount point as the Go reader cleans it. */
export function cleanMountPoint(mountPoint: string): string {
  return mountPoint === '' ? '.' : posix.normalize(mountPoint).replace(/(.)\/+$/, '$1');
}

/** The partition label siteconfig-generator derives from a mount point. */
export function partitionLabel(mountPoint: string): string {
  return cleanMountPoint(mountPoint).slice(1).replace(/\//g, '-');
}

const str = (raw: Readonly<Record<string, unknown>>, key: string): string => {
  const value = raw[key];
  return typeof value === 'string' ? value : '';
};

const TangConfig = shape('siteConfig.TangConfig', [
  { go: 'URL', yaml: 'url', zero: 'string' },
  f('Thumbprint', 'string'),
]);
const Tpm2Config = shape('siteConfig.Tpm2Config', [
  { go: 'PCRList', yaml: 'pcrList', zero: 'string' },
]);
const DiskEncryption = shape('siteConfig.DiskEncryption', [
  f('Type', 'string', { fallback: 'none' }),
  f('Tang', 'list', { elem: TangConfig }),
  f('Tpm2', Tpm2Config),
]);
const Partitions = shape('siteConfig.Partitions', [
  {
    go: 'MountPoint',
    yaml: 'mount_point',
    zero: 'string',
    compute: (raw) => cleanMountPoint(str(raw, 'mount_point')),
  },
  f('Size', 'int'),
  f('Start', 'int'),
  { go: 'FileSystemFormat', yaml: 'file_system_format', zero: 'string', fallback: 'xfs' },
  {
    go: 'MountFileName',
    zero: 'string',
    compute: (raw) => `${systemdPathEscape(str(raw, 'mount_point'))}.mount`,
  },
  { go: 'Label', zero: 'string', compute: (raw) => partitionLabel(str(raw, 'mount_point')) },
  { go: 'Encryption', zero: 'bool' },
]);
const DiskPartition = shape('siteConfig.DiskPartition', [
  f('Device', 'string'),
  f('Partitions', 'list', { elem: Partitions }),
]);
const NameRef = shape('siteConfig.BmcCredentialsName', [f('Name', 'string')]);
const BiosConfigRef = shape('siteConfig.BiosConfigRef', [f('FilePath', 'string')]);
const Interfaces = shape('siteConfig.Interfaces', [f('Name', 'string'), f('MacAddress', 'string')]);
const NodeNetwork = shape('siteConfig.NodeNetwork', [
  f('Config', 'map'),
  f('Interfaces', 'list', { elem: Interfaces }),
]);
const CrAnnotations = shape('siteConfig.CrAnnotations', [f('Add', 'map')]);
const Nodes = shape('siteConfig.Nodes', [
  f('BmcAddress', 'string'),
  { go: 'BootMACAddress', yaml: 'bootMACAddress', zero: 'string' },
  f('RootDeviceHints', 'map'),
  f('Cpuset', 'string'),
  f('NodeNetwork', NodeNetwork),
  f('HostName', 'string'),
  f('BmcCredentialsName', NameRef),
  f('BootMode', 'string', { fallback: 'UEFI' }),
  f('UserData', 'map'),
  f('InstallerArgs', 'string'),
  f('IgnitionConfigOverride', 'string'),
  f('Role', 'string', { fallback: 'master' }),
  f('CrTemplates', 'map'),
  f('CrAnnotations', CrAnnotations),
  f('CrSuppression', 'list'),
  f('BiosConfigRef', BiosConfigRef),
  f('DiskPartition', 'list', { elem: DiskPartition }),
  f('NodeLabels', 'map'),
  f('AutomatedCleaningMode', 'string', { fallback: 'disabled' }),
  f('IronicInspect', 'string'),
]);
const MachineNetwork = shape('siteConfig.MachineNetwork', [f('Cidr', 'string')]);
const ClusterNetwork = shape('siteConfig.ClusterNetwork', [
  f('Cidr', 'string'),
  f('HostPrefix', 'int'),
]);
const ProxySettings = shape('siteConfig.ProxySettings', [
  f('HttpProxy', 'string'),
  f('HttpsProxy', 'string'),
  f('NoProxy', 'string'),
]);
const Filter = shape('siteConfig.Filter', [
  f('InclusionDefault', 'nil'),
  f('Exclude', 'list'),
  f('Include', 'list'),
]);
const ExtraManifests = shape('siteConfig.ExtraManifests', [
  f('SearchPaths', 'nil'),
  f('Filter', 'nil', { elem: Filter }),
]);
const SiteConfigMap = shape('siteConfig.SiteConfigMap', [
  f('Name', 'string'),
  f('Namespace', 'string', { fallback: 'ztp-site' }),
  f('Data', 'map'),
]);

const masters = (raw: Readonly<Record<string, unknown>>): number => {
  const nodes = Array.isArray(raw['nodes']) ? (raw['nodes'] as Record<string, unknown>[]) : [];
  return nodes.filter((n) => (n['role'] ?? 'master') === 'master').length;
};
const nodeCount = (raw: Readonly<Record<string, unknown>>): number =>
  Array.isArray(raw['nodes']) ? raw['nodes'].length : 0;

const Clusters = shape('siteConfig.Clusters', [
  { go: 'ApiVIP', yaml: 'apiVIP', zero: 'string' },
  { go: 'IngressVIP', yaml: 'ingressVIP', zero: 'string' },
  { go: 'ApiVIPs', yaml: 'apiVIPs', zero: 'list' },
  { go: 'IngressVIPs', yaml: 'ingressVIPs', zero: 'list' },
  f('ClusterName', 'string'),
  { go: 'AdditionalNTPSources', yaml: 'additionalNTPSources', zero: 'list' },
  f('Nodes', 'list', { elem: Nodes }),
  f('MachineNetwork', 'list', { elem: MachineNetwork }),
  f('ServiceNetwork', 'list'),
  f('ClusterLabels', 'map'),
  f('NetworkType', 'string', { fallback: 'OVNKubernetes' }),
  f('ClusterNetwork', 'list', { elem: ClusterNetwork }),
  f('IgnitionConfigOverride', 'string'),
  f('DiskEncryption', DiskEncryption),
  { go: 'ProxySettings', yaml: 'proxy', zero: ProxySettings },
  f('ExtraManifestPath', 'string'),
  f('ClusterImageSetNameRef', 'string'),
  f('BiosConfigRef', BiosConfigRef),
  f('ExtraManifests', ExtraManifests),
  { go: 'ExtraManifestOnly', zero: 'bool' },
  { go: 'NumMasters', zero: 'int', compute: masters },
  {
    go: 'NumWorkers',
    zero: 'int',
    compute: (raw) => (masters(raw) === 1 ? 0 : nodeCount(raw) - masters(raw)),
  },
  {
    go: 'ClusterType',
    zero: 'string',
    compute: (raw) => (masters(raw) === 1 ? 'sno' : 'standard'),
  },
  f('CrTemplates', 'map'),
  f('CrAnnotations', CrAnnotations),
  f('CrSuppression', 'list'),
  f('InstallConfigOverrides', 'string'),
  { go: 'CPUPartitioning', yaml: 'cpuPartitioningMode', zero: 'string', fallback: 'None' },
  f('HoldInstallation', 'bool'),
  f('MergeDefaultMachineConfigs', 'bool'),
  f('SiteConfigMap', SiteConfigMap),
]);

function zeroValue(zero: Zero): unknown {
  switch (zero) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'list':
      return [];
    case 'map':
      return {};
    case 'nil':
      return null;
    default:
      return new StructView(zero, {});
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A YAML map seen as a Go struct of a known shape. */
class StructView extends TemplateStruct {
  /** Resolved field values by slot; NO_FIELD marks a slot not resolved yet. */
  private cache: unknown[] | undefined;

  constructor(
    private readonly type: Shape,
    private readonly raw: Readonly<Record<string, unknown>>,
  ) {
    super();
  }

  get goType(): string {
    return this.type.goType;
  }

  field(name: string): unknown {
    const spec = this.type.exact.get(name) ?? this.type.index.get(normalizeFieldName(name));
    if (spec === undefined) {
      // A SiteForge field the Go struct does not have: reachable by its YAML name.
      const normalized = normalizeFieldName(name);
      const key = Object.keys(this.raw).find((k) => normalizeFieldName(k) === normalized);
      return key === undefined ? NO_FIELD : this.raw[key];
    }
    const slot = spec.slot!;
    this.cache ??= new Array<unknown>(this.type.fields.length).fill(NO_FIELD);
    const cached = this.cache[slot];
    if (cached !== NO_FIELD) return cached;
    const value = this.resolve(spec);
    this.cache[slot] = value;
    return value;
  }

  fieldNames(): readonly string[] {
    return this.type.fields.map((spec) => spec.go);
  }

  private resolve(spec: FieldSpec): unknown {
    const value = spec.compute
      ? spec.compute(this.raw)
      : spec.yaml === undefined
        ? undefined
        : this.raw[spec.yaml];
    if (value === undefined || value === null) return spec.fallback ?? zeroValue(spec.zero);
    if (typeof spec.zero === 'object' && isRecord(value)) return new StructView(spec.zero, value);
    const elem = spec.elem;
    if (elem && Array.isArray(value))
      return value.map((item: unknown) => (isRecord(item) ? new StructView(elem, item) : item));
    if (elem && isRecord(value)) return new StructView(elem, value);
    return value;
  }
}

/** The `{Role, Data}` value a template runs with. */
class TemplateRoot extends TemplateStruct {
  readonly goType = 'struct { Role string; Data interface {} }';

  constructor(
    private readonly role: string,
    private readonly data: StructView,
  ) {
    super();
  }

  field(name: string): unknown {
    const normalized = normalizeFieldName(name);
    if (normalized === 'role') return this.role;
    if (normalized === 'data') return this.data;
    return NO_FIELD;
  }

  fieldNames(): readonly string[] {
    return ['Role', 'Data'];
  }
}

/**
 * The template data of a cluster: call the result with a role to get `{Role, Data}`. The
 * cluster view is shared between roles, so each field is resolved once per cluster.
 */
export function templateData(cluster: SiteConfigCluster): (role: string) => TemplateStruct {
  const view = new StructView(Clusters, cluster as unknown as Readonly<Record<string, unknown>>);
  return (role) => new TemplateRoot(role, view);
}
