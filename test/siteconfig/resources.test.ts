import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/shared/errors.js';
import { compileSiteConfig, filesFromMap, loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { Manifest, SecretSource } from '../../src/siteconfig/index.js';
import { redactSecret } from '../../src/plugins/render-fleet.js';
import { snoSite } from '../support/sites.js';

const secrets = (dirs: Record<string, Record<string, string>>): SecretSource => ({
  readDirectory: (name) => dirs[name],
});

function load(
  text: string,
  files: Record<string, string> = {},
  secretDirs: Record<string, Record<string, string>> = {},
) {
  return loadSiteConfigs([{ path: 'sites/site.yaml', text }], {
    files: filesFromMap(files),
    secrets: secrets(secretDirs),
  });
}

function compiled(
  text: string,
  files: Record<string, string> = {},
  secretDirs: Record<string, Record<string, string>> = {},
): Manifest[] {
  const { sites, issues } = load(text, files, secretDirs);
  expect(issues.filter((i) => i.severity === 'error').map(formatIssue)).toEqual([]);
  return sites
    .flatMap((s) => compileSiteConfig(s.siteConfig, s.resources))
    .flatMap((c) => c.manifests);
}

function kind(manifests: Manifest[], k: string): (Manifest & Record<string, unknown>)[] {
  return manifests.filter((m) => m.kind === k);
}

const KAC_TEMPLATE = `apiVersion: agent.open-cluster-management.io/v1
kind: KlusterletAddonConfig
metadata:
  name: "{{ .Cluster.ClusterName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "2"
spec:
  clusterName: "{{ .Cluster.ClusterName }}"
  clusterNamespace: "{{ .Cluster.ClusterName }}"
  searchCollector:
    enabled: true
  applicationManager:
    enabled: true
`;

describe('crTemplates', () => {
  it('replaces a cluster object with the rendered template, keeping generated annotations', () => {
    const text = snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: templates/kac.yaml\n',
    });
    const [kac] = kind(
      compiled(text, { 'sites/templates/kac.yaml': KAC_TEMPLATE }),
      'KlusterletAddonConfig',
    );
    expect(kac!['spec']).toEqual({
      clusterName: 'sno1',
      clusterNamespace: 'sno1',
      searchCollector: { enabled: true },
      applicationManager: { enabled: true },
    });
    expect(kac!.metadata.annotations).toMatchObject({
      'argocd.argoproj.io/sync-wave': '2',
      'ran.openshift.io/ztp-gitops-generated': '{}',
    });
  });

  it('looks a kind up on the node, then the cluster, then the site', () => {
    const bmh = (name: string): string =>
      `apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: "{{ .Node.HostName }}"\n  namespace: "{{ .Cluster.ClusterName }}"\n  annotations:\n    argocd.argoproj.io/sync-wave: "3"\nspec:\n  online: false\n  description: ${name}\n  bmc:\n    address: "{{ .Node.BmcAddress }}"\n`;
    const files = {
      'sites/site-bmh.yaml': bmh('site'),
      'sites/cluster-bmh.yaml': bmh('cluster'),
      'sites/node-bmh.yaml': bmh('node'),
    };
    const siteLevel = snoSite().replace(
      '  sshPublicKey',
      '  crTemplates:\n    BareMetalHost: site-bmh.yaml\n  sshPublicKey',
    );
    expect(kind(compiled(siteLevel, files), 'BareMetalHost')[0]!['spec']).toMatchObject({
      description: 'site',
      bmc: { address: 'redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1' },
    });
    const clusterLevel = siteLevel.replace(
      '      machineNetwork:',
      '      crTemplates:\n        BareMetalHost: cluster-bmh.yaml\n      machineNetwork:',
    );
    expect(kind(compiled(clusterLevel, files), 'BareMetalHost')[0]!['spec']).toMatchObject({
      description: 'cluster',
    });
    const nodeLevel = `${clusterLevel}          crTemplates:\n            BareMetalHost: node-bmh.yaml\n`;
    expect(kind(compiled(nodeLevel, files), 'BareMetalHost')[0]!['spec']).toMatchObject({
      description: 'node',
    });
  });

  it('emits an NMStateConfig from a template even for a node without nodeNetwork', () => {
    const nms =
      'apiVersion: agent-install.openshift.io/v1beta1\nkind: NMStateConfig\nmetadata:\n  name: "{{ .Node.HostName }}"\n  namespace: "{{ .Cluster.ClusterName }}"\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n  labels:\n    nmstate-label: "{{ .Cluster.ClusterName }}"\nspec:\n  config: {}\n';
    const text = snoSite({ node: '          crTemplates:\n            NMStateConfig: nms.yaml\n' });
    expect(
      kind(compiled(text, { 'sites/nms.yaml': nms }), 'NMStateConfig').map((m) => m.metadata.name),
    ).toEqual(['sno1-node']);
  });

  it('reports a template whose name differs instead of silently ignoring it', () => {
    const text = snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: kac.yaml\n',
    });
    const { issues, sites } = load(text, {
      'sites/kac.yaml': KAC_TEMPLATE.replace('name: "{{ .Cluster.ClusterName }}"', 'name: other'),
    });
    expect(sites).toEqual([]);
    expect(issues.map(formatIssue)).toEqual([
      'sites/site.yaml:16:32: error TEMPLATE_MISMATCH: crTemplate sites/kac.yaml cannot replace the KlusterletAddonConfig: metadata.name is "other", expected "sno1"\n  hint: a crTemplate keeps the name, namespace and sync wave of the object it replaces; use "{{ .Cluster.ClusterName }}" and "{{ .Node.HostName }}" placeholders',
    ]);
  });

  it('reports a template without the sync-wave annotation instead of crashing', () => {
    const text = snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: kac.yaml\n',
    });
    const { issues } = load(text, {
      'sites/kac.yaml': KAC_TEMPLATE.replace(
        '  annotations:\n    argocd.argoproj.io/sync-wave: "2"\n',
        '',
      ),
    });
    expect(
      issues.map((i) => [i.code, i.message.includes('argocd.argoproj.io/sync-wave: "2"')]),
    ).toEqual([['TEMPLATE_MISMATCH', true]]);
  });

  it('reports a missing file, a file of another kind, bad YAML and a placeholder inside a string', () => {
    const text = snoSite({
      cluster:
        '      crTemplates:\n        KlusterletAddonConfig: missing.yaml\n        ManagedCluster: wrong.yaml\n        InfraEnv: bad.yaml\n        ClusterDeployment: embedded.yaml\n',
    });
    const { issues } = load(text, {
      'sites/wrong.yaml': KAC_TEMPLATE,
      'sites/bad.yaml': 'kind: InfraEnv\nspec: [unclosed\n',
      'sites/embedded.yaml':
        'kind: ClusterDeployment\nmetadata:\n  name: "prefix-{{ .Cluster.ClusterName }}"\n',
    });
    expect(issues.map((i) => [i.code, i.line]).sort()).toEqual([
      ['TEMPLATE_INVALID', 18],
      ['TEMPLATE_NOT_FOUND', 16],
      ['TEMPLATE_PLACEHOLDER', 19],
      ['TEMPLATE_WRONG_KIND', 17],
    ]);
    expect(issues.find((i) => i.code === 'TEMPLATE_INVALID')!.message).toMatch(
      /^sites\/bad\.yaml:\d+:\d+: Flow sequence/,
    );
  });

  it('reports placeholders that name no field', () => {
    const text = snoSite({
      cluster: '      crTemplates:\n        KlusterletAddonConfig: kac.yaml\n',
    });
    const { issues } = load(text, {
      'sites/kac.yaml': KAC_TEMPLATE.replace(
        '"{{ .Cluster.ClusterName }}"\n  namespace',
        '"{{ .Cluster.NoSuchField }}"\n  namespace',
      ),
    });
    expect(issues.map((i) => i.message)).toEqual([
      'sites/kac.yaml at metadata.name: {{ .Cluster.NoSuchField }} names no field of the cluster',
    ]);
  });

  it('merges the extra manifests into a ConfigMap template', () => {
    const cm =
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ .Cluster.ClusterName }}"\n  namespace: "{{ .Cluster.ClusterName }}"\n  annotations:\n    argocd.argoproj.io/sync-wave: "1"\n    extra: yes-please\ndata:\n  mine.yaml: "kind: Thing"\n';
    const text = snoSite({ cluster: '      crTemplates:\n        ConfigMap: cm.yaml\n' });
    const [configMap] = kind(compiled(text, { 'sites/cm.yaml': cm }), 'ConfigMap');
    expect(configMap!['data']).toEqual({ 'mine.yaml': 'kind: Thing' });
    expect(configMap!.metadata.annotations?.['extra']).toBe('yes-please');
  });
});

describe('biosConfigRef', () => {
  it('emits a HostFirmwareSettings from the nearest BIOS file, values as strings', () => {
    const text = snoSite({
      node: '          biosConfigRef:\n            filePath: bios/du.yaml\n',
    }).replace('  sshPublicKey', '  biosConfigRef:\n    filePath: bios/site.yaml\n  sshPublicKey');
    const [hfs] = kind(
      compiled(text, {
        'sites/bios/du.yaml': 'ProcTurboMode: Disabled\nProcCStates: 0\n',
        'sites/bios/site.yaml': 'X: 1\n',
      }),
      'HostFirmwareSettings',
    );
    expect(hfs).toMatchObject({
      apiVersion: 'metal3.io/v1alpha1',
      metadata: {
        name: 'sno1-node',
        namespace: 'sno1',
        annotations: { 'argocd.argoproj.io/sync-wave': '1' },
      },
      spec: { settings: { ProcTurboMode: 'Disabled', ProcCStates: '0' } },
    });
  });

  it('reports a missing or malformed BIOS file at the reference', () => {
    const text = snoSite({
      node: '          biosConfigRef:\n            filePath: bios/none.yaml\n',
    });
    expect(load(text).issues.map((i) => [i.code, i.line, i.column])).toEqual([
      ['BIOS_FILE_NOT_FOUND', 22, 23],
    ]);
    expect(
      load(text.replace('none', 'list'), { 'sites/bios/list.yaml': '- a\n- b\n' }).issues.map(
        (i) => i.code,
      ),
    ).toEqual(['BIOS_FILE_INVALID']);
  });
});

describe('relative paths', () => {
  const text = snoSite({
    cluster: '      crTemplates:\n        KlusterletAddonConfig: sites/kac.yaml\n',
    node: '          biosConfigRef:\n            filePath: sites/du.profile\n',
  });
  const withRoot = (files: Record<string, string>) =>
    loadSiteConfigs([{ path: 'sites/site.yaml', text }], {
      files: filesFromMap(files),
      kustomizationRoot: () => '.',
    });

  it('are read from the kustomization root first, as siteconfig-generator reads them', () => {
    const { sites, issues } = withRoot({
      'sites/kac.yaml': KAC_TEMPLATE,
      'sites/du.profile': 'ProcTurboMode: Disabled\n',
      // The same names below the SiteConfig's folder lose: the root is tried first.
      'sites/sites/kac.yaml': 'not: read\n',
      'sites/sites/du.profile': 'Other: 1\n',
    });
    expect(issues).toEqual([]);
    const manifests = [
      ...compileSiteConfig(sites[0]!.siteConfig, sites[0]!.resources)[0]!.manifests,
    ];
    expect(kind(manifests, 'HostFirmwareSettings')[0]!['spec']).toEqual({
      settings: { ProcTurboMode: 'Disabled' },
    });
    expect(kind(manifests, 'KlusterletAddonConfig')[0]!['spec']).toMatchObject({
      searchCollector: { enabled: true },
    });
  });

  it("are read from the SiteConfig's folder when the root has no such file", () => {
    const { issues } = withRoot({
      'sites/sites/kac.yaml': KAC_TEMPLATE,
      'sites/sites/du.profile': 'ProcTurboMode: Disabled\n',
    });
    expect(issues).toEqual([]);
  });

  it('name both places they were looked for when neither has the file', () => {
    expect(withRoot({ 'sites/kac.yaml': KAC_TEMPLATE }).issues.map((i) => i.message)).toEqual([
      "BIOS settings file sites/du.profile not found: tried sites/du.profile (the kustomization root, as siteconfig-generator resolves it) and sites/sites/du.profile (the SiteConfig's folder)",
    ]);
    // Without a root (the TypeScript API), only the SiteConfig's folder is tried.
    expect(load(text).issues.map((i) => i.message)).toEqual([
      "crTemplate sites/kac.yaml for KlusterletAddonConfig not found: tried sites/sites/kac.yaml (the SiteConfig's folder)",
      "BIOS settings file sites/du.profile not found: tried sites/sites/du.profile (the SiteConfig's folder)",
    ]);
  });
});

describe('siteConfigMap (v2)', () => {
  it('emits the site data ConfigMap in ztp-site at wave 2', () => {
    const text = snoSite({
      apiVersion: 'ran.openshift.io/v2',
      cluster: '      siteConfigMap:\n        data:\n          region: west\n',
    });
    const maps = kind(compiled(text), 'ConfigMap');
    expect(maps.find((m) => m.metadata.name === 'ztp-site-sno1')).toMatchObject({
      metadata: { namespace: 'ztp-site', annotations: { 'argocd.argoproj.io/sync-wave': '2' } },
      data: { region: 'west' },
    });
  });

  it('uses the given name and namespace, and emits nothing without data', () => {
    const named = snoSite({
      apiVersion: 'ran.openshift.io/v2',
      cluster:
        '      siteConfigMap:\n        name: facts\n        namespace: site-data\n        data:\n          a: b\n',
    });
    expect(
      kind(compiled(named), 'ConfigMap').map(
        (m) => `${m.metadata.namespace ?? ''}/${m.metadata.name}`,
      ),
    ).toContain('site-data/facts');
    const empty = snoSite({
      apiVersion: 'ran.openshift.io/v2',
      cluster: '      siteConfigMap:\n        name: facts\n',
    });
    expect(kind(compiled(empty), 'ConfigMap')).toHaveLength(1);
  });
});

describe('credentials without secrets in git', () => {
  const fromDir = (name = 'sno1-bmc') =>
    snoSite({ node: `          bmcCredentials:\n            fromDirectory: ${name}\n` }).replace(
      '          bmcCredentialsName:\n            name: sno1-bmc\n',
      '',
    );

  it('emits the BMC Secret from a directory of the secret source, named as the BareMetalHost expects', () => {
    const manifests = compiled(
      fromDir(),
      {},
      { 'sno1-bmc': { username: 'admin', password: 's3cr3t!' } },
    );
    const [secret] = kind(manifests, 'Secret');
    expect(secret).toMatchObject({
      metadata: { name: 'sno1-node-bmc-secret', namespace: 'sno1' },
      type: 'Opaque',
      data: { username: 'YWRtaW4=', password: 'czNjcjN0IQ==' },
    });
    expect(
      (kind(manifests, 'BareMetalHost')[0]!['spec'] as { bmc: { credentialsName: string } }).bmc
        .credentialsName,
    ).toBe('sno1-node-bmc-secret');
  });

  it('emits an ExternalSecret that materialises username and password from the store', () => {
    const text = snoSite({
      node: '          bmcCredentials:\n            externalSecret:\n              storeRef:\n                name: vault\n              key: edge/sno1/bmc\n',
    });
    const manifests = compiled(text);
    expect(kind(manifests, 'ExternalSecret')[0]).toMatchObject({
      apiVersion: 'external-secrets.io/v1',
      metadata: {
        name: 'sno1-bmc',
        namespace: 'sno1',
        annotations: { 'argocd.argoproj.io/sync-wave': '1' },
      },
      spec: {
        secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' },
        target: { name: 'sno1-bmc', creationPolicy: 'Owner' },
        data: [
          { secretKey: 'username', remoteRef: { key: 'edge/sno1/bmc', property: 'username' } },
          { secretKey: 'password', remoteRef: { key: 'edge/sno1/bmc', property: 'password' } },
        ],
      },
    });
    expect(kind(manifests, 'Secret')).toEqual([]);
  });

  it('emits the ExternalSecret version an older operator serves, when asked', () => {
    const externalSecret = (version: string) =>
      snoSite({
        node: `          bmcCredentials:\n            externalSecret:\n              storeRef:\n                name: vault\n              key: edge/sno1/bmc\n              apiVersion: ${version}\n`,
      });
    const [old] = kind(compiled(externalSecret('external-secrets.io/v1beta1')), 'ExternalSecret');
    expect(old?.apiVersion).toBe('external-secrets.io/v1beta1');
    expect(old?.['spec']).toEqual(
      kind(compiled(externalSecret('external-secrets.io/v1')), 'ExternalSecret')[0]?.['spec'],
    );
    const bad = loadSiteConfigs([
      { path: 'site.yaml', text: externalSecret('external-secrets.io/v1alpha1') },
    ]).issues.filter((i) => i.severity === 'error');
    expect(bad.map((i) => `${String(i.line)} ${i.message} (${i.hint ?? ''})`)).toEqual([
      expect.stringMatching(
        /^26 .*v1alpha1.*externalSecret\.apiVersion.*external-secrets\.io\/v1\b/,
      ),
    ]);
  });

  it('emits the pull secret in every cluster namespace', () => {
    const text = snoSite().replace(
      '  clusterImageSetNameRef',
      '  pullSecret:\n    fromDirectory: pull\n  clusterImageSetNameRef',
    );
    const [secret] = kind(
      compiled(text, {}, { pull: { '.dockerconfigjson': '{"auths":{}}' } }),
      'Secret',
    );
    expect(secret).toMatchObject({
      metadata: { name: 'pull-secret', namespace: 'sno1' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': 'eyJhdXRocyI6e319' },
    });
  });

  it('never puts a credential value into an error message', () => {
    const { issues } = load(fromDir(), {}, { 'sno1-bmc': { username: 'admin-user-value' } });
    expect(issues.map((i) => i.code)).toEqual(['SECRET_KEY_MISSING']);
    expect(JSON.stringify(issues)).not.toContain('admin-user-value');
  });

  it('reports a missing directory and one that leaves the secrets directory', () => {
    expect(load(fromDir()).issues.map((i) => i.code)).toEqual(['SECRET_DIRECTORY_NOT_FOUND']);
    expect(load(fromDir('a/../../etc')).issues.map((i) => i.code)).toEqual([
      'SECRET_DIRECTORY_INVALID',
    ]);
  });

  it('requires exactly one credentials source, and some credentials at all', () => {
    const both = snoSite({
      node: '          bmcCredentials:\n            fromDirectory: x\n            externalSecret:\n              storeRef:\n                name: vault\n              key: k\n',
    });
    expect(load(both).issues.map((i) => i.code)).toEqual(['INVALID_VALUE']);
    const none = snoSite().replace(
      '          bmcCredentialsName:\n            name: sno1-bmc\n',
      '',
    );
    expect(load(none).issues.map((i) => [i.code, i.message])).toEqual([
      ['MISSING_FIELD', '"spec.clusters.0.nodes.0" names no BMC credentials'],
    ]);
  });

  it('redacts Secret values for output people read', () => {
    const [secret] = kind(
      compiled(fromDir(), {}, { 'sno1-bmc': { username: 'admin', password: 'pw' } }),
      'Secret',
    );
    expect(redactSecret(secret!)['data']).toEqual({
      username: '<redacted>',
      password: '<redacted>',
    });
  });
});
