/**
 * A cluster of three control-plane nodes and two workers installed by the assisted core of
 * `siteforge controller` on a real hub, with the installation held until the user lets it go:
 * the SiteConfig compiled and applied as a user would (no BareMetalHosts: the discovery agents
 * are scripted), the Agents given their roles and approved by the user, the hold shown in the
 * AgentClusterInstall's conditions, then the installation to completion with one bootstrap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACI,
  CLUSTER_DEPLOYMENT,
  ScriptedAgents,
  agentsIn,
  applySite,
  assistedEnvironment,
  conditionsText,
  discoveryFromIso,
  editAgentSpec,
  hasCondition,
  hostOf,
  removeSite,
  standardSite,
  startAssistedController,
  uniqueName,
  updateWith,
  waitForSite,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { field, hubRuntimeClient } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const site = standardSite(uniqueName('astd'));
const ns = site.namespace;
const hosts = site.nodes.map((node, i) => hostOf(site, node, 10 + i));
const roleOf = new Map(hosts.map((h, i) => [h.hostId, site.nodes[i]!.role]));
let env: AssistedEnvironment;
let controller: InProcessController;
let agents: ScriptedAgents | undefined;

const aci = () => client.get({ ...ACI, namespace: ns, name: site.name });
const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 90_000) =>
  waitForSite(client, site, what, check, { controller, timeoutMs });
const setHold = (hold: boolean) =>
  updateWith(client, { ...ACI, namespace: ns, name: site.name }, (live) => ({
    ...live,
    spec: { ...(live['spec'] as Record<string, unknown>), holdInstallation: hold },
  }));

beforeAll(async () => {
  env = await assistedEnvironment();
  await applySite(client, site);
  await setHold(true);
  controller = await startAssistedController(env, [ns]);
  agents = new ScriptedAgents(await discoveryFromIso(client, ns, site.name), hosts);
  agents.start();
}, 120_000);

afterAll(async () => {
  await agents?.stop();
  await controller.stop();
  await removeSite(client, site);
  await env.close();
}, 120_000);

describe('a 3+2 site installed by the assisted core', () => {
  it('registers five Agents the user gives their roles and approves', async () => {
    await until('five Agents with inventories', async () => {
      const agents = await agentsIn(client, ns);
      return (
        agents.length === 5 && agents.every((a) => field(a, 'status', 'inventory') !== undefined)
      );
    });
    for (const host of hosts)
      await editAgentSpec(client, ns, host.hostId, {
        approved: true,
        role: roleOf.get(host.hostId),
        hostname: host.hostname,
      });
    const ready = await until('every Agent ready', async () => {
      const agents = await agentsIn(client, ns);
      return (
        agents.length === 5 &&
        agents.every((a) => hasCondition(a, 'RequirementsMet', 'True', 'AgentIsReady')) &&
        agents
      );
    });
    // Every step reply was taken (connectivity, free addresses, VIP verification…).
    expect(agents?.surprises()).toEqual({});
    for (const agent of ready) {
      expect(field(agent, 'status', 'role')).toBe(roleOf.get(agent.metadata.name));
      expect(conditionsText(agent)['Validated']).toBe(
        "True ValidationsPassing: The agent's validations are passing",
      );
    }
  }, 150_000);

  it('holds the installation while holdInstallation is set, and says how to let it go', async () => {
    const held = await until('the installation is on hold', async () => {
      const a = await aci();
      return hasCondition(a, 'Completed', 'False', 'InstallationOnHold') && a;
    });
    expect(conditionsText(held)).toMatchObject({
      Completed:
        'False InstallationOnHold: The installation is on hold. To unhold set holdInstallation to false',
      RequirementsMet: 'True ClusterIsReady: The cluster is ready to begin the installation',
    });
    expect(field(held, 'status', 'debugInfo', 'state')).toBe('ready');
  }, 120_000);

  it('installs once the hold is lifted: three masters, one of them the bootstrap, two workers', async () => {
    await setHold(false);
    const done = await until(
      'the AgentClusterInstall completes',
      async () => {
        const a = await aci();
        return hasCondition(a, 'Completed', 'True', 'InstallationCompleted') && a;
      },
      150_000,
    );
    expect(conditionsText(done)).toMatchObject({
      Completed: 'True InstallationCompleted: The installation has completed: Cluster is installed',
      Stopped:
        'True InstallationCompleted: The installation has stopped because it completed successfully',
    });
    expect(agents?.surprises()).toEqual({});
    const installed = await until('every Agent installed', async () => {
      const list = await agentsIn(client, ns);
      return (
        list.every((a) => hasCondition(a, 'Installed', 'True', 'InstallationCompleted')) && list
      );
    });
    const bootstraps = installed.filter((a) => field(a, 'status', 'bootstrap') === true);
    expect(bootstraps).toHaveLength(1);
    expect(field(bootstraps[0], 'status', 'role')).toBe('master');
    expect(installed.map((a) => field(a, 'status', 'role')).sort()).toEqual([
      'master',
      'master',
      'master',
      'worker',
      'worker',
    ]);
    // Each host walked its role's stages (the bootstrap's include waiting for the control plane).
    expect(agents?.reportedStages(bootstraps[0]!.metadata.name)).toContain(
      'Waiting for controller',
    );
    const worker = installed.find((a) => field(a, 'status', 'role') === 'worker')!;
    expect(agents?.reportedStages(worker.metadata.name)).toContain('Waiting for ignition');
    const cd = await client.get({ ...CLUSTER_DEPLOYMENT, namespace: ns, name: site.name });
    expect(field(cd, 'spec', 'installed')).toBe(true);
  }, 240_000);
});
