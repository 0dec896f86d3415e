import { afterEach, describe, expect, it } from 'vitest';
import type {
  Controller,
  LeaderGate,
  ReconcileContext,
  ReconcileResult,
  Request,
} from '../../../src/bmac/runtime/contract.js';
import { EventType, requestKey } from '../../../src/bmac/runtime/contract.js';
import { Manager } from '../../../src/bmac/runtime/manager.js';
import type { ManagerOptions } from '../../../src/bmac/runtime/manager.js';
import { RuntimeMetrics } from '../../../src/bmac/runtime/metrics.js';
import { ProbeServer } from '../../../src/bmac/runtime/probe-server.js';
import { KubeApiError } from '../../../src/kube/index.js';
import type { GroupVersionKind, KubeObject, ScopeOptions } from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';
import type { InformerEvent } from '../../../src/bmac/runtime/informer.js';
import { ManualClock, settle } from '../../fakes/manual-clock.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
  ...CM,
  metadata: { namespace: 'ns', name, uid: `uid-${name}` },
  data,
});

/** A leader gate a test flips by hand. */
class FakeLeaderGate implements LeaderGate {
  private readonly listeners = new Set<(leader: boolean) => void>();
  constructor(
    private leader = false,
    private known = false,
  ) {}
  isLeader(): boolean {
    return this.leader;
  }
  isKnown(): boolean {
    return this.known;
  }
  onChange(listener: (leader: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(leader: boolean): void {
    this.known = true;
    this.leader = leader;
    for (const l of this.listeners) l(leader);
  }
}

/** A controller whose passes the test scripts; it records each pass's key and signal. */
function scriptedController(
  pass: (request: Request, context: ReconcileContext) => Promise<ReconcileResult> = () =>
    Promise.resolve({}),
  extra: Partial<Controller> = {},
) {
  const passes: string[] = [];
  const signals: AbortSignal[] = [];
  const controller: Controller = {
    name: 'configmaps',
    for: CM,
    reconcile: (request, context) => {
      passes.push(requestKey(request));
      signals.push(context.signal);
      return pass(request, context);
    },
    ...extra,
  };
  return { controller, passes, signals };
}

const managers: Manager[] = [];
function setup(options: Partial<ManagerOptions> = {}) {
  const server = new FakeApiServer();
  const clock = new ManualClock();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: 'debug',
    destination: {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  });
  const metrics = new RuntimeMetrics();
  const manager = new Manager({
    client: server,
    log,
    clock,
    metrics,
    random: () => 0,
    backoff: { baseMs: 1_000, maxMs: 60_000, jitter: 0.2 },
    watchTimeoutSeconds: [300, 300],
    shutdownTimeoutMs: 10_000,
    ...options,
  });
  managers.push(manager);
  return { server, clock, lines, metrics, manager };
}

afterEach(async () => {
  for (const m of managers.splice(0)) void m.stop();
  await settle();
});

/** A pass that stays open until the test lets it go (or its signal aborts it). */
function gate() {
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    opened,
    release: () => {
      release();
    },
  };
}

describe('Manager', () => {
  it('reconciles every object once the cache has synced, and again when it changes', async () => {
    const { server, manager } = setup();
    server.seed(configMap('a'), configMap('b'));
    const { controller, passes } = scriptedController(async (request, { reader, writer, log }) => {
      log.info('converging');
      const current = reader.get({ ...CM, ...request });
      if (current && current.metadata.annotations?.['seen'] === undefined)
        await writer.update({
          ...current,
          metadata: { ...current.metadata, annotations: { seen: 'yes' } },
        });
      return {};
    });
    manager.add(controller).start();
    await settle();
    expect(manager.readiness()).toEqual({ synced: true, leader: 'leader', ready: true });
    await settle();
    expect(server.peek({ ...CM, namespace: 'ns', name: 'a' })?.metadata.annotations).toEqual({
      seen: 'yes',
    });
    // First passes wrote; the updates they caused come back as events and are passed once more.
    expect(passes.sort()).toEqual(['ns/a', 'ns/a', 'ns/b', 'ns/b']);

    passes.length = 0;
    server.modify({ ...CM, namespace: 'ns', name: 'b' }, (o) => ({ ...o, data: { v: '2' } }));
    await settle();
    expect(passes).toEqual(['ns/b']);
  });

  it('gives each pass a logger bound to controller, namespace and name', async () => {
    const { server, lines, manager } = setup();
    server.seed(configMap('a'));
    const { controller } = scriptedController((_, { log }) => {
      log.info('converging');
      return Promise.resolve({});
    });
    manager.add(controller).start();
    await settle();
    expect(lines.find((l) => l['msg'] === 'converging')).toMatchObject({
      controller: 'configmaps',
      namespace: 'ns',
      name: 'a',
    });
  });

  it('wakes the primary keys a watched kind maps to', async () => {
    const { server, manager } = setup();
    server.seed(configMap('a'), configMap('b'));
    const { controller, passes } = scriptedController(undefined, {
      watches: [
        {
          gvk: SECRET,
          map: (secret) => [{ namespace: 'ns', name: secret.metadata.labels?.['owner'] ?? '' }],
        },
      ],
    });
    manager.add(controller).start();
    await settle();
    passes.length = 0;
    server.seed({ ...SECRET, metadata: { namespace: 'ns', name: 's', labels: { owner: 'b' } } });
    await settle();
    expect(passes).toEqual(['ns/b']);
    expect(manager.cache.list(SECRET)).toHaveLength(1);
  });

  it('skips the updates of a watched kind its onUpdate says do not matter', async () => {
    const { server, manager } = setup();
    server.seed(configMap('a'), configMap('b'));
    const { controller, passes } = scriptedController(undefined, {
      watches: [
        {
          gvk: SECRET,
          map: (secret) => [{ namespace: 'ns', name: secret.metadata.labels?.['owner'] ?? '' }],
          onUpdate: (secret, previous) =>
            secret.metadata.labels?.['owner'] !== previous.metadata.labels?.['owner'],
        },
      ],
    });
    manager.add(controller).start();
    await settle();
    passes.length = 0;
    const ref = { ...SECRET, namespace: 'ns', name: 's' };
    server.seed({ ...SECRET, metadata: { namespace: 'ns', name: 's', labels: { owner: 'b' } } });
    await settle();
    expect(passes).toEqual(['ns/b']);
    server.modify(ref, (o) => ({ ...o, data: { x: 'MQ==' } }));
    await settle();
    expect(passes).toEqual(['ns/b']);
    server.modify(ref, (o) => ({ ...o, metadata: { ...o.metadata, labels: { owner: 'a' } } }));
    await settle();
    expect(passes.slice(1).sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('reads what a pass wrote in the next pass, before the watch brings it', async () => {
    const { server, manager } = setup();
    server.seed(configMap('a'));
    const seen: string[] = [];
    const { controller } = scriptedController(async (request, { reader, writer }) => {
      const current = reader.get({ ...CM, ...request })!;
      const count = Number((current['data'] as Record<string, string> | undefined)?.['n'] ?? 0);
      seen.push(`${String(count)}@${current.metadata.resourceVersion ?? ''}`);
      if (count < 3) await writer.update({ ...current, data: { n: String(count + 1) } });
      return {};
    });
    // The watch lags behind the writes.
    server.holdEvents = true;
    manager.add(controller).start();
    await settle(10);
    // Each pass saw the previous pass's write: never a stale read, never a 409.
    expect(seen.map((s) => s.split('@')[0])).toEqual(['0', '1', '2', '3']);
    expect(server.requests.filter((r) => r.startsWith('update'))).toHaveLength(3);
    // The watch's late events change nothing more.
    server.releaseEvents();
    await settle(10);
    expect(seen).toHaveLength(4);
  });

  it('retries a conflict at once without logging an error, and writes on the newer object', async () => {
    const { server, lines, metrics, manager } = setup();
    server.seed(configMap('a'));
    const { controller, passes } = scriptedController(async (request, { reader, writer }) => {
      const current = reader.get({ ...CM, ...request })!;
      if (current['data'] && (current['data'] as Record<string, string>)['done'] === 'yes')
        return {};
      await writer.update({ ...current, data: { done: 'yes' } });
      return {};
    });
    server.conflictsToInject = 2;
    manager.add(controller).start();
    await settle(10);
    expect(server.peek({ ...CM, namespace: 'ns', name: 'a' })?.['data']).toEqual({ done: 'yes' });
    expect(passes.length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => Number(l['level']) >= 50)).toEqual([]);
    const text = await metrics.text();
    expect(text).toContain(
      'siteforge_reconcile_total{controller="configmaps",result="conflict"} 2',
    );
    expect(text).not.toContain('siteforge_reconcile_errors_total{controller="configmaps"}');
  });

  it('backs off a failing key exponentially, then a success resets it', async () => {
    const { server, clock, lines, metrics, manager } = setup();
    server.seed(configMap('a'));
    let failures = 3;
    const { controller, passes } = scriptedController(() => {
      if (failures-- > 0) return Promise.reject(new Error('BMC unreachable'));
      return Promise.resolve({});
    });
    manager.add(controller).start();
    await settle();
    expect(passes).toHaveLength(1);
    expect(clock.pending()).toContain(1_000);
    await clock.advance(1_000);
    expect(passes).toHaveLength(2);
    expect(clock.pending()).toContain(2_000);
    await clock.advance(1_999);
    expect(passes).toHaveLength(2);
    await clock.advance(1);
    expect(passes).toHaveLength(3);
    await clock.advance(4_000);
    expect(passes).toHaveLength(4);
    const errors = lines.filter((l) => String(l['msg']).startsWith('reconcile failed'));
    expect(errors.map((l) => l['retryInMs'])).toEqual([1_000, 2_000, 4_000]);
    expect(errors[0]).toMatchObject({ level: 50, error: 'BMC unreachable', name: 'a' });
    expect(await metrics.text()).toContain(
      'siteforge_reconcile_errors_total{controller="configmaps"} 3',
    );
  });

  it('tells a key failing the same way once as an error, not once per retry, and when it recovers', async () => {
    const { server, clock, lines, metrics, manager } = setup({
      backoff: { baseMs: 1_000, maxMs: 1_000, jitter: 0 },
    });
    server.seed(configMap('a'), configMap('b'));
    const errorOf = new Map([
      ['ns/a', 'cannot reach the API server at https://api.a.example.com:6443: ENOTFOUND'],
      ['ns/b', 'cannot reach the API server at https://api.b.example.com:6443: ENOTFOUND'],
    ]);
    const { controller } = scriptedController((request) => {
      const error = errorOf.get(requestKey(request));
      return error === undefined ? Promise.resolve({}) : Promise.reject(new Error(error));
    });
    manager.add(controller).start();
    await settle();
    for (let i = 0; i < 11; i++) await clock.advance(1_000);
    errorOf.set('ns/a', 'the spoke answered 401 Unauthorized');
    await clock.advance(1_000);
    errorOf.delete('ns/a');
    await clock.advance(1_000);
    const told = (name: string) =>
      lines
        .filter((l) => l['name'] === name && Number(l['level']) > 20)
        .map((l) => [l['level'], l['msg'], l['failures']]);
    expect(told('a')).toEqual([
      [50, 'reconcile failed', 1],
      [40, 'reconcile still failing', 10],
      [50, 'reconcile failed', 13],
      [30, 'reconciled again after failing', 13],
    ]);
    expect(told('b')).toEqual([
      [50, 'reconcile failed', 1],
      [40, 'reconcile still failing', 10],
    ]);
    // Every failure is still logged at debug and counted.
    expect(
      lines.filter((l) => l['name'] === 'b' && l['msg'] === 'reconcile failed again'),
    ).toHaveLength(12);
    expect(await metrics.text()).toContain(
      'siteforge_reconcile_errors_total{controller="configmaps"} 27',
    );
  });

  it('looks at a key again after the requeueAfterMs its pass asked for', async () => {
    const { server, clock, manager } = setup();
    server.seed(configMap('a'));
    const { controller, passes } = scriptedController(() =>
      Promise.resolve({ requeueAfterMs: 30_000 }),
    );
    manager.add(controller).start();
    await settle();
    expect(passes).toEqual(['ns/a']);
    await clock.advance(29_999);
    expect(passes).toEqual(['ns/a']);
    await clock.advance(1);
    expect(passes).toEqual(['ns/a', 'ns/a']);
  });

  it('keeps a standby warm but idle, reconciles once leading, and aborts in-flight passes the moment leadership is lost', async () => {
    const leader = new FakeLeaderGate();
    const { server, manager } = setup({ leader });
    server.seed(configMap('a'));
    const hold = gate();
    const writes: string[] = [];
    const { controller, passes, signals } = scriptedController(
      async (request, { writer, signal, reader }) => {
        await Promise.race([
          hold.opened,
          new Promise((resolve) => {
            signal.addEventListener('abort', resolve);
          }),
        ]);
        const current = reader.get({ ...CM, ...request })!;
        if (current['status'] !== undefined) return {};
        try {
          await writer.updateStatus({ ...current, status: { seen: true } });
          writes.push('written');
        } catch (error) {
          writes.push((error as Error).message);
          throw error;
        }
        return {};
      },
    );
    manager.add(controller).start();
    await settle();
    expect(manager.readiness()).toEqual({ synced: true, leader: 'unknown', ready: false });
    leader.set(false);
    expect(manager.readiness()).toEqual({ synced: true, leader: 'standby', ready: true });
    await settle();
    expect(passes).toEqual([]);
    expect(manager.cache.list(CM)).toHaveLength(1);

    leader.set(true);
    await settle();
    expect(passes).toEqual(['ns/a']);
    expect(signals[0]?.aborted).toBe(false);

    leader.set(false);
    expect(signals[0]?.aborted).toBe(true);
    await settle();
    expect(writes).toEqual(['leadership was lost; the next leader takes over']);
    expect(server.requests.filter((r) => r.startsWith('updateStatus'))).toEqual([]);

    hold.release();
    leader.set(true);
    await settle();
    // The second term's pass writes; the status change it causes is passed once more, idle.
    expect(passes).toEqual(['ns/a', 'ns/a', 'ns/a']);
    expect(writes).toEqual(['leadership was lost; the next leader takes over', 'written']);
  });

  it('stops taking keys on stop, aborts in-flight passes and waits for them, within a bound', async () => {
    const { server, clock, lines, manager } = setup();
    server.seed(configMap('a'), configMap('b'));
    const { controller, signals } = scriptedController((request, { signal }) =>
      request.name === 'a'
        ? new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              resolve({});
            });
          })
        : new Promise(() => undefined),
    );
    manager.add(controller).start();
    await settle();
    expect(signals).toHaveLength(2);
    let stopped = false;
    void manager.stop().then(() => (stopped = true));
    await settle();
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(stopped).toBe(false);
    expect(manager.readiness().ready).toBe(false);
    await clock.advance(10_000);
    expect(stopped).toBe(true);
    expect(
      lines.some((l) => l['msg'] === 'reconciles still running at shutdown; leaving them'),
    ).toBe(true);
    expect(server.openWatches).toBe(0);
  });

  it('records Events aggregated into one object with a count', async () => {
    const { server, clock, manager } = setup();
    server.seed(configMap('a'));
    let pass = 0;
    const { controller } = scriptedController((request, { events, reader }) => {
      const object = reader.get({ ...CM, ...request })!;
      events.event(object, EventType.Warning, 'BMCUnreachable', 'cannot reach 10.0.0.1');
      return Promise.resolve(pass++ < 2 ? { requeueAfterMs: 1 } : {});
    });
    manager.add(controller).start();
    await settle();
    await clock.advance(1);
    await clock.advance(1);
    await manager.stop();
    const { items } = await server.list({ apiVersion: 'v1', kind: 'Event' });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      involvedObject: { kind: 'ConfigMap', name: 'a', namespace: 'ns', uid: 'uid-a' },
      reason: 'BMCUnreachable',
      message: 'cannot reach 10.0.0.1',
      type: 'Warning',
      source: { component: 'configmaps' },
      count: 3,
    });
  });

  it("lets an observer share the controllers' informer, and watch other kinds without holding back readiness", async () => {
    const ROLLOUT = { apiVersion: 'siteforge.io/v1alpha1', kind: 'Rollout' };
    // A hub without the Rollout CRD: lists of it fail as the API server answers them.
    class HubWithoutRollouts extends FakeApiServer {
      override list(gvk: GroupVersionKind, options?: ScopeOptions) {
        if (gvk.kind === ROLLOUT.kind)
          return Promise.reject(
            new KubeApiError(404, 'NotFound', 'the server could not find the requested resource'),
          );
        return super.list(gvk, options);
      }
    }
    const server = new HubWithoutRollouts();
    const { manager } = setup({ client: server });
    server.seed(configMap('a'));
    const seen: InformerEvent[] = [];
    manager.add(scriptedController().controller);
    manager.observe(CM, (event) => seen.push(event));
    manager.observe(ROLLOUT, (event) => seen.push(event));
    manager.start();
    await settle();
    expect(manager.readiness()).toMatchObject({ synced: true, ready: true });
    expect(manager.observersSynced()).toBe(false);
    expect(seen.map((e) => [e.type, e.object.metadata.name])).toEqual([['add', 'a']]);
    expect(server.requests.filter((r) => r === 'list ConfigMap')).toHaveLength(1);
    expect(() => {
      manager.observe(CM, () => undefined);
    }).toThrow(/before start/);
  });

  it('counts informer restarts and answers probes', async () => {
    const { server, metrics, manager, clock } = setup();
    server.seed(configMap('a'));
    manager.add(scriptedController().controller);
    const probes = new ProbeServer({ readiness: () => manager.readiness(), metrics });
    const url = await probes.listen();
    try {
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      manager.start();
      await settle();
      const ready = await fetch(`${url}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ok: leader\n']);
      server.cutWatches();
      await settle();
      await clock.advance(1_000);
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toContain(
        'siteforge_informer_restarts_total{kind="ConfigMap",reason="closed"} 1',
      );
      expect(text).toContain('siteforge_workqueue_depth{controller="configmaps"} 0');
      expect((await fetch(`${url}/nothing`)).status).toBe(404);
    } finally {
      await probes.close();
    }
  });
});
