import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { expect, it } from 'vitest';
import { importAgentTokenKey } from '../../../src/assisted/agent-api/auth.js';
import { startAgentApiServer } from '../../../src/assisted/agent-api/server.js';
import { AgentClient, agentDispatcher, describeHost } from '../../support/agent-client.js';
import { loopbackCert } from '../../support/loopback-cert.js';
import { FakeAgentApiBackend } from './fake-backend.js';

const HOSTS = 3_500;
const INFRA_ENVS = 35;

it('serves 3,500 agents of 35 InfraEnvs from one client process over one TLS pool', async () => {
  const cert = loopbackCert(mkdtempSync(join(tmpdir(), 'agent-fleet-tls-')));
  const pair = await generateKeyPair('ES256', { extractable: true });
  const backend = new FakeAgentApiBackend();
  const server = await startAgentApiServer({
    backend,
    tokenKey: await importAgentTokenKey(await exportSPKI(pair.publicKey)),
    agentImage: backend.agentImage,
    logsDir: mkdtempSync(join(tmpdir(), 'agent-fleet-logs-')),
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
  });
  const pool = agentDispatcher(server.url, { ca: cert.cert, connections: 32 });
  const clients = await Promise.all(
    Array.from({ length: INFRA_ENVS }, async (_, i) => {
      const infraEnvId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      backend.addInfraEnv(infraEnvId);
      const token = await new SignJWT({ infra_env_id: infraEnvId })
        .setProtectedHeader({ alg: 'ES256' })
        .sign(pair.privateKey);
      return new AgentClient({ url: server.url, infraEnvId, token, dispatcher: pool });
    }),
  );
  const statuses = new Map<string, number>();
  const count = (key: string): void => {
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: HOSTS }, async (_, i) => {
      const agent = clients[i % INFRA_ENVS]!;
      const host = describeHost(i);
      count(`register ${String((await agent.register(host.hostId)).status)}`);
      const first = await agent.runSteps(host);
      count(`steps ${String(first.steps.status)}`);
      for (const reply of first.replies) count(`reply ${String(reply.status)}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `agent API fleet: ${String(HOSTS)} hosts registered, polled and sent inventory in ${seconds.toFixed(1)} s`,
  );
  expect(Object.fromEntries(statuses)).toEqual({
    'register 201': HOSTS,
    'steps 200': HOSTS,
    'reply 204': HOSTS,
  });
  expect([...backend.hosts.values()].filter((host) => host.status === 'known')).toHaveLength(HOSTS);
  await pool.close();
  await server.close();
});
