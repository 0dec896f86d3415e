import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { errorBody } from '../../../../src/bmac/redfish/sim/index.js';
import type { ScriptedFault } from '../../../../src/bmac/redfish/sim/index.js';
import { requestKey } from '../../../../src/bmac/runtime/contract.js';
import { Harness, NS } from './harness.js';

/** A BMC that accepts connections and never answers. */
async function deadBmc(): Promise<{ address: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `redfish-virtualmedia+http://127.0.0.1:${String(port)}/redfish/v1/Systems/1`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

describe('a failing BMC', () => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await h.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('puts only its own host in error while the others boot, retries with backoff and recovers', async () => {
    h = new Harness();
    const names = ['host-0', 'host-1', 'host-2'];
    for (const name of names) await h.addHost(name);
    const bad = h.bmcs.get('host-1')!;
    const fault: ScriptedFault = {
      method: 'POST',
      path: /InsertMedia/,
      times: 1_000,
      action: {
        status: 500,
        body: errorBody('Base.1.8.InternalError', 'The virtual media service is down'),
      },
    };
    bad.script(fault);

    await h.settle(names);

    expect(h.status('host-0').provisioning.state).toBe('provisioned');
    expect(h.status('host-2').provisioning.state).toBe('provisioned');
    const failed = h.status('host-1');
    expect(failed).toMatchObject({
      operationalStatus: 'error',
      errorType: 'provisioning error',
      errorCount: 1,
      provisioningFailCount: 1,
      provisioning: { state: 'provisioning' },
    });
    expect(failed.errorMessage).toMatch(
      /^Failed to boot the host from virtual media: POST .*InsertMedia.*500.*The virtual media service is down/,
    );
    expect(h.cluster.events).toContainEqual({
      object: `BareMetalHost ${NS}/host-1`,
      type: 'Warning',
      reason: 'ProvisioningError',
      message: failed.errorMessage,
    });

    // Woken again before the backoff has run out (its own status write, a resync): no retry.
    const clients = h.clientsMade.get('host-1');
    await h.settle(['host-1']);
    h.now += 10_000;
    await h.settle(['host-1']);
    expect(h.clientsMade.get('host-1')).toBe(clients);
    expect(h.status('host-1').errorCount).toBe(1);

    // The backoff runs out: one more try, which fails again and waits twice as long.
    h.now += 5_000;
    await h.settle(['host-1']);
    expect(h.status('host-1').errorCount).toBe(2);
    h.now += 20_000;
    await h.settle(['host-1']);
    expect(h.status('host-1').errorCount).toBe(2);

    // The BMC recovers; the next try boots the host and clears the error.
    fault.times = 0;
    h.now += 10_000;
    await h.settle(['host-1']);
    const recovered = h.status('host-1');
    expect(recovered).toMatchObject({
      operationalStatus: 'OK',
      errorMessage: '',
      errorCount: 0,
      provisioningFailCount: 0,
      provisioning: { state: 'provisioned' },
    });
    expect(recovered.errorType).toBeUndefined();
    expect(bad.events.filter((e) => e.kind === 'boot')).toHaveLength(1);
    expect(bad.state().bootedImage).toMatch(/\/images\//);
  });

  it('that is unreachable is a registration error with the reason', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    await bmc.stop();
    await h.settle(['host-0']);
    const status = h.status('host-0');
    expect(status).toMatchObject({
      operationalStatus: 'error',
      errorType: 'registration error',
      errorCount: 1,
      provisioning: { state: 'registering' },
    });
    expect(status.errorMessage).toBe('Failed to reach the BMC: GET /redfish/v1/: ECONNREFUSED');
  });

  it('that never answers does not hold up twenty other hosts', async () => {
    h = new Harness({ concurrency: 4 });
    const dead = await deadBmc();
    cleanups.push(dead.close);
    const names = Array.from({ length: 20 }, (_, i) => `host-${String(i)}`);
    for (const name of names) await h.addHost(name);
    await h.addHost(
      'host-dead',
      {},
      { bmc: { address: dead.address, credentialsName: 'host-dead-bmc-secret' } },
    );
    const all = ['host-dead', ...names];

    await h.settle(all, () => names.every((n) => h.status(n).provisioning.state === 'provisioned'));

    for (const name of names) expect(h.status(name).provisioning.state).toBe('provisioned');
    // The dead BMC's registration is still waiting for an answer, holding one slot of four.
    expect(h.controller.operations.pending(requestKey({ namespace: NS, name: 'host-dead' }))).toBe(
      'register',
    );
    expect(h.status('host-dead').provisioning.state).toBe('registering');

    // Stopping the controller abandons it at once.
    await h.controller.stop();
    expect(
      h.controller.operations.pending(requestKey({ namespace: NS, name: 'host-dead' })),
    ).toBeUndefined();
  });
});
