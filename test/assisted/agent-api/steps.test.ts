import { describe, expect, it } from 'vitest';
import {
  buildInstruction,
  goJson,
  stepsForHost,
  parseStepReply,
  vipMac,
} from '../../../src/assisted/agent-api/steps.js';
import type { StepContext } from '../../../src/assisted/agent-api/steps.js';
import type { ClusterRecord, HostRecord } from '../../../src/assisted/model.js';
import { describeHost, inventoryOf } from '../../support/agent-client.js';
import { clusterRecord, hostRecord } from './fake-backend.js';

const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const CLUSTER = 'bd9d3b83-80a3-4b94-8b61-c12b2f1a2373';
const AGENT = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';
const RELEASE = 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64';
const MCO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:abc';

function cluster(overrides: Partial<ClusterRecord> = {}): ClusterRecord {
  return clusterRecord({ id: CLUSTER, ...overrides });
}

function knownHost(index: number, overrides: Partial<HostRecord> = {}): HostRecord {
  const description = describeHost(index);
  const inventory = inventoryOf(description);
  return hostRecord({
    id: description.hostId,
    infraEnvId: INFRA_ENV,
    clusterId: CLUSTER,
    status: 'known',
    inventory,
    installationDiskId: inventory.disks?.[0]?.id,
    ...overrides,
  });
}

function ctx(host: HostRecord, extra: Partial<StepContext> = {}): StepContext {
  return {
    host,
    cluster: cluster(),
    images: {
      agent: AGENT,
      release: RELEASE,
      mco: MCO,
      mustGather: { ocp: 'quay.io/ocp/must-gather:4.16' },
    },
    ...extra,
  };
}

describe('step builders (upstream hostcommands)', () => {
  it('inventory: the host id, then the size flags only when configured', () => {
    const host = knownHost(1);
    expect(buildInstruction('inventory', ctx(host))?.args).toEqual([host.id]);
    expect(
      buildInstruction(
        'inventory',
        ctx(host, { settings: { inventoryMaxSize: 1000, inventoryDiskMinSize: 20 } }),
      )?.args,
    ).toEqual([host.id, '--output-max-size=1000', '--disk-min-size=20']);
  });

  it('gives step ids <type>-<8 hex>', () => {
    expect(buildInstruction('inventory', ctx(knownHost(2)))?.stepId).toMatch(
      /^inventory-[0-9a-f]{8}$/,
    );
  });

  it('connectivity-check: the NICs of the other hosts with an inventory, addresses without prefix', () => {
    const self = knownHost(3);
    const other = knownHost(4);
    const discovering = knownHost(5, { status: 'discovering' });
    const instruction = buildInstruction(
      'connectivity-check',
      ctx(self, { clusterHosts: [self, other, discovering] }),
    );
    const nic = other.inventory!.interfaces![0]!;
    expect(instruction?.args).toEqual([
      `[{"host_id":"${other.id}","nics":[{"ip_addresses":["${nic.ipv4_addresses![0]!.split('/')[0]!}"],"mac":"${nic.mac_address!}","name":"eth0"}]}]`,
    ]);
    expect(
      buildInstruction('connectivity-check', ctx(self, { clusterHosts: [self] })),
    ).toBeUndefined();
  });

  it('ntp-synchronizer: the NTP sources as one comma-separated string', () => {
    expect(
      buildInstruction('ntp-synchronizer', ctx(knownHost(6), { ntpSources: 'a.ntp,b.ntp' }))?.args,
    ).toEqual(['{"ntp_source":"a.ntp,b.ntp"}']);
  });

  it('domain-resolution: api, api-int, the console apps name, the wildcard probes and the release registry', () => {
    expect(buildInstruction('domain-resolution', ctx(knownHost(7)))?.args).toEqual([
      '{"domains":[' +
        '{"domain_name":"api.sno1.example.com"},' +
        '{"domain_name":"api-int.sno1.example.com"},' +
        '{"domain_name":"console-openshift-console.apps.sno1.example.com"},' +
        '{"domain_name":"validateNoWildcardDNS.sno1.example.com."},' +
        '{"domain_name":"validateNoWildcardDNS.sno1.example.com"},' +
        '{"domain_name":"quay.io"}]}',
    ]);
  });

  it('free-network-addresses: never in kube-API mode; else the small IPv4 networks', () => {
    const host = knownHost(8, {
      inventory: {
        interfaces: [{ name: 'eth0', ipv4_addresses: ['10.1.2.3/24', '172.16.0.5/16'] }],
      },
    });
    expect(buildInstruction('free-network-addresses', ctx(host))).toBeUndefined();
    expect(
      buildInstruction('free-network-addresses', ctx(host, { settings: { kubeApi: false } }))?.args,
    ).toEqual(['["10.1.2.0/24"]']);
  });

  it('installation-disk-speed-check: the boot device and the timeout with two decimals, once', () => {
    const host = knownHost(9);
    const disk = host.installationDiskId!;
    expect(buildInstruction('installation-disk-speed-check', ctx(host))?.args).toEqual([
      `{"path":"${disk}"}`,
      '480.00',
    ]);
    const measured = { ...host, stepResults: { diskSpeed: { path: disk, io_sync_duration: 3 } } };
    expect(buildInstruction('installation-disk-speed-check', ctx(measured))).toBeUndefined();
  });

  it('container-image-availability: release, MCO, must-gather and installer images not yet pulled', () => {
    const host = knownHost(10, {
      stepResults: { imageAvailability: { images: [{ name: RELEASE, result: 'success' }] } },
    });
    expect(buildInstruction('container-image-availability', ctx(host))?.args).toEqual([
      `{"images":["${MCO}","quay.io/ocp/must-gather:4.16","quay.io/edge-infrastructure/assisted-installer:latest"],"timeout":960}`,
    ]);
  });

  it('install: the install request with role, boot device, images and DHCP kernel args for the machine network', () => {
    const host = knownHost(11, { role: 'master', suggestedRole: 'master', bootstrap: true });
    const args = buildInstruction('install', ctx(host))?.args;
    expect(args).toHaveLength(1);
    const request = JSON.parse(args![0]!) as Record<string, unknown>;
    const mac = host.inventory!.interfaces![0]!.mac_address!.replaceAll(':', '-');
    expect(Object.keys(request)).toEqual([...Object.keys(request)].sort());
    expect(request).toEqual({
      boot_device: host.installationDiskId,
      check_cvo: false,
      cluster_id: CLUSTER,
      control_plane_count: 1,
      controller_image: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
      disks_to_format: [host.installationDiskId],
      host_id: host.id,
      infra_env_id: INFRA_ENV,
      installer_args: `["--append-karg","ip=${mac}:dhcp"]`,
      installer_image: 'quay.io/edge-infrastructure/assisted-installer:latest',
      mco_image: MCO,
      must_gather_image: 'quay.io/ocp/must-gather:4.16',
      openshift_version: '4.16.3',
      role: 'bootstrap',
      service_ips: null,
    });
    const staticNet = JSON.parse(
      buildInstruction('install', ctx(host, { staticNetwork: true }))!.args[0]!,
    ) as {
      installer_args: string;
    };
    expect(staticNet.installer_args).toBe('["--copy-network"]');
  });

  it('logs-gather: the request until the logs were collected', () => {
    const host = knownHost(12);
    expect(buildInstruction('logs-gather', ctx(host))?.args).toEqual([
      `{"bootstrap":false,"cluster_id":"${CLUSTER}","host_id":"${host.id}","infra_env_id":"${INFRA_ENV}","installer_gather":true,"master_ips":null}`,
    ]);
    expect(
      buildInstruction(
        'logs-gather',
        ctx({ ...host, logsCollectedAt: '2026-11-25T11:00:00.000Z' }),
      ),
    ).toBeUndefined();
  });

  it('stop-installation: no args; next-step-runner: the runner request', () => {
    const host = knownHost(13);
    expect(buildInstruction('stop-installation', ctx(host))?.args).toEqual([]);
    expect(buildInstruction('next-step-runner', ctx(host))?.args).toEqual([
      `{"agent_version":"${AGENT}","host_id":"${host.id}","infra_env_id":"${INFRA_ENV}"}`,
    ]);
  });

  it('dhcp-lease-allocate: VIP MACs from the cluster id as upstream hashes them (its test vector)', () => {
    expect(vipMac(CLUSTER, 'api')).toBe('00:1a:4a:b5:4d:cc');
    expect(vipMac(CLUSTER, 'ingress')).toBe('00:1a:4a:83:b1:f7');
    const host = knownHost(14);
    expect(buildInstruction('dhcp-lease-allocate', ctx(host))).toBeUndefined();
    expect(
      buildInstruction('dhcp-lease-allocate', ctx(host, { vipDhcpAllocation: {} }))?.args,
    ).toEqual([
      '{"api_vip_mac":"00:1a:4a:b5:4d:cc","ingress_vip_mac":"00:1a:4a:83:b1:f7","interface":"eth0"}',
    ]);
  });

  it('tang-connectivity-check and verify-vips: only when there is something to check', () => {
    const host = knownHost(15);
    expect(buildInstruction('tang-connectivity-check', ctx(host))).toBeUndefined();
    expect(
      buildInstruction(
        'tang-connectivity-check',
        ctx(host, { tangServers: '[{"url":"http://tang"}]' }),
      )?.args,
    ).toEqual(['{"tang_servers":"[{\\"url\\":\\"http://tang\\"}]"}']);
    expect(buildInstruction('verify-vips', ctx(host))).toBeUndefined();
    const withVips = {
      ...ctx(host),
      cluster: cluster({ apiVips: ['192.168.0.5'], ingressVips: ['192.168.0.6'] }),
    };
    expect(buildInstruction('verify-vips', withVips)?.args).toEqual([
      '[{"vip":"192.168.0.5","vip_type":"api"},{"vip":"192.168.0.6","vip_type":"ingress"}]',
    ]);
  });

  it('writes JSON as Go does, with <, > and & escaped', () => {
    expect(goJson({ a: '<b>&' })).toBe('{"a":"\\u003cb\\u003e\\u0026"}');
  });
});

describe('step replies', () => {
  const reply = (
    stepType: Parameters<typeof parseStepReply>[0]['stepType'],
    output: string,
    exitCode = 0,
  ) => ({
    stepType,
    stepId: `${stepType}-00000000`,
    exitCode,
    output,
    error: '',
  });

  it('reads an inventory, ntp sources, domain resolutions and image availability', () => {
    const inventory = inventoryOf(describeHost(20));
    expect(parseStepReply(reply('inventory', JSON.stringify(inventory)))).toEqual({
      ok: true,
      value: { stepType: 'inventory', inventory },
    });
    expect(
      parseStepReply(
        reply('ntp-synchronizer', '{"ntp_sources":[{"source_name":"a","source_state":"synced"}]}'),
      ),
    ).toEqual({
      ok: true,
      value: {
        stepType: 'ntp-synchronizer',
        ntpSources: [{ source_name: 'a', source_state: 'synced' }],
      },
    });
    expect(
      parseStepReply(reply('domain-resolution', '{"resolutions":[{"domain_name":"api.x"}]}')),
    ).toEqual({
      ok: true,
      value: {
        stepType: 'domain-resolution',
        response: { resolutions: [{ domain_name: 'api.x' }] },
      },
    });
    expect(
      parseStepReply(
        reply('container-image-availability', '{"images":[{"name":"i","result":"failure"}]}', 2),
      ),
    ).toEqual({
      ok: true,
      value: {
        stepType: 'container-image-availability',
        response: { images: [{ name: 'i', result: 'failure' }] },
      },
    });
  });

  it('reads disk speed with its exit code, connectivity and free addresses', () => {
    expect(
      parseStepReply(
        reply('installation-disk-speed-check', '{"io_sync_duration":30,"path":"/dev/sda"}'),
      ),
    ).toEqual({
      ok: true,
      value: {
        stepType: 'installation-disk-speed-check',
        response: { io_sync_duration: 30, path: '/dev/sda' },
        exitCode: 0,
      },
    });
    expect(parseStepReply(reply('connectivity-check', '{"remote_hosts":[]}'))).toEqual({
      ok: true,
      value: { stepType: 'connectivity-check', report: { remote_hosts: [] } },
    });
    expect(
      parseStepReply(
        reply('free-network-addresses', '[{"network":"10.0.0.0/24","free_addresses":[]}]'),
      ),
    ).toEqual({
      ok: true,
      value: {
        stepType: 'free-network-addresses',
        networks: [{ network: '10.0.0.0/24', free_addresses: [] }],
      },
    });
  });

  it('reads the install reply: started, failed, or failed because the installer already runs', () => {
    expect(parseStepReply(reply('install', ''))).toEqual({
      ok: true,
      value: { stepType: 'install', failed: false, alreadyRunning: false, error: '' },
    });
    const running = {
      ...reply('install', '', 125),
      error: 'Error: the container name "assisted-installer" is already in use',
    };
    expect(parseStepReply(running)).toMatchObject({
      ok: true,
      value: { failed: true, alreadyRunning: true },
    });
  });

  it('ignores an empty disk-speed output and does not read the output of a failed step', () => {
    expect(parseStepReply(reply('installation-disk-speed-check', ''))).toEqual({
      ok: true,
      value: { stepType: 'other', type: 'installation-disk-speed-check', output: undefined },
    });
    expect(parseStepReply({ ...reply('inventory', 'garbage', 1), error: 'boom' })).toEqual({
      ok: true,
      value: { stepType: 'failed', type: 'inventory', exitCode: 1, error: 'boom' },
    });
  });

  it('refuses output that is not its step type’s JSON, with the decoder’s reason', () => {
    expect(parseStepReply(reply('ntp-synchronizer', '[1]'))).toEqual({
      ok: false,
      reason:
        'json: cannot unmarshal array into Go value of type models.NtpSynchronizationResponse',
    });
    const broken = parseStepReply(reply('inventory', '{"hostname":'));
    expect(broken.ok).toBe(false);
  });
});

describe('steps per host status (upstream instruction manager)', () => {
  const types = (steps: ReturnType<typeof stepsForHost>): string[] =>
    steps.instructions.map((instruction) => instruction.stepType);

  it('a known host of a cluster runs the discovery checks that apply, every 60 s', () => {
    const self = knownHost(30);
    const steps = stepsForHost(
      ctx(self, { clusterHosts: [self, knownHost(31)], ntpSources: 'a.ntp' }),
    );
    expect([steps.nextInstructionSeconds, steps.postStepAction]).toEqual([60, 'continue']);
    // Free addresses: never in kube-API mode; DHCP and Tang: not configured; no VIPs (SNO).
    expect(types(steps)).toEqual([
      'connectivity-check',
      'inventory',
      'ntp-synchronizer',
      'domain-resolution',
    ]);
  });

  it('an installing host gets the install step; a preparing one the disk and image checks', () => {
    const installing = stepsForHost(ctx(knownHost(32, { status: 'installing' })));
    expect(types(installing)).toEqual(['install']);
    const preparing = stepsForHost(ctx(knownHost(33, { status: 'preparing-for-installation' })));
    expect(types(preparing)).toEqual([
      'installation-disk-speed-check',
      'container-image-availability',
    ]);
  });

  it('a host in error gathers logs and stops, polling every 120 s; binding exits', () => {
    const error = stepsForHost(ctx(knownHost(34, { status: 'error' })));
    expect([types(error), error.nextInstructionSeconds]).toEqual([
      ['logs-gather', 'stop-installation'],
      120,
    ]);
    const binding = stepsForHost(ctx(knownHost(35, { status: 'binding' })));
    expect([types(binding), binding.nextInstructionSeconds, binding.postStepAction]).toEqual([
      [],
      0,
      'exit',
    ]);
  });

  it('an unbound host sends its inventory and NTP; an unknown status just polls again', () => {
    const host = { ...knownHost(36, { status: 'known-unbound' }), clusterId: undefined };
    expect(types(stepsForHost({ ...ctx(host), cluster: undefined }))).toEqual([
      'inventory',
      'ntp-synchronizer',
    ]);
    const installed = stepsForHost(ctx(knownHost(37, { status: 'installed' })));
    expect([types(installed), installed.nextInstructionSeconds]).toEqual([[], 60]);
  });

  it('leaves out disabled step types', () => {
    const steps = stepsForHost(ctx(knownHost(38, { status: 'discovering' })), {
      disabledSteps: ['inventory'],
    });
    expect(types(steps)).toEqual([]);
  });
});
