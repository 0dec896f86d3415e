/**
 * The faults of the demo (`--fault`) as a user sees them, end to end: simulated hosts booted by
 * `siteforge controller` (redfish mode, assisted core) on the test run's hub, and each site's
 * state and message read as the demo's table and the dashboard read them (src/fleet).
 * A BMC that answers 500 keeps its site from booting with the BMC's error; a host whose network
 * goes away mid-install and one whose installer hangs fail their sites with assisted-service's
 * timeout messages once the controller's clock has passed HOST_MAX_DISCONNECTION_TIME and the
 * stage's timeout (the test moves that clock forward, in steps shorter than the disconnection
 * time so the host that still checks in never looks disconnected).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteStatus } from '../../src/fleet/index.js';
import { faultsFor, parseFaultRule } from '../../src/sim/faults.js';
import { HostPhase } from '../../src/sim/sim-host.js';
import { startSimFleet } from '../../src/sim/sim-fleet.js';
import type { SimFleet } from '../../src/sim/sim-fleet.js';
import { hostsOfManifests } from '../../src/sim/site-hosts.js';
import {
  assistedEnvironment,
  jumpingClock,
  startAssistedController,
  uniqueName,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { BMH, field, hubRuntimeClient, waitFor } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import {
  applySimulatedSites,
  compileSites,
  removeSimulatedSites,
  simulatedSiteAccount,
  siteStatusOf,
  snoSiteText,
} from '../support/sim-hub.js';

const client = hubRuntimeClient();
const bmcBroken = uniqueName('simbmc');
const lost = uniqueName('simlost');
const stuck = uniqueName('simhang');
const namespaces = [bmcBroken, lost, stuck];
const compiled = compileSites([
  snoSiteText(bmcBroken, 21),
  snoSiteText(lost, 22),
  snoSiteText(stuck, 23),
]);
const rules = [`${bmcBroken}=bmc-errors`, `${lost}=disconnect`, `${stuck}=stage-timeout`].map(
  parseFaultRule,
);
const MINUTE_MS = 60_000;
const clock = jumpingClock();
/** Agent API calls per host (systemUuid), to know a host checked in after the clock moved. */
const calls = new Map<string, number>();
let env: AssistedEnvironment | undefined;
let controller: InProcessController | undefined;
let fleet: SimFleet;

beforeAll(async () => {
  env = await assistedEnvironment();
  fleet = await startSimFleet({
    hosts: hostsOfManifests(compiled, (host) => faultsFor(rules, host)),
    timings: { stageMs: 300, pollMs: 500, postMs: 300, rebootMs: 20_000 },
    onExchange: (exchange) => {
      const id = /\/hosts\/([0-9a-f-]{36})/.exec(exchange.path)?.[1];
      if (id !== undefined) calls.set(id, (calls.get(id) ?? 0) + 1);
    },
  });
  await applySimulatedSites(client, compiled, fleet);
  controller = await startAssistedController(env, namespaces, { clock });
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await (fleet as SimFleet | undefined)?.stop();
  await removeSimulatedSites(client, namespaces);
  await env?.close();
}, 120_000);

const simHost = (cluster: string) => fleet.hosts.find((h) => h.spec.cluster === cluster)!;

/** Waits for `check` on the site's status; on timeout, says where the site is. */
async function untilSite(
  namespace: string,
  what: string,
  check: (status: SiteStatus) => boolean,
  timeoutMs: number,
): Promise<SiteStatus> {
  return waitFor(
    `${namespace}: ${what}`,
    async () => {
      const status = await siteStatusOf(client, namespace);
      return status !== undefined && check(status) && status;
    },
    { controller, timeoutMs },
  ).catch(async (err: unknown) => {
    throw new Error(`${String(err)}\n${await simulatedSiteAccount(client, namespace, fleet)}`);
  });
}

/**
 * Failed, with the Agent's reason shown. The cluster's status can be written a moment before
 * its Agent's (two controllers), and meanwhile the site shows the cluster's message.
 */
const failedByAgent = (s: SiteStatus): boolean =>
  s.state === 'failed' && s.problem?.source.kind === 'Agent';

describe('faults of simulated hosts, as the demo and the dashboard show them', () => {
  it('bmc-errors: the site stays booting, with the BMC error its BareMetalHost shows', async () => {
    const status = await untilSite(
      bmcBroken,
      'a BareMetalHost error is shown',
      (s) => s.problem?.source.kind === 'BareMetalHost',
      120_000,
    );
    const bmh = (await client.list(BMH, { namespace: bmcBroken })).items[0];
    expect(field(bmh, 'status', 'operationalStatus')).toBe('error');
    expect(status.problem).toMatchObject({
      severity: 'error',
      reason: field(bmh, 'status', 'errorType'),
      message: field(bmh, 'status', 'errorMessage'),
    });
    expect(status.state).toBe('booting');
    expect(status.problem?.message).toBe(
      // A Dell starts in Legacy mode: its first change is the boot mode, before the media.
      'Failed to boot the host from virtual media: PATCH /redfish/v1/Systems/System.Embedded.1: 500 Base.1.8.ServiceTemporarilyUnavailable request failed: injected fault',
    );
    // The host behind it was never powered on with the ISO.
    expect(simHost(bmcBroken).isoBoots).toBe(0);
  }, 150_000);

  it('disconnect and stage-timeout: both sites fail with the timeout messages of assisted-service', async () => {
    await waitFor(
      'both faults struck after "Writing image to disk"',
      () =>
        Promise.resolve(
          simHost(lost).phase === HostPhase.Unplugged &&
            simHost(stuck).detail?.includes('fault stage-timeout') === true,
        ),
      { controller, timeoutMs: 150_000 },
    ).catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}\n${await simulatedSiteAccount(client, lost, fleet)}\n${await simulatedSiteAccount(client, stuck, fleet)}`,
      );
    });
    const installing = await siteStatusOf(client, stuck);
    expect(installing).toMatchObject({ state: 'installing', stage: 'Writing image to disk' });

    // 32 minutes in steps of 2: past the 3-minute disconnection time and the 30 minutes of
    // "Writing image to disk". After every step the hanging host checks in twice (the second
    // call surely started after the step), so it never looks disconnected.
    const hangingId = simHost(stuck).spec.systemUuid;
    for (let step = 0; step < 16; step++) {
      clock.jump(2 * MINUTE_MS);
      const before = calls.get(hangingId) ?? 0;
      await waitFor(
        `the hanging host checks in after the clock moved ${String(2 * (step + 1))} minutes`,
        () => Promise.resolve((calls.get(hangingId) ?? 0) >= before + 2),
        { controller, timeoutMs: 30_000 },
      );
    }

    const disconnected = await untilSite(lost, 'failed', failedByAgent, 60_000);
    expect(disconnected.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'Agent' },
      reason: 'InstallationFailed',
      message:
        'The installation has failed: Host failed to install due to timeout while connecting to host during the installation phase.',
    });
    const timedOut = await untilSite(stuck, 'failed', failedByAgent, 60_000);
    expect(timedOut.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'Agent' },
      reason: 'InstallationFailed',
      message:
        'The installation has failed: Host failed to install because its installation stage Writing image to disk did not sufficiently progress in the last 30m0s.',
    });
  }, 300_000);
});
