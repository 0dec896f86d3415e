import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importAgentTokenKey } from '../../../src/assisted/agent-api/auth.js';
import { startAgentApiServer } from '../../../src/assisted/agent-api/server.js';
import type { AgentApiServer } from '../../../src/assisted/agent-api/server.js';
import { ClusterStatus, HostStatus } from '../../../src/assisted/model.js';
import { RuntimeMetrics } from '../../../src/bmac/runtime/metrics.js';
import type { AssistedStatusSource } from '../../../src/bmac/runtime/metrics.js';
import { AgentClient, describeHost } from '../../support/agent-client.js';
import { FakeAgentApiBackend } from '../../assisted/agent-api/fake-backend.js';

const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';

/** The value of the sample `name` whose labels are exactly `labels`, from the text exposition. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g))
      found[pair[1] ?? ''] = pair[2] ?? '';
    if (
      JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())
    )
      return Number(match[3]);
  }
  return undefined;
}

/** Every label set of the samples named `name`. */
function series(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`));
}

describe('agent API requests', () => {
  const metrics = new RuntimeMetrics();
  let answered = 0;
  let server: AgentApiServer;
  let agent: AgentClient;
  let forger: AgentClient;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const backend = new FakeAgentApiBackend();
    backend.addInfraEnv(INFRA_ENV, 'site-1');
    server = await startAgentApiServer({
      backend,
      tokenKey: await importAgentTokenKey(await exportSPKI(pair.publicKey)),
      agentImage: backend.agentImage,
      logsDir: mkdtempSync(join(tmpdir(), 'agent-api-metrics-')),
      observe: (event) => {
        metrics.agentApiRequest(event);
        answered += 1;
      },
      port: 0,
      insecureHttp: true,
    });
    const sign = (key: typeof pair.privateKey) =>
      new SignJWT({ infra_env_id: INFRA_ENV })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .sign(key);
    const forgerKey = (await generateKeyPair('ES256')).privateKey;
    agent = new AgentClient({
      url: server.url,
      infraEnvId: INFRA_ENV,
      token: await sign(pair.privateKey),
    });
    forger = new AgentClient({
      url: server.url,
      infraEnvId: INFRA_ENV,
      token: await sign(forgerKey),
    });
  });

  afterAll(async () => {
    await agent.close();
    await forger.close();
    await server.close();
  });

  /** Waits (bounded) until the server has told of `count` answered requests. */
  async function answeredAtLeast(count: number): Promise<void> {
    for (let i = 0; i < 1000 && answered < count; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBeGreaterThanOrEqual(count);
  }

  it('counts answers per swagger operation and status code, and times each operation', async () => {
    const first = describeHost(1);
    const second = describeHost(2);
    expect((await agent.register(first.hostId)).status).toBe(201);
    expect((await agent.register(second.hostId)).status).toBe(201);
    expect((await agent.nextSteps(first.hostId)).status).toBe(200);
    expect((await forger.register(describeHost(3).hostId)).status).toBe(401);
    const stray = await request(`${server.url}/api/assisted-install/v2/no-such-path`);
    await stray.body.dump();
    expect(stray.statusCode).toBe(404);
    await answeredAtLeast(5);

    const text = await metrics.text();
    const total = 'siteforge_agent_api_requests_total';
    expect(sample(text, total, { operation: 'v2RegisterHost', code: '201' })).toBe(2);
    expect(sample(text, total, { operation: 'v2RegisterHost', code: '401' })).toBe(1);
    expect(sample(text, total, { operation: 'v2GetNextSteps', code: '200' })).toBe(1);
    expect(sample(text, total, { operation: 'unknown', code: '404' })).toBe(1);
    const duration = 'siteforge_agent_api_request_duration_seconds';
    expect(sample(text, `${duration}_count`, { operation: 'v2RegisterHost' })).toBe(3);
    expect(sample(text, `${duration}_count`, { operation: 'v2GetNextSteps' })).toBe(1);
    expect(sample(text, `${duration}_bucket`, { operation: 'v2RegisterHost', le: '+Inf' })).toBe(3);
  });
});

describe('agent API latency buckets', () => {
  it('tells a 1 ms answer from a 5 ms one and a 10 s one from a slower one', async () => {
    const metrics = new RuntimeMetrics();
    for (const durationMs of [0.4, 3, 4.9, 800, 9_000, 30_000])
      metrics.agentApiRequest({ operation: 'v2PostStepReply', status: 204, durationMs });
    const text = await metrics.text();
    const bucket = (le: string) =>
      sample(text, 'siteforge_agent_api_request_duration_seconds_bucket', {
        operation: 'v2PostStepReply',
        le,
      });
    expect(bucket('0.001')).toBe(1);
    expect(bucket('0.0025')).toBe(1);
    expect(bucket('0.005')).toBe(3);
    expect(bucket('1')).toBe(4);
    expect(bucket('10')).toBe(5);
    expect(bucket('+Inf')).toBe(6);
  });
});

describe('assisted hosts and clusters per status', () => {
  function source(state: {
    hosts: string[];
    clusters: string[];
    active: boolean;
  }): AssistedStatusSource {
    return {
      hostStatuses: () => state.hosts,
      clusterStatuses: () => state.clusters,
      knownHostStatuses: Object.values(HostStatus),
      knownClusterStatuses: Object.values(ClusterStatus),
      active: () => state.active,
    };
  }

  it('counts the records as they are when scraped, with 0 for statuses no record has', async () => {
    const metrics = new RuntimeMetrics();
    const state = {
      hosts: ['known', 'known', 'discovering', 'installing-in-progress'],
      clusters: ['ready', 'installing'],
      active: true,
    };
    metrics.assistedStatuses(source(state));

    let text = await metrics.text();
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'known' })).toBe(2);
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'discovering' })).toBe(1);
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'installed' })).toBe(0);
    expect(series(text, 'siteforge_assisted_hosts')).toHaveLength(Object.values(HostStatus).length);
    expect(sample(text, 'siteforge_assisted_clusters', { status: 'ready' })).toBe(1);
    expect(sample(text, 'siteforge_assisted_clusters', { status: 'installed' })).toBe(0);

    state.hosts = ['installed', 'installed', 'installed', 'installed'];
    state.clusters = ['installed', 'installed'];
    text = await metrics.text();
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'known' })).toBe(0);
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'installed' })).toBe(4);
    expect(sample(text, 'siteforge_assisted_clusters', { status: 'installed' })).toBe(2);
  });

  it('counts 3,500 hosts', async () => {
    const metrics = new RuntimeMetrics();
    const hosts = Array.from({ length: 3_500 }, (_, i) => (i % 7 === 0 ? 'insufficient' : 'known'));
    metrics.assistedStatuses(source({ hosts, clusters: [], active: true }));
    const text = await metrics.text();
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'insufficient' })).toBe(500);
    expect(sample(text, 'siteforge_assisted_hosts', { status: 'known' })).toBe(3_000);
  });

  it('has no series on a replica that does not act, so sums over replicas count each host once', async () => {
    const metrics = new RuntimeMetrics();
    const state = { hosts: ['known'], clusters: ['ready'], active: true };
    metrics.assistedStatuses(source(state));
    expect(series(await metrics.text(), 'siteforge_assisted_hosts')).not.toHaveLength(0);

    state.active = false;
    const text = await metrics.text();
    expect(series(text, 'siteforge_assisted_hosts')).toEqual([]);
    expect(series(text, 'siteforge_assisted_clusters')).toEqual([]);
    expect(text).toContain('# TYPE siteforge_assisted_hosts gauge');
  });

  it('has no series before the assisted core is wired (a BMAC-only controller)', async () => {
    const text = await new RuntimeMetrics().text();
    expect(series(text, 'siteforge_assisted_hosts')).toEqual([]);
    expect(series(text, 'siteforge_assisted_clusters')).toEqual([]);
  });
});
