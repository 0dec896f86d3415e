import { describe, expect, it } from 'vitest';
import { Finalizer } from '../../../../src/bmac/api.js';
import { ISO_URL, agent, bmh, infraEnv, world } from './fixtures.js';

const HW = 'inspect.metal3.io/hardwaredetails';
const inventory = {
  hostname: 'localhost.localdomain',
  interfaces: [
    {
      name: 'eno1',
      vendor: '0x8086',
      macAddress: '52:54:00:aa:bb:01',
      speedMbps: 10240,
      ipV4Addresses: ['192.168.1.10/24'],
      ipV6Addresses: ['fd00::10/64'],
    },
    { name: 'eno2', macAddress: '52:54:00:aa:bb:02', ipV4Addresses: [], ipV6Addresses: [] },
  ],
  disks: [
    {
      id: '/dev/disk/by-id/wwn-0x1',
      path: '/dev/sda',
      byPath: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
      hctl: '0:0:0:0',
      model: 'ST2000',
      vendor: 'SEAGATE',
      serial: 'Z1',
      sizeBytes: 2000398934016,
      wwn: '0x1',
      driveType: 'HDD',
    },
    {
      id: '/dev/nvme0n1',
      path: '/dev/nvme0n1',
      model: 'PM9A3',
      sizeBytes: 960197124096,
      driveType: 'NVME',
    },
  ],
  memory: { physicalBytes: 68719476736 },
  cpu: {
    count: 16,
    clockMegahertz: 2400.5,
    flags: ['vmx', 'avx2'],
    modelName: 'Intel Xeon',
    architecture: 'x86_64',
  },
  systemVendor: {
    manufacturer: 'Dell Inc.',
    productName: 'PowerEdge R650',
    serialNumber: 'ABC123',
  },
};

function hwWorld(
  hostOptions: Parameters<typeof bmh>[1] = {},
  agentSpec: Record<string, unknown> = {},
  converged = false,
) {
  return world(
    { converged },
    bmh('host-0', {
      finalizers: [Finalizer.Bmac],
      spec: { image: { url: ISO_URL, format: 'live-iso' } },
      ...hostOptions,
    }),
    infraEnv(),
    agent('agent-0', { inventory, spec: agentSpec }),
  );
}

describe('BMAC hardware details (non-converged)', () => {
  it("writes BMO's HardwareDetails JSON from the agent inventory, field for field", async () => {
    const w = hwWorld();
    await w.stable();
    expect(w.host().metadata.annotations?.[HW]).toBe(
      '{"systemVendor":{"manufacturer":"Dell Inc.","productName":"PowerEdge R650","serialNumber":"ABC123"},' +
        '"firmware":{"bios":{}},"ramMebibytes":65536,' +
        '"nics":[{"name":"eno1","model":"0x8086","mac":"52:54:00:aa:bb:01","ip":"fd00::10","speedGbps":10},' +
        '{"name":"eno1","model":"0x8086","mac":"52:54:00:aa:bb:01","ip":"192.168.1.10","speedGbps":10}],' +
        '"storage":[{"name":"/dev/disk/by-path/pci-0000:00:1f.2-ata-1","rotational":true,"sizeBytes":2000398934016,"vendor":"SEAGATE","model":"ST2000","serialNumber":"Z1","wwn":"0x1","hctl":"0:0:0:0"},' +
        '{"name":"/dev/nvme0n1","sizeBytes":960197124096,"model":"PM9A3"}],' +
        '"cpu":{"arch":"x86_64","model":"Intel Xeon","clockMegahertz":2400.5,"flags":["vmx","avx2"],"count":16},' +
        '"hostname":"localhost.localdomain"}',
    );
  });

  it("names the host with the Agent's hostname when it has one", async () => {
    const w = hwWorld({}, { hostname: 'edge-1' });
    await w.stable();
    expect(JSON.parse(w.host().metadata.annotations?.[HW] ?? '{}')).toMatchObject({
      hostname: 'edge-1',
    });
  });

  it('leaves an existing annotation alone', async () => {
    const w = hwWorld({ annotations: { [HW]: '{"hostname":"mine"}' } });
    await w.stable();
    expect(w.host().metadata.annotations?.[HW]).toBe('{"hostname":"mine"}');
  });

  it('writes nothing once BMO has a hostname in the host status', async () => {
    const w = hwWorld({
      status: { provisioning: { state: 'ready' }, hardware: { hostname: 'worker-0' } },
    });
    await w.stable();
    expect(w.host().metadata.annotations?.[HW]).toBeUndefined();
  });

  it('writes nothing in the converged flow, where Ironic inspects', async () => {
    const w = hwWorld({ spec: { customDeploy: { method: 'start_assisted_install' } } }, {}, true);
    await w.stable();
    expect(w.host().metadata.annotations?.[HW]).toBeUndefined();
  });
});
