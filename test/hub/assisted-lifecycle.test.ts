/**
 * What becomes of an installation that is held, that goes wrong, and of a site that is deleted,
 * on a real hub with the assisted core of `siteforge controller`: an installation held by
 * `holdInstallation` waits, saying so, until the user lets it go; a host whose installer hangs in a stage is
 * failed once the stage's timeout has passed (on a clock the test moves forward), with
 * assisted-service's texts on the Agent and the AgentClusterInstall; deleting the site's
 * ClusterDeployment takes its AgentClusterInstall and the Agents of its InfraEnv with it, and
 * every finalizer is released (assisted.md §8).
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
  jumpingClock,
  removeSite,
  snoSite,
  startAssistedController,
  uniqueName,
  updateWith,
  waitForSite,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, INFRA_ENV, field, hubRuntimeClient } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const site = snoSite(uniqueName('alife'));
const ns = site.namespace;
const host = hostOf(site, site.nodes[0]!, 3);
const clock = jumpingClock();
let env: AssistedEnvironment;
let controller: InProcessController;
let agents: ScriptedAgents | undefined;

const agent = () => client.get({ ...AGENT, namespace: ns, name: host.hostId });
const aci = () => client.get({ ...ACI, namespace: ns, name: site.name });
const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 90_000) =>
  waitForSite(client, site, what, check, { controller, timeoutMs });

beforeAll(async () => {
  env = await assistedEnvironment();
  await applySite(client, site);
  await updateWith(client, { ...ACI, namespace: ns, name: site.name }, (live) => ({
    ...live,
    spec: { ...(live['spec'] as Record<string, unknown>), holdInstallation: true },
  }));
  controller = await startAssistedController(env, [ns], { clock });
  agents = new ScriptedAgents(await discoveryFromIso(client, ns, site.name), [host]);
  // The installer hangs once the host has joined (after its reboot: only the stage can time out).
  agents.stopAfter(host.hostId, 'Joined');
  agents.start();
}, 120_000);

afterAll(async () => {
  await agents?.stop();
  await controller.stop();
  await removeSite(client, site);
  await env.close();
}, 120_000);

describe('a stage timeout and the deletion of a site', () => {
  it('holds the installation of a ready cluster until holdInstallation is set to false', async () => {
    await until('the Agent exists', agent);
    await editAgentSpec(client, ns, host.hostId, { approved: true });
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
    // The Agent is written by its own controller: it shows the host known soon after, not
    // necessarily in the same instant as the AgentClusterInstall.
    const known = await until('the Agent shows the host known', async () => {
      const a = await agent();
      return field(a, 'status', 'debugInfo', 'state') === 'known' && a;
    });
    expect(field(known, 'status', 'debugInfo', 'stateInfo')).toBe('Host is ready to be installed');
  }, 120_000);

  it('installs once the hold is lifted, until the host has joined', async () => {
    await updateWith(client, { ...ACI, namespace: ns, name: site.name }, (live) => ({
      ...live,
      spec: { ...(live['spec'] as Record<string, unknown>), holdInstallation: false },
    }));
    const joined = await until(
      'the host reports Joined',
      async () => {
        const a = await agent();
        return field(a, 'status', 'progress', 'currentStage') === 'Joined' && a;
      },
      120_000,
    );
    expect(conditionsText(joined)['Installed']).toBe(
      'False InstallationInProgress: The installation is in progress: Joined',
    );
  }, 150_000);

  it('fails the host when the Joined stage outlasts its 60 minutes, and the cluster with it', async () => {
    clock.jump(61 * 60_000);
    const failed = await until('the Agent has failed', async () => {
      const a = await agent();
      return hasCondition(a, 'Installed', 'False', 'InstallationFailed') && a;
    });
    expect(conditionsText(failed)).toMatchObject({
      Installed:
        'False InstallationFailed: The installation has failed: Host failed to install because its installation stage Joined took longer than expected 1h0m0s',
      RequirementsMet: 'True AgentInstallationStopped: The agent installation stopped',
    });
    expect(field(failed, 'status', 'debugInfo', 'state')).toBe('error');
    const stopped = await until('the AgentClusterInstall has failed', async () => {
      const a = await aci();
      return hasCondition(a, 'Failed', 'True', 'InstallationFailed') && a;
    });
    const info = String(field(stopped, 'status', 'debugInfo', 'stateInfo'));
    expect(field(stopped, 'status', 'debugInfo', 'state')).toBe('error');
    expect(conditionsText(stopped)).toMatchObject({
      Failed: `True InstallationFailed: The installation failed: ${info}`,
      Completed: `False InstallationFailed: The installation has failed: ${info}`,
      Stopped: 'True InstallationFailed: The installation has stopped due to error',
      RequirementsMet: 'True ClusterInstallationStopped: The cluster installation stopped',
    });
  }, 120_000);

  it('deletes the AgentClusterInstall and the Agents with the ClusterDeployment, releasing every finalizer', async () => {
    const before = await agentsIn(client, ns);
    expect(before.map((a) => a.metadata['finalizers'])).toEqual([
      ['agent.agent-install.openshift.io/ai-deprovision'],
    ]);
    expect((await aci())?.metadata['finalizers']).toContain(
      'agentclusterinstall.agent-install.openshift.io/ai-deprovision',
    );
    await client.delete({ ...CLUSTER_DEPLOYMENT, namespace: ns, name: site.name });
    await until(
      'the ClusterDeployment, its AgentClusterInstall and its Agents are gone',
      async () => {
        const [cd, install, left] = await Promise.all([
          client.get({ ...CLUSTER_DEPLOYMENT, namespace: ns, name: site.name }),
          aci(),
          agentsIn(client, ns),
        ]);
        return cd === undefined && install === undefined && left.length === 0;
      },
    );
    await client.delete({ ...INFRA_ENV, namespace: ns, name: site.name });
    await until('the InfraEnv is gone', async () => {
      return (await client.get({ ...INFRA_ENV, namespace: ns, name: site.name })) === undefined;
    });
  }, 150_000);
});
