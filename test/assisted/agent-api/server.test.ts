import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importAgentTokenKey } from '../../../src/assisted/agent-api/auth.js';
import { startAgentApiServer } from '../../../src/assisted/agent-api/server.js';
import type {
  AgentApiRequestEvent,
  AgentApiServer,
} from '../../../src/assisted/agent-api/server.js';
import { HostRole } from '../../../src/assisted/model.js';
import { SiteForgeError } from '../../../src/shared/errors.js';
import {
  AgentClient,
  agentDispatcher,
  describeHost,
  inventoryOf,
} from '../../support/agent-client.js';
import type { AgentResponse } from '../../support/agent-client.js';
import { loopbackCert } from '../../support/loopback-cert.js';
import type { LoopbackCert } from '../../support/loopback-cert.js';
import { FakeAgentApiBackend } from './fake-backend.js';
import { AgentApiConformance } from './openapi.js';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const OTHER_INFRA_ENV = '7b2f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a61';
const UNKNOWN_INFRA_ENV = '8c3f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a62';
const CLUSTER = '9d4f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a63';
const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:v2.40.0';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

let cert: LoopbackCert;
let signingKey: PrivateKey;
let forgerKey: PrivateKey;
let backend: FakeAgentApiBackend;
let server: AgentApiServer;
let logsDir: string;
const conformance = new AgentApiConformance();
const clients: AgentClient[] = [];
const events: AgentApiRequestEvent[] = [];

async function token(
  claims: Record<string, unknown>,
  key: PrivateKey = signingKey,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(key);
}

async function client(options: { token?: string; infraEnvId?: string } = {}): Promise<AgentClient> {
  const created = new AgentClient({
    url: server.url,
    infraEnvId: options.infraEnvId ?? INFRA_ENV,
    token: options.token ?? (await token({ infra_env_id: INFRA_ENV })),
    agentVersion: AGENT_IMAGE,
    ca: cert.cert,
    connections: 2,
    onExchange: conformance.check,
  });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  cert = loopbackCert(mkdtempSync(join(tmpdir(), 'agent-api-tls-')));
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  forgerKey = (await generateKeyPair('ES256')).privateKey;
  logsDir = mkdtempSync(join(tmpdir(), 'agent-api-logs-'));
  backend = new FakeAgentApiBackend();
  server = await startAgentApiServer({
    backend,
    tokenKey: await importAgentTokenKey(await exportSPKI(pair.publicKey)),
    agentImage: AGENT_IMAGE,
    logsDir,
    limits: { jsonBodyBytes: 256 * 1024, logsBytes: 64 * 1024 },
    now: () => NOW,
    observe: (event) => events.push(event),
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
  });
});

beforeEach(() => {
  backend.infraEnvs.clear();
  backend.hosts.clear();
  backend.refuseRegistration = false;
  backend.clusterPending = false;
  backend.addInfraEnv(INFRA_ENV, 'site-1');
  backend.addInfraEnv(OTHER_INFRA_ENV, 'site-2');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
  // Every request and response of this file was checked against the OpenAPI document.
  expect(conformance.violations).toEqual([]);
});

describe('registration', () => {
  it('registers a host: 201 with the host and the next-step runner command upstream gives', async () => {
    const agent = await client();
    const host = describeHost(1);
    const response = await agent.register(host.hostId);
    expect(response.status).toBe(201);
    const body = response.body as Record<string, unknown>;
    expect(body).toMatchObject({
      kind: 'Host',
      id: host.hostId,
      href: `/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts/${host.hostId}`,
      infra_env_id: INFRA_ENV,
      status: 'discovering',
      role: 'auto-assign',
      discovery_agent_version: AGENT_IMAGE,
      registered_at: NOW.toISOString(),
      // No requested hostname nor inventory yet: upstream shows the host id.
      requested_hostname: host.hostId,
      progress_stages: [],
    });
    const command = body['next_step_runner_command'] as { args: string[]; command?: string };
    expect(command.command).toBeUndefined();
    expect(command.args).toEqual([
      `{"agent_version":"${AGENT_IMAGE}","host_id":"${host.hostId}","infra_env_id":"${INFRA_ENV}"}`,
    ]);
    expect(backend.calls.registered.at(-1)).toEqual({ hostId: host.hostId, version: AGENT_IMAGE });
  });

  it('answers 409 with an error body when the cluster does not accept the host', async () => {
    backend.refuseRegistration = true;
    const response = await (await client()).register(describeHost(2).hostId);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      code: '409',
      href: '',
      id: 409,
      kind: 'Error',
      reason:
        'Host can register only in one of the following states: [insufficient ready pending-for-input adding-hosts]',
    });
  });

  it('answers 503 with Retry-After while the InfraEnv cluster is not known yet', async () => {
    backend.clusterPending = true;
    const response = await (await client()).register(describeHost(3).hostId);
    expect([response.status, response.headers['retry-after']]).toEqual([503, '5']);
    expect(response.body).toMatchObject({ code: '503', reason: 'cluster sno-1 is not ready yet' });
  });

  it('refuses a registration without host_id or with one that is not a UUID (422)', async () => {
    const agent = await client();
    const path = `/v2/infra-envs/${INFRA_ENV}/hosts`;
    const missing = await agent.request('POST', path, {
      body: '{}',
      contentType: 'application/json',
    });
    expect([missing.status, missing.body]).toEqual([
      422,
      { code: 602, message: 'host_id in body is required' },
    ]);
    const notUuid = await agent.request('POST', path, {
      body: '{"host_id":"host-1"}',
      contentType: 'application/json',
    });
    expect([notUuid.status, notUuid.body]).toEqual([
      422,
      { code: 605, message: 'host_id in body must be of type uuid: "host-1"' },
    ]);
  });

  it('answers malformed JSON with 400 and a message, never a stack trace', async () => {
    const response = await (
      await client()
    ).request('POST', `/v2/infra-envs/${INFRA_ENV}/hosts`, {
      body: '{"host_id": ',
      contentType: 'application/json',
    });
    expect(response.status).toBe(400);
    const body = response.body as { code: number; message: string };
    expect(body.code).toBe(400);
    expect(body.message).toMatch(/^parsing new-host-params body from "" failed, because /);
    expect(response.text).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it('refuses a body that is not JSON (415) and one above the JSON budget (413)', async () => {
    const agent = await client();
    const path = `/v2/infra-envs/${INFRA_ENV}/hosts`;
    const text = await agent.request('POST', path, { body: 'host', contentType: 'text/plain' });
    expect([text.status, text.body]).toEqual([
      415,
      {
        code: 415,
        message: 'unsupported media type "text/plain", only [application/json] are allowed',
      },
    ]);
    const huge = JSON.stringify({
      host_id: describeHost(3).hostId,
      padding: 'x'.repeat(300 * 1024),
    });
    const tooLarge = await agent.request('POST', path, {
      body: huge,
      contentType: 'application/json',
    });
    expect([tooLarge.status, tooLarge.body]).toEqual([
      413,
      { code: 413, message: 'request body is larger than 262144 bytes' },
    ]);
  });
});

describe('instructions and replies', () => {
  it('gives the inventory step to a new host, accepts its inventory and then shows it', async () => {
    const agent = await client();
    const host = describeHost(4);
    await agent.register(host.hostId);
    const steps = await agent.nextSteps(host.hostId, 1_764_072_000);
    expect(steps.status).toBe(200);
    expect(backend.calls.checkIns.at(-1)).toEqual({
      hostId: host.hostId,
      discoveryAgentVersion: AGENT_IMAGE,
      hostTimestamp: 1_764_072_000,
    });
    expect(steps.body.next_instruction_seconds).toBe(60);
    expect(steps.body.post_step_action).toBe('continue');
    expect(steps.body.instructions.map((step) => [step.step_type, step.args])).toEqual([
      ['inventory', [host.hostId]],
    ]);
    expect(steps.body.instructions[0]!.step_id).toMatch(/^inventory-[0-9a-f]{8}$/);

    const run = await agent.runSteps(host);
    expect(run.replies.map((reply) => reply.status)).toEqual([204]);
    const shown = await agent.getHost(host.hostId);
    expect(shown.status).toBe(200);
    const body = shown.body as Record<string, unknown>;
    expect(body['status']).toBe('known');
    expect(JSON.parse(body['inventory'] as string)).toEqual(inventoryOf(host));
    expect(JSON.parse(body['validations_info'] as string)).toEqual({
      hardware: [
        { id: 'has-cpu-cores-for-role', status: 'success', message: 'Sufficient CPU cores' },
      ],
    });
    expect(body['requested_hostname']).toBe(host.hostname);
  });

  it('does not resend an identical successful reply, as the agent caches them', async () => {
    const agent = await client();
    const host = describeHost(5);
    await agent.register(host.hostId);
    await agent.runSteps(host);
    const second = await agent.runSteps(host);
    // inventory is unchanged (not resent); ntp-synchronizer is new.
    expect(second.steps.body.instructions.map((step) => step.step_type)).toEqual([
      'inventory',
      'ntp-synchronizer',
    ]);
    expect(second.replies).toHaveLength(1);
    expect(
      backend.calls.replies
        .filter((call) => call.hostId === host.hostId)
        .map((call) => call.reply.stepType),
    ).toEqual(['inventory', 'ntp-synchronizer']);
  });

  it('refuses a reply whose output is not the JSON of its step type with upstream 400', async () => {
    const agent = await client();
    const host = describeHost(6);
    await agent.register(host.hostId);
    const response = await agent.postStepReply(host.hostId, {
      step_type: 'inventory',
      step_id: 'inventory-0a1b2c3d',
      exit_code: 0,
      output: '"just text"',
      error: '',
    });
    expect([response.status, response.body]).toEqual([
      400,
      {
        code: '400',
        href: '',
        id: 400,
        kind: 'Error',
        reason: 'json: cannot unmarshal string into Go value of type models.Inventory',
      },
    ]);
  });

  it('accepts a failed step without reading its output (204)', async () => {
    const agent = await client();
    const host = describeHost(7);
    await agent.register(host.hostId);
    const response = await agent.postStepReply(host.hostId, {
      step_type: 'ntp-synchronizer',
      step_id: 'ntp-synchronizer-0a1b2c3d',
      exit_code: 1,
      output: 'not json at all',
      error: 'chronyc failed',
    });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('refuses an unknown step type (422) and answers 404 for a host that never registered', async () => {
    const agent = await client();
    const host = describeHost(8);
    await agent.register(host.hostId);
    const badType = await agent.postStepReply(host.hostId, {
      step_type: 'format-disks',
      step_id: 'x',
      exit_code: 0,
      output: '',
      error: '',
    });
    expect(badType.status).toBe(422);
    expect((badType.body as { code: number }).code).toBe(606);
    const stranger = describeHost(9).hostId;
    const steps = await agent.nextSteps(stranger);
    expect([steps.status, steps.body]).toEqual([
      404,
      { code: '404', href: '', id: 404, kind: 'Error', reason: 'record not found' },
    ]);
    const reply = await agent.postStepReply(stranger, {
      step_type: 'inventory',
      step_id: 'inventory-0a1b2c3d',
      exit_code: 0,
      output: '{}',
      error: '',
    });
    expect(reply.status).toBe(404);
    expect((await agent.getHost(stranger)).status).toBe(404);
  });

  it('refuses a path host id that is not a UUID (422) and a bad timestamp (422)', async () => {
    const agent = await client();
    const badId = await agent.request(
      'GET',
      `/v2/infra-envs/${INFRA_ENV}/hosts/not-a-uuid/instructions`,
    );
    expect([badId.status, badId.body]).toEqual([
      422,
      { code: 605, message: 'host_id in path must be of type uuid: "not-a-uuid"' },
    ]);
    const host = describeHost(10);
    await agent.register(host.hostId);
    const badTime = await agent.request(
      'GET',
      `/v2/infra-envs/${INFRA_ENV}/hosts/${host.hostId}/instructions?timestamp=yesterday`,
    );
    expect(badTime.status).toBe(422);
  });
});

describe('install progress and logs', () => {
  it('records a stage of an installing host (200, no body) and refuses one of a host not installing (409)', async () => {
    const agent = await client();
    const host = describeHost(11);
    await agent.register(host.hostId);
    const early = await agent.reportProgress(host.hostId, 'Writing image to disk');
    expect([early.status, (early.body as { reason: string }).reason]).toEqual([
      409,
      "Can't set progress <Writing image to disk> to host in status <discovering>",
    ]);
    backend.setHost(INFRA_ENV, host.hostId, { status: 'installing', clusterId: CLUSTER });
    const ok = await agent.reportProgress(host.hostId, 'Writing image to disk', '35%');
    expect([ok.status, ok.text]).toEqual([200, '']);
    expect(backend.calls.progress.at(-1)).toEqual({
      hostId: host.hostId,
      stage: 'Writing image to disk',
      info: '35%',
    });
    const shown = (await agent.getHost(host.hostId)).body as { progress: Record<string, unknown> };
    expect(shown.progress).toMatchObject({
      current_stage: 'Writing image to disk',
      progress_info: '35%',
    });
    const unknownStage = await agent.reportProgress(host.hostId, 'Flashing firmware');
    expect(unknownStage.status).toBe(422);
  });

  it('records the log collection state (204) and requires logs_state (422)', async () => {
    const agent = await client();
    const host = describeHost(12);
    await agent.register(host.hostId);
    expect((await agent.logsProgress(host.hostId, 'collecting')).status).toBe(204);
    expect(backend.calls.logsStates.at(-1)).toEqual({ hostId: host.hostId, state: 'collecting' });
    const missing = await agent.request(
      'PUT',
      `/v2/infra-envs/${INFRA_ENV}/hosts/${host.hostId}/logs-progress`,
      {
        body: '{}',
        contentType: 'application/json',
      },
    );
    expect([missing.status, missing.body]).toEqual([
      422,
      { code: 602, message: 'logs_state in body is required' },
    ]);
  });

  it('shows the log collection and the role stages in GET host', async () => {
    const agent = await client();
    const host = describeHost(22);
    await agent.register(host.hostId);
    const before = (await agent.getHost(host.hostId)).body as Record<string, unknown>;
    expect(before['logs_info']).toBeUndefined();
    expect(before['logs_started_at']).toBe('0001-01-01T00:00:00.000Z');
    expect(before['progress_stages']).toEqual([]);
    await agent.logsProgress(host.hostId, 'requested');
    backend.setHost(INFRA_ENV, host.hostId, { role: HostRole.Master });
    const after = (await agent.getHost(host.hostId)).body as Record<string, unknown>;
    expect(after).toMatchObject({
      logs_info: 'requested',
      logs_started_at: '2026-11-25T11:00:00.000Z',
      progress_stages: ['Starting installation', 'Done'],
    });
  });

  it('stores an uploaded log archive under the cluster and tells the core (204)', async () => {
    const agent = await client();
    const host = describeHost(13);
    await agent.register(host.hostId);
    backend.setHost(INFRA_ENV, host.hostId, { clusterId: CLUSTER });
    const archive = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 31) % 256));
    const response = await agent.uploadLogs(CLUSTER, host.hostId, archive);
    expect(response.status).toBe(204);
    expect(readFileSync(join(logsDir, CLUSTER, `${host.hostId}.tar.gz`))).toEqual(archive);
    expect(backend.calls.logsUploaded).toContain(host.hostId);
  });

  it('refuses a log upload over budget (413), for another cluster (404) or without host_id (400)', async () => {
    const agent = await client();
    const host = describeHost(14);
    await agent.register(host.hostId);
    backend.setHost(INFRA_ENV, host.hostId, { clusterId: CLUSTER });
    const tooLarge = await agent.uploadLogs(CLUSTER, host.hostId, Buffer.alloc(100 * 1024));
    expect([tooLarge.status, tooLarge.body]).toEqual([
      413,
      { code: 413, message: 'request body is larger than 65536 bytes' },
    ]);
    const otherCluster = await agent.uploadLogs(OTHER_INFRA_ENV, host.hostId, Buffer.from('x'));
    expect(otherCluster.status).toBe(404);
    const noHost = await agent.request('POST', `/v2/clusters/${CLUSTER}/logs?logs_type=host`, {
      body: '--b\r\nContent-Disposition: form-data; name="upfile"\r\n\r\nx\r\n--b--\r\n',
      contentType: 'multipart/form-data; boundary=b',
    });
    expect([noHost.status, (noHost.body as { reason: string }).reason]).toEqual([
      400,
      'cluster_id and host_id are required for upload host logs',
    ]);
    expect(readdirSync(join(logsDir, CLUSTER)).filter((name) => name.endsWith('.partial'))).toEqual(
      [],
    );
  });
});

describe('authentication', () => {
  it('gives the same 401 for a forged, expired, other InfraEnv, unknown InfraEnv, missing or user token', async () => {
    const host = describeHost(15);
    const owner = await client();
    await owner.register(host.hostId);
    const registrationsBefore = backend.calls.registered.length;
    const expired = await token({
      infra_env_id: INFRA_ENV,
      exp: Math.floor(NOW.getTime() / 1000) - 60,
    });
    const tokens = {
      forged: await token({ infra_env_id: INFRA_ENV }, forgerKey),
      expired,
      otherInfraEnv: await token({ infra_env_id: OTHER_INFRA_ENV }),
      unknownInfraEnv: await token({ infra_env_id: UNKNOWN_INFRA_ENV }),
      clusterToken: await token({ cluster_id: CLUSTER }),
      notAJwt: 'pull-secret',
      none: '',
    };
    const answers: Record<string, AgentResponse[]> = {};
    for (const [name, value] of Object.entries(tokens)) {
      const agent = await client({ token: value });
      answers[name] = [
        await agent.register(describeHost(16).hostId),
        await agent.nextSteps(host.hostId),
        await agent.getHost(host.hostId),
        await agent.reportProgress(host.hostId, 'Installing'),
        await agent.uploadLogs(CLUSTER, host.hostId, Buffer.from('x')),
      ];
    }
    const unknown = await client({ token: tokens.unknownInfraEnv, infraEnvId: UNKNOWN_INFRA_ENV });
    answers['unknownOnItsOwnPath'] = [await unknown.nextSteps(host.hostId)];
    const userAuth = await client({ token: '' });
    answers['userAuth'] = [
      await userAuth.request('GET', `/v2/infra-envs/${INFRA_ENV}/hosts/${host.hostId}`, {
        headers: { authorization: `Bearer ${await token({ infra_env_id: INFRA_ENV })}` },
      }),
    ];
    const seen = new Set(
      Object.values(answers)
        .flat()
        .map((answer) =>
          JSON.stringify([answer.status, answer.text, answer.headers['content-type']]),
        ),
    );
    expect([...seen]).toEqual([
      JSON.stringify([
        401,
        '{"code":401,"message":"unauthenticated for invalid credentials"}',
        'application/json; charset=utf-8',
      ]),
    ]);
    // None of them reached the backend.
    expect(backend.calls.registered).toHaveLength(registrationsBefore);
  });

  it('accepts a token whose exp is still ahead', async () => {
    const agent = await client({
      token: await token({ infra_env_id: INFRA_ENV, exp: Math.floor(NOW.getTime() / 1000) + 3600 }),
    });
    expect((await agent.register(describeHost(17).hostId)).status).toBe(201);
  });
});

describe('routing and transport', () => {
  it('answers unknown paths 404 and known paths with another method 405 with Allow', async () => {
    const agent = await client();
    const unknown = await agent.request('GET', '/v2/clusters');
    expect([unknown.status, unknown.body]).toEqual([
      404,
      { code: 404, message: 'path /api/assisted-install/v2/clusters was not found' },
    ]);
    const wrongMethod = await agent.request(
      'DELETE',
      `/v2/infra-envs/${INFRA_ENV}/hosts/${describeHost(18).hostId}/progress`,
    );
    expect([wrongMethod.status, wrongMethod.headers['allow']]).toEqual([405, 'PUT']);
  });

  it('serves TLS that a client trusting the CA accepts and an untrusting one refuses', async () => {
    const trusting = await client();
    expect((await trusting.register(describeHost(19).hostId)).status).toBe(201);
    const untrusting = new Agent({ connect: { rejectUnauthorized: true } });
    await expect(
      request(`${server.url}/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts`, {
        method: 'POST',
        dispatcher: untrusting,
      }),
    ).rejects.toThrow(/self[- ]signed|certificate/i);
    await untrusting.close();
    const insecure = agentDispatcher(server.url, { insecure: true, connections: 1 });
    const agent = new AgentClient({
      url: server.url,
      infraEnvId: INFRA_ENV,
      token: await token({ infra_env_id: INFRA_ENV }),
      dispatcher: insecure,
      onExchange: conformance.check,
    });
    expect((await agent.register(describeHost(20).hostId)).status).toBe(201);
    await insecure.close();
  });

  it('serves plain HTTP only when asked, for the agent --insecure tests', async () => {
    const options = {
      backend,
      tokenKey: await importAgentTokenKey(
        await exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey),
      ),
      agentImage: AGENT_IMAGE,
      logsDir,
      port: 0,
    };
    await expect(startAgentApiServer(options)).rejects.toThrow(SiteForgeError);
    const plain = await startAgentApiServer({ ...options, insecureHttp: true });
    expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await request(
      `${plain.url}/api/assisted-install/v2/infra-envs/${INFRA_ENV}/hosts`,
      {
        method: 'POST',
      },
    );
    expect(response.statusCode).toBe(401);
    await response.body.text();
    await plain.close();
  });

  it('takes a host id of 32 hex digits without hyphens, as go-openapi does', async () => {
    const agent = await client();
    const host = describeHost(23);
    const bare = host.hostId.replace(/-/g, '').toUpperCase();
    const registered = await agent.register(bare);
    expect([registered.status, (registered.body as Record<string, unknown>)['id']]).toEqual([
      201,
      host.hostId,
    ]);
    expect(backend.calls.registered.at(-1)?.hostId).toBe(host.hostId);
    const steps = await agent.nextSteps(bare);
    expect(steps.status).toBe(200);
    const shown = await agent.getHost(bare);
    expect([shown.status, (shown.body as Record<string, unknown>)['id']]).toEqual([
      200,
      host.hostId,
    ]);
  });

  it('answers 503 with Retry-After on every operation while the controller stands by', async () => {
    let serving = false;
    const standby = await startAgentApiServer({
      backend,
      tokenKey: await importAgentTokenKey(
        await exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey),
      ),
      agentImage: AGENT_IMAGE,
      logsDir,
      available: () => serving,
      port: 0,
      tls: { cert: cert.cert, key: cert.key },
    });
    const local = new AgentApiConformance();
    const agent = new AgentClient({
      url: standby.url,
      infraEnvId: INFRA_ENV,
      token: await token({ infra_env_id: INFRA_ENV }),
      ca: cert.cert,
      connections: 1,
      onExchange: local.check,
    });
    const host = describeHost(24);
    const answers = [
      await agent.register(host.hostId),
      await agent.nextSteps(host.hostId),
      await agent.postStepReply(host.hostId, {
        step_type: 'inventory',
        step_id: 'inventory-1',
        exit_code: 0,
        output: '{}',
        error: '',
      }),
      await agent.reportProgress(host.hostId, 'Done'),
      await agent.logsProgress(host.hostId, 'completed'),
      await agent.getHost(host.hostId),
      await agent.uploadLogs(CLUSTER, host.hostId, Buffer.from('logs')),
    ];
    // Each 503 closes its connection: the agent's next one may reach the replica that acts.
    expect(
      answers.map((answer) => [
        answer.status,
        answer.headers['retry-after'],
        answer.headers['connection'],
      ]),
    ).toEqual(Array.from({ length: 7 }, () => [503, '5', 'close']));
    expect(local.violations).toEqual([]);
    expect([...local.seen].sort()).toEqual([
      'v2GetHost 503',
      'v2GetNextSteps 503',
      'v2PostStepReply 503',
      'v2RegisterHost 503',
      'v2UpdateHostInstallProgress 503',
      'v2UpdateHostLogsProgress 503',
      'v2UploadLogs 503',
    ]);
    // Once it serves, requests reach authentication (this server trusts another key: 401).
    serving = true;
    expect((await agent.register(host.hostId)).status).toBe(401);
    await agent.close();
    await standby.close();
  });

  it('tells the observer of each answered request: operation, status and duration', async () => {
    const agent = await client();
    const host = describeHost(21);
    const before = events.length;
    await agent.register(host.hostId);
    await agent.nextSteps(host.hostId);
    await agent.request('GET', '/v2/clusters');
    await client({ token: 'forged' }).then((stranger) => stranger.getHost(host.hostId));
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      events.slice(before).map((event) => [event.operation, event.method, event.status]),
    ).toEqual([
      ['v2RegisterHost', 'POST', 201],
      ['v2GetNextSteps', 'GET', 200],
      ['unknown', 'GET', 404],
      ['v2GetHost', 'GET', 401],
    ]);
    expect(events.slice(before).every((event) => event.durationMs >= 0)).toBe(true);
  });

  it('has exercised every operation of the OpenAPI document', () => {
    const operations = new Set([...conformance.seen].map((entry) => entry.split(' ')[0]));
    expect([...operations].sort()).toEqual([
      'v2GetHost',
      'v2GetNextSteps',
      'v2PostStepReply',
      'v2RegisterHost',
      'v2UpdateHostInstallProgress',
      'v2UpdateHostLogsProgress',
      'v2UploadLogs',
    ]);
  });
});
