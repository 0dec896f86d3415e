// Writes a synthetic fleet of single-node sites, one SiteConfig file each, shaped like real
// far-edge DU sites (static IPv4 nodeNetwork, labels, overrides), with unique names, MACs and IPs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Text of the SiteConfig of site number `i`. */
export function siteConfigText(i, options = {}) {
  const id = String(i).padStart(5, '0');
  const b = (i >> 8) & 0xff;
  const c = i & 0xff;
  const mac = `0c:42:${(i >> 16).toString(16).padStart(2, '0')}:${b.toString(16).padStart(2, '0')}:${c.toString(16).padStart(2, '0')}:01`;
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${id}
  namespace: site-${id}
spec:
  baseDomain: edge.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
  clusterImageSetNameRef: openshift-4.18.12
  sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForBenchmarksOnly000000000000000 admin@example.com"
  clusters:
    - clusterName: sno-${id}
      networkType: OVNKubernetes
      cpuPartitioningMode: AllNodes
      installConfigOverrides: '{"capabilities":{"baselineCapabilitySet":"None"}}'
${options.extraManifests === 'none' ? '      extraManifests:\n        defaultSet: none\n' : ''}      clusterLabels:
        common: true
        group-du-sno: ""
        sites: sno-${id}
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
        - hostName: sno-${id}.edge.example.com
          role: master
          bmcAddress: idrac-virtualmedia+https://10.${b}.${c}.2/redfish/v1/Systems/System.Embedded.1
          bmcCredentialsName:
            name: sno-${id}-bmc-secret
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

/**
 * Writes `count` site files into `dir`; returns dir.
 * @param options.extraManifests `none` opts the sites out of the default extra manifests.
 */
export function writeSyntheticFleet(dir, count, options = {}) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `site-${String(i).padStart(5, '0')}.yaml`), siteConfigText(i, options));
  }
  return dir;
}
