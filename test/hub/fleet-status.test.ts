/**
 * The fleet status model on what the real controller writes: three single-node sites on the
 * test hub, provisioned by `siteforge controller`'s assisted core with scripted discovery agents
 * (one installs, one host is too small) and one BareMetalHost whose BMC does not answer. A
 * FleetWatcher follows them; what it says is checked against the objects themselves.
 *
 * With SITEFORGE_FLEET_FIXTURES=1 the objects are also written to test/fixtures/fleet/, which
 * test/fleet/hub-fixtures.test.ts reads (regenerate them when the controller's output changes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteKind } from '../../src/fleet/index.js';
import type { SiteStatus } from '../../src/fleet/index.js';
import { FleetWatcher } from '../../src/fleet/fleet-watcher.js';
import type { KubeObject } from '../../src/kube/index.js';
import { createLogger } from '../../src/shared/logger.js';
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
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, BMH, bareMetalHost, hubRuntimeClient, waitFor } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';

const client = hubRuntimeClient();
const ok = snoSite(uniqueName('fok'));
const small = snoSite(uniqueName('fsmall'));
const bmc = snoSite(uniqueName('fbmc'));
const sites = [ok, small, bmc];
const okHost = hostOf(ok, ok.nodes[0]!, 1);
// A single-node cluster needs 8 cores; this host has 4.
const smallHost = hostOf(small, small.nodes[0]!, 2, { cpus: 4 });
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'fleet');
const writeFixtures = process.env['SITEFORGE_FLEET_FIXTURES'] === '1';

let env: AssistedEnvironment;
let controller: InProcessController;
let watcher: FleetWatcher;
const agents: ScriptedAgents[] = [];

const siteKey = (site: { namespace: string; name: string }): string =>
  `${site.namespace}/${site.name}`;

async function until(
  what: string,
  site: { namespace: string; name: string },
  check: (s: SiteStatus) => boolean,
  timeoutMs = 60_000,
): Promise<SiteStatus> {
  return waitFor(
    what,
    async () => {
      await Promise.resolve();
      watcher.model.flush();
      const s = watcher.model.site(siteKey(site));
      return s !== undefined && check(s) && s;
    },
    { controller, timeoutMs },
  ).catch((err: unknown) => {
    const s = watcher.model.site(siteKey(site));
    throw new Error(
      `${(err as Error).message}\nthe model says: ${JSON.stringify(s === undefined ? null : { state: s.state, problem: s.problem, hosts: s.hostViews })}`,
    );
  });
}

/** The site's objects, as a fixture (no managedFields, no signed URLs). */
async function capture(site: { namespace: string }, name: string): Promise<void> {
  if (!writeFixtures) return;
  const objects: KubeObject[] = [];
  for (const gvk of Object.values(SiteKind))
    for (const item of (await client.list(gvk, { namespace: site.namespace })).items) {
      const metadata = { ...item.metadata };
      delete metadata['managedFields'];
      objects.push(
        JSON.parse(
          JSON.stringify({ ...item, metadata })
            .replace(/api_key=[^"&]+/g, 'api_key=REDACTED')
            .replace(/\/images\/[^"/]+\.iso/g, '/images/REDACTED.iso'),
        ) as KubeObject,
      );
    }
  mkdirSync(FIXTURES, { recursive: true });
  writeFileSync(join(FIXTURES, `${name}.json`), `${JSON.stringify(objects, null, 2)}\n`);
}

beforeAll(async () => {
  env = await assistedEnvironment();
  for (const site of sites) await applySite(client, site);
  // The third site's BMC Secret lacks its username: a registration error, as BMO words it.
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${bmc.name}-bmc`, namespace: bmc.namespace },
    type: 'Opaque',
    data: { password: Buffer.from('fleet-test-password').toString('base64') },
  });
  await client.create(
    bareMetalHost(bmc.namespace, bmc.nodes[0]!.hostname, {
      infraEnv: bmc.name,
      address: 'redfish-virtualmedia://127.0.0.1:9/redfish/v1/Systems/1',
      credentialsName: `${bmc.name}-bmc`,
      bootMACAddress: bmc.nodes[0]!.mac,
    }),
  );
  watcher = new FleetWatcher({
    client,
    log: createLogger({ level: 'silent' }),
    kinds: Object.values(SiteKind),
    namespaces: sites.map((s) => s.namespace),
    flushMs: 50,
  });
  watcher.start();
  await watcher.whenSynced();
  controller = await startAssistedController(
    env,
    sites.map((s) => s.namespace),
  );
}, 120_000);

afterAll(async () => {
  watcher.stop();
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

describe('the fleet status of sites the controller provisions', () => {
  it('shows every applied site, pending before any host appears', async () => {
    watcher.model.flush();
    for (const site of [ok, small])
      expect(watcher.model.site(siteKey(site))).toMatchObject({
        name: site.name,
        hosts: { expected: 1, registered: 0 },
      });
    const s = await until('the first site waits for its host', ok, (x) => x.state === 'pending');
    expect(s.timeline[0]).toMatchObject({ step: 'image' });
  });

  it('shows the BMC credentials problem, in the words of the BareMetalHost', async () => {
    const s = await until(
      'the BMC error shows',
      bmc,
      (x) => x.problem?.source.kind === 'BareMetalHost',
    );
    const live = await client.get({
      ...BMH,
      namespace: bmc.namespace,
      name: bmc.nodes[0]!.hostname,
    });
    const status = live?.['status'] as Record<string, unknown>;
    expect(s.state).toBe('pending');
    expect(s.problem).toMatchObject({
      severity: 'error',
      reason: 'registration error',
      message: status['errorMessage'],
    });
    expect(s.problem?.message).toMatch(/username/);
    expect(s.problem?.hint).toMatch(/BMC Secret/);
    expect(JSON.stringify(s)).not.toContain('fleet-test-password');
    await capture(bmc, 'sno-bmc-secret');
  });

  it('follows a host from registration to validating, warning until its Agent is approved', async () => {
    const discovery = await discoveryFromIso(client, ok.namespace, ok.name);
    const scripted = new ScriptedAgents(discovery, [okHost]);
    agents.push(scripted);
    scripted.stopAfter(okHost.hostId, 'Writing image to disk');
    scripted.start();
    const s = await until(
      'the site waits for approval',
      ok,
      (x) => x.state === 'validating' && x.problem?.reason === 'AgentIsNotApproved',
    );
    expect(s.problem).toMatchObject({
      severity: 'warning',
      source: { kind: 'Agent', name: okHost.hostId },
      condition: 'RequirementsMet',
      message: 'The agent is not approved',
    });
    expect(s.hosts).toEqual({ expected: 1, registered: 1, installed: 0 });
    expect(s.timeline.find((t) => t.step === 'discovery')).toMatchObject({
      status: 'done',
      detail: '1/1 hosts registered',
    });
    await capture(ok, 'sno-validating');
  }, 90_000);

  it('says insufficient for the small host, with the Agent Validated message exactly', async () => {
    const discovery = await discoveryFromIso(client, small.namespace, small.name);
    const scripted = new ScriptedAgents(discovery, [smallHost]);
    agents.push(scripted);
    scripted.start();
    // The Agent's message settles as step results arrive: wait until the model and the hub agree.
    const { s, validated } = await waitFor(
      'the model shows the small host insufficient, with the Agent Validated message',
      async () => {
        watcher.model.flush();
        const x = watcher.model.site(siteKey(small));
        if (x?.state !== 'insufficient') return false;
        const agent = await client.get({
          ...AGENT,
          namespace: small.namespace,
          name: smallHost.hostId,
        });
        const live = conditionOf(agent, 'Validated');
        return x.problem?.message === live?.message && { s: x, validated: live };
      },
      { controller, timeoutMs: 60_000 },
    );
    expect(validated?.reason).toBe('ValidationsFailing');
    expect(s.problem).toMatchObject({
      source: { kind: 'Agent', name: smallHost.hostId },
      condition: 'Validated',
      reason: 'ValidationsFailing',
      message: validated?.message,
    });
    expect(s.problem?.message).toMatch(/CPU cores/);
    expect(s.problem?.hint).toMatch(/CPU cores/);
    await capture(small, 'sno-insufficient');
  }, 90_000);

  it('shows the installation stage by stage once approved, then installed', async () => {
    await editAgentSpec(client, ok.namespace, okHost.hostId, { approved: true });
    let s = await until(
      'the host holds at Writing image to disk',
      ok,
      (x) => x.state === 'installing' && x.stage === 'Writing image to disk',
      120_000,
    );
    expect(s.percent).toBeGreaterThan(0);
    const install = s.timeline.find((t) => t.step === 'install');
    expect(install?.status).toBe('active');
    expect(install?.stages?.slice(0, 4).map((x) => x.status)).toEqual([
      'done',
      'done',
      'done',
      'active',
    ]);
    // The watcher saw each stage begin: each has its time.
    expect(install?.stages?.slice(0, 4).every((x) => x.at !== undefined)).toBe(true);
    await capture(ok, 'sno-installing');

    agents[0]!.stopAfter(okHost.hostId, undefined);
    s = await until('the site is installed', ok, (x) => x.state === 'installed', 120_000);
    expect(s).toMatchObject({ percent: 100, hosts: { installed: 1 } });
    expect(s.problem).toBeUndefined();
    expect(s.timeline.map((t) => [t.step, t.status])).toEqual([
      ['image', 'done'],
      ['discovery', 'done'],
      ['validations', 'done'],
      ['install', 'done'],
      ['done', 'done'],
    ]);
    expect(Date.parse(s.finishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(s.startedAt ?? ''));
    await capture(ok, 'sno-installed');
  }, 240_000);

  it('counts the fleet by state', () => {
    watcher.model.flush();
    expect(watcher.model.totals()).toMatchObject({
      sites: 3,
      byState: { installed: 1, insufficient: 1, pending: 1 },
      withProblem: 2,
    });
  });
});
