/**
 * Simulated edge sites provisioned by `siteforge controller` (redfish mode, assisted core,
 * simulated installer) on the test run's hub: SiteConfigs compiled by the real compiler, the
 * BareMetalHosts pointed at simulated BMCs, and every host booting only because its BMC was
 * told to. Its agent reads the ISO through the BMC's image URL, takes its settings and static
 * network from the ISO's ignition, registers and installs; every agent API exchange is checked
 * against docs/openapi/assisted-agent-api.yaml. Faults show as a user would see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimFleet } from '../../src/sim/sim-fleet.js';
import type { SimFleet } from '../../src/sim/sim-fleet.js';
import { hostsOfManifests } from '../../src/sim/site-hosts.js';
import { faultsFor, parseFaultRule } from '../../src/sim/faults.js';
import { AgentApiConformance } from '../assisted/agent-api/openapi.js';
import {
  CLUSTER_DEPLOYMENT,
  assistedEnvironment,
  conditionOf,
  startAssistedController,
  uniqueName,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, BMH, field, hubRuntimeClient, waitFor } from '../support/controller-hub.js';
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
const good = uniqueName('simok');
const small = uniqueName('simsmall');
const wired = uniqueName('simmac');
const dead = uniqueName('simdead');

const compiled = compileSites([
  snoSiteText(good, 11),
  snoSiteText(small, 12),
  snoSiteText(wired, 13),
  snoSiteText(dead, 14),
]);
const rules = [`${small}=too-small`, `${wired}=wrong-mac`, `${dead}=never-boots`].map(
  parseFaultRule,
);
const specs = hostsOfManifests(compiled, (host) => faultsFor(rules, host));
const namespaces = [good, small, wired, dead];
const conformance = new AgentApiConformance();
let env: AssistedEnvironment | undefined;
let controller: InProcessController | undefined;
let fleet: SimFleet;

beforeAll(async () => {
  env = await assistedEnvironment();
  fleet = await startSimFleet({
    hosts: specs,
    // The reboot takes long enough for the controller to eject the ISO when the host reports
    // Rebooting, as on real servers; a host that reboots before then boots the ISO again.
    timings: { stageMs: 300, pollMs: 500, postMs: 300, rebootMs: 20_000 },
    onExchange: conformance.check,
  });
  await applySimulatedSites(client, compiled, fleet);
  controller = await startAssistedController(env, namespaces);
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await (fleet as SimFleet | undefined)?.stop();
  await removeSimulatedSites(client, namespaces);
  await env?.close();
}, 120_000);

const host = (name: string) => fleet.hosts.find((h) => h.spec.cluster === name)!;

const siteState = (namespace: string) => simulatedSiteAccount(client, namespace, fleet);

describe('a simulated fleet provisioned by the controller', () => {
  it('installs a single-node site: BMC boot, ISO read by ranges, discovery, install, disk boot', async () => {
    await waitFor(
      `${good} installed`,
      async () => {
        const cd = await client.get({ ...CLUSTER_DEPLOYMENT, namespace: good, name: good });
        return field(cd, 'spec', 'installed') === true;
      },
      { controller, timeoutMs: 150_000 },
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await siteState(good)}`);
    });
    const sim = host(good);
    await waitFor('the host reports done', () => Promise.resolve(sim.phase === 'done'), {
      timeoutMs: 30_000,
    });
    // The BMC booted the ISO once (the restart of the Dell BIOS job that set the boot mode came
    // before the insert and booted the disk); the controller ejected it before the installed
    // host restarted, so the firmware (virtual CD first in its boot order) booted the disk.
    const events = sim.bmc.events.map((e) => `${e.kind} ${e.detail}`);
    const restart = events.indexOf('power restart from host');
    expect(events.slice(0, restart).filter((e) => e.startsWith('boot http'))).toHaveLength(1);
    expect(sim.isoBoots).toBe(1);
    expect(events.slice(0, restart)).toContain('eject 1');
    expect(events.slice(restart + 1)).toEqual(['boot disk']);
    const agents = (await client.list(AGENT, { namespace: good })).items;
    expect(agents).toHaveLength(1);
    const agent = agents[0]!;
    // The static address came from the ISO's ignition (the NMStateConfig SiteForge compiled).
    const nics = field(agent, 'status', 'inventory', 'interfaces') as { ipV4Addresses: string[] }[];
    expect(nics[0]!.ipV4Addresses).toEqual(['10.77.11.20/24']);
    // The root device hint chose the disk at its by-path.
    expect(field(agent, 'spec', 'installation_disk_id')).toMatch(/^\/dev\/disk\/by-id\/wwn-/);
    expect(conformance.violations).toEqual([]);
  }, 200_000);

  it('keeps a too-small host out of the install with the hardware validation message', async () => {
    const agent = await waitFor(
      'the small host registered',
      async () => (await client.list(AGENT, { namespace: small })).items[0],
      { controller, timeoutMs: 60_000 },
    );
    const validated = await waitFor(
      'the hardware validation fails',
      async () => {
        const live = await client.get({ ...AGENT, namespace: small, name: agent.metadata.name });
        const c = conditionOf(live, 'Validated');
        return c?.status === 'False' && c;
      },
      { controller, timeoutMs: 60_000 },
    );
    expect(validated.message).toMatch(/CPU cores|memory/);
    // The demo's table and the dashboard: insufficient, with the Agent's message as written.
    const status = await waitFor(
      'the site shows insufficient',
      async () => {
        const s = await siteStatusOf(client, small);
        return s?.state === 'insufficient' && s;
      },
      { controller, timeoutMs: 30_000 },
    );
    expect(status.problem).toMatchObject({
      severity: 'error',
      source: { kind: 'Agent' },
      message: validated.message,
    });
  }, 150_000);

  it('leaves a host with a wrong MAC unpaired with its BareMetalHost, so never approved', async () => {
    const agent = await waitFor(
      'the mis-wired host registered',
      async () => (await client.list(AGENT, { namespace: wired })).items[0],
      { controller, timeoutMs: 60_000 },
    );
    expect(field(agent, 'spec', 'approved')).toBe(false);
    // The demo's table and the dashboard: validating, waiting for an approval that only a
    // BareMetalHost with the host's MAC would give.
    const status = await siteStatusOf(client, wired);
    expect(status?.state).toBe('validating');
    expect(status?.problem).toMatchObject({
      severity: 'warning',
      source: { kind: 'Agent', name: agent.metadata.name },
      reason: 'AgentIsNotApproved',
      message: 'The agent is not approved',
    });
    expect(status?.problem?.hint).toContain('its MAC matches');
  }, 90_000);

  it('shows a host that never boots as provisioned on its BMC, with no Agent', async () => {
    await waitFor(
      'the BMC was told to boot the ISO',
      async () => {
        const bmh = (await client.list(BMH, { namespace: dead })).items[0];
        return field(bmh, 'status', 'provisioning', 'state') === 'provisioned';
      },
      { controller, timeoutMs: 120_000 },
    );
    const sim = host(dead);
    expect(sim.phase).toBe('hung');
    expect(sim.bmc.events.map((e) => e.kind)).toContain('boot');
    expect((await client.list(AGENT, { namespace: dead })).items).toEqual([]);
    // Nothing on the hub says why: the site stays booting (the demo adds its stuck hint).
    const status = await siteStatusOf(client, dead);
    expect(status?.state).toBe('booting');
    expect(status?.problem).toBeUndefined();
  }, 150_000);
});
