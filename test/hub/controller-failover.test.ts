import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { Gvk } from '../../src/bmac/api.js';
import { startBmcFleet } from '../../src/bmac/redfish/sim/index.js';
import type { BmcFleet } from '../../src/bmac/redfish/sim/index.js';
import { ClientNodeLeaseClient } from '../../src/kube/index.js';
import {
  bmcLabel,
  controllerSetup,
  createSite,
  hostsOf,
  isoBoots,
  runtimeClient,
  startControllerProcess,
  stateOf,
  stopController,
} from '../support/controller-process.js';
import type { ControllerProcess, ControllerSetup } from '../support/controller-process.js';
import { hubKubeconfig, useNamespace, waitUntil } from '../support/hub.js';
import { TcpProxy } from '../support/tcp-proxy.js';

// Two `siteforge controller` processes campaign for one Lease; the tests take the leader away
// in the three ways a pod goes (SIGKILL, SIGTERM, a network partition) in the middle of booting
// a batch of hosts, and check that the standby finishes the batch without booting any host
// twice, and that the two never act at once.

/** A failover in seconds: a leader that cannot renew stops after 5 s, the Lease expires after 8 s. */
const LEASE = { durationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 500 };
const LEASE_ENV = {
  SITEFORGE_LEASE_DURATION: `${String(LEASE.durationMs / 1000)}s`,
  SITEFORGE_RENEW_DEADLINE: `${String(LEASE.renewDeadlineMs)}ms`,
  SITEFORGE_RETRY_PERIOD: `${String(LEASE.retryPeriodMs)}ms`,
};
/** Hosts per batch. */
const HOSTS = 6;

describe('siteforge controller failover', () => {
  const ns = useNamespace('failover');
  const running: ControllerProcess[] = [];
  const fleets: BmcFleet[] = [];
  let setup: ControllerSetup;
  let batch = 0;

  beforeAll(async () => {
    setup = await controllerSetup();
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => stopController(c)));
    // Leave no host with a finalizer behind for the namespace's deletion.
    const client = runtimeClient();
    for (const host of (await hostsOf(ns.name)).values()) {
      await client.update({ ...host, metadata: { ...host.metadata, finalizers: [] } });
      await client.delete({ ...Gvk.BareMetalHost, name: host.metadata.name, namespace: ns.name });
    }
    await Promise.all(fleets.splice(0).map((f) => f.stop()));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(running.map((c) => stopController(c)));
  });

  /** Starts a controller campaigning for the test's Lease; waits until it knows its role. */
  async function candidate(
    name: string,
    leaseId: string,
    role: 'leader' | 'standby',
    kubeconfig?: string,
  ): Promise<ControllerProcess> {
    const controller = await startControllerProcess({
      name,
      setup,
      namespace: ns.name,
      leaseId,
      env: LEASE_ENV,
      // Both listen at once; BMCs are never given the standby's address.
      ownImagePort: role === 'standby',
      ...(kubeconfig !== undefined && { kubeconfig }),
    });
    running.push(controller);
    try {
      await waitUntil(
        `${name} ready as ${role}`,
        async () => (await controller.readyz()) === `ok: ${role}`,
        30_000,
      );
    } catch (err) {
      const log = controller.lines.slice(-8).map((l) => String(l['msg']));
      throw new Error(
        `${(err as Error).message}; /readyz: ${String(await controller.readyz())}; last log: ${log.join(' | ')}`,
      );
    }
    return controller;
  }

  /** A batch of simulated BMCs, each answering after 60–160 ms, and their hosts on the hub. */
  async function startBatch(): Promise<{ fleet: BmcFleet; hosts: string[] }> {
    const fleet = await startBmcFleet({
      count: HOSTS,
      power: 'Off',
      seed: 7 + batch,
      faults: { latencyMs: 60, jitterMs: 100 },
    });
    fleets.push(fleet);
    const hosts = await createSite(ns.name, `batch${String(batch++)}`, fleet.bmcs);
    return { fleet, hosts };
  }

  /** Every host provisioned and every BMC booted its image exactly once. */
  async function expectEveryHostBootedOnce(fleet: BmcFleet, hosts: readonly string[]) {
    await waitUntil(
      'every host provisioned',
      async () => {
        const all = await hostsOf(ns.name);
        return hosts.every((h) => stateOf(all.get(h)) === 'provisioned');
      },
      60_000,
    );
    for (const bmc of fleet.bmcs)
      expect(isoBoots(bmc), `ISO boots of ${bmcLabel(bmc)}`).toHaveLength(1);
  }

  /** Waits until the leader is mid-batch: BMC requests made, not every host booted yet. */
  async function midBatch(fleet: BmcFleet): Promise<void> {
    await waitUntil(
      'the leader booting the batch',
      () => Promise.resolve(fleet.requestCount() >= 3 * HOSTS),
      60_000,
    );
    expect(fleet.boots.length, 'hosts booted before the leader went').toBeLessThan(HOSTS);
  }

  /** The holder of the Lease. */
  async function holder(leaseId: string): Promise<string | undefined> {
    const lease = await ClientNodeLeaseClient.fromKubeconfig(hubKubeconfig()).get(ns.name, leaseId);
    return lease?.spec.holderIdentity;
  }

  it('lets only the leader act; the standby takes over from a SIGKILLed leader within a lease and finishes the batch', async () => {
    const a = await candidate('a', 'kill', 'leader');
    const b = await candidate('b', 'kill', 'standby');
    expect(await a.metric('siteforge_leader')).toBe(1);
    expect(await b.metric('siteforge_leader')).toBe(0);

    const { fleet, hosts } = await startBatch();
    await midBatch(fleet);
    // Only the leader has reconciled or called a BMC.
    expect(await a.metric('siteforge_redfish_calls_total')).toBeGreaterThan(0);
    expect(await b.metric('siteforge_redfish_calls_total')).toBe(0);
    expect(await b.metric('siteforge_reconcile_total')).toBe(0);
    expect(await b.readyz()).toBe('ok: standby');

    const held = await holder('kill');
    a.kill('SIGKILL');
    const killed = Date.now();
    await a.exited;
    await waitUntil('b leads', async () => (await b.readyz()) === 'ok: leader', 30_000);
    const takeoverMs = Date.now() - killed;
    expect(await holder('kill')).not.toBe(held);
    expect(await b.metric('siteforge_leader')).toBe(1);
    // b waited for the Lease to expire (a SIGKILLed leader releases nothing): its last renewal
    // came shortly before the kill, so half the duration is a bound a loaded machine keeps.
    expect(takeoverMs).toBeGreaterThan(LEASE.durationMs / 2);
    await expectEveryHostBootedOnce(fleet, hosts);
    console.log(`failover after SIGKILL: b led ${String(takeoverMs)} ms after the kill`);
  }, 120_000);

  it('hands over at once when the leader gets SIGTERM, long before its Lease would expire', async () => {
    const a = await candidate('a', 'term', 'leader');
    const b = await candidate('b', 'term', 'standby');
    const { fleet, hosts } = await startBatch();
    await midBatch(fleet);

    a.kill('SIGTERM');
    const signalled = Date.now();
    await waitUntil('b leads', async () => (await b.readyz()) === 'ok: leader', 30_000);
    const takeoverMs = Date.now() - signalled;
    expect(await a.exited).toBe(0);
    // a renewed at most a retry period before the signal, so its Lease held until at least
    // this long after it: b took over through the release, not the expiry.
    expect(takeoverMs).toBeLessThan(LEASE.durationMs - LEASE.retryPeriodMs);
    expect(a.loggedAt('released the lease')).toBeDefined();
    await expectEveryHostBootedOnce(fleet, hosts);
    console.log(`failover after SIGTERM: b led ${String(takeoverMs)} ms after the signal`);
  }, 120_000);

  it('a leader cut off from the hub stops calling BMCs before the standby starts', async () => {
    // a reaches the hub through a proxy the test cuts; its probes and BMCs stay reachable.
    const server = new URL(readKubeconfigServer());
    const proxy = new TcpProxy({ host: server.hostname, port: Number(server.port) });
    const port = await proxy.listen();
    const a = await candidate('a', 'partition', 'leader', kubeconfigThrough(port));
    const b = await candidate('b', 'partition', 'standby');
    try {
      const { fleet, hosts } = await startBatch();
      await midBatch(fleet);

      proxy.down = true;
      proxy.cut();
      await waitUntil('b leads', async () => (await b.readyz()) === 'ok: leader', 30_000);
      // Sampled once b leads: if a still called BMCs after b took over, its count grows later.
      const aCallsWhenBLed = await a.metric('siteforge_redfish_calls_total');
      await expectEveryHostBootedOnce(fleet, hosts);
      expect(await a.metric('siteforge_redfish_calls_total')).toBe(aCallsWhenBLed);
      expect(await a.metric('siteforge_leader')).toBe(0);
      const aStopped = a.loggedAt('leadership lost');
      const bLeads = b.loggedAt('leading: reconciling');
      expect(aStopped, 'a logs that it stopped acting').toBeDefined();
      expect(bLeads).toBeDefined();
      expect(aStopped!).toBeLessThan(bLeads!);
      console.log(`partition: a stopped acting ${String(bLeads! - aStopped!)} ms before b started`);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

function readKubeconfigServer(): string {
  const config = parse(readFileSync(hubKubeconfig(), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  return config.clusters[0]!.cluster.server;
}

/** The hub's admin kubeconfig with its server at 127.0.0.1:`port`. */
function kubeconfigThrough(port: number): string {
  const config = parse(readFileSync(hubKubeconfig(), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  for (const entry of config.clusters) entry.cluster.server = `https://127.0.0.1:${String(port)}`;
  const file = join(mkdtempSync(join(tmpdir(), 'siteforge-proxied-')), 'kubeconfig');
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}
