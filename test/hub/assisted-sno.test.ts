/**
 * A single-node cluster installed end to end by the assisted core of `siteforge controller` on
 * a real hub: the SiteConfig compiled and applied as a user would (no BareMetalHost: the host's
 * discovery agent is scripted), the agent configured from the ISO the controller serves,
 * approved by the user, and installed with the simulated installer backend. What is checked is
 * what a user sees on the Agent, AgentClusterInstall, ClusterDeployment and Secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACI,
  CLUSTER_DEPLOYMENT,
  SECRET,
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
import type { AssistedEnvironment, Discovery } from '../support/assisted-hub.js';
import { AGENT, INFRA_ENV, field, hubRuntimeClient } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const site = snoSite(uniqueName('asno'));
const node = site.nodes[0]!;
const host = hostOf(site, node, 1);
const ns = site.namespace;
let env: AssistedEnvironment;
let controller: InProcessController;
let agents: ScriptedAgents | undefined;
let discovery: Discovery;

const get = (gvk: { apiVersion: string; kind: string }, name = site.name) =>
  client.get({ ...gvk, namespace: ns, name });
const agent = () => get(AGENT, host.hostId);

beforeAll(async () => {
  env = await assistedEnvironment();
  await applySite(client, site);
  controller = await startAssistedController(env, [ns]);
}, 120_000);

afterAll(async () => {
  await agents?.stop();
  await controller.stop();
  await removeSite(client, site);
  await env.close();
}, 120_000);

describe('a single-node site installed by the assisted core', () => {
  it('serves a discovery ISO whose ignition sends the agent to the agent API with its token', async () => {
    discovery = await discoveryFromIso(client, ns, site.name);
    const infraEnv = await get(INFRA_ENV);
    expect(discovery.url).toBe(env.agentApiUrl);
    expect(discovery.infraEnvId).toBe(infraEnv?.metadata['uid']);
    expect(discovery.token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(discovery.ca).toContain('BEGIN CERTIFICATE');
    expect(conditionsText(infraEnv)).toEqual({
      ImageCreated: 'True InfraEnvAvailable: InfraEnv is available: Image has been created',
    });
  }, 90_000);

  it('turns the registered host into an Agent bound to the cluster, waiting for approval', async () => {
    agents = new ScriptedAgents(discovery, [host]);
    agents.start();
    const pending = await waitForSite(
      client,
      site,
      'the Agent waits for approval',
      async () => {
        const a = await agent();
        return hasCondition(a, 'RequirementsMet', 'False', 'AgentIsNotApproved') && a;
      },
      { controller, timeoutMs: 60_000 },
    );
    expect(conditionsText(pending)).toMatchObject({
      SpecSynced: 'True SyncOK: The Spec has been successfully applied',
      Connected:
        "True AgentIsConnected: The agent's connection to the installation service is unimpaired",
      RequirementsMet: 'False AgentIsNotApproved: The agent is not approved',
      Validated: "True ValidationsPassing: The agent's validations are passing",
      Installed: 'False InstallationNotStarted: The installation has not yet started',
      Bound: 'True Bound: The agent is bound to a cluster deployment',
    });
    expect(field(pending, 'metadata', 'labels', 'infraenvs.agent-install.openshift.io')).toBe(
      site.name,
    );
    expect(field(pending, 'spec', 'approved')).toBe(false);
    expect(field(pending, 'spec', 'clusterDeploymentName')).toEqual({
      name: site.name,
      namespace: ns,
    });
    expect(field(pending, 'status', 'inventory', 'hostname')).toBe(node.hostname);
    expect(field(pending, 'status', 'role')).toBe('master');
    const aci = await waitForSite(
      client,
      site,
      'the AgentClusterInstall waits for the approval',
      async () => {
        const a = await get(ACI);
        return hasCondition(a, 'RequirementsMet', 'False', 'UnapprovedAgents') && a;
      },
      { controller, timeoutMs: 30_000 },
    );
    expect(conditionsText(aci)).toMatchObject({
      SpecSynced: 'True SyncOK: SyncOK',
      RequirementsMet:
        'False UnapprovedAgents: The installation is pending on the approval of 1 agents',
      Completed: 'False InstallationNotStarted: The installation has not yet started',
    });
  }, 90_000);

  it('installs once the user approves the Agent, and says the installer was simulated', async () => {
    await editAgentSpec(client, ns, host.hostId, { approved: true });
    const aci = await waitForSite(
      client,
      site,
      'the AgentClusterInstall completes',
      async () => {
        const a = await get(ACI);
        return hasCondition(a, 'Completed', 'True', 'InstallationCompleted') && a;
      },
      { controller, timeoutMs: 120_000 },
    );
    expect(agents?.surprises()).toEqual({});
    expect(agents?.reportedStages(host.hostId)).toEqual([
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Joined',
      'Done',
    ]);
    expect(conditionsText(aci)).toMatchObject({
      SpecSynced: 'True SyncOK: SyncOK',
      Completed: 'True InstallationCompleted: The installation has completed: Cluster is installed',
      Failed: 'False InstallationNotFailed: The installation has not failed',
      Stopped:
        'True InstallationCompleted: The installation has stopped because it completed successfully',
      RequirementsMet: 'True ClusterInstallationStopped: The cluster installation stopped',
      Validated: "True ValidationsPassing: The cluster's validations are passing",
    });
    expect(conditionsText(aci)['InstallerBackend']).toMatch(/^True SimulatedInstaller: .*simulat/i);
    expect(field(aci, 'status', 'debugInfo', 'state')).toBe('installed');
    expect(field(aci, 'status', 'progress', 'totalPercentage')).toBe(100);
  }, 150_000);

  it('shows the Agent installed, as the bootstrap master', async () => {
    const installed = await waitForSite(
      client,
      site,
      'the Agent is installed',
      async () => {
        const a = await agent();
        return hasCondition(a, 'Installed', 'True', 'InstallationCompleted') && a;
      },
      { controller, timeoutMs: 30_000 },
    );
    expect(conditionsText(installed)).toMatchObject({
      Installed: 'True InstallationCompleted: The installation has completed: Done',
      RequirementsMet: 'True AgentInstallationStopped: The agent installation stopped',
    });
    expect(field(installed, 'status', 'role')).toBe('master');
    expect(field(installed, 'status', 'bootstrap')).toBe(true);
    expect(field(installed, 'status', 'progress', 'currentStage')).toBe('Done');
    expect(field(installed, 'status', 'debugInfo', 'state')).toBe('installed');
  }, 60_000);

  it('marks the ClusterDeployment installed and leaves the credentials in Secrets', async () => {
    const cd = await get(CLUSTER_DEPLOYMENT);
    const aci = await get(ACI);
    expect(field(cd, 'spec', 'installed')).toBe(true);
    const metadata = field(aci, 'spec', 'clusterMetadata') as Record<string, unknown>;
    expect(metadata).toMatchObject({
      adminKubeconfigSecretRef: { name: `${site.name}-admin-kubeconfig` },
      adminPasswordSecretRef: { name: `${site.name}-admin-password` },
    });
    expect(metadata['clusterID']).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata['infraID']).toBe(cd?.metadata['uid']);
    expect(field(cd, 'spec', 'clusterMetadata')).toEqual(metadata);

    const kubeconfig = (await get(SECRET, `${site.name}-admin-kubeconfig`))!;
    const password = (await get(SECRET, `${site.name}-admin-password`))!;
    expect(kubeconfig.metadata.labels).toMatchObject({
      'hive.openshift.io/secret-type': 'kubeconfig',
      'hive.openshift.io/cluster-deployment-name': site.name,
    });
    const text = Buffer.from(String(field(kubeconfig, 'data', 'kubeconfig')), 'base64').toString();
    expect(text).toContain(`api.${site.name}.${site.baseDomain}:6443`);
    expect(text).toContain('certificate-authority-data');
    // Upstream labels its type and leaves the Secret Opaque (code over docs, assisted.md §9).
    expect(field(password, 'type')).toBe('Opaque');
    expect(field(password, 'metadata', 'labels', 'hive.openshift.io/secret-type')).toBe(
      'kubeadmincreds',
    );
    expect(Buffer.from(String(field(password, 'data', 'username')), 'base64').toString()).toBe(
      'kubeadmin',
    );
    expect(Buffer.from(String(field(password, 'data', 'password')), 'base64').toString()).toMatch(
      /^\S{20,}$/,
    );
    for (const secret of [kubeconfig, password])
      expect(secret.metadata['ownerReferences']).toEqual([
        expect.objectContaining({ kind: 'ClusterDeployment', name: site.name }),
      ]);
  });
});
