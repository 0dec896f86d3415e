/**
 * Discovery hosts as a user sees them on their Agents, on a real hub with the assisted core of
 * `siteforge controller`: a host with too little RAM fails its validations with
 * assisted-service's messages until it comes back with more; a host that stops calling is
 * shown disconnected once HOST_MAX_DISCONNECTION_TIME has passed (on a clock the test moves
 * forward) and connected again when it calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/index.js';
import {
  ScriptedAgents,
  applySite,
  assistedEnvironment,
  conditionsText,
  discoveryFromIso,
  hasCondition,
  hostOf,
  jumpingClock,
  removeSite,
  snoSite,
  startAssistedController,
  uniqueName,
  waitForSite,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, field, hubRuntimeClient } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const site = snoSite(uniqueName('ahost'));
const ns = site.namespace;
const host = hostOf(site, site.nodes[0]!, 2, { ramMiB: 8 * 1024 });
const clock = jumpingClock();
let env: AssistedEnvironment;
let controller: InProcessController;
let agents: ScriptedAgents | undefined;

const agent = () => client.get({ ...AGENT, namespace: ns, name: host.hostId });
const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000) =>
  waitForSite(client, site, what, check, { controller, timeoutMs });

/** The messages of the validations that do not pass, as the Validated condition joins them. */
function failingMessages(object: KubeObject | undefined): string[] {
  const info = field(object, 'status', 'validationsInfo') as
    Record<string, { id: string; status: string; message: string }[]> | undefined;
  return Object.values(info ?? {})
    .flat()
    .filter((v) => v.status !== 'success' && v.status !== 'disabled')
    .map((v) => v.message);
}

beforeAll(async () => {
  env = await assistedEnvironment();
  await applySite(client, site);
  controller = await startAssistedController(env, [ns], { clock });
  agents = new ScriptedAgents(await discoveryFromIso(client, ns, site.name), [host]);
  agents.start();
}, 120_000);

afterAll(async () => {
  await agents?.stop();
  await controller.stop();
  await removeSite(client, site);
  await env.close();
}, 120_000);

describe('Agent validations and connection on a real hub', () => {
  it('shows a host with 8 GiB of RAM failing the memory validations with the reasons', async () => {
    const failing = await until('the Agent fails its validations', async () => {
      const a = await agent();
      return (
        hasCondition(a, 'Validated', 'False', 'ValidationsFailing', /RAM/) &&
        hasCondition(a, 'RequirementsMet', 'False', 'AgentNotReady') &&
        a
      );
    });
    const messages = failingMessages(failing);
    expect(messages.join('\n')).toMatch(
      /The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8\.00 GiB, found only 8\.00 GiB|Require at least 16\.00 GiB RAM for role master, found only 8\.00 GiB/,
    );
    expect(conditionsText(failing)).toMatchObject({
      Validated: `False ValidationsFailing: The agent's validations are failing: ${messages.join(',')}`,
      RequirementsMet: 'False AgentNotReady: The agent is not ready to begin the installation',
      Installed: 'False InstallationNotStarted: The installation has not yet started',
      Connected:
        "True AgentIsConnected: The agent's connection to the installation service is unimpaired",
    });
    expect(field(failing, 'status', 'debugInfo', 'state')).toBe('insufficient');
    expect(String(field(failing, 'status', 'debugInfo', 'stateInfo'))).toMatch(
      /^Host (does not meet the minimum hardware requirements|cannot be installed due to following failing validation\(s\)): /,
    );
  }, 90_000);

  it('passes them once the host boots again with 64 GiB and re-registers', async () => {
    agents?.replace(host.hostId, { ramMiB: 64 * 1024 });
    const passing = await until('the Agent passes its validations', async () => {
      const a = await agent();
      return (
        hasCondition(a, 'Validated', 'True', 'ValidationsPassing') &&
        hasCondition(a, 'RequirementsMet', 'False', 'AgentIsNotApproved') &&
        a
      );
    });
    expect(conditionsText(passing)).toMatchObject({
      Validated: "True ValidationsPassing: The agent's validations are passing",
      RequirementsMet: 'False AgentIsNotApproved: The agent is not approved',
    });
    expect(field(passing, 'status', 'debugInfo', 'state')).toBe('known');
    expect(field(passing, 'status', 'inventory', 'memory', 'physicalBytes')).toBe(64 * 1024 ** 3);
  }, 90_000);

  it('shows a host that stopped calling disconnected once the disconnection time has passed', async () => {
    agents?.pause(host.hostId);
    // Past HOST_MAX_DISCONNECTION_TIME (3m; a bootstrap host gets 2m more) without a call.
    clock.jump(6 * 60_000);
    const gone = await until('the Agent is disconnected', async () => {
      const a = await agent();
      return hasCondition(a, 'Connected', 'False', 'AgentIsDisconnected') && a;
    });
    expect(conditionsText(gone)).toMatchObject({
      Connected:
        'False AgentIsDisconnected: The agent has not contacted the installation service in some time, user action should be taken',
      RequirementsMet: 'False AgentNotReady: The agent is not ready to begin the installation',
    });
    expect(field(gone, 'status', 'debugInfo', 'state')).toBe('disconnected');
    expect(field(gone, 'status', 'debugInfo', 'stateInfo')).toBe(
      'Host has stopped communicating with the installation service',
    );
  }, 90_000);

  it('shows it connected again once it calls', async () => {
    agents?.resume(host.hostId);
    const back = await until('the Agent is connected again', async () => {
      const a = await agent();
      return (
        hasCondition(a, 'Connected', 'True', 'AgentIsConnected') &&
        hasCondition(a, 'Validated', 'True', 'ValidationsPassing') &&
        a
      );
    });
    expect(field(back, 'status', 'debugInfo', 'state')).toBe('known');
    expect(agents?.surprises()).toEqual({});
  }, 90_000);
});
