/**
 * SiteConfig → convert → ClusterInstance → compile gives the objects that SiteConfig → compile
 * gives, apart from the differences docs/compatibility.md ("ClusterInstance") documents. Each
 * documented difference is one named normaliser below; everything else must be equal.
 */
import { describe, expect, it } from 'vitest';
import {
  compileClusterInstance,
  compileSiteConfig,
  convertSiteConfigs,
  loadSiteConfigs,
} from '../../src/siteconfig/index.js';
import type { Manifest, SourceFile } from '../../src/siteconfig/index.js';
import { exampleFiles } from '../support/sites.js';

type Loose = Record<string, unknown> & {
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
};

const clone = (objects: readonly Manifest[]): Loose[] =>
  structuredClone(objects) as unknown as Loose[];
const ofKind = (objects: Loose[], kind: string): Loose[] => objects.filter((o) => o.kind === kind);

// ---------------------------------------------------------------------------------------------
// One normaliser per documented difference. `v1` functions take the SiteConfig objects to the
// ClusterInstance form; `ci` functions take the ClusterInstance objects to the v1 form.

/** v1 renders one InfraEnv per cluster; the templates render one per host, named after it. */
function ciOneInfraEnvPerHost(objects: Loose[], clusterName: string): Loose[] {
  const perHost = ofKind(objects, 'InfraEnv');
  const specs = perHost.map((o) => {
    const spec = structuredClone(o.spec!);
    delete spec['nmStateConfigLabelSelector'];
    return JSON.stringify(spec);
  });
  expect(new Set(specs).size, 'per-host InfraEnvs differ beyond their host').toBe(1);
  const one = structuredClone(perHost[0]!);
  one.metadata.name = clusterName;
  one.spec!['nmStateConfigLabelSelector'] = { matchLabels: { 'nmstate-label': clusterName } };
  return [...objects.filter((o) => o.kind !== 'InfraEnv'), one];
}

/** The BareMetalHost's InfraEnv label names its host's InfraEnv instead of the cluster's. */
function ciInfraEnvLabelPerHost(objects: Loose[], clusterName: string): Loose[] {
  for (const bmh of ofKind(objects, 'BareMetalHost'))
    bmh.metadata.labels!['infraenvs.agent-install.openshift.io'] = clusterName;
  return objects;
}

/** NMStateConfigs carry nmstate-label: <hostName> instead of <clusterName>. */
function ciNmstateLabelPerHost(objects: Loose[], clusterName: string): Loose[] {
  for (const nms of ofKind(objects, 'NMStateConfig'))
    nms.metadata.labels!['nmstate-label'] = clusterName;
  return objects;
}

/** The templates always write inspect.metal3.io; v1 writes it only as "disabled". */
function ciInspectAnnotationAlways(objects: Loose[]): Loose[] {
  for (const bmh of ofKind(objects, 'BareMetalHost'))
    if (bmh.metadata.annotations!['inspect.metal3.io'] === '')
      delete bmh.metadata.annotations!['inspect.metal3.io'];
  return objects;
}

/** BareMetalHosts carry the ACM backup label cluster.open-cluster-management.io/backup. */
function ciBackupLabel(objects: Loose[]): Loose[] {
  for (const bmh of ofKind(objects, 'BareMetalHost'))
    delete bmh.metadata.labels!['cluster.open-cluster-management.io/backup'];
  return objects;
}

/** The templates state the architecture: InfraEnv cpuArchitecture, BareMetalHost architecture. */
function ciArchitectureExplicit(objects: Loose[]): Loose[] {
  for (const ie of ofKind(objects, 'InfraEnv')) delete ie.spec!['cpuArchitecture'];
  for (const bmh of ofKind(objects, 'BareMetalHost')) delete bmh.spec!['architecture'];
  return objects;
}

/** The templates always write holdInstallation, arbiterAgents and empty strings v1 leaves out. */
function ciDefaultsExplicit(objects: Loose[]): Loose[] {
  for (const aci of ofKind(objects, 'AgentClusterInstall')) {
    if (aci.spec!['holdInstallation'] === false) delete aci.spec!['holdInstallation'];
    if (aci.spec!['sshPublicKey'] === '') delete aci.spec!['sshPublicKey'];
    const requirements = aci.spec!['provisionRequirements'] as Record<string, unknown>;
    if (requirements['arbiterAgents'] === 0) delete requirements['arbiterAgents'];
    if (Object.keys(aci.spec!['networking'] as object).length === 0) delete aci.spec!['networking'];
  }
  for (const ie of ofKind(objects, 'InfraEnv')) {
    if (ie.spec!['ignitionConfigOverride'] === '') delete ie.spec!['ignitionConfigOverride'];
    if (ie.spec!['sshAuthorizedKey'] === '') delete ie.spec!['sshAuthorizedKey'];
  }
  return objects;
}

/** v1 writes manifestsConfigMapRef (one object); ClusterInstance only the list form. */
function v1ManifestsConfigMapRefs(objects: Loose[]): Loose[] {
  for (const aci of ofKind(objects, 'AgentClusterInstall')) {
    const single = aci.spec!['manifestsConfigMapRef'];
    if (single === undefined) continue;
    delete aci.spec!['manifestsConfigMapRef'];
    aci.spec!['manifestsConfigMapRefs'] = [single];
  }
  return objects;
}

/** The singular apiVIP/ingressVIP become apiVIPs/ingressVIPs (convert warning SINGULAR_VIP). */
function v1PluralVips(objects: Loose[]): Loose[] {
  for (const aci of ofKind(objects, 'AgentClusterInstall')) {
    const { apiVIP, ingressVIP, ...spec } = aci.spec!;
    if (apiVIP !== undefined) spec['apiVIPs'] ??= [apiVIP];
    if (ingressVIP !== undefined) spec['ingressVIPs'] ??= [ingressVIP];
    aci.spec = spec;
  }
  return objects;
}

/**
 * The extra-manifests ConfigMaps (those the AgentClusterInstall refers to) are not rendered by
 * the templates: extraManifestsRefs names them, and --format clusterinstance emits them beside
 * the ClusterInstance (convert warning EXTRA_MANIFESTS_CONFIGMAP).
 */
function v1ExtraManifestsConfigMapsBeside(objects: Loose[], clusterName: string): Loose[] {
  const spec = ofKind(objects, 'AgentClusterInstall')[0]?.spec ?? {};
  const refs = [
    ...((spec['manifestsConfigMapRefs'] ?? []) as { name: string }[]),
    ...(spec['manifestsConfigMapRef'] ? [spec['manifestsConfigMapRef'] as { name: string }] : []),
  ].map((ref) => ref.name);
  return objects.filter(
    (o) =>
      !(
        o.kind === 'ConfigMap' &&
        o.metadata.namespace === clusterName &&
        refs.includes(o.metadata.name)
      ),
  );
}

/** ClusterInstance has no BareMetalHost userData (convert warning USER_DATA). */
function v1UserDataNotCarried(objects: Loose[]): Loose[] {
  for (const bmh of ofKind(objects, 'BareMetalHost')) delete bmh.spec!['userData'];
  return objects;
}

// ---------------------------------------------------------------------------------------------

const V1_NORMALISERS = [
  v1ExtraManifestsConfigMapsBeside,
  v1ManifestsConfigMapRefs,
  v1PluralVips,
  v1UserDataNotCarried,
];
const CI_NORMALISERS = [
  ciOneInfraEnvPerHost,
  ciInfraEnvLabelPerHost,
  ciNmstateLabelPerHost,
  ciInspectAnnotationAlways,
  ciBackupLabel,
  ciArchitectureExplicit,
  ciDefaultsExplicit,
];

/** Objects in a canonical order (kind, namespace, name) with sorted keys, for comparison. */
function canonical(objects: Loose[]): unknown[] {
  const sortKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortKeys)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
          )
        : value;
  const key = (o: Loose): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return [...objects]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map(sortKeys);
}

/** The examples, and the compact one again with the deprecated singular VIPs and with two SSH keys. */
function roundTripInputs(): SourceFile[] {
  const files = exampleFiles();
  const compact = files.find((f) => f.path.endsWith('compact-3node.yaml'))!;
  const singular = compact.text
    .replace('apiVIPs:\n        - 10.20.0.5', 'apiVIP: 10.20.0.5')
    .replace('ingressVIPs:\n        - 10.20.0.6', 'ingressVIP: 10.20.0.6');
  // Two keys on two lines: the operator's templates would join them unless convert keeps them apart.
  const twoKeys = compact.text.replace(
    / {2}sshPublicKey: '([^']*)'\n/,
    (_, key: string) =>
      `  sshPublicKey: |\n    ${key}\n    ssh-rsa AAAAB3NzaC1yc2EFakeSecondKey ops@example.com\n`,
  );
  return [
    ...files,
    { path: 'singular-vips/compact-3node.yaml', text: singular },
    { path: 'two-ssh-keys/compact-3node.yaml', text: twoKeys },
  ];
}

describe('SiteConfig → convert → ClusterInstance → compile', () => {
  for (const file of roundTripInputs()) {
    it(`${file.path} gives the objects of SiteConfig → compile, apart from the documented differences`, () => {
      const { sites, issues } = loadSiteConfigs([file]);
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      const direct = sites.flatMap((s) => compileSiteConfig(s.siteConfig, s.resources));

      const converted = convertSiteConfigs([file]);
      expect(converted.issues.filter((i) => i.severity === 'error')).toEqual([]);
      const reloaded = loadSiteConfigs(
        converted.files.map((f) => ({ path: `converted/${f.name}`, text: f.text })),
      );
      expect(reloaded.issues.filter((i) => i.severity !== 'note')).toEqual([]);
      expect(reloaded.clusterInstances).toHaveLength(direct.length);

      for (const { clusterName, manifests } of direct) {
        const ci = reloaded.clusterInstances.find(
          (c) => c.clusterInstance.spec.clusterName === clusterName,
        )!;
        const fromCi = compileClusterInstance(ci.clusterInstance).manifests;
        const v1 = V1_NORMALISERS.reduce((objects, f) => f(objects, clusterName), clone(manifests));
        const viaCi = CI_NORMALISERS.reduce((objects, f) => f(objects, clusterName), clone(fromCi));
        expect(canonical(viaCi), clusterName).toEqual(canonical(v1));
      }
    });
  }
});
