/**
 * Validation of ClusterInstance documents: the JSON Schema, then the SiteConfig rules that apply
 * to one cluster (networks, VIPs, topology, MACs and host names unique across every input file,
 * nmstate, BMC URLs, JSON fields), then the rules of the ClusterInstance API itself (clusterType
 * against the node roles, the namespace, labels per kind, template references).
 */
import type { ValidateFunction } from 'ajv';
import { quote } from '../../shared/errors.js';
import { labelKeyProblem, labelValueProblem } from '../rules/predicates.js';
import type { SiteConfig, SiteConfigCluster } from '../types.js';
import type {
  DocPlace,
  DocRef,
  FleetIndex,
  IssueCollector,
  IssueSink,
} from '../issue-collector.js';
import {
  CLUSTER_TYPE_MISMATCH,
  CLUSTER_TYPE_UNSUPPORTED,
  CLUSTERINSTANCE_FIELD_IGNORED,
  NAMESPACE_MISMATCH,
  SSH_KEYS_JOINED,
} from '../rules/cluster-instance.js';
import { checkAnnotationMaps, LABEL_INVALID, scalarText } from '../rules/labels.js';
import { checkBaseDomain, checkClusterName, HOSTNAME_INVALID } from '../rules/names.js';
import { reportRule } from '../rules/rule.js';
import { TOPOLOGY_INVALID } from '../rules/topology.js';
import type { Rule } from '../rules/rule.js';
import { checkObjectName } from '../rules/references.js';
import { checkStructure } from '../rules/structure.js';
import { toPlain } from '../normalize.js';
import { checkCluster, hasSoundShape, isBroken } from '../validate.js';
import { validate as validateSchema } from './schema-validator.generated.js';
import { NodeTemplateKinds, TemplateKinds } from './compile.js';
import { hasLineBreak, renderedInDoubleQuotes } from './template-quoting.js';
import { ClusterInstanceApiVersion, ClusterType, DefaultTemplates } from './types.js';
import type { ClusterInstance, ClusterInstanceSpec, ExtraMetadata, TemplateRef } from './types.js';

type Path = readonly (string | number)[];

/** Kinds whose objects cluster-level extraLabels and extraAnnotations reach (compile.ts). */
const CLUSTER_LEVEL_KINDS: ReadonlySet<string> = new Set([...TemplateKinds, 'Namespace']);

/** The schema, compiled ahead of time (scripts/generate-schema-validator.js). */
const schemaValidator = validateSchema as unknown as ValidateFunction;

/**
 * Who renders the objects of a ClusterInstance: SiteForge (`--format crs`, the default
 * assisted-installer templates) or the SiteConfig operator on the hub (`--format
 * clusterinstance`, which passes the ClusterInstance through).
 */
export type ClusterInstanceRenderer = 'siteforge' | 'operator';

/** True for a document SiteForge reads as a ClusterInstance. */
export function isClusterInstanceDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  return (
    kind === 'ClusterInstance' ||
    (typeof apiVersion === 'string' &&
      apiVersion.startsWith('siteconfig.open-cluster-management.io/'))
  );
}

/**
 * Checks one ClusterInstance document, reporting every problem into `report`. Cluster names
 * and MACs are recorded in `fleet`, which SiteConfig documents share. Returns the document as
 * plain data (label and annotation values as strings) when it has no error. `renderer` says who
 * renders its objects: fields only the operator carries out are warned about for SiteForge.
 */
export function checkClusterInstance(
  doc: DocRef,
  report: IssueCollector,
  fleet: FleetIndex,
  renderer: ClusterInstanceRenderer = 'siteforge',
): ClusterInstance | undefined {
  const before = report.errorCount;
  const broken = checkStructure(doc, report, schemaValidator);
  const ci = doc.root as ClusterInstance;
  const spec = (ci as Partial<ClusterInstance>).spec as unknown;
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec)) {
    if (hasSoundShape(broken, '/spec', spec)) {
      // A structural error elsewhere in the spec only skips the checks that read it.
      new ClusterInstanceChecker(doc, ci, report, fleet, renderer, broken).run();
    } else if (!isBroken(broken, '/spec/clusterName')) {
      // The spec or its node list is no map or list; the name must still be unique.
      checkClusterName(doc, spec as SiteConfigCluster, ['spec'], report, fleet);
    }
  }
  return report.errorCount === before ? normalizeClusterInstance(ci) : undefined;
}

/** A node role as the SiteConfig rules count it: an arbiter is a control-plane member. */
function countedRole(role: string | undefined): 'master' | 'worker' {
  return role === 'worker' ? 'worker' : 'master';
}

/**
 * The fields the SiteConfig rules read, taken from a ClusterInstance spec: the same names, except
 * serviceNetwork (objects in a ClusterInstance, strings in a SiteConfig), which is left out when
 * `serviceNetworkSound` is false (the rules then skip it).
 */
function siteConfigView(
  spec: ClusterInstanceSpec,
  serviceNetworkSound: boolean,
): SiteConfigCluster {
  return {
    clusterName: spec.clusterName,
    clusterImageSetNameRef: spec.clusterImageSetNameRef,
    networkType: spec.networkType,
    installConfigOverrides: spec.installConfigOverrides,
    cpuPartitioningMode: spec.cpuPartitioningMode,
    holdInstallation: spec.holdInstallation,
    apiVIPs: spec.apiVIPs,
    ingressVIPs: spec.ingressVIPs,
    machineNetwork: spec.machineNetwork,
    clusterNetwork: spec.clusterNetwork,
    serviceNetwork: serviceNetworkSound
      ? spec.serviceNetwork?.map((entry) => entry.cidr)
      : undefined,
    additionalNTPSources: spec.additionalNTPSources,
    ignitionConfigOverride: spec.ignitionConfigOverride,
    proxy: spec.proxy,
    nodes: spec.nodes.map((node) => ({
      hostName: node.hostName,
      role: countedRole(node.role),
      bmcAddress: node.bmcAddress,
      bmcCredentialsName: node.bmcCredentialsName,
      bootMACAddress: node.bootMACAddress,
      bootMode: node.bootMode,
      automatedCleaningMode: node.automatedCleaningMode,
      rootDeviceHints: node.rootDeviceHints,
      nodeNetwork: node.nodeNetwork,
      nodeLabels: node.nodeLabels,
      installerArgs: node.installerArgs,
      ignitionConfigOverride: node.ignitionConfigOverride,
    })),
  };
}

/** Where a SiteConfig rule's path lies in a ClusterInstance (`serviceNetwork.0` → `.0.cidr`). */
function toClusterInstancePath(path: Path): Path {
  if (path[0] === 'spec' && path[1] === 'serviceNetwork' && typeof path[2] === 'number')
    return [...path.slice(0, 3), 'cidr', ...path.slice(3)];
  return path;
}

class ClusterInstanceChecker {
  private readonly spec: ClusterInstanceSpec;

  constructor(
    private readonly doc: DocRef,
    private readonly ci: ClusterInstance,
    private readonly report: IssueCollector,
    private readonly fleet: FleetIndex,
    private readonly renderer: ClusterInstanceRenderer,
    /** JSON pointers of the structural errors: every rule skips what it would read from them. */
    private readonly broken: readonly string[] = [],
  ) {
    this.spec = ci.spec;
  }

  /** True when no structural error lies at, below or above `path` (from the document root). */
  private sound(...path: Path): boolean {
    return this.broken.length === 0 || !isBroken(this.broken, `/${path.join('/')}`);
  }

  private issue(rule: Rule, path: Path, message: string, hint: string): void {
    reportRule(this.report, this.doc, rule, path, message, hint);
  }

  run(): void {
    this.runSiteConfigRules();
    this.checkNamespace();
    this.checkClusterType();
    this.checkExtraLabels(['spec'], this.spec.extraLabels);
    this.spec.nodes.forEach((node, index) => {
      this.checkExtraLabels(['spec', 'nodes', index], node.extraLabels);
    });
    this.checkNamesAndAnnotations();
    if (this.sound('spec', 'sshPublicKey')) this.checkSshPublicKey();
    if (this.renderer === 'siteforge') this.checkFieldsCarriedOut();
  }

  /** The rules a SiteConfig cluster has, on the same fields, reported at ClusterInstance paths. */
  private runSiteConfigRules(): void {
    // With clusterType broken the topology it names is unknown: no node-count rule either.
    const arbiter =
      !this.sound('spec', 'clusterType') ||
      this.spec.clusterType === ClusterType.HighlyAvailableArbiter;
    const sink: IssueSink = {
      add: (doc, severity, code, path, message, hint, at, related?: DocPlace) => {
        // The node-count rules of a SiteConfig have no arbiter; checkClusterType covers it.
        if (arbiter && code === TOPOLOGY_INVALID.code) return;
        this.report.add(
          doc,
          severity,
          code,
          toClusterInstancePath(path),
          message,
          hint,
          at,
          related,
        );
      },
    };
    const site = {
      apiVersion: 'ran.openshift.io/v2',
      kind: 'SiteConfig',
      metadata: { name: this.sound('metadata', 'name') ? this.ci.metadata.name : '' },
      spec: {
        baseDomain: this.spec.baseDomain,
        pullSecretRef: this.spec.pullSecretRef,
        clusters: [],
      },
    } satisfies SiteConfig;
    checkCluster(
      this.doc,
      site,
      siteConfigView(this.spec, this.sound('spec', 'serviceNetwork')),
      ['spec'],
      sink,
      this.fleet,
      this.broken,
    );
  }

  /** The default templates create every object in the namespace named after the cluster. */
  private checkNamespace(): void {
    if (!this.sound('metadata', 'namespace') || !this.sound('spec', 'clusterName')) return;
    const namespace = this.ci.metadata.namespace;
    if (namespace === undefined || namespace === this.spec.clusterName) return;
    this.issue(
      NAMESPACE_MISMATCH,
      ['metadata', 'namespace'],
      `metadata.namespace ${quote(namespace)} is not the clusterName ${quote(this.spec.clusterName)}`,
      'the templates create the cluster objects, the pull secret and BMC secrets are read in the namespace named after the cluster; set metadata.namespace to the clusterName',
    );
  }

  /** clusterType against the node roles, as the operator's admission webhook checks it. */
  private checkClusterType(): void {
    if (!this.sound('spec', 'clusterType')) return;
    const { clusterType, nodes } = this.spec;
    const masters = nodes.filter((n) => (n.role ?? 'master') === 'master').length;
    const arbiters = nodes.filter((n) => n.role === 'arbiter').length;
    const path = ['spec', 'clusterType'];
    if (clusterType === ClusterType.HostedControlPlane) {
      this.issue(
        CLUSTER_TYPE_UNSUPPORTED,
        path,
        'HostedControlPlane clusters are not installed with the assisted installer',
        'SiteForge renders the assisted-installer templates: use SNO, HighlyAvailable or HighlyAvailableArbiter',
      );
      return;
    }
    // A node role is broken: the counts are unknown.
    if (!nodes.every((_, index) => this.sound('spec', 'nodes', index, 'role'))) return;
    if (clusterType === ClusterType.SNO && masters !== 1) {
      this.issue(
        CLUSTER_TYPE_MISMATCH,
        path,
        `clusterType SNO needs exactly 1 control-plane node, not ${String(masters)}`,
        'set clusterType: HighlyAvailable, or give exactly one node role master',
      );
    }
    if (clusterType === ClusterType.HighlyAvailable && masters === 1) {
      this.issue(
        CLUSTER_TYPE_MISMATCH,
        path,
        'clusterType HighlyAvailable has a single control-plane node',
        'set clusterType: SNO (workers may be added to it later)',
      );
    }
    if (clusterType === ClusterType.HighlyAvailableArbiter && (arbiters < 1 || masters < 2)) {
      this.issue(
        CLUSTER_TYPE_MISMATCH,
        path,
        `clusterType HighlyAvailableArbiter needs 2 or more control-plane nodes and an arbiter, not ${String(masters)} and ${String(arbiters)}`,
        'give two nodes role master and one role arbiter',
      );
    }
    if (clusterType !== ClusterType.HighlyAvailableArbiter) {
      nodes.forEach((node, index) => {
        if (node.role !== 'arbiter') return;
        this.issue(
          CLUSTER_TYPE_MISMATCH,
          ['spec', 'nodes', index, 'role'],
          'an arbiter node needs clusterType HighlyAvailableArbiter',
          'set clusterType: HighlyAvailableArbiter, or make the node a master or worker',
        );
      });
    }
  }

  /**
   * The base domain, the pull secret name and the annotations of every kind; host names, which
   * the default templates also write as label values (one InfraEnv per host), fit in 63.
   */
  private checkNamesAndAnnotations(): void {
    const { doc, report, spec } = this;
    const sound = (...path: Path): boolean => this.sound('spec', ...path);
    if (sound('baseDomain')) checkBaseDomain(doc, report, ['spec', 'baseDomain'], spec.baseDomain);
    if (sound('pullSecretRef', 'name'))
      checkObjectName(doc, report, spec.pullSecretRef.name, 'pull secret Secret', () => [
        'spec',
        'pullSecretRef',
        'name',
      ]);
    if (sound('extraAnnotations'))
      checkAnnotationMaps(doc, report, spec.extraAnnotations, () => ['spec', 'extraAnnotations']);
    if (sound('caBundleRef', 'name'))
      checkObjectName(doc, report, spec.caBundleRef?.name, 'CA bundle ConfigMap', () => [
        'spec',
        'caBundleRef',
        'name',
      ]);
    (sound('extraManifestsRefs') ? (spec.extraManifestsRefs ?? []) : []).forEach((ref, k) => {
      checkObjectName(doc, report, ref.name, 'extra-manifests ConfigMap', () => [
        'spec',
        'extraManifestsRefs',
        k,
        'name',
      ]);
    });
    if (sound('templateRefs'))
      this.checkRefs(['spec', 'templateRefs'], spec.templateRefs, 'template ConfigMap');
    spec.nodes.forEach((node, index) => {
      const at = ['spec', 'nodes', index];
      const nodeSound = (field: string): boolean => sound('nodes', index, field);
      if (nodeSound('templateRefs'))
        this.checkRefs([...at, 'templateRefs'], node.templateRefs, 'template ConfigMap');
      if (node.hostRef && nodeSound('hostRef'))
        this.checkRefs([...at], [node.hostRef], 'host', 'hostRef');
      if (nodeSound('extraAnnotations'))
        checkAnnotationMaps(doc, report, node.extraAnnotations, () => [...at, 'extraAnnotations']);
      if (!nodeSound('hostName')) return;
      if (node.hostName.length > 63 && node.hostName.length <= 253)
        this.issue(
          HOSTNAME_INVALID,
          [...at, 'hostName'],
          `hostName has ${String(node.hostName.length)} characters: the templates write it as a label value, which holds at most 63`,
          'use a host name of at most 63 characters (the InfraEnv of the host is selected by it)',
        );
    });
  }

  /** Names and namespaces of namespaced references (`templateRefs` entries, `hostRef`). */
  private checkRefs(
    at: Path,
    refs: readonly { readonly name: string; readonly namespace: string }[],
    what: string,
    field?: string,
  ): void {
    const { doc, report } = this;
    refs.forEach((ref, k) => {
      const path = field === undefined ? [...at, k] : [...at, field];
      checkObjectName(doc, report, ref.name, what, () => [...path, 'name']);
      checkObjectName(
        doc,
        report,
        ref.namespace,
        `${what} namespace`,
        () => [...path, 'namespace'],
        true,
      );
    });
  }

  /** Label keys and values of every kind, as Kubernetes accepts them. */
  private checkExtraLabels(at: Path, extra: ExtraMetadata | undefined): void {
    if (!this.sound(...at, 'extraLabels')) return;
    for (const [kind, labels] of Object.entries(extra ?? {})) {
      for (const [key, value] of Object.entries(labels)) {
        const path = [...at, 'extraLabels', kind, key];
        const keyProblem = labelKeyProblem(key);
        if (keyProblem)
          reportRule(
            this.report,
            this.doc,
            LABEL_INVALID,
            path,
            `label key ${quote(key)} is invalid: ${keyProblem}`,
            `Kubernetes would reject the ${kind}; rename the label`,
            'key',
          );
        const text = scalarText(labels, key, value);
        const valueProblem = labelValueProblem(text);
        if (valueProblem)
          this.issue(
            LABEL_INVALID,
            path,
            `label value ${quote(text)} of ${quote(key)} is invalid: ${valueProblem}`,
            `Kubernetes would reject the ${kind}; shorten or simplify the value`,
          );
      }
    }
  }

  /** extraLabels and extraAnnotations for a kind that gets no object at that level. */
  private checkExtraMetadataKinds(
    at: Path,
    owner: { readonly extraLabels?: ExtraMetadata; readonly extraAnnotations?: ExtraMetadata },
    kinds: ReadonlySet<string>,
    ignored: (path: Path, message: string, hint: string) => void,
  ): void {
    const level = at.length > 1 ? 'node-level' : 'cluster-level';
    for (const field of ['extraLabels', 'extraAnnotations'] as const) {
      if (!this.sound(...at, field)) continue;
      for (const kind of Object.keys(owner[field] ?? {})) {
        if (kinds.has(kind)) continue;
        ignored(
          [...at, field, kind],
          `${level} ${field}.${kind} is ignored: no ${kind} is rendered at this level`,
          `name one of the kinds rendered here: ${[...kinds].sort().join(', ')}`,
        );
      }
    }
  }

  /**
   * The templates write sshPublicKey inside double quotes, so the operator (and SiteForge, which
   * renders as it does) folds two keys on two lines into one line: hosts then authorize only the
   * first key. An empty line between keys survives as one line break.
   */
  private checkSshPublicKey(): void {
    const key = this.spec.sshPublicKey;
    if (key === undefined || !hasLineBreak(key)) return;
    const keys = (text: string): number =>
      text.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '').length;
    if (keys(renderedInDoubleQuotes(key)) >= keys(key)) return;
    this.issue(
      SSH_KEYS_JOINED,
      ['spec', 'sshPublicKey'],
      `sshPublicKey has ${String(keys(key))} lines, which the SiteConfig operator's templates join into one line: only the first key would be authorized`,
      'put an empty line between the keys (the templates turn it into one line break), or keep a single key',
    );
  }

  /**
   * Fields whose meaning SiteForge does not carry out when it renders the default templates
   * itself: each is warned about at its key, with what happens instead. Everything else in the
   * CRD is rendered (compile.ts) or checked. The operator carries some of them out, so
   * `--format clusterinstance` (renderer `operator`) has no such warning.
   */
  private checkFieldsCarriedOut(): void {
    const ignored = (path: Path, message: string, hint: string): void => {
      reportRule(this.report, this.doc, CLUSTERINSTANCE_FIELD_IGNORED, path, message, hint, 'key');
    };
    const { spec } = this;
    if (spec.reinstall !== undefined)
      ignored(
        ['spec', 'reinstall'],
        'spec.reinstall is ignored: SiteForge renders the objects of the cluster once and never reinstalls it (the SiteConfig operator deletes and re-renders them when reinstall.generation changes)',
        'use --format clusterinstance so that the SiteConfig operator on the hub reinstalls the cluster, or delete the cluster objects on the hub and sync again',
      );
    if (spec.diskEncryption !== undefined)
      ignored(
        ['spec', 'diskEncryption'],
        'spec.diskEncryption is ignored: the default assisted-installer templates do not use it (neither SiteForge nor the operator encrypts disks from it)',
        'encrypt disks with MachineConfigs in a ConfigMap of extraManifestsRefs (siteforge convert writes them from a SiteConfig), then drop diskEncryption',
      );
    if (spec.caBundleRef !== undefined)
      ignored(
        ['spec', 'caBundleRef'],
        'spec.caBundleRef is ignored: the default assisted-installer templates do not use it (only the image-based and hosted-cluster templates do)',
        'add the CA bundle to the install through installConfigOverrides (additionalTrustBundle), or drop caBundleRef',
      );
    this.checkExtraMetadataKinds(['spec'], spec, CLUSTER_LEVEL_KINDS, ignored);
    spec.nodes.forEach((node, index) => {
      this.checkExtraMetadataKinds(['spec', 'nodes', index], node, NodeTemplateKinds, ignored);
    });
    const isDefault = (refs: readonly TemplateRef[], name: string): boolean =>
      refs.length === 1 && refs[0]!.name === name;
    const templates = (path: Path, level: string, name: string): void => {
      ignored(
        path,
        `${level} templateRefs are ignored: they name templates other than ${name}, and SiteForge renders the default assisted-installer templates, not these`,
        'use --format clusterinstance to let the SiteConfig operator render your templates on the hub',
      );
    };
    if (
      this.sound('spec', 'templateRefs') &&
      !isDefault(spec.templateRefs, DefaultTemplates.cluster)
    )
      templates(['spec', 'templateRefs'], 'cluster-level', DefaultTemplates.cluster);
    spec.nodes.forEach((node, index) => {
      if (!this.sound('spec', 'nodes', index, 'templateRefs')) return;
      if (!isDefault(node.templateRefs, DefaultTemplates.node))
        templates(['spec', 'nodes', index, 'templateRefs'], 'node-level', DefaultTemplates.node);
    });
  }
}

/** Label and annotation values as the strings the API server stores. */
function normalizeClusterInstance(ci: ClusterInstance): ClusterInstance {
  const strings = (
    map: Readonly<Record<string, unknown>> | undefined,
  ): Record<string, string> | undefined =>
    map === undefined
      ? undefined
      : Object.fromEntries(Object.entries(map).map(([k, v]) => [k, scalarText(map, k, v)]));
  const perKind = (extra: ExtraMetadata | undefined): ExtraMetadata | undefined =>
    extra === undefined
      ? undefined
      : Object.fromEntries(Object.entries(extra).map(([kind, map]) => [kind, strings(map) ?? {}]));
  const withStrings = <T extends object>(plain: T, source: T, keys: readonly string[]): T => {
    const out = { ...plain } as Record<string, unknown>;
    for (const key of keys) {
      const value = (source as Record<string, unknown>)[key];
      if (value === undefined) continue;
      out[key] =
        key === 'extraLabels' || key === 'extraAnnotations'
          ? perKind(value as ExtraMetadata)
          : strings(value as Record<string, unknown>);
    }
    return out as T;
  };
  const plain = toPlain(ci) as ClusterInstance;
  return {
    ...plain,
    apiVersion: ClusterInstanceApiVersion,
    metadata: withStrings(plain.metadata, ci.metadata, ['labels', 'annotations']),
    spec: {
      ...withStrings(plain.spec, ci.spec, ['extraLabels', 'extraAnnotations']),
      nodes: plain.spec.nodes.map((node, index) =>
        withStrings(node, ci.spec.nodes[index]!, ['nodeLabels', 'extraLabels', 'extraAnnotations']),
      ),
    },
  };
}
