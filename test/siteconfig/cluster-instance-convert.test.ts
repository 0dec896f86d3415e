/**
 * SiteConfig text → ClusterInstance text: the same data `--format clusterinstance` renders, the
 * comments of every field that maps 1:1, and a positioned warning, with reason and replacement,
 * for every field that cannot be carried over.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  clusterInstancesFor,
  convertSiteConfigs,
  filesFromMap,
  loadSiteConfigs,
} from '../../src/siteconfig/index.js';
import type { ClusterInstance, SourceFile } from '../../src/siteconfig/index.js';
import { exampleFiles, snoSite } from '../support/sites.js';

const commented = `# Site east: one DU per rack.
# Owner: ran-team
apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-east
spec:
  # the corporate domain
  baseDomain: edge.example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.18
  clusters:
    - clusterName: east-1 # rack r12
      machineNetwork:
        - cidr: 10.0.0.0/24
      serviceNetwork:
        # services, as in every site
        - 172.30.0.0/16
      clusterLabels:
        # selects the DU policies
        common: true
        du-profile: '4.18'
      nodes:
        # the only host
        - hostName: east-1-node
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: east-1-bmc
          bootMACAddress: 'AA:BB:CC:00:00:01' # port 1
          userData:
            name: will-be-dropped # this comment goes with its field
`;

function convertText(
  text: string,
  path = 'sites/east.yaml',
): ReturnType<typeof convertSiteConfigs> {
  return convertSiteConfigs([{ path, text }]);
}

describe('siteforge convert, the library', () => {
  it('writes the ClusterInstance that --format clusterinstance renders', () => {
    for (const file of exampleFiles()) {
      const { sites } = loadSiteConfigs([file]);
      const expected = sites.flatMap((s) => clusterInstancesFor(s.siteConfig, {}, s.resources));
      const { files, issues } = convertSiteConfigs([file]);
      expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(files.map((f) => parse(f.text) as ClusterInstance)).toEqual(
        [...expected].sort((a, b) => (a.spec.clusterName < b.spec.clusterName ? -1 : 1)),
      );
      expect(files.map((f) => f.name)).toEqual(
        expected.map((ci) => `${ci.spec.clusterName}.yaml`).sort(),
      );
    }
  });

  it('writes two SSH keys with an empty line after each, so that the operator keeps both, and says why', () => {
    const text = snoSite().replace(
      '  sshPublicKey: ssh-ed25519 AAAA\n',
      '  sshPublicKey: |\n    ssh-ed25519 AAAA a@x\n    ssh-rsa BBBB b@x\n',
    );
    const [file] = convertText(text).files;
    expect(file?.text).toContain(
      "  # An empty line after each key: the operator's templates fold a single line break into a space.\n" +
        '  sshPublicKey: |+\n    ssh-ed25519 AAAA a@x\n\n    ssh-rsa BBBB b@x\n\n',
    );
  });

  it('keeps the comments and the quoting of fields that map 1:1', () => {
    const { files } = convertText(commented);
    const text = files[0]!.text;
    expect(text).toMatch(
      /^# ClusterInstance east-1, converted by siteforge convert from sites\/east\.yaml\n/,
    );
    expect(text).toContain('# Site east: one DU per rack.\n# Owner: ran-team\n');
    expect(text).toContain('  # the corporate domain\n  baseDomain: edge.example.com\n');
    expect(text).toContain('  clusterName: east-1 # rack r12\n');
    expect(text).toContain('    # services, as in every site\n    - cidr: 172.30.0.0/16\n');
    expect(text).toContain(
      '      # selects the DU policies\n      common: "true"\n      du-profile: \'4.18\'\n',
    );
    expect(text).toContain("      bootMACAddress: 'AA:BB:CC:00:00:01' # port 1\n");
    expect(text).toContain('    # the only host\n    - hostName: east-1-node\n');
    expect(text).not.toContain('will-be-dropped');
    expect(text).not.toContain('this comment goes with its field');
  });

  it('writes files that load as valid ClusterInstances', () => {
    const { files } = convertSiteConfigs(exampleFiles());
    const { clusterInstances, issues } = loadSiteConfigs(
      files.map((f) => ({ path: f.name, text: f.text })),
    );
    expect(issues.filter((i) => i.severity !== 'note')).toEqual([]);
    expect(clusterInstances).toHaveLength(6);
  });

  it('names the operator namespace given for the template references', () => {
    const { files } = convertSiteConfigs(exampleFiles().slice(0, 1), {
      templateNamespace: 'siteconfig-operator',
    });
    const ci = parse(files[0]!.text) as ClusterInstance;
    expect(ci.spec.templateRefs).toEqual([
      { name: 'ai-cluster-templates-v1', namespace: 'siteconfig-operator' },
    ]);
    expect(ci.spec.nodes.map((n) => n.templateRefs[0]!.namespace)).toEqual(
      ci.spec.nodes.map(() => 'siteconfig-operator'),
    );
  });

  it('converts nothing from an invalid SiteConfig and returns why', () => {
    const result = convertText(snoSite({ node: '          bootMode: BIOS\n' }));
    expect(result.files).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.issues.map((i) => `${i.severity} ${i.code}`)).toEqual(['error INVALID_VALUE']);
  });
});

/** A v2 site with every field a ClusterInstance cannot hold, and the files it refers to. */
const everything = `apiVersion: ran.openshift.io/v2
kind: SiteConfig
metadata:
  name: site-all
spec:
  baseDomain: edge.example.com
  pullSecretRef:
    name: pull-secret
  pullSecret:
    fromDirectory: pull
  clusterImageSetNameRef: openshift-4.18
  sshPrivateKeySecretRef:
    name: ssh-key
  biosConfigRef:
    filePath: bios.yaml
  crTemplates:
    KlusterletAddonConfig: kac.yaml
  crAnnotations:
    add:
      Namespace:
        owner: site
  clusters:
    - clusterName: all-1
      baseDomain: ignored.example.com
      manifestsConfig:
        ntpServer: x
      machineNetwork:
        - cidr: 10.0.0.0/24
      clusterLabels:
        vendor: OpenShift
      biosConfigRef:
        filePath: bios.yaml
      crTemplates:
        KlusterletAddonConfig: kac.yaml
      crAnnotations:
        add:
          ConfigMap:
            owner: cluster
      mergeDefaultMachineConfigs: true
      extraManifestPath: extra
      extraManifests:
        searchPaths:
          - extra
      siteConfigMap:
        data:
          key: value
      diskEncryption:
        type: tpm2
        tpm2:
          pcrList: "1,7"
      nodes:
        - hostName: all-1-m0
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentials:
            fromDirectory: bmc
          bootMACAddress: 'AA:BB:CC:00:01:01'
          biosConfigRef:
            filePath: bios.yaml
          crTemplates:
            BareMetalHost: bmh.yaml
          crAnnotations:
            add:
              HostFirmwareSettings:
                owner: node
          diskPartition:
            - device: /dev/sdb
              partitions:
                - mount_point: /var/imageregistry
                  size: 102500
                  start: 344844
          userData:
            name: x
          cpuset: "0-1"
          hardwareProfile: old
        - hostName: all-1-w0
          role: worker
          bmcAddress: redfish-virtualmedia://10.0.1.2/redfish/v1/Systems/1
          bmcCredentialsName:
            name: all-1-w0-bmc
          bootMACAddress: 'AA:BB:CC:00:01:02'
          remove: true
    - clusterName: all-2
      apiVIP: 10.2.0.5
      ingressVIP: 10.2.0.6
      machineNetwork:
        - cidr: 10.2.0.0/24
      nodes:
${[0, 1, 2]
  .map(
    (n) => `        - hostName: all-2-m${String(n)}
          bmcAddress: redfish-virtualmedia://10.2.1.${String(n)}/redfish/v1/Systems/1
          bmcCredentialsName:
            name: all-2-m${String(n)}-bmc
          bootMACAddress: 'AA:BB:CC:00:02:0${String(n)}'
`,
  )
  .join('')}`;

const referenced = filesFromMap({
  'sites/bios.yaml': 'ProcTurboMode: Disabled\n',
  'sites/extra/99-x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
  'sites/kac.yaml': `apiVersion: agent.open-cluster-management.io/v1
kind: KlusterletAddonConfig
metadata:
  name: "{{ .Cluster.ClusterName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "2"
spec: {}
`,
  'sites/bmh.yaml': `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: "{{ .Node.HostName }}"
  namespace: "{{ .Cluster.ClusterName }}"
  annotations:
    argocd.argoproj.io/sync-wave: "3"
spec: {}
`,
});

describe('fields a ClusterInstance cannot hold', () => {
  const source: SourceFile = { path: 'sites/all.yaml', text: everything };
  const result = convertSiteConfigs([source], { files: referenced });
  const rows = everything.split('\n');
  /** The position of `key` on the only line that starts with `line` (indentation included). */
  const pos = (line: string, key: string): { line: number; column: number } => {
    const hits = rows.flatMap((row, i) => (row.startsWith(line) ? [i] : []));
    if (hits.length !== 1)
      throw new Error(`expected one line starting ${line}, found ${String(hits.length)}`);
    return { line: hits[0]! + 1, column: rows[hits[0]!]!.indexOf(key) + 1 };
  };

  it('converts the site once its references check out', () => {
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(result.files.map((f) => f.name)).toEqual(['all-1.yaml', 'all-2.yaml']);
  });

  it('lists every one, where it is, with the reason and the replacement', () => {
    const listed = result.warnings.map((w) => ({
      code: w.code,
      field: w.field,
      line: w.line,
      column: w.column,
    }));
    const expected = [
      ['SSH_PRIVATE_KEY', 'sshPrivateKeySecretRef', '  sshPrivateKeySecretRef:'],
      ['PULL_SECRET_SOURCE', 'pullSecret', '  pullSecret:'],
      ['BIOS_CONFIG', 'biosConfigRef', '  biosConfigRef:'],
      ['CR_TEMPLATES', 'crTemplates', '  crTemplates:'],
      ['ANNOTATIONS_KIND', 'Namespace', '      Namespace:'],
      ['IGNORED_FIELD', 'baseDomain', '      baseDomain: ignored'],
      ['IGNORED_FIELD', 'manifestsConfig', '      manifestsConfig:'],
      ['BIOS_CONFIG', 'biosConfigRef', '      biosConfigRef:'],
      ['CR_TEMPLATES', 'crTemplates', '      crTemplates:'],
      ['MERGE_MACHINE_CONFIGS', 'mergeDefaultMachineConfigs', '      mergeDefault'],
      ['EXTRA_MANIFEST_PATH', 'extraManifestPath', '      extraManifestPath:'],
      ['EXTRA_MANIFESTS', 'extraManifests', '      extraManifests:'],
      [
        'EXTRA_MANIFESTS_CONFIGMAP',
        'the extra-manifests ConfigMap all-1',
        '    - clusterName: all-1',
        'clusterName',
      ],
      ['SITE_CONFIG_MAP', 'siteConfigMap', '      siteConfigMap:'],
      ['DISK_ENCRYPTION_TPM2', 'tpm2', '        tpm2:'],
      ['TEMPLATE_LABEL', 'vendor', '        vendor: OpenShift'],
      ['ANNOTATIONS_KIND', 'ConfigMap', '          ConfigMap:'],
      ['BMC_CREDENTIALS_SOURCE', 'bmcCredentials', '          bmcCredentials:'],
      ['BIOS_CONFIG', 'biosConfigRef', '          biosConfigRef:'],
      ['CR_TEMPLATES', 'crTemplates', '          crTemplates:'],
      ['DISK_PARTITION', 'diskPartition', '          diskPartition:'],
      ['USER_DATA', 'userData', '          userData:'],
      ['CPUSET', 'cpuset', '          cpuset:'],
      ['IGNORED_FIELD', 'hardwareProfile', '          hardwareProfile:'],
      ['ANNOTATIONS_KIND', 'HostFirmwareSettings', '              HostFirmwareSettings:'],
      ['REMOVE', 'remove', '          remove:'],
      ['SINGULAR_VIP', 'apiVIP', '      apiVIP:'],
      ['SINGULAR_VIP', 'ingressVIP', '      ingressVIP:'],
      [
        'EXTRA_MANIFESTS_CONFIGMAP',
        'the extra-manifests ConfigMap all-2',
        '    - clusterName: all-2',
        'clusterName',
      ],
    ].map(([code, field, line, key]) => ({
      code: code!,
      field: field!,
      ...pos(line!, key ?? field!),
    }));
    expect([...listed].sort(byPosition)).toEqual([...expected].sort(byPosition));
    for (const w of result.warnings) {
      expect(w.reason, w.code).not.toBe('');
      expect(w.replacement, w.code).not.toBe('');
    }
  });

  it('still carries the value of the singular VIPs, as lists', () => {
    const ci = parse(result.files[1]!.text) as ClusterInstance;
    expect(ci.spec.apiVIPs).toEqual(['10.2.0.5']);
    expect(ci.spec.ingressVIPs).toEqual(['10.2.0.6']);
    expect(ci.spec.clusterType).toBe('HighlyAvailable');
  });

  it('merges site annotations into each cluster and names the Secrets it cannot describe', () => {
    const ci = parse(result.files[0]!.text) as ClusterInstance;
    expect(ci.spec.extraAnnotations).toEqual({
      Namespace: { owner: 'site' },
      ConfigMap: { owner: 'cluster' },
    });
    expect(ci.spec.nodes[0]!.bmcCredentialsName).toEqual({ name: 'all-1-m0-bmc-secret' });
    expect(ci.spec.nodes[0]!.extraAnnotations).toEqual({ HostFirmwareSettings: { owner: 'node' } });
    expect(ci.spec.diskEncryption).toEqual({ type: 'tpm2' });
  });
});

function byPosition(
  a: { line: number; column: number },
  b: { line: number; column: number },
): number {
  return a.line - b.line || a.column - b.column;
}
