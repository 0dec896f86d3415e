/**
 * A controller restart in the middle of an installation, on a real hub: the assisted core keeps
 * its hosts and clusters in the Agents' and AgentClusterInstalls' status, so a new controller
 * process (same agent token key and certificate, as the chart's Secrets give it) carries on
 * where the old one stopped: the agent keeps its host id and token, the stages it reported stay
 * reported, and the installation completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACI,
  CLUSTER_DEPLOYMENT,
  ScriptedAgents,
  applySite,
  assistedEnvironment,
  conditionsText,
  discoveryFromIso,
  editAgentSpec,
  hasCondition,
  hostOf,
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
const site = snoSite(uniqueName('arst'));
const ns = site.namespace;
const host = hostOf(site, site.nodes[0]!, 4);
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
  controller = await startAssistedController(env, [ns]);
  agents = new ScriptedAgents(await discoveryFromIso(client, ns, site.name), [host]);
  agents.stopAfter(host.hostId, 'Writing image to disk');
  agents.start();
}, 120_000);

afterAll(async () => {
  await agents?.stop();
  await controller.stop();
  await removeSite(client, site);
  await env.close();
}, 120_000);

describe('a controller restart in the middle of an installation', () => {
  it('gets the host to Writing image to disk with the first controller', async () => {
    await until('the Agent exists', agent);
    await editAgentSpec(client, ns, host.hostId, { approved: true });
    const writing = await until(
      'the host reports Writing image to disk',
      async () => {
        const a = await agent();
        return field(a, 'status', 'progress', 'currentStage') === 'Writing image to disk' && a;
      },
      120_000,
    );
    expect(conditionsText(writing)['Installed']).toBe(
      'False InstallationInProgress: The installation is in progress: Writing image to disk',
    );
  }, 150_000);

  it('completes the installation with a new controller process, losing nothing', async () => {
    const before = await agent();
    expect(await controller.stop()).toBe(0);
    controller = await startAssistedController(env, [ns]);
    // The new process knows the host and its stage before the agent says anything new.
    const known = await until('the new controller shows the Agent as before', async () => {
      const a = await agent();
      return (
        field(a, 'status', 'progress', 'currentStage') === 'Writing image to disk' &&
        hasCondition(a, 'Connected', 'True', 'AgentIsConnected') &&
        a
      );
    });
    expect(field(known, 'status', 'progress', 'progressStages')).toEqual(
      field(before, 'status', 'progress', 'progressStages'),
    );
    expect(field(known, 'status', 'inventory')).toEqual(field(before, 'status', 'inventory'));
    agents?.stopAfter(host.hostId, undefined);
    const done = await until(
      'the AgentClusterInstall completes',
      async () => {
        const a = await aci();
        return hasCondition(a, 'Completed', 'True', 'InstallationCompleted') && a;
      },
      120_000,
    );
    expect(conditionsText(done)['Completed']).toBe(
      'True InstallationCompleted: The installation has completed: Cluster is installed',
    );
    expect(agents?.reportedStages(host.hostId)).toHaveLength(8);
    const cd = await client.get({ ...CLUSTER_DEPLOYMENT, namespace: ns, name: site.name });
    expect(field(cd, 'spec', 'installed')).toBe(true);
    // While the controller was away the agent's calls failed, and while the new one filled its
    // caches they were asked to retry (503, Retry-After); once it acted, every answer was right.
    const answers = Object.values(agents?.surprises() ?? {}).flat();
    expect(
      answers.filter(
        (a) =>
          !a.startsWith('request failed') &&
          !a.includes('The service is not ready to serve agents; retry later'),
      ),
    ).toEqual([]);
  }, 180_000);
});
