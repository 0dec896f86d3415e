import { describe, expect, it } from 'vitest';
import { EventType } from '../../../src/bmac/runtime/contract.js';
import { KubeEventRecorder } from '../../../src/bmac/runtime/event-recorder.js';
import { TokenBucket } from '../../../src/bmac/runtime/token-bucket.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';
import { ManualClock } from '../../fakes/manual-clock.js';

const EVENT = { apiVersion: 'v1', kind: 'Event' };
const host: KubeObject = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { namespace: 'site-1', name: 'node-0', uid: 'u-1', resourceVersion: '42' },
};

function setup() {
  const server = new FakeApiServer();
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 9, 0, 0, 500));
  const lines: Record<string, unknown>[] = [];
  const recorder = new KubeEventRecorder({
    client: server,
    component: 'bmac',
    clock,
    log: createLogger({
      level: 'debug',
      destination: { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
    }),
    bucket: new TokenBucket({ qps: 100, burst: 100, clock }),
  });
  return { server, clock, lines, recorder };
}

describe('KubeEventRecorder', () => {
  it('writes a core/v1 Event on the object, from the controller', async () => {
    const { server, recorder } = setup();
    recorder.event(host, EventType.Normal, 'ProvisioningStarted', 'booting the discovery ISO');
    await recorder.flush();
    const { items } = await server.list(EVENT, { namespace: 'site-1' });
    expect(items).toHaveLength(1);
    expect(items[0]?.metadata.name).toMatch(/^node-0\.[0-9a-f]+$/);
    expect(items[0]).toMatchObject({
      metadata: { namespace: 'site-1' },
      involvedObject: {
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        name: 'node-0',
        namespace: 'site-1',
        uid: 'u-1',
        resourceVersion: '42',
      },
      type: 'Normal',
      reason: 'ProvisioningStarted',
      message: 'booting the discovery ISO',
      source: { component: 'bmac' },
      count: 1,
      firstTimestamp: '2026-11-25T09:00:00Z',
      lastTimestamp: '2026-11-25T09:00:00Z',
    });
  });

  it('gives Events of two controllers on one object in the same instant distinct names', async () => {
    const { server, clock, lines, recorder } = setup();
    const other = new KubeEventRecorder({
      client: server,
      component: 'redfish-host',
      clock,
      log: createLogger({ level: 'warn', destination: { write: () => undefined } }),
      bucket: new TokenBucket({ qps: 100, burst: 100, clock }),
    });
    recorder.event(host, EventType.Normal, 'BMCAccessValidated', 'Verified access to BMC');
    other.event(host, EventType.Normal, 'ProvisioningStarted', 'Image provisioning started');
    await Promise.all([recorder.flush(), other.flush()]);
    const { items } = await server.list(EVENT, { namespace: 'site-1' });
    expect(items.map((e) => e['reason']).sort()).toEqual([
      'BMCAccessValidated',
      'ProvisioningStarted',
    ]);
    expect(lines.filter((l) => l['msg'] === 'could not record an event')).toEqual([]);
  });

  it('counts a repeated Event on the one object instead of writing new ones', async () => {
    const { server, clock, recorder } = setup();
    recorder.event(host, EventType.Warning, 'BMCUnreachable', 'no answer from 10.0.0.5');
    await clock.advance(60_000);
    recorder.event(host, EventType.Warning, 'BMCUnreachable', 'no answer from 10.0.0.5');
    recorder.event(host, EventType.Warning, 'BMCUnreachable', 'no answer from 10.0.0.5');
    recorder.event(host, EventType.Warning, 'BMCUnreachable', 'no answer from 10.0.0.6');
    await recorder.flush();
    const { items } = await server.list(EVENT);
    expect(
      items.map((e) => [e['message'], e['count'], e['firstTimestamp'], e['lastTimestamp']]),
    ).toEqual([
      ['no answer from 10.0.0.5', 3, '2026-11-25T09:00:00Z', '2026-11-25T09:01:00Z'],
      ['no answer from 10.0.0.6', 1, '2026-11-25T09:01:00Z', '2026-11-25T09:01:00Z'],
    ]);
  });

  it('starts a new Event when the aggregated one was deleted meanwhile', async () => {
    const { server, recorder } = setup();
    recorder.event(host, EventType.Normal, 'Registered', 'BMC credentials verified');
    await recorder.flush();
    const [first] = (await server.list(EVENT)).items;
    server.remove(first!);
    recorder.event(host, EventType.Normal, 'Registered', 'BMC credentials verified');
    await recorder.flush();
    const { items } = await server.list(EVENT);
    expect(items.map((e) => e['count'])).toEqual([2]);
  });

  it('puts Events of a cluster-scoped object in default, and logs (never throws) a failed write', async () => {
    const { server, lines, recorder } = setup();
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } };
    recorder.event(node, EventType.Normal, 'Seen', 'hello');
    await recorder.flush();
    expect((await server.list(EVENT, { namespace: 'default' })).items).toHaveLength(1);

    server.unreachable = true;
    expect(() => {
      recorder.event(host, EventType.Warning, 'Failed', 'x');
    }).not.toThrow();
    await recorder.flush();
    expect(lines.find((l) => l['msg'] === 'could not record an event')).toMatchObject({
      level: 40,
      reason: 'Failed',
      object: 'BareMetalHost site-1/node-0',
    });
  });
});
