/**
 * The dashboard of `siteforge controller --dashboard-bind-address` in a real browser (Debian's
 * chromium through playwright-core) on a fleet the controller provisions on the test hub: four
 * single-node sites with scripted discovery agents. One installs, one host is too small, one
 * fails while writing its image, one BareMetalHost's BMC Secret lacks its username. The page
 * must count them right, show each failure's exact condition message, and follow a change live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import type { KubeObject } from '../../src/kube/index.js';
import {
  ScriptedAgents,
  applySite,
  assistedEnvironment,
  conditionOf,
  discoveryFromIso,
  editAgentSpec,
  hostOf,
  removeSite,
  snoSite,
  startAssistedController,
  uniqueName,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment, AssistedSite } from '../support/assisted-hub.js';
import { AgentClient } from '../support/agent-client.js';
import { attributes, openBrowser, screenshot } from '../support/browser.js';
import type { TestBrowser } from '../support/browser.js';
import { AGENT, BMH, bareMetalHost, hubRuntimeClient, waitFor } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const ok = snoSite(uniqueName('dok'));
const small = snoSite(uniqueName('dsmall'));
const broken = snoSite(uniqueName('dfail'));
const bmc = snoSite(uniqueName('dbmc'));
const sites = [ok, small, broken, bmc];
const okHost = hostOf(ok, ok.nodes[0]!, 1);
const smallHost = hostOf(small, small.nodes[0]!, 2, { cpus: 4 });
const brokenHost = hostOf(broken, broken.nodes[0]!, 3);
const FAILURE = 'failed to write the image to /dev/sda: no space left on device';

let env: AssistedEnvironment;
let controller: InProcessController;
let browser: TestBrowser;
let url: string;
const agents: ScriptedAgents[] = [];

async function scripted(site: AssistedSite, host: typeof okHost): Promise<ScriptedAgents> {
  const discovery = await discoveryFromIso(client, site.namespace, site.name);
  const agent = new ScriptedAgents(discovery, [host]);
  agents.push(agent);
  return agent;
}

/** The row of a site in the page's list (searched for, so it is on the first page). */
async function rowState(name: string): Promise<string | null> {
  const { page } = browser;
  await page.getByTestId('search').fill(name);
  const row = page.locator(`[data-testid="site-row"][data-site="${name}"]`);
  return (await row.count()) === 0 ? null : row.getAttribute('data-state');
}

/** The text of the element, or '' when there is none (without waiting for one). */
async function textOf(locator: Locator): Promise<string> {
  return (await locator.count()) === 0 ? '' : ((await locator.textContent()) ?? '');
}

async function totals(): Promise<Record<string, number>> {
  const { page } = browser;
  const out: Record<string, number> = {};
  for (const state of [
    'pending',
    'validating',
    'insufficient',
    'installing',
    'installed',
    'failed',
  ])
    out[state] = Number(await page.getByTestId(`total-${state}`).getAttribute('data-count'));
  return out;
}

beforeAll(async () => {
  env = await assistedEnvironment();
  for (const site of sites) await applySite(client, site);
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${bmc.name}-bmc`, namespace: bmc.namespace },
    type: 'Opaque',
    data: { password: Buffer.from('dashboard-test-password').toString('base64') },
  });
  await client.create(
    bareMetalHost(bmc.namespace, bmc.nodes[0]!.hostname, {
      infraEnv: bmc.name,
      address: 'redfish-virtualmedia://127.0.0.1:9/redfish/v1/Systems/1',
      credentialsName: `${bmc.name}-bmc`,
      bootMACAddress: bmc.nodes[0]!.mac,
    }),
  );
  // A rollout of three of the sites (the BMC one is in no wave), as `siteforge rollout run`
  // leaves it while its first wave runs.
  const rollout = await client.create({
    apiVersion: 'siteforge.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'spring', namespace: ok.namespace },
    spec: {
      planVersion: 'v1',
      from: { revision: 'main', commit: 'a'.repeat(40) },
      to: { revision: 'main', commit: 'b'.repeat(40) },
      target: { mode: 'Apply', apply: { path: 'sites' } },
      waves: [
        { name: 'canary', sites: [ok.name] },
        { name: 'wave-1', sites: [small.name, broken.name] },
      ],
    },
  });
  await client.updateStatus({
    ...rollout,
    status: {
      phase: 'Progressing',
      waves: [
        { name: 'canary', phase: 'Progressing' },
        { name: 'wave-1', phase: 'Pending' },
      ],
    },
  });
  controller = await startAssistedController(
    env,
    sites.map((s) => s.namespace),
    { controller: { dashboardBindAddress: { host: '127.0.0.1', port: 0 } } },
  );
  const line = controller.lines.find((l) => l['msg'] === 'serving the fleet dashboard');
  url = String(line?.['url']);
  browser = await openBrowser();
}, 180_000);

afterAll(async () => {
  await browser.close();
  for (const a of agents) await a.stop();
  await controller.stop();
  for (const site of sites) {
    for (const item of (await client.list(BMH, { namespace: site.namespace })).items)
      await client
        .update({ ...item, metadata: { ...item.metadata, finalizers: [] } })
        .catch(() => undefined);
    await removeSite(client, site);
  }
  await env.close();
}, 120_000);

describe('the dashboard of siteforge controller on a provisioned fleet', () => {
  it('is served by the controller and shows every site it watches', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { page } = browser;
    await page.goto(url);
    await page.locator('[data-testid="connection"][data-connection="live"]').waitFor();
    await expect
      .poll(() => page.getByTestId('total-sites').textContent(), { timeout: 30_000 })
      .toBe('4');
    // Once the controller's informers have listed the hub, the page stops saying it is partial.
    await page.getByTestId('syncing').waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('shows each site in its state as the hosts come and go', async () => {
    (await scripted(small, smallHost)).start();
    const fail = await scripted(broken, brokenHost);
    fail.stopAfter(brokenHost.hostId, 'Writing image to disk');
    fail.start();
    const okAgents = await scripted(ok, okHost);
    okAgents.start();
    // The failing host's Agent must be approved to install; the others wait.
    await waitFor('the broken site registers', async () =>
      client.get({ ...AGENT, namespace: broken.namespace, name: brokenHost.hostId }),
    );
    await editAgentSpec(client, broken.namespace, brokenHost.hostId, { approved: true });
    await waitFor(
      'the broken host writes its image',
      async () => {
        const agent = await client.get({
          ...AGENT,
          namespace: broken.namespace,
          name: brokenHost.hostId,
        });
        const progress = (agent?.['status'] as { progress?: { currentStage?: string } } | undefined)
          ?.progress;
        return progress?.currentStage === 'Writing image to disk';
      },
      { controller, timeoutMs: 120_000 },
    );
    const discovery = fail.discovery;
    const installer = new AgentClient({
      url: discovery.url,
      infraEnvId: discovery.infraEnvId,
      token: discovery.token,
      ...(discovery.ca !== undefined && { ca: discovery.ca }),
    });
    const reported = await installer.reportProgress(brokenHost.hostId, 'Failed', FAILURE);
    expect(reported.status).toBe(200);
    await installer.close();

    await expect.poll(totals, { timeout: 90_000, interval: 500 }).toEqual({
      pending: 1,
      validating: 1,
      insufficient: 1,
      installing: 0,
      installed: 0,
      failed: 1,
    });
    expect(await rowState(ok.name)).toBe('validating');
    expect(await rowState(small.name)).toBe('insufficient');
    expect(await rowState(broken.name)).toBe('failed');
    expect(await rowState(bmc.name)).toBe('pending');
    await browser.page.getByTestId('search').fill('');
  }, 240_000);

  it('shows why a site failed, in the words of its Agent, and why the others are stuck', async () => {
    const { page } = browser;
    const agent: KubeObject | undefined = await client.get({
      ...AGENT,
      namespace: broken.namespace,
      name: brokenHost.hostId,
    });
    const installed = conditionOf(agent, 'Installed');
    expect(installed?.message).toBe(`The installation has failed: Failed - ${FAILURE}`);
    const failed = page.locator(`[data-testid="attention"][data-site="${broken.name}"]`);
    await expect
      .poll(() => failed.getByTestId('problem-message').textContent())
      .toBe(installed?.message);
    expect(await attributes(page.getByTestId('problem-group'), 'data-reason')).toEqual([
      'InstallationFailed',
      'ValidationsFailing',
      'registration error',
      'AgentIsNotApproved',
    ]);
    const cpu = page.locator(`[data-testid="attention"][data-site="${small.name}"]`);
    // The Agent's message settles as step results arrive: the page follows it.
    await expect
      .poll(
        async () =>
          (await cpu.getByTestId('problem-message').textContent()) ===
          conditionOf(
            await client.get({ ...AGENT, namespace: small.namespace, name: smallHost.hostId }),
            'Validated',
          )?.message,
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
    const secret = page.locator(`[data-testid="attention"][data-site="${bmc.name}"]`);
    expect(await secret.getByTestId('problem-message').textContent()).toMatch(/username/);
    expect(await page.content()).not.toContain('dashboard-test-password');

    await failed.locator('button.link').click();
    const drawer = page.getByTestId('drawer');
    await drawer.getByTestId('timeline').waitFor();
    expect(await drawer.locator('.step[data-step="install"]').getAttribute('data-status')).toBe(
      'failed',
    );
    expect(await drawer.locator('.stage.t-failed .stage-name').textContent()).toBe(
      'Writing image to disk',
    );
    await screenshot(page, 'hub-failed-site.png', { fullPage: false });
    await page.keyboard.press('Escape');
  });

  it('follows a change live: the approved site installs without a reload', async () => {
    const { page } = browser;
    await screenshot(page, 'hub-fleet-before.png');
    await editAgentSpec(client, ok.namespace, okHost.hostId, { approved: true });
    await expect
      .poll(() => rowState(ok.name), { timeout: 120_000, interval: 500 })
      .toBe('installed');
    expect(await totals()).toEqual({
      pending: 1,
      validating: 0,
      insufficient: 1,
      installing: 0,
      installed: 1,
      failed: 1,
    });
    expect(await page.getByTestId('connection').getAttribute('data-connection')).toBe('live');
    const waves = await Promise.all(
      (await page.getByTestId('wave').all()).map(async (row) => [
        await row.getAttribute('data-wave'),
        await textOf(row.locator('.phase')),
        await row.getByTestId('wave-count').textContent(),
        await textOf(row.locator('.pill')),
      ]),
    );
    expect(waves).toEqual([
      ['canary', 'Progressing', '1/1', ''],
      ['wave-1', 'Pending', '0/2', '1 failed'],
      ['no wave', '', '0/1', ''],
    ]);
    await page.getByTestId('search').fill('');
    await screenshot(page, 'hub-fleet.png');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
