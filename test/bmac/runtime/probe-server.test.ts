import { afterEach, describe, expect, it } from 'vitest';
import type { Readiness } from '../../../src/bmac/runtime/manager.js';
import { RuntimeMetrics } from '../../../src/bmac/runtime/metrics.js';
import { ProbeServer } from '../../../src/bmac/runtime/probe-server.js';

const servers: ProbeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function probe(readiness: Readiness, metrics = new RuntimeMetrics()) {
  const server = new ProbeServer({ readiness: () => readiness, metrics });
  servers.push(server);
  const url = await server.listen();
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  return get;
}

describe('ProbeServer', () => {
  it('is not ready before the caches synced or while the leader is unknown, and says why', async () => {
    let get = await probe({ synced: false, leader: 'leader', ready: false });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      text: 'not ready: caches not synced, leader leader\n',
    });
    get = await probe({ synced: true, leader: 'unknown', ready: false });
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      text: 'not ready: caches synced, leader unknown\n',
    });
    expect(await get('/healthz')).toMatchObject({ status: 200, text: 'ok\n' });
  });

  it('is ready as leader and as a synced standby', async () => {
    expect(
      await (
        await probe({ synced: true, leader: 'leader', ready: true })
      )('/readyz'),
    ).toMatchObject({
      status: 200,
      text: 'ok: leader\n',
    });
    expect(
      await (
        await probe({ synced: true, leader: 'standby', ready: true })
      )('/readyz'),
    ).toMatchObject({
      status: 200,
      text: 'ok: standby\n',
    });
  });

  it('serves the Redfish, request and reconcile counters in Prometheus text', async () => {
    const metrics = new RuntimeMetrics();
    metrics.redfishCall('dell', 'success');
    metrics.redfishCall('dell', 'success');
    metrics.redfishCall('hpe', 'timeout');
    metrics.apiRequest('update', 409);
    metrics.reconcile('bmh', 'error', 0.2);
    const get = await probe({ synced: true, leader: 'leader', ready: true }, metrics);
    const { status, type, text } = await get('/metrics');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('siteforge_redfish_calls_total{vendor="dell",outcome="success"} 2');
    expect(text).toContain('siteforge_redfish_calls_total{vendor="hpe",outcome="timeout"} 1');
    expect(text).toContain('siteforge_api_requests_total{verb="update",code="409"} 1');
    expect(text).toContain('siteforge_reconcile_errors_total{controller="bmh"} 1');
    expect(text).toContain(
      'siteforge_reconcile_duration_seconds_bucket{le="0.25",controller="bmh"} 1',
    );
    expect((await get('/other')).status).toBe(404);
  });
});
