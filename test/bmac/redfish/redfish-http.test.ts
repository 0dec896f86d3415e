import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedfishError, RedfishHttp } from '../../../src/bmac/redfish/index.js';
import type { RedfishExchange } from '../../../src/bmac/redfish/index.js';
import type { Clock } from '../../../src/shared/clock.js';

const origin = 'https://bmc.test';
const credentials = { username: 'root', password: 's3cr3t-pa55' };
const json = { headers: { 'content-type': 'application/json' } };
const root = {
  RedfishVersion: '1.15.0',
  Links: { Sessions: { '@odata.id': '/redfish/v1/SessionService/Sessions' } },
};

/** Fake time: sleeps return at once and are recorded. */
function fakeClock(): Clock & { sleeps: number[] } {
  let t = Date.parse('2026-11-22T10:00:00Z');
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: (ms) => {
      sleeps.push(ms);
      t += ms;
      return Promise.resolve();
    },
  };
}

describe('RedfishHttp against a mocked BMC', () => {
  let agent: MockAgent;
  let clock: ReturnType<typeof fakeClock>;
  let exchanges: RedfishExchange[];
  let http: RedfishHttp;

  const mock = () => agent.get(origin);
  const make = (extra: Partial<ConstructorParameters<typeof RedfishHttp>[0]> = {}) =>
    new RedfishHttp({
      origin,
      credentials,
      dispatcher: agent,
      clock,
      random: () => 1,
      onExchange: (e) => exchanges.push(e),
      ...extra,
    });
  const login = (token = 'tok-1', status = 201) =>
    mock()
      .intercept({
        path: '/redfish/v1/SessionService/Sessions',
        method: 'POST',
        body: JSON.stringify({ UserName: credentials.username, Password: credentials.password }),
      })
      .reply(
        status,
        { '@odata.id': '/redfish/v1/SessionService/Sessions/7' },
        {
          headers: {
            ...json.headers,
            'x-auth-token': token,
            location: '/redfish/v1/SessionService/Sessions/7',
          },
        },
      );

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    clock = fakeClock();
    exchanges = [];
    mock().intercept({ path: '/redfish/v1/', method: 'GET' }).reply(200, root, json);
    http = make();
  });
  afterEach(async () => {
    await http.close();
    await agent.close();
  });

  it('logs in once, sends X-Auth-Token, and deletes the session on close', async () => {
    login();
    mock()
      .intercept({
        path: '/redfish/v1/Systems',
        method: 'GET',
        headers: { 'x-auth-token': 'tok-1' },
      })
      .reply(200, { Members: [] }, json)
      .times(2);
    mock()
      .intercept({
        path: '/redfish/v1/SessionService/Sessions/7',
        method: 'DELETE',
        headers: { 'x-auth-token': 'tok-1' },
      })
      .reply(204, '');
    await Promise.all([http.get('/redfish/v1/Systems'), http.get('/redfish/v1/Systems')]);
    await http.close();
    expect(exchanges.map((e) => `${e.method} ${e.path} ${String(e.status)}`)).toEqual([
      'GET /redfish/v1/ 200',
      'POST /redfish/v1/SessionService/Sessions 201',
      'GET /redfish/v1/Systems 200',
      'GET /redfish/v1/Systems 200',
      'DELETE /redfish/v1/SessionService/Sessions/7 204',
    ]);
    agent.assertNoPendingInterceptors();
  });

  it('logs in again once when the session expires, then gives up on a second 401', async () => {
    login('tok-1');
    login('tok-2');
    mock()
      .intercept({
        path: '/redfish/v1/Systems/1',
        method: 'GET',
        headers: { 'x-auth-token': 'tok-1' },
      })
      .reply(401, {});
    mock()
      .intercept({
        path: '/redfish/v1/Systems/1',
        method: 'GET',
        headers: { 'x-auth-token': 'tok-2' },
      })
      .reply(200, { Id: '1' }, json);
    expect((await http.get<{ Id: string }>('/redfish/v1/Systems/1')).body?.Id).toBe('1');

    login('tok-3');
    mock().intercept({ path: '/redfish/v1/Systems/2', method: 'GET' }).reply(401, {}).times(2);
    await expect(http.get('/redfish/v1/Systems/2')).rejects.toMatchObject({ status: 401 });
  });

  it('falls back to Basic auth when the BMC has no SessionService (sushy-tools)', async () => {
    mock()
      .intercept({ path: '/redfish/v1/SessionService/Sessions', method: 'POST' })
      .reply(404, {});
    const basic = `Basic ${Buffer.from('root:s3cr3t-pa55').toString('base64')}`;
    mock()
      .intercept({ path: '/redfish/v1/Systems', method: 'GET', headers: { authorization: basic } })
      .reply(200, { Members: [] }, json);
    await http.get('/redfish/v1/Systems');
    agent.assertNoPendingInterceptors();
  });

  it('does not fall back to Basic in session mode, nor on a connection error', async () => {
    await http.close();
    http = make({ auth: 'session' });
    mock()
      .intercept({ path: '/redfish/v1/SessionService/Sessions', method: 'POST' })
      .reply(404, {});
    await expect(http.get('/redfish/v1/Systems')).rejects.toMatchObject({ status: 404 });
  });

  it('retries a weak ETag in its strong form, then without If-Match, on 412', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    const patch = (ifMatch: string | undefined, status: number) =>
      mock()
        .intercept({
          path: '/redfish/v1/Systems/1',
          method: 'PATCH',
          headers: (h) => h['if-match'] === ifMatch,
        })
        .reply(status, status === 412 ? {} : '');
    patch('W/"5"', 412);
    patch('"5"', 412);
    patch(undefined, 204);
    const res = await http.send('PATCH', '/redfish/v1/Systems/1', { Boot: {} }, { etag: 'W/"5"' });
    expect(res.status).toBe(204);
    expect(exchanges.map((e) => e.status)).toEqual([412, 412, 204]);
  });

  it('fails on 412 with a strong ETag only after one try without If-Match', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    mock().intercept({ path: '/redfish/v1/Systems/1', method: 'PATCH' }).reply(412, {}).times(2);
    await expect(
      http.send('PATCH', '/redfish/v1/Systems/1', {}, { etag: '"5"' }),
    ).rejects.toMatchObject({ status: 412 });
    expect(exchanges.map((e) => e.status)).toEqual([412, 412]);
  });

  it('follows a 202 task monitor, sleeping as Retry-After says', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    mock()
      .intercept({ path: '/redfish/v1/Systems/1/Actions/ComputerSystem.Reset', method: 'POST' })
      .reply(
        202,
        { TaskState: 'Running' },
        {
          headers: {
            ...json.headers,
            location: `${origin}/redfish/v1/TaskMonitors/9`,
            'retry-after': '2',
          },
        },
      );
    mock()
      .intercept({ path: '/redfish/v1/TaskMonitors/9', method: 'GET' })
      .reply(202, { TaskState: 'Running' }, json);
    mock()
      .intercept({ path: '/redfish/v1/TaskMonitors/9', method: 'GET' })
      .reply(200, { TaskState: 'Completed' }, json);
    const res = await http.send('POST', '/redfish/v1/Systems/1/Actions/ComputerSystem.Reset', {
      ResetType: 'On',
    });
    expect(res.body).toEqual({ TaskState: 'Completed' });
    expect(clock.sleeps).toEqual([2_000, 1_000]);
  });

  it('reports a task that ended in Exception, and a 202 without Location', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    mock()
      .intercept({ path: '/a', method: 'POST' })
      .reply(202, {}, { headers: { location: '/tm/1', 'retry-after': '0' } });
    mock()
      .intercept({ path: '/tm/1', method: 'GET' })
      .reply(
        200,
        {
          TaskState: 'Exception',
          Messages: [{ MessageId: 'IDRAC.2.8.RAC0720', Message: 'Unable to locate the ISO' }],
        },
        json,
      );
    await expect(http.send('POST', '/a', {})).rejects.toMatchObject({
      code: 'REDFISH_TASK_FAILED',
      messageId: 'IDRAC.2.8.RAC0720',
    });
    mock().intercept({ path: '/b', method: 'POST' }).reply(202, {}, json);
    await expect(http.send('POST', '/b', {})).rejects.toMatchObject({ code: 'REDFISH_PROTOCOL' });
  });

  it('gives up on a task that never ends, after the task timeout', async () => {
    await http.close();
    http = make({ auth: 'basic', taskTimeoutMs: 10_000 });
    mock()
      .intercept({ path: '/a', method: 'POST' })
      .reply(202, {}, { headers: { location: '/tm/1' } });
    mock()
      .intercept({ path: '/tm/1', method: 'GET' })
      .reply(202, {}, { headers: { 'retry-after': '3' } })
      .persist();
    await expect(http.send('POST', '/a', {})).rejects.toMatchObject({ code: 'REDFISH_TIMEOUT' });
    expect(clock.sleeps).toEqual([1_000, 3_000, 3_000, 3_000]);
  });

  it('retries a GET on 5xx with growing delays, and never a POST on 500', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    mock().intercept({ path: '/redfish/v1/Systems', method: 'GET' }).reply(500, {}).times(3);
    mock()
      .intercept({ path: '/redfish/v1/Systems', method: 'GET' })
      .reply(200, { Members: [] }, json);
    await http.get('/redfish/v1/Systems');
    expect(clock.sleeps).toEqual([1_000, 2_000, 4_000]);

    mock().intercept({ path: '/redfish/v1/x', method: 'POST' }).reply(500, {});
    await expect(http.send('POST', '/redfish/v1/x', {})).rejects.toMatchObject({ status: 500 });
    expect(clock.sleeps).toHaveLength(3);
  });

  it('stops retrying after the policy’s attempts', async () => {
    await http.close();
    http = make({ auth: 'basic', retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 150 } });
    mock().intercept({ path: '/y', method: 'GET' }).reply(503, {}).times(3);
    await expect(http.get('/y')).rejects.toMatchObject({ status: 503, code: 'REDFISH_HTTP' });
    expect(clock.sleeps).toEqual([100, 150]);
  });

  it('asks again without Accept-Encoding: identity when a GET gets 406 (iLO Gen10 Plus)', async () => {
    await http.close();
    http = make({ auth: 'basic' });
    mock()
      .intercept({
        path: '/redfish/v1/Registries/Base',
        method: 'GET',
        headers: (h) => h['accept-encoding'] === 'identity',
      })
      .reply(406, {});
    mock()
      .intercept({
        path: '/redfish/v1/Registries/Base',
        method: 'GET',
        headers: (h) => h['accept-encoding'] === undefined,
      })
      .reply(200, { Id: 'Base' }, json);
    expect((await http.get<{ Id: string }>('/redfish/v1/Registries/Base')).body?.Id).toBe('Base');
    expect(exchanges.map((e) => e.status)).toEqual([406, 200]);
  });

  it('never puts credentials or tokens into errors or exchanges', async () => {
    login('tok-secret-123');
    mock()
      .intercept({ path: '/z', method: 'GET' })
      .reply(403, { error: { code: 'Base.1.8.InsufficientPrivilege', message: 'no' } }, json);
    const err = (await http.get('/z').catch((e: unknown) => e)) as RedfishError;
    expect(err).toBeInstanceOf(RedfishError);
    expect(err.messageId).toBe('Base.1.8.InsufficientPrivilege');
    const seen = JSON.stringify([err, err.message, err.stack, exchanges]);
    for (const secret of ['s3cr3t-pa55', 'tok-secret-123', 'root:'])
      expect(seen).not.toContain(secret);
  });
  it('redacts the credentials and the token a BMC quotes back, keeping the MessageId', async () => {
    login('tok-secret-123');
    const basic = Buffer.from('root:s3cr3t-pa55').toString('base64');
    mock()
      .intercept({ path: '/z', method: 'POST' })
      .reply(
        400,
        {
          error: {
            code: 'Base.1.8.GeneralError',
            message: `Authorization: Basic ${basic}`,
            '@Message.ExtendedInfo': [
              {
                MessageId: 'Base.1.8.PropertyValueFormatError',
                Message: 'The value s3cr3t-pa55 for Password (user root) is not valid',
                MessageArgs: ['s3cr3t-pa55', 'tok-secret-123'],
                Severity: 'Warning',
              },
            ],
          },
        },
        json,
      );
    const err = (await http.send('POST', '/z', {}).catch((e: unknown) => e)) as RedfishError;
    expect(err.messageId).toBe('Base.1.8.PropertyValueFormatError');
    expect(err.message).toContain('The value <redacted> for Password (user <redacted>)');
    expect(err.messageArgs).toEqual(['<redacted>', '<redacted>']);
    expect(err.detail).toContain('Authorization: Basic <redacted>');
    const seen = JSON.stringify([err, err.message, err.detail, err.messages]);
    for (const secret of ['s3cr3t-pa55', 'tok-secret-123', basic])
      expect(seen).not.toContain(secret);

    // A task's messages are BMC text too.
    mock()
      .intercept({ path: '/a', method: 'POST' })
      .reply(202, {}, { headers: { location: '/tm/1', 'retry-after': '0' } });
    mock()
      .intercept({ path: '/tm/1', method: 'GET' })
      .reply(
        200,
        {
          TaskState: 'Exception',
          Messages: [{ MessageId: 'IDRAC.2.8.RAC0720', Message: 'login s3cr3t-pa55 refused' }],
        },
        json,
      );
    const task = (await http.send('POST', '/a', {}).catch((e: unknown) => e)) as RedfishError;
    expect(task.messageId).toBe('IDRAC.2.8.RAC0720');
    expect(task.message).toContain('login <redacted> refused');
  });
});

describe('RedfishHttp on a real socket', () => {
  it('sends one mutating request at a time to a BMC, while GETs run beside it', async () => {
    let inFlight = 0;
    let maxMutating = 0;
    let sawConcurrentGet = false;
    let arrived!: () => void;
    const firstMutation = new Promise<void>((resolve) => (arrived = resolve));
    const server = createServer((req, res) => {
      const mutating = req.method !== 'GET';
      if (mutating) maxMutating = Math.max(maxMutating, ++inFlight);
      if (mutating) arrived();
      else if (inFlight > 0) sawConcurrentGet = true;
      setTimeout(() => {
        if (mutating) inFlight--;
        res.writeHead(mutating ? 204 : 200, { 'content-type': 'application/json' });
        res.end(mutating ? '' : '{}');
      }, 100);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const http = new RedfishHttp({
      origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
      credentials,
      auth: 'basic',
      connections: 4,
    });
    try {
      await Promise.all([
        http.send('POST', '/a', {}),
        http.send('PATCH', '/b', {}),
        http.send('POST', '/c', {}),
        // The GET goes once the first POST is at the server, so it must pass it.
        firstMutation.then(() => http.get('/d')),
      ]);
      expect(maxMutating).toBe(1);
      expect(sawConcurrentGet).toBe(true);
    } finally {
      await http.close();
      server.close();
    }
  });

  it('retries a refused connection, then reports it as REDFISH_TRANSPORT', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) =>
      server.close(() => {
        r();
      }),
    );
    const sleeps: number[] = [];
    const http = new RedfishHttp({
      origin: `http://127.0.0.1:${String(port)}`,
      credentials,
      auth: 'basic',
      retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
      clock: { now: Date.now, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) },
    });
    try {
      await expect(http.get('/redfish/v1/')).rejects.toMatchObject({ code: 'REDFISH_TRANSPORT' });
      expect(sleeps).toHaveLength(2);
    } finally {
      await http.close();
    }
  });

  it('times out a BMC that never answers', async () => {
    const server = createServer(() => {
      // never answers
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const http = new RedfishHttp({
      origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
      credentials,
      auth: 'basic',
      requestTimeoutMs: 100,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    try {
      await expect(http.get('/slow')).rejects.toMatchObject({ code: 'REDFISH_TIMEOUT' });
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
