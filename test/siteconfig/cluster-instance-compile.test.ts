/**
 * ClusterInstance in, the objects of the default assisted-installer templates out (format crs);
 * ClusterInstances out for hubs that run the SiteConfig operator (format clusterinstance).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderFleet, toYamlStream } from '../../src/plugins/render-fleet.js';
import {
  compileClusterInstance,
  filesFromMap,
  Keys,
  loadSiteConfigs,
  renderClusterInstances,
  waveOf,
} from '../../src/siteconfig/index.js';
import type { ClusterInstance, Manifest, SourceFile } from '../../src/siteconfig/index.js';
import {
  clusterInstanceExampleFiles,
  clusterInstanceNode,
  snoClusterInstance,
} from '../support/cluster-instances.js';
import { exampleFiles, repoRoot, snoSite } from '../support/sites.js';

type Loose = Manifest & { spec: Record<string, unknown> };

function load(text: string): ClusterInstance {
  const { clusterInstances, issues } = loadSiteConfigs([{ path: 'ci.yaml', text }]);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  return clusterInstances[0]!.clusterInstance;
}

function compile(text: string): Loose[] {
  return compileClusterInstance(load(text)).manifests as Loose[];
}

function find(manifests: Loose[], kind: string, name?: string): Loose {
  const found = manifests.find(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
  if (!found) throw new Error(`no ${kind} ${name ?? ''}`);
  return found;
}

function golden(name: string): string {
  return readFileSync(join(repoRoot, 'test', 'golden', name), 'utf8');
}

describe('golden output, both formats (npm run golden:update to regenerate)', () => {
  const basename = (file: SourceFile): string =>
    file.path
      .split('/')
      .pop()!
      .replace(/\.yaml$/, '');
  for (const file of clusterInstanceExampleFiles()) {
    it(`${file.path} renders the default templates' objects (crs)`, () => {
      const { clusters, issues } = renderFleet([file]);
      expect(issues.filter((i) => i.severity !== 'note')).toEqual([]);
      expect(toYamlStream(clusters)).toBe(golden(`${basename(file)}.yaml`));
    });
  }
  for (const file of [...exampleFiles(), ...clusterInstanceExampleFiles()]) {
    it(`${file.path} renders as ClusterInstances (clusterinstance)`, () => {
      const { clusters, issues } = renderFleet([file], { format: 'clusterinstance' });
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(toYamlStream(clusters)).toBe(golden(`${basename(file)}.clusterinstance.yaml`));
    });
  }
});

describe('the CR set of the default assisted-installer templates', () => {
  const compact = snoClusterInstance({
    cluster: '  apiVIPs:\n    - 10.16.0.5\n  ingressVIPs:\n    - 10.16.0.6\n',
  })
    .replace('clusterType: SNO', 'clusterType: HighlyAvailable')
    .concat(clusterInstanceNode(1, 'master'), clusterInstanceNode(2, 'master'));
  const manifests = compile(compact);

  it('emits the Namespace and the template kinds in the templates’ waves', () => {
    expect(manifests.map((m) => `${String(waveOf(m))} ${m.kind} ${m.metadata.name}`)).toEqual([
      '0 Namespace ci-1',
      '1 AgentClusterInstall ci-1',
      '1 ClusterDeployment ci-1',
      '1 InfraEnv ci-1-m0',
      '1 InfraEnv ci-1-m1',
      '1 InfraEnv ci-1-m2',
      '1 NMStateConfig ci-1-m0',
      '2 KlusterletAddonConfig ci-1',
      '2 ManagedCluster ci-1',
      '3 BareMetalHost ci-1-m0',
      '3 BareMetalHost ci-1-m1',
      '3 BareMetalHost ci-1-m2',
    ]);
    for (const m of manifests) expect(m.metadata.annotations?.[Keys.ZtpGenerated]).toBe('{}');
  });

  it('gives every host its own InfraEnv, selecting its own NMStateConfig', () => {
    expect(find(manifests, 'InfraEnv', 'ci-1-m0').spec).toEqual({
      clusterRef: { name: 'ci-1', namespace: 'ci-1' },
      cpuArchitecture: 'x86_64',
      ignitionConfigOverride: '',
      nmStateConfigLabelSelector: { matchLabels: { 'nmstate-label': 'ci-1-m0' } },
      pullSecretRef: { name: 'pull-secret' },
      sshAuthorizedKey: 'ssh-ed25519 AAAA',
    });
    expect(find(manifests, 'NMStateConfig').metadata.labels).toEqual({
      'nmstate-label': 'ci-1-m0',
    });
  });

  it('writes the BareMetalHost of the template: inspect annotation, backup label, architecture', () => {
    const bmh = find(manifests, 'BareMetalHost', 'ci-1-m1');
    expect(bmh.metadata.labels).toEqual({
      'infraenvs.agent-install.openshift.io': 'ci-1-m1',
      'cluster.open-cluster-management.io/backup': 'cluster-activation',
    });
    expect(bmh.metadata.annotations).toMatchObject({
      'inspect.metal3.io': '',
      'bmac.agent-install.openshift.io/hostname': 'ci-1-m1',
      'bmac.agent-install.openshift.io/role': 'master',
    });
    expect(bmh.spec).toEqual({
      architecture: 'x86_64',
      automatedCleaningMode: 'disabled',
      bmc: {
        address: 'redfish-virtualmedia+https://10.16.1.21/redfish/v1/Systems/1',
        credentialsName: 'ci-1-m1-bmc',
        disableCertificateVerification: true,
      },
      bootMACAddress: '0C:42:A1:00:01:10',
      bootMode: 'UEFI',
      online: true,
    });
  });

  it('writes the AgentClusterInstall with plural VIPs, explicit defaults and flattened serviceNetwork', () => {
    expect(find(manifests, 'AgentClusterInstall').spec).toEqual({
      clusterDeploymentRef: { name: 'ci-1' },
      holdInstallation: false,
      imageSetRef: { name: 'openshift-4.19.3' },
      apiVIPs: ['10.16.0.5'],
      ingressVIPs: ['10.16.0.6'],
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        machineNetwork: [{ cidr: '10.16.0.0/24' }],
        serviceNetwork: ['172.30.0.0/16'],
      },
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 0, arbiterAgents: 0 },
      sshPublicKey: 'ssh-ed25519 AAAA',
    });
    expect(
      find(manifests, 'AgentClusterInstall').metadata.annotations?.[Keys.InstallConfigOverrides],
    ).toBe('{"networking":{"networkType":"OVNKubernetes"}}');
  });

  it('keeps workerAgents at 0 for SNO, counts arbiters, and refers to extraManifestsRefs', () => {
    const sno = compile(
      snoClusterInstance({
        cluster:
          '  extraManifestsRefs:\n    - name: cm-a\n    - name: cm-b\n  platformType: None\n',
      }).concat(clusterInstanceNode(1, 'worker')),
    );
    expect(find(sno, 'AgentClusterInstall').spec).toMatchObject({
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0, arbiterAgents: 0 },
      manifestsConfigMapRefs: [{ name: 'cm-a' }, { name: 'cm-b' }],
      platformType: 'None',
    });
    const arbiter = compile(
      compact
        .replace('clusterType: HighlyAvailable', 'clusterType: HighlyAvailableArbiter')
        .replace(
          'role: master\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
          'role: arbiter\n      bmcAddress: redfish-virtualmedia+https://10.16.1.22',
        ),
    );
    expect(find(arbiter, 'AgentClusterInstall').spec['provisionRequirements']).toEqual({
      controlPlaneAgents: 2,
      workerAgents: 0,
      arbiterAgents: 1,
    });
    expect(find(arbiter, 'BareMetalHost', 'ci-1-m2').metadata.annotations).toMatchObject({
      'bmac.agent-install.openshift.io/role': 'arbiter',
    });
  });

  it('adds extraLabels and extraAnnotations without overwriting the template, node entries first', () => {
    const text = snoClusterInstance({
      cluster:
        '  extraLabels:\n    ManagedCluster:\n      vendor: OpenShift\n      sites: ci-1\n' +
        '  extraAnnotations:\n    BareMetalHost:\n      from: cluster\n    InfraEnv:\n      from: cluster\n',
      node: '      extraAnnotations:\n        BareMetalHost:\n          from: node\n          inspect.metal3.io: disabled\n',
    });
    const objects = compile(text);
    expect(find(objects, 'ManagedCluster').metadata.labels).toEqual({
      cloud: 'auto-detect',
      vendor: 'auto-detect',
      sites: 'ci-1',
    });
    expect(find(objects, 'BareMetalHost').metadata.annotations).toMatchObject({
      from: 'node',
      'inspect.metal3.io': '',
    });
    expect(find(objects, 'InfraEnv').metadata.annotations).toMatchObject({ from: 'cluster' });
  });

  it('leaves out suppressed and pruned kinds, at cluster and node level', () => {
    const objects = compile(
      snoClusterInstance({
        cluster:
          '  suppressedManifests:\n    - KlusterletAddonConfig\n' +
          '  pruneManifests:\n    - apiVersion: cluster.open-cluster-management.io/v1\n      kind: ManagedCluster\n',
        node: '      suppressedManifests:\n        - NMStateConfig\n',
      }),
    );
    expect(objects.map((m) => m.kind)).not.toContain('KlusterletAddonConfig');
    expect(objects.map((m) => m.kind)).not.toContain('ManagedCluster');
    expect(objects.map((m) => m.kind)).not.toContain('NMStateConfig');
    expect(objects.map((m) => m.kind)).toContain('BareMetalHost');
  });

  it('puts node objects where hostRef says, and takes the node architecture over the cluster’s', () => {
    const objects = compile(
      snoClusterInstance({
        cluster: '  cpuArchitecture: multi\n',
        node: '      hostRef:\n        name: bmh-7\n        namespace: hardware\n      cpuArchitecture: aarch64\n',
      }),
    );
    for (const kind of ['InfraEnv', 'NMStateConfig', 'BareMetalHost'])
      expect(find(objects, kind).metadata).toMatchObject({ name: 'bmh-7', namespace: 'hardware' });
    expect(find(objects, 'InfraEnv').spec['cpuArchitecture']).toBe('aarch64');
    expect(find(objects, 'BareMetalHost').metadata.labels).toMatchObject({
      'infraenvs.agent-install.openshift.io': 'bmh-7',
    });
    const multi = compile(snoClusterInstance({ cluster: '  cpuArchitecture: multi\n' }));
    expect(find(multi, 'InfraEnv').spec['cpuArchitecture']).toBeUndefined();
    expect(find(multi, 'BareMetalHost').spec['architecture']).toBeUndefined();
  });

  it('emits no NMStateConfig for a node without network settings', () => {
    const text = snoClusterInstance().replace(
      / {6}nodeNetwork:[\s\S]*$/,
      '      nodeNetwork: {}\n',
    );
    expect(compile(text).map((m) => m.kind)).not.toContain('NMStateConfig');
  });
});

describe('sshPublicKey, which the templates write inside double quotes', () => {
  const withKey = (block: string): string =>
    snoClusterInstance().replace(
      '  sshPublicKey: ssh-ed25519 AAAA\n',
      `  sshPublicKey: |\n${block}`,
    );
  const keys = (manifests: Loose[]): unknown[] => [
    find(manifests, 'AgentClusterInstall').spec['sshPublicKey'],
    find(manifests, 'InfraEnv').spec['sshAuthorizedKey'],
  ];

  it('joins two keys on two lines into one line, as the SiteConfig operator renders them', () => {
    const manifests = compile(withKey('    ssh-ed25519 AAAA a@x\n    ssh-rsa BBBB b@x\n'));
    // Each line break folds into a space, the final one too (gopkg.in/yaml.v3 gives the same).
    expect(keys(manifests)).toEqual([
      'ssh-ed25519 AAAA a@x ssh-rsa BBBB b@x ',
      'ssh-ed25519 AAAA a@x ssh-rsa BBBB b@x ',
    ]);
  });

  it('keeps keys apart that an empty line separates', () => {
    const manifests = compile(withKey('    ssh-ed25519 AAAA a@x\n\n    ssh-rsa BBBB b@x\n'));
    expect(keys(manifests)).toEqual([
      'ssh-ed25519 AAAA a@x\nssh-rsa BBBB b@x ',
      'ssh-ed25519 AAAA a@x\nssh-rsa BBBB b@x ',
    ]);
  });
});

describe('--format clusterinstance', () => {
  it('passes a ClusterInstance through with its Namespace, in the wave after what it refers to', () => {
    const text = snoClusterInstance().replace('  namespace: ci-1\n', '');
    const { clusters } = renderFleet([{ path: 'ci.yaml', text }], { format: 'clusterinstance' });
    const docs = clusters[0]!.documents.map((d) => d.yaml);
    expect(docs).toHaveLength(2);
    expect(docs[0]).toContain('kind: Namespace');
    expect(docs[1]).toMatch(
      /argocd\.argoproj\.io\/sync-wave: '2'\n {2}name: ci-1\n {2}namespace: ci-1\n/,
    );
  });

  it('emits what the templates do not render beside the ClusterInstance: credentials, BIOS, site ConfigMap', () => {
    const text = snoSite({
      apiVersion: 'ran.openshift.io/v2',
      cluster:
        '      siteConfigMap:\n        data:\n          key: value\n' +
        '      crTemplates:\n        KlusterletAddonConfig: kac.yaml\n',
      node:
        '          biosConfigRef:\n            filePath: bios.yaml\n' +
        '          bmcCredentials:\n            externalSecret:\n              storeRef:\n                name: vault\n              key: bmc/sno1\n' +
        '          userData:\n            name: x\n',
    }).replace('          bmcCredentialsName:\n            name: sno1-bmc\n', '');
    const files = filesFromMap({
      'bios.yaml': 'ProcTurboMode: Disabled\n',
      'kac.yaml': `apiVersion: agent.open-cluster-management.io/v1
kind: KlusterletAddonConfig
metadata:
  name: "{{ .Cluster.ClusterName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "2"
spec: {}
`,
    });
    const { sites, issues } = loadSiteConfigs([{ path: 'site.yaml', text }], { files });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    const rendered = renderClusterInstances(sites[0]!.siteConfig, sites[0]!.resources, {
      templateNamespace: 'rhacm',
    });
    const objects = rendered.clusters[0]!.manifests;
    expect(objects.map((m) => `${String(waveOf(m))} ${m.kind} ${m.metadata.name}`)).toEqual([
      '0 Namespace sno1',
      '1 ConfigMap sno1',
      '1 ExternalSecret sno1-node-bmc-secret',
      '1 HostFirmwareSettings sno1-node',
      '2 ClusterInstance sno1',
      '2 ConfigMap ztp-site-sno1',
    ]);
    const ci = objects.find((m) => m.kind === 'ClusterInstance') as unknown as ClusterInstance;
    expect(ci.spec.templateRefs).toEqual([{ name: 'ai-cluster-templates-v1', namespace: 'rhacm' }]);
    expect(ci.spec.nodes[0]!.bmcCredentialsName).toEqual({ name: 'sno1-node-bmc-secret' });
    expect(ci.spec.extraManifestsRefs).toEqual([{ name: 'sno1' }]);
    // What the rendered objects lose is reported; what is emitted beside them is not.
    expect(rendered.warnings.map((w) => w.code).sort()).toEqual(['CR_TEMPLATES', 'USER_DATA']);
  });

  it('writes a SiteConfig’s two keys so that the operator renders each on its own line', () => {
    const text = snoSite().replace(
      '  sshPublicKey: ssh-ed25519 AAAA\n',
      '  sshPublicKey: |\n    ssh-ed25519 AAAA a@x\n    ssh-rsa BBBB b@x\n',
    );
    const direct = renderFleet([{ path: 'site.yaml', text }], { withObjects: true });
    const aci = direct.clusters[0]!.objects!.find((o) => o.manifest.kind === 'AgentClusterInstall');
    expect(aci!.manifest['spec']).toMatchObject({
      sshPublicKey: 'ssh-ed25519 AAAA a@x\nssh-rsa BBBB b@x\n',
    });
    const { clusters } = renderFleet([{ path: 'site.yaml', text }], { format: 'clusterinstance' });
    const ci = clusters[0]!.documents.find((d) => d.yaml.includes('kind: ClusterInstance'))!;
    const reloaded = loadSiteConfigs([{ path: 'ci.yaml', text: ci.yaml }]);
    expect(reloaded.issues.filter((i) => i.severity !== 'note')).toEqual([]);
    // An empty line after each key, which the templates fold into one line break.
    expect(reloaded.clusterInstances[0]!.clusterInstance.spec.sshPublicKey).toBe(
      'ssh-ed25519 AAAA a@x\n\nssh-rsa BBBB b@x\n\n',
    );
    const viaOperator = compileClusterInstance(reloaded.clusterInstances[0]!.clusterInstance);
    expect(find(viaOperator.manifests as Loose[], 'AgentClusterInstall').spec).toMatchObject({
      sshPublicKey: 'ssh-ed25519 AAAA a@x\nssh-rsa BBBB b@x\n',
    });
  });

  it('reports what the ClusterInstances lose as positioned warnings', () => {
    const text = snoSite({ node: '          userData:\n            name: x\n' });
    const { issues } = renderFleet([{ path: 'site.yaml', text }], { format: 'clusterinstance' });
    expect(issues).toMatchObject([
      {
        severity: 'warning',
        code: 'CONVERT_USER_DATA',
        file: 'site.yaml',
        line: text.split('\n').findIndex((l) => l.includes('userData:')) + 1,
        column: 11,
        message: 'userData cannot be carried over: ClusterInstance has no BareMetalHost userData',
        hint: 'add userData with a custom BareMetalHost node template',
      },
    ]);
  });
});
