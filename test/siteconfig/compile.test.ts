import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderFleet, toYamlStream } from '../../src/plugins/render-fleet.js';
import { emitYamlStream } from '../../src/shared/yaml-emit.js';
import {
  compileFleet,
  filesFromMap,
  Keys,
  loadSiteConfigs,
  waveOf,
} from '../../src/siteconfig/index.js';
import type { Manifest } from '../../src/siteconfig/index.js';
import { exampleFiles, loadText, repoRoot, snoSite } from '../support/sites.js';

function compileText(text: string): Manifest[] {
  const { sites, issues } = loadText(text);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  return compileFleet(sites.map((s) => s.siteConfig)).flatMap((c) => c.manifests);
}

function find(
  manifests: Manifest[],
  kind: string,
  name?: string,
): Manifest & { spec: Record<string, unknown> } {
  const found = manifests.find(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
  if (!found) throw new Error(`no ${kind} ${name ?? ''}`);
  return found as Manifest & { spec: Record<string, unknown> };
}

describe('golden output of examples/sites', () => {
  for (const file of exampleFiles()) {
    const name = file.path.split('/').pop()!;
    it(`${name} compiles to the reviewed manifests (npm run golden:update to regenerate)`, () => {
      // The same path as `siteforge generate`, default extra manifests included.
      const { clusters, issues } = renderFleet([file]);
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      const output = toYamlStream(clusters);
      expect(output).toBe(readFileSync(join(repoRoot, 'test', 'golden', name), 'utf8'));
    });
  }
});

describe('determinism', () => {
  it('gives byte-identical output for the same input, whatever the file order', () => {
    const files = exampleFiles();
    const render = (list: typeof files): string =>
      emitYamlStream(
        compileFleet(loadSiteConfigs(list).sites.map((s) => s.siteConfig)).flatMap(
          (c) => c.manifests,
        ),
      );
    const first = render(files);
    expect(render(files)).toBe(first);
    expect(render([...files].reverse())).toBe(first);
  });

  it('orders objects by cluster, then wave, then kind, then name', () => {
    const manifests = compileFleet(
      loadSiteConfigs(exampleFiles()).sites.map((s) => s.siteConfig),
    ).flatMap((c) => c.manifests);
    const cluster = (m: Manifest): string => m.metadata.namespace ?? m.metadata.name;
    const keys = manifests.map((m) => [cluster(m), waveOf(m), m.kind, m.metadata.name] as const);
    const sorted = [...keys].sort((a, b) =>
      a[0] < b[0]
        ? -1
        : a[0] > b[0]
          ? 1
          : a[1] - b[1] ||
            (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0),
    );
    expect(keys).toEqual(sorted);
  });
});

describe('the CR set of a cluster', () => {
  const manifests = compileText(snoSite());

  it('emits the ten kinds of siteconfig-generator, with their sync waves', () => {
    expect(manifests.map((m) => `${String(waveOf(m))} ${m.kind}`)).toEqual([
      '0 Namespace',
      '1 AgentClusterInstall',
      '1 ClusterDeployment',
      '1 ConfigMap',
      '1 InfraEnv',
      '2 KlusterletAddonConfig',
      '2 ManagedCluster',
      '3 BareMetalHost',
    ]);
    for (const m of manifests) expect(m.metadata.annotations?.[Keys.ZtpGenerated]).toBe('{}');
  });

  it('emits no Secret when nodes name an existing BMC credentials Secret', () => {
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
    expect(find(manifests, 'BareMetalHost').spec['bmc']).toEqual({
      address: 'redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1',
      credentialsName: 'sno1-bmc',
      disableCertificateVerification: true,
    });
  });

  it('places the BareMetalHost after the InfraEnv and Namespace so that prune deletes it first', () => {
    const bmh = find(manifests, 'BareMetalHost');
    expect(waveOf(bmh)).toBeGreaterThan(waveOf(find(manifests, 'InfraEnv')));
    expect(waveOf(bmh)).toBeGreaterThan(waveOf(find(manifests, 'Namespace')));
  });

  it('fills the BareMetalHost defaults: UEFI, cleaning disabled, online, BMAC annotations', () => {
    const bmh = find(manifests, 'BareMetalHost');
    expect(bmh.spec).toMatchObject({
      bootMode: 'UEFI',
      automatedCleaningMode: 'disabled',
      online: true,
      bootMACAddress: 'aa:bb:cc:00:00:01',
    });
    expect(bmh.metadata.labels).toEqual({ [Keys.InfraEnvLabel]: 'sno1' });
    expect(bmh.metadata.annotations).toMatchObject({
      [Keys.BmacHostname]: 'sno1-node',
      [Keys.BmacRole]: 'master',
    });
    expect(bmh.metadata.annotations?.[Keys.InspectDisabled]).toBeUndefined();
  });

  it('wires the ClusterDeployment, InfraEnv and AgentClusterInstall together by cluster name', () => {
    expect(find(manifests, 'ClusterDeployment').spec).toMatchObject({
      baseDomain: 'example.com',
      clusterName: 'sno1',
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        kind: 'AgentClusterInstall',
        name: 'sno1',
        version: 'v1beta1',
      },
      platform: { agentBareMetal: { agentSelector: { matchLabels: { 'cluster-name': 'sno1' } } } },
      pullSecretRef: { name: 'pull-secret' },
    });
    expect(find(manifests, 'InfraEnv').spec).toMatchObject({
      clusterRef: { name: 'sno1', namespace: 'sno1' },
      sshAuthorizedKey: 'ssh-ed25519 AAAA',
      pullSecretRef: { name: 'pull-secret' },
      nmStateConfigLabelSelector: { matchLabels: { 'nmstate-label': 'sno1' } },
    });
    expect(find(manifests, 'AgentClusterInstall').spec).toMatchObject({
      clusterDeploymentRef: { name: 'sno1' },
      imageSetRef: { name: 'openshift-4.18' },
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      manifestsConfigMapRef: { name: 'sno1' },
      sshPublicKey: 'ssh-ed25519 AAAA',
    });
  });

  it('labels the ManagedCluster with vendor and cloud auto-detect, and enables only the policy controller', () => {
    expect(find(manifests, 'ManagedCluster').metadata.labels).toEqual({
      vendor: 'auto-detect',
      cloud: 'auto-detect',
    });
    expect(find(manifests, 'ManagedCluster').spec).toEqual({ hubAcceptsClient: true });
    expect(find(manifests, 'KlusterletAddonConfig').spec).toMatchObject({
      policyController: { enabled: true },
      searchCollector: { enabled: false },
    });
  });

  it('omits the NMStateConfig of a node without network settings', () => {
    expect(manifests.some((m) => m.kind === 'NMStateConfig')).toBe(false);
  });
});

describe('field mappings', () => {
  it('defaults networkType to OVNKubernetes in the install-config overrides', () => {
    const aci = find(compileText(snoSite()), 'AgentClusterInstall');
    expect(aci.metadata.annotations?.[Keys.InstallConfigOverrides]).toBe(
      '{"networking":{"networkType":"OVNKubernetes"}}',
    );
  });

  it('merges networkType into a user networking block and appends cpuPartitioningMode', () => {
    const aci = find(
      compileText(
        snoSite({
          cluster: `      networkType: OpenShiftSDN\n      cpuPartitioningMode: AllNodes\n      installConfigOverrides: '{"networking":{"ovnKubernetesConfig":{}},"fips":true}'\n`,
        }),
      ),
      'AgentClusterInstall',
    );
    expect(JSON.parse(aci.metadata.annotations?.[Keys.InstallConfigOverrides] ?? '')).toEqual({
      networking: { ovnKubernetesConfig: {}, networkType: 'OpenShiftSDN' },
      fips: true,
      cpuPartitioningMode: 'AllNodes',
    });
  });

  it('uses the cluster image set over the site one', () => {
    const aci = find(
      compileText(snoSite({ cluster: '      clusterImageSetNameRef: openshift-4.19\n' })),
      'AgentClusterInstall',
    );
    expect(aci.spec['imageSetRef']).toEqual({ name: 'openshift-4.19' });
  });

  it('writes manifestsConfigMapRefs for v2, and adds the aZTP ConfigMap when accelerated-ztp is set', () => {
    const v2 = find(
      compileText(snoSite({ apiVersion: 'ran.openshift.io/v2' })),
      'AgentClusterInstall',
    );
    expect(v2.spec['manifestsConfigMapRefs']).toEqual([{ name: 'sno1' }]);
    const aztp = find(
      compileText(snoSite({ cluster: '      clusterLabels:\n        accelerated-ztp: full\n' })),
      'AgentClusterInstall',
    );
    expect(aztp.spec['manifestsConfigMapRefs']).toEqual([{ name: 'sno1' }, { name: 'sno1-aztp' }]);
    expect(aztp.spec['manifestsConfigMapRef']).toBeUndefined();
  });

  it('copies the proxy to the AgentClusterInstall and the InfraEnv', () => {
    const manifests = compileText(
      snoSite({
        cluster: '      proxy:\n        httpProxy: http://proxy:3128\n        noProxy: .svc\n',
      }),
    );
    expect(find(manifests, 'AgentClusterInstall').spec['proxy']).toEqual({
      httpProxy: 'http://proxy:3128',
      noProxy: '.svc',
    });
    expect(find(manifests, 'InfraEnv').spec['proxy']).toEqual({
      httpProxy: 'http://proxy:3128',
      noProxy: '.svc',
    });
  });

  it('sets holdInstallation only when it is true', () => {
    expect(
      find(
        compileText(snoSite({ cluster: '      holdInstallation: true\n' })),
        'AgentClusterInstall',
      ).spec['holdInstallation'],
    ).toBe(true);
    expect(
      find(
        compileText(snoSite({ cluster: '      holdInstallation: false\n' })),
        'AgentClusterInstall',
      ).spec,
    ).not.toHaveProperty('holdInstallation');
  });

  it('passes NTP sources and the discovery ignition override to the InfraEnv', () => {
    const ie = find(
      compileText(
        snoSite({
          cluster: `      additionalNTPSources:\n        - 10.0.0.1\n      ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'\n`,
        }),
      ),
      'InfraEnv',
    );
    expect(ie.spec).toMatchObject({
      additionalNTPSources: ['10.0.0.1'],
      ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}',
    });
  });

  it('turns node fields into BareMetalHost annotations and spec', () => {
    const bmh = find(
      compileText(
        snoSite({
          node: `          bootMode: legacy\n          automatedCleaningMode: metadata\n          ironicInspect: disabled\n          installerArgs: '["--append-karg","ip=dhcp"]'\n          ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}'\n          nodeLabels:\n            node-role.kubernetes.io/infra: ""\n          rootDeviceHints:\n            wwn: 0x5000c500a0b1c2d3\n            rotational: false\n          userData:\n            name: ud\n`,
        }),
      ),
      'BareMetalHost',
    );
    expect(bmh.metadata.annotations).toMatchObject({
      [Keys.InspectDisabled]: 'disabled',
      [Keys.BmacInstallerArgs]: '["--append-karg","ip=dhcp"]',
      [Keys.BmacIgnitionOverrides]: '{"ignition":{"version":"3.2.0"}}',
      [`${Keys.BmacNodeLabelPrefix}node-role.kubernetes.io/infra`]: '',
    });
    expect(bmh.spec).toMatchObject({
      bootMode: 'legacy',
      automatedCleaningMode: 'metadata',
      rootDeviceHints: { wwn: '0x5000c500a0b1c2d3', rotational: false },
      userData: { name: 'ud' },
    });
  });

  it('stringifies cluster labels as their source text', () => {
    const mc = find(
      compileText(
        snoSite({
          cluster:
            '      clusterLabels:\n        common: true\n        version: 1.10\n        empty: ""\n        vendor: OpenShift\n',
        }),
      ),
      'ManagedCluster',
    );
    expect(mc.metadata.labels).toEqual({
      common: 'true',
      version: '1.10',
      empty: '',
      vendor: 'OpenShift',
      cloud: 'auto-detect',
    });
  });

  it('emits an NMStateConfig with the node network, labelled for the InfraEnv selector', () => {
    const nms = find(
      compileText(
        snoSite({
          node: '          nodeNetwork:\n            interfaces:\n              - name: eno1\n                macAddress: "aa:bb:cc:00:00:01"\n            config:\n              interfaces:\n                - name: eno1\n                  type: ethernet\n',
        }),
      ),
      'NMStateConfig',
    );
    expect(nms.metadata).toMatchObject({
      name: 'sno1-node',
      namespace: 'sno1',
      labels: { 'nmstate-label': 'sno1' },
    });
    expect(nms.spec).toEqual({
      config: { interfaces: [{ name: 'eno1', type: 'ethernet' }] },
      interfaces: [{ name: 'eno1', macAddress: 'aa:bb:cc:00:00:01' }],
    });
  });

  it('keeps the singular VIP form the cluster was installed with', () => {
    const text = snoSite({ name: 'c3' })
      .replace(
        '      machineNetwork:',
        '      apiVIP: 10.0.0.5\n      ingressVIP: 10.0.0.6\n      machineNetwork:',
      )
      .replace(
        / {6}nodes:\n[\s\S]*$/,
        `      nodes:\n${[1, 2, 3].map((i) => `        - hostName: m${String(i)}\n          bmcAddress: redfish-virtualmedia://10.0.1.${String(i)}/redfish/v1/Systems/1\n          bmcCredentialsName:\n            name: m${String(i)}-bmc\n          bootMACAddress: "aa:bb:cc:00:01:0${String(i)}"\n`).join('')}`,
      );
    const aci = find(compileText(text), 'AgentClusterInstall');
    expect(aci.spec).toMatchObject({
      apiVIP: '10.0.0.5',
      ingressVIP: '10.0.0.6',
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 0 },
    });
    expect(aci.spec).not.toHaveProperty('apiVIPs');
  });

  it('keeps workerAgents at 0 when workers are added to a single-node cluster', () => {
    const text = snoSite({
      node: `        - hostName: worker-1\n          role: worker\n          bmcAddress: redfish-virtualmedia://10.0.1.2/redfish/v1/Systems/1\n          bmcCredentialsName:\n            name: w-bmc\n          bootMACAddress: "aa:bb:cc:00:00:02"\n`,
    });
    const manifests = compileText(text);
    expect(find(manifests, 'AgentClusterInstall').spec['provisionRequirements']).toEqual({
      controlPlaneAgents: 1,
      workerAgents: 0,
    });
    expect(find(manifests, 'BareMetalHost', 'worker-1').metadata.annotations?.[Keys.BmacRole]).toBe(
      'worker',
    );
  });
});

describe('crAnnotations and crSuppression', () => {
  it('adds annotations from the nearest level that names the kind, never overriding generated ones', () => {
    const text = snoSite({
      cluster: `      crAnnotations:\n        add:\n          BareMetalHost:\n            from: cluster\n          InfraEnv:\n            from: cluster\n            argocd.argoproj.io/sync-wave: "9"\n`,
      node: `          crAnnotations:\n            add:\n              BareMetalHost:\n                from: node\n`,
    }).replace(
      '  sshPublicKey',
      '  crAnnotations:\n    add:\n      ManagedCluster:\n        from: site\n      InfraEnv:\n        from: site\n  sshPublicKey',
    );
    const manifests = compileText(text);
    expect(find(manifests, 'BareMetalHost').metadata.annotations?.['from']).toBe('node');
    expect(find(manifests, 'InfraEnv').metadata.annotations?.['from']).toBe('cluster');
    expect(find(manifests, 'InfraEnv').metadata.annotations?.[Keys.SyncWave]).toBe('1');
    expect(find(manifests, 'ManagedCluster').metadata.annotations?.['from']).toBe('site');
  });

  it('suppresses cluster kinds with the cluster list and node kinds with the node list', () => {
    const manifests = compileText(
      snoSite({
        cluster: '      crSuppression:\n        - KlusterletAddonConfig\n',
        node: '          crSuppression:\n            - BareMetalHost\n',
      }),
    );
    expect(manifests.map((m) => m.kind)).not.toContain('KlusterletAddonConfig');
    expect(manifests.map((m) => m.kind)).not.toContain('BareMetalHost');
    expect(manifests.map((m) => m.kind)).toContain('InfraEnv');
  });
});

describe("siteconfig-generator's deprecation annotations", () => {
  // Word for word what siteconfig-generator writes, on the same objects: a hub that moves from
  // it must not see Argo CD rewrite live objects. SiteForge's own advice goes to stderr.
  const CPUSET_WARNING =
    'cpuset will be deprecated after OCP 4.15, please use cpuPartitioningMode for OCP versions >= 4.14';
  const EXTRA_MANIFEST_PATH_WARNING =
    'extraManifestPath will be deprecated after OCP 4.15, please use ExtraManifests.SearchPaths for OCP versions >= 4.14';

  /** Rendered as `siteforge generate` does, with one user manifest in `mine/`. */
  function render(text: string) {
    const { clusters, issues } = renderFleet([{ path: 'site.yaml', text }], {
      withObjects: true,
      files: filesFromMap({
        'mine/user.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mine\n',
      }),
    });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    const objects = clusters.flatMap((c) => c.objects ?? []).map((o) => o.manifest);
    const annotated = (key: string): string[] =>
      objects
        .filter((m) => m.metadata.annotations?.[key] !== undefined)
        .map((m) => `${m.kind}/${m.metadata.name}: ${String(m.metadata.annotations?.[key])}`);
    return { issues, annotated };
  }

  it('writes the cpuset warning on the AgentClusterInstall only, and our advice on stderr', () => {
    const { issues, annotated } = render(snoSite({ node: '          cpuset: "0-1"\n' }));
    expect(annotated(Keys.CpusetDeprecation)).toEqual([
      `AgentClusterInstall/sno1: ${CPUSET_WARNING}`,
    ]);
    expect(issues.map((i) => `${i.severity} ${i.message}`)).toContainEqual(
      expect.stringMatching(/^warning cpuset is deprecated since OpenShift 4\.15/),
    );
  });

  it('writes the extraManifestPath warning on every ConfigMap of the cluster, the v2 site ConfigMap included', () => {
    const { annotated } = render(
      snoSite({
        apiVersion: 'ran.openshift.io/v2',
        cluster:
          '      extraManifestPath: mine\n      siteConfigMap:\n        data:\n          key: value\n',
      }),
    );
    expect(annotated(Keys.ExtraManifestPathDeprecation)).toEqual([
      `ConfigMap/sno1: ${EXTRA_MANIFEST_PATH_WARNING}`,
      `ConfigMap/ztp-site-sno1: ${EXTRA_MANIFEST_PATH_WARNING}`,
    ]);
  });

  it('writes neither when the fields are not used', () => {
    const { annotated } = render(snoSite({ apiVersion: 'ran.openshift.io/v2' }));
    expect(annotated(Keys.CpusetDeprecation)).toEqual([]);
    expect(annotated(Keys.ExtraManifestPathDeprecation)).toEqual([]);
  });
});

describe('removing a host in one edit', () => {
  const workerNode = (extra: string): string =>
    `        - hostName: worker-1\n          role: worker\n          bmcAddress: redfish-virtualmedia://10.0.1.2/redfish/v1/Systems/1\n          bmcCredentialsName:\n            name: w-bmc\n          bootMACAddress: "aa:bb:cc:00:00:02"\n${extra}`;

  it('applies the BareMetalHost once more with the removal annotation, as a PostSync hook that deletes it', () => {
    const bmh = find(
      compileText(snoSite({ node: workerNode('          remove: true\n') })),
      'BareMetalHost',
      'worker-1',
    );
    expect(bmh.metadata.annotations).toMatchObject({
      [Keys.RemoveAgentOnDelete]: 'true',
      'argocd.argoproj.io/hook': 'PostSync',
      'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded',
    });
  });

  it('refuses to remove the only control-plane node', () => {
    const { issues } = loadText(snoSite({ node: '          remove: true\n' }));
    expect(issues.map((i) => i.code)).toEqual(['REMOVE_SNO_CONTROL_PLANE']);
  });
});
