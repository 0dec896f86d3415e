import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASYNC_TASKS,
  GENERIC,
  IDRAC9,
  ILO6,
  LENOVO_XCC,
  SUPERMICRO,
  startSimulatedBmc,
} from '../../src/bmac/redfish/sim/index.js';
import type { Personality, SimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import {
  BMH,
  bareMetalHost,
  createBmcSecret,
  createInfraEnv,
  eventsOf,
  field,
  hubRuntimeClient,
  longIsoUrl,
  releaseNamespace,
  startInProcessController,
  waitFor,
} from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import { useNamespace } from '../support/hub.js';

// `siteforge controller --mode redfish` on the real hub against simulated BMCs of several
// vendors, some of them faulty: a BMC that refuses the virtual media insert shows the error in
// its host's status while the others boot, and recovers once the fault is gone; a BMC whose
// sessions expire between polls boots all the same; a BMC that never answers holds no one up.

const credentials = { username: 'root', password: 'sim-faults-pw-83e1' };

interface Host {
  readonly name: string;
  readonly personality: Personality;
  readonly sessionTtlMs?: number;
  bmc?: SimulatedBmc;
}

const HEALTHY: Host[] = [
  { name: 'idrac9', personality: IDRAC9 },
  { name: 'ilo6', personality: ILO6 },
  { name: 'supermicro', personality: SUPERMICRO },
  { name: 'xcc', personality: LENOVO_XCC },
  // Sessions end 300 ms after their last use: every power poll logs in again.
  { name: 'expiring', personality: ASYNC_TASKS, sessionTtlMs: 100 },
];
const FAULTY: Host = { name: 'faulty', personality: GENERIC };
const DEAD: Host = { name: 'dead', personality: GENERIC };

describe('siteforge controller --mode redfish on the hub, with vendor quirks and faulty BMCs', () => {
  const ns = useNamespace('e2e-faults');
  const client = hubRuntimeClient();
  const longUrl = longIsoUrl('http://127.0.0.1:9', 'e2e-faults');
  let controller: InProcessController;
  let started = 0;

  const bmh = (name: string): Promise<KubeObject | undefined> =>
    client.get({ ...BMH, namespace: ns.name, name });

  beforeAll(async () => {
    for (const host of [...HEALTHY, FAULTY, DEAD])
      host.bmc = await startSimulatedBmc({
        personality: host.personality,
        credentials,
        power: 'Off',
        ...(host.sessionTtlMs === undefined ? {} : { sessionTtlMs: host.sessionTtlMs }),
      });
    // Every virtual media insert fails with a 500, which is not worth a retry.
    FAULTY.bmc!.setFaults({
      errorRate: 1,
      errorStatus: 500,
      paths: /VirtualMedia/,
      methods: ['POST', 'PATCH'],
    });
    // Accepts connections, answers nothing.
    DEAD.bmc!.setFaults({ timeoutRate: 1, paths: /./ });

    await createBmcSecret(client, ns.name, 'bmc', credentials);
    await createInfraEnv(client, ns.name, 'site', { isoDownloadURL: longUrl });
    let i = 0;
    for (const host of [...HEALTHY, FAULTY, DEAD])
      await client.create(
        bareMetalHost(ns.name, host.name, {
          infraEnv: 'site',
          address: host.bmc!.address,
          credentialsName: 'bmc',
          bootMACAddress: `52:54:00:fa:00:${(i++).toString(16).padStart(2, '0')}`,
        }),
      );
    started = Date.now();
    controller = await startInProcessController({ mode: 'redfish', namespaces: [ns.name] });
  }, 60_000);

  afterAll(async () => {
    // The dead BMC's request in flight (60 s to its timeout) does not hold the stop up: this
    // hook's own 30 s bound would fail first.
    expect(await controller.stop()).toBe(0);
    await Promise.all([...HEALTHY, FAULTY, DEAD].map((h) => h.bmc!.stop()));
    await releaseNamespace(client, ns.name);
    expect(JSON.stringify(controller.lines)).not.toContain(credentials.password);
  }, 30_000);

  it('boots every healthy host from the short URL while one BMC fails and one never answers', async () => {
    for (const host of HEALTHY)
      await waitFor(
        `${host.name} provisioned`,
        async () =>
          field(await bmh(host.name), 'status', 'provisioning', 'state') === 'provisioned',
        { controller, timeoutMs: 60_000 },
      );
    const bootS = (Date.now() - started) / 1000;
    for (const host of HEALTHY) {
      const state = host.bmc!.state();
      expect(state.power).toBe('On');
      expect(state.bootedImage?.startsWith(`${controller.imageOrigin!}/images/`)).toBe(true);
      // Booted the ISO once (iDRAC first boots from disk to run the BIOS job of the boot mode).
      expect(host.bmc!.events.filter((e) => e.kind === 'boot' && e.detail !== 'disk')).toHaveLength(
        1,
      );
      expect(field(await bmh(host.name), 'status')).toMatchObject({
        operationalStatus: 'OK',
        errorCount: 0,
        poweredOn: true,
      });
    }
    // The expiring BMC's sessions ran out along the way: it was logged in to again.
    expect(HEALTHY.at(-1)!.bmc!.counts['POST Sessions']).toBeGreaterThan(2);
    // The dead BMC's host still waits for its first answer, without an error yet.
    const dead = await bmh(DEAD.name);
    expect(field(dead, 'status', 'provisioning', 'state')).toBe('registering');
    expect(field(dead, 'status', 'errorCount') ?? 0).toBe(0);
    // Not an assertion: printed so the time can be watched.
    console.log(`${String(HEALTHY.length)} healthy hosts booted in ${bootS.toFixed(1)} s`);
  }, 90_000);

  it('shows the failed insert in the faulty host’s status as BMO would, and an Event', async () => {
    const status = await waitFor(
      'the faulty host in error',
      async () => {
        const s = field(await bmh(FAULTY.name), 'status') as Record<string, unknown> | undefined;
        return s?.['errorType'] === 'provisioning error' ? s : undefined;
      },
      { controller },
    );
    expect(status).toMatchObject({
      operationalStatus: 'error',
      errorType: 'provisioning error',
      errorCount: 1,
      provisioning: { state: 'provisioning' },
    });
    expect(status['errorMessage']).toMatch(/^Failed to boot the host from virtual media: .*500/);
    expect(status['errorMessage']).not.toContain(credentials.password);
    expect(FAULTY.bmc!.state().power).toBe('Off');
    const events = await eventsOf(client, ns.name, 'BareMetalHost', FAULTY.name);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'ProvisioningError' }),
    );
  }, 60_000);

  it('recovers once the fault is cleared: boots, and the error is gone', async () => {
    FAULTY.bmc!.setFaults(undefined);
    // The retry comes after BMO's first backoff (15 s, jittered down by at most a quarter).
    const status = await waitFor(
      'the faulty host provisioned',
      async () => {
        const s = field(await bmh(FAULTY.name), 'status') as Record<string, unknown> | undefined;
        return field(s as KubeObject, 'provisioning', 'state') === 'provisioned' ? s : undefined;
      },
      { controller, timeoutMs: 40_000 },
    );
    expect(status).toMatchObject({ operationalStatus: 'OK', errorCount: 0, errorMessage: '' });
    expect(status['errorType'] ?? '').toBe('');
    expect(FAULTY.bmc!.state().bootedImage?.startsWith(`${controller.imageOrigin!}/images/`)).toBe(
      true,
    );
    // Still nothing from the dead BMC, and it held no one up.
    expect(field(await bmh(DEAD.name), 'status', 'provisioning', 'state')).toBe('registering');
  }, 60_000);
});
