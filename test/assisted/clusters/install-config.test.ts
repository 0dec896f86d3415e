import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  buildInstallConfig,
  installConfigYaml,
  mergeOverrides,
  parseOverrides,
} from '../../../src/assisted/clusters/install-config.js';
import type { ClusterRecord } from '../../../src/assisted/model.js';
import { host } from './fakes.js';

const cluster: ClusterRecord = {
  id: 'c1',
  namespace: 'site',
  clusterDeploymentName: 'site',
  agentClusterInstallName: 'site',
  name: 'site',
  baseDnsDomain: 'example.com',
  openshiftVersion: '4.16.3',
  status: 'ready',
  statusInfo: '',
  statusUpdatedAt: '',
  highAvailabilityMode: 'Full',
  controlPlaneAgents: 3,
  workerAgents: 1,
  arbiterAgents: 0,
  userManagedNetworking: false,
  platformType: 'baremetal',
  networkType: 'OVNKubernetes',
  clusterNetworks: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
  serviceNetworks: ['172.30.0.0/16'],
  machineNetworks: ['10.0.0.0/24'],
  apiVips: ['10.0.0.100'],
  ingressVips: ['10.0.0.101'],
  pullSecretSet: true,
  sshPublicKey: 'ssh-ed25519 AAAA',
  ignoredHostValidations: [],
  ignoredClusterValidations: [],
  validationsInfo: {},
  holdInstallation: false,
  lastPreparation: { status: 'never' },
};

const hosts = [
  host('h-4', 'c1', { role: 'worker', ip: '10.0.0.14', requestedHostname: 'worker-0' }),
  host('h-1', 'c1', { role: 'master', ip: '10.0.0.11', requestedHostname: 'master-b' }),
  host('h-2', 'c1', { role: 'master', ip: '10.0.0.12', requestedHostname: 'master-a' }),
  host('h-3', 'c1', {
    role: 'master',
    ip: '10.0.0.13',
    bootstrap: true,
    requestedHostname: 'master-c',
  }),
];

describe('the install-config', () => {
  it('describes a bare-metal cluster as upstream’s builder does', () => {
    const config = buildInstallConfig({ cluster, hosts, pullSecret: '{"auths":{}}' });
    expect(config).toEqual({
      apiVersion: 'v1',
      baseDomain: 'example.com',
      networking: {
        networkType: 'OVNKubernetes',
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        machineNetwork: [{ cidr: '10.0.0.0/24' }],
        serviceNetwork: ['172.30.0.0/16'],
      },
      metadata: { name: 'site' },
      compute: [{ hyperthreading: 'Enabled', name: 'worker', replicas: 1 }],
      controlPlane: { hyperthreading: 'Enabled', name: 'master', replicas: 3 },
      platform: {
        baremetal: {
          provisioningNetwork: 'Disabled',
          apiVIPs: ['10.0.0.100'],
          ingressVIPs: ['10.0.0.101'],
          // Masters first, then workers; by name within a role.
          hosts: [
            {
              name: 'master-a',
              role: 'master',
              bootMACAddress: '52:54:00:00:00:12',
              bootMode: 'UEFI',
            },
            {
              name: 'master-b',
              role: 'master',
              bootMACAddress: '52:54:00:00:00:11',
              bootMode: 'UEFI',
            },
            {
              name: 'master-c',
              role: 'master',
              bootMACAddress: '52:54:00:00:00:13',
              bootMode: 'UEFI',
            },
            {
              name: 'worker-0',
              role: 'worker',
              bootMACAddress: '52:54:00:00:00:14',
              bootMode: 'UEFI',
            },
          ],
        },
      },
      fips: false,
      pullSecret: '{"auths":{}}',
      sshKey: 'ssh-ed25519 AAAA',
    });
    expect(parse(installConfigYaml(config))).toEqual(config);
  });

  it('adds the proxy with upstream’s generated noProxy', () => {
    const config = buildInstallConfig({
      cluster,
      hosts,
      pullSecret: '',
      proxy: { httpProxy: 'http://proxy:3128', noProxy: 'internal.example.com' },
    });
    expect(config['proxy']).toEqual({
      httpProxy: 'http://proxy:3128',
      noProxy: 'internal.example.com,.site.example.com,10.128.0.0/14,172.30.0.0/16,10.0.0.0/24',
    });
  });

  it('merges the overrides: objects key by key, lists and values replaced', () => {
    const config = buildInstallConfig({
      cluster,
      hosts,
      pullSecret: '',
      overrides: JSON.stringify({
        networking: { networkType: 'OpenShiftSDN' },
        capabilities: { baselineCapabilitySet: 'None' },
        compute: [{ name: 'worker', replicas: 0 }],
        fips: true,
      }),
    });
    expect(config['networking']).toMatchObject({
      networkType: 'OpenShiftSDN',
      serviceNetwork: ['172.30.0.0/16'],
    });
    expect(config['capabilities']).toEqual({ baselineCapabilitySet: 'None' });
    expect(config['compute']).toEqual([{ name: 'worker', replicas: 0 }]);
    expect(config['fips']).toBe(true);
    expect(mergeOverrides({ a: { b: 1, c: 2 } }, { a: { c: 3 } })).toEqual({ a: { b: 1, c: 3 } });
  });

  it('refuses overrides that are not JSON, not an object, or name an unknown field', () => {
    const prefix =
      "Failed to parse 'agent-install.openshift.io/install-config-overrides' annotation: ";
    expect(() => parseOverrides('{"fips": tru')).toThrow(prefix);
    expect(() => parseOverrides('[1]')).toThrow(
      `${prefix}json: cannot unmarshal array into Go value of type installcfg.InstallerConfigBaremetal`,
    );
    expect(() => parseOverrides('{"fipz": true}')).toThrow(`${prefix}json: unknown field "fipz"`);
  });

  it('installs a single node in place, on the platform none', () => {
    const sno: ClusterRecord = {
      ...cluster,
      highAvailabilityMode: 'None',
      controlPlaneAgents: 1,
      workerAgents: 0,
      userManagedNetworking: true,
      platformType: 'none',
      apiVips: [],
      ingressVips: [],
    };
    const config = buildInstallConfig({
      cluster: sno,
      hosts: [
        host('s-1', 'c1', {
          role: 'master',
          bootstrap: true,
          installationDiskId: '/dev/disk/by-id/wwn-0x1',
        }),
      ],
      pullSecret: '',
    });
    expect(config['platform']).toEqual({ none: {} });
    expect(config['bootstrapInPlace']).toEqual({ installationDisk: '/dev/disk/by-id/wwn-0x1' });
    expect(config['controlPlane']).toEqual({
      hyperthreading: 'Enabled',
      name: 'master',
      replicas: 1,
    });
    expect(config['compute']).toEqual([{ hyperthreading: 'Enabled', name: 'worker', replicas: 0 }]);
  });
});
