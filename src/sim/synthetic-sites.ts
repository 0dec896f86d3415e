/**
 * A synthetic fleet of single-node sites, one SiteConfig file each, shaped like real far-edge DU
 * sites (static IPv4 nodeNetwork, labels, overrides, an iDRAC BMC, a root device hint), with
 * unique names, MACs and addresses. The demo's `--sites N` and the benchmarks use it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Options of the synthetic sites. */
export interface SyntheticSiteOptions {
  /** `none` opts the sites out of the default extra manifests. @default the default set */
  readonly extraManifests?: 'default' | 'none';
  /**
   * Site number i is the namespace and cluster `<prefix>-<i, 5 digits>`.
   * @default namespace `site-<i>`, cluster `sno-<i>`
   */
  readonly prefix?: string;
}

/** Text of the SiteConfig of site number `i`. */
export function siteConfigText(i: number, options: SyntheticSiteOptions = {}): string {
  const id = String(i).padStart(5, '0');
  const site = options.prefix === undefined ? `site-${id}` : `${options.prefix}-${id}`;
  const sno = options.prefix === undefined ? `sno-${id}` : `${options.prefix}-${id}`;
  const b = String((i >> 8) & 0xff);
  const c = String(i & 0xff);
  const hex = (n: number): string => n.toString(16).padStart(2, '0');
  const mac = `0c:42:${hex(i >> 16)}:${hex((i >> 8) & 0xff)}:${hex(i & 0xff)}:01`;
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: ${site}
  namespace: ${site}
spec:
  baseDomain: edge.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
  clusterImageSetNameRef: openshift-4.18.12
  sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForBenchmarksOnly000000000000000 admin@example.com"
  clusters:
    - clusterName: ${sno}
      networkType: OVNKubernetes
      cpuPartitioningMode: AllNodes
      installConfigOverrides: '{"capabilities":{"baselineCapabilitySet":"None"}}'
${options.extraManifests === 'none' ? '      extraManifests:\n        defaultSet: none\n' : ''}      clusterLabels:
        common: true
        group-du-sno: ""
        sites: ${sno}
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      machineNetwork:
        - cidr: 10.${b}.${c}.0/24
      serviceNetwork:
        - 172.30.0.0/16
      additionalNTPSources:
        - 10.${b}.${c}.1
      nodes:
        - hostName: ${sno}.edge.example.com
          role: master
          bmcAddress: idrac-virtualmedia+https://10.${b}.${c}.2/redfish/v1/Systems/System.Embedded.1
          bmcCredentialsName:
            name: ${sno}-bmc-secret
          bootMACAddress: "${mac}"
          bootMode: UEFI
          rootDeviceHints:
            deviceName: /dev/sda
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: "${mac}"
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    dhcp: false
                    address:
                      - ip: 10.${b}.${c}.10
                        prefix-length: 24
                  ipv6:
                    enabled: false
              dns-resolver:
                config:
                  server:
                    - 10.${b}.${c}.1
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.${b}.${c}.1
                    table-id: 254
`;
}

/** Writes `count` site files into `dir` (`site-00000.yaml`, …); returns dir. */
export function writeSyntheticFleet(
  dir: string,
  count: number,
  options: SyntheticSiteOptions = {},
): string {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `site-${String(i).padStart(5, '0')}.yaml`), siteConfigText(i, options));
  }
  return dir;
}
