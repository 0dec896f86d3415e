import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootFromIso, UndiciRedfishClient } from '../../../src/bmac/redfish/index.js';
import type { BootProgress } from '../../../src/bmac/redfish/index.js';
import { simulatorPeer, sushyPeer } from '../../support/redfish-peers.js';
import type { Peer, RunningPeer } from '../../support/redfish-peers.js';

// One contract, every peer: what the controller relies on must hold on sushy-tools as on each
// simulated vendor. A peer that cannot start fails its tests; none is skipped.
const peers: Peer[] = [
  ...[
    'generic',
    'idrac9',
    'idrac10',
    'ilo6',
    'supermicro',
    'lenovo-xcc',
    'asrockrack',
    'async-tasks',
  ].map((p) => simulatorPeer(p)),
  // metal3's idrac-virtualmedia:// boots the CD through Dell's configuration job.
  simulatorPeer('idrac9', 'idrac-virtualmedia'),
  sushyPeer,
];

describe.each(peers)('the Redfish contract on $name', (peer) => {
  let running: RunningPeer;
  let client: UndiciRedfishClient;

  beforeAll(async () => {
    running = await peer.start();
    client = new UndiciRedfishClient({
      address: running.address,
      credentials: running.credentials,
      ...running.clientOptions,
    });
  }, 180_000);
  afterAll(async () => {
    await client.close();
    await running.stop();
  });

  it('discovers the System, its Manager and an insertable CD slot', async () => {
    const target = await client.discover();
    expect(target.system.path).toMatch(/^\/redfish\/v1\/Systems\/[^/]+$/);
    expect(target.system.powerState).toBe('Off');
    expect(target.managers.length).toBeGreaterThan(0);
    const cd = target.slots.find((s) => s.insertBy !== 'none');
    expect(cd?.mediaTypes).toContain('CD');
    expect(cd?.inserted).toBe(false);
    expect(cd?.image).toBeUndefined();
  });

  it('inserts an ISO, reports it inserted, and ejects it again', async () => {
    const slot = await client.insertMedia(running.imageUrl);
    expect(slot).toMatchObject({ inserted: true, image: running.imageUrl });
    await client.ejectMedia();
    const after = await client.getMediaSlots();
    expect(after.filter((s) => s.inserted)).toEqual([]);
  });

  it('sets a one-time boot from the virtual CD in UEFI mode', async () => {
    await client.setBootOverride({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
    const { boot } = await client.getSystem();
    expect(['Cd', 'UsbCd']).toContain(boot.target);
    expect(boot.mode).toBe('UEFI');
  });

  it('boots the host from an ISO, and resuming from Done changes nothing', async () => {
    const checkpoints: BootProgress[] = [];
    const result = await bootFromIso(client, running.imageUrl, {
      checkpoint: (p) => {
        checkpoints.push(p);
      },
    });
    expect(result.performed).toEqual(['Insert', 'BootOverride', 'PowerOn']);
    expect(checkpoints.map((p) => p.step)).toEqual([
      'PowerOff',
      'Eject',
      // The boot mode before the media: a BIOS job's restart must not boot the ISO early.
      'BootMode',
      'Insert',
      'BootOverride',
      'PowerOn',
      'Done',
    ]);
    const system = await client.getSystem();
    expect(system.powerState).toBe('On');
    const slots = await client.getMediaSlots();
    expect(slots.find((s) => s.inserted)?.image).toBe(running.imageUrl);
    if (running.bootedImage) expect(running.bootedImage()).toBe(running.imageUrl);

    const again = await bootFromIso(client, running.imageUrl, { progress: result.progress });
    expect(again.performed).toEqual([]);
  }, 60_000);

  it('powers the host off and waits until it reads Off', async () => {
    await expect(client.setPower('ForceOff')).resolves.toBe('Off');
    expect((await client.getSystem()).powerState).toBe('Off');
    // Already off: nothing is sent, nothing fails.
    await expect(client.setPower('ForceOff')).resolves.toBe('Off');
  }, 60_000);
});
