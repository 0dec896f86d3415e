/**
 * The args our step builders produce, checked by the real agent's own action validation
 * (assisted-installer-agent `src/commands/actions`: each action unmarshals its request model,
 * runs the model's swagger validation, and checks paths, images, proxy and installer args).
 * The checker is test/assisted/agent-api/agent-validate-args/main.go built inside the agent's
 * source tree; SITEFORGE_ASSISTED_VALIDATE_ARGS names the binary. Without it there is nothing to
 * run against.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildInstruction } from '../../../src/assisted/agent-api/steps.js';
import type { StepContext } from '../../../src/assisted/agent-api/steps.js';
import type { HostRecord, StepType, WireInventory } from '../../../src/assisted/model.js';
import { clusterRecord, hostRecord } from './fake-backend.js';

const checker = process.env['SITEFORGE_ASSISTED_VALIDATE_ARGS'];
const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const CLUSTER = 'bd9d3b83-80a3-4b94-8b61-c12b2f1a2373';

/** An inventory whose disk exists on any Linux machine (the install action checks the path). */
function inventory(mac: string, ip: string): WireInventory {
  return {
    hostname: 'master-0',
    interfaces: [{ name: 'eth0', mac_address: mac, ipv4_addresses: [ip], ipv6_addresses: [] }],
    disks: [
      {
        id: '/dev/null',
        name: 'null',
        path: '/dev/null',
        bootable: true,
        drive_type: 'SSD',
        size_bytes: 5e11,
      },
    ],
  };
}

function context(): StepContext {
  const common: Partial<HostRecord> = {
    clusterId: CLUSTER,
    status: 'known',
    role: 'master',
    suggestedRole: 'master',
    installationDiskId: '/dev/null',
  };
  const host = hostRecord({
    ...common,
    id: '3f0c9a51-7d2e-4b8a-9c61-5e4d3c2b1a09',
    infraEnvId: INFRA_ENV,
    bootstrap: true,
    inventory: inventory('52:54:00:00:00:01', '192.168.1.10/24'),
    installerArgs: ['--append-karg', 'nosmt'],
  });
  const other = hostRecord({
    ...common,
    id: '4f0c9a51-7d2e-4b8a-9c61-5e4d3c2b1a08',
    infraEnvId: INFRA_ENV,
    inventory: inventory('52:54:00:00:00:02', '192.168.1.11/24'),
  });
  const cluster = clusterRecord({
    id: CLUSTER,
    name: 'edge1',
    baseDnsDomain: 'example.com',
    openshiftVersion: '4.16.3',
    controlPlaneAgents: 3,
    machineNetworks: ['192.168.1.0/24'],
    apiVips: ['192.168.1.5'],
    ingressVips: ['192.168.1.6'],
    userManagedNetworking: false,
  });
  return {
    host,
    cluster,
    clusterHosts: [host, other],
    ntpSources: 'a.ntp.example.com,b.ntp.example.com',
    tangServers: '[{"url":"http://tang.example.com:7500","thumbprint":"abc"}]',
    vipDhcpAllocation: {},
    bootArtifacts: {
      kernelUrl: 'http://is/kernel',
      initrdUrl: 'http://is/initrd',
      rootfsUrl: 'http://is/rootfs',
    },
    proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: '.example.com' },
    settings: { kubeApi: false, hostFsMountDir: '/host', enableSkipMcoReboot: true },
    images: {
      agent: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
      release: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
      mco: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef',
      mustGather: {
        ocp: 'quay.io/openshift-release-dev/must-gather:4.16',
        cnv: 'registry.redhat.io/cnv/must-gather:v4.16',
      },
    },
  };
}

const TYPES: readonly StepType[] = [
  'inventory',
  'connectivity-check',
  'free-network-addresses',
  'ntp-synchronizer',
  'domain-resolution',
  'installation-disk-speed-check',
  'container-image-availability',
  'install',
  'logs-gather',
  'stop-installation',
  'dhcp-lease-allocate',
  'tang-connectivity-check',
  'verify-vips',
  'next-step-runner',
  'upgrade-agent',
  'reboot-for-reclaim',
  'download-boot-artifacts',
];

describe.runIf(checker !== undefined && existsSync(checker))('step args and the real agent', () => {
  it('every step type we build passes the agent action validation', () => {
    const ctx = context();
    const lines = TYPES.map((type) => {
      const instruction = buildInstruction(type, ctx);
      expect(instruction, type).toBeDefined();
      return JSON.stringify({ type, args: instruction!.args });
    });
    const output = execFileSync(checker!, { input: `${lines.join('\n')}\n`, encoding: 'utf8' });
    const verdicts = output.split('\n').filter((line) => /^(OK|FAIL) /.test(line));
    expect(verdicts).toEqual(TYPES.map((type) => `OK ${type}`));
  });
});
