/**
 * The runtime's own requests against the ClusterRole: every verb the EventRecorder and the
 * reconcile pass's ObjectWriter send must be one permissions.ts grants, or the controller meets
 * 403s in a cluster that unit tests with everything allowed never show.
 */
import { describe, expect, it } from 'vitest';
import { Gvk } from '../../../src/bmac/api.js';
import { Permissions, allows, resourceOf } from '../../../src/bmac/permissions.js';
import type { PolicyRule } from '../../../src/bmac/permissions.js';
import { EventType } from '../../../src/bmac/runtime/contract.js';
import { KubeEventRecorder } from '../../../src/bmac/runtime/event-recorder.js';
import { RateLimitedObjectWriter } from '../../../src/bmac/runtime/object-writer.js';
import { TokenBucket } from '../../../src/bmac/runtime/token-bucket.js';
import { KubeApiError } from '../../../src/kube/errors.js';
import type {
  GroupVersionKind,
  KubeObject,
  ObjectRef,
  RuntimeKubeClient,
} from '../../../src/kube/index.js';
import { createLogger } from '../../../src/shared/logger.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';
import { ManualClock } from '../../fakes/manual-clock.js';

/** The runtime client as a ServiceAccount with `rules` sees it: a 403 for any verb not granted. */
function rbacClient(server: FakeApiServer, rules: readonly PolicyRule[]) {
  const sent: string[] = [];
  const check = (gvk: GroupVersionKind, verb: string, subresource?: string): void => {
    const { group, resource } = resourceOf(gvk);
    const full = subresource === undefined ? resource : `${resource}/${subresource}`;
    sent.push(`${verb} ${full}`);
    if (!allows(rules, group, full, verb))
      throw new KubeApiError(403, 'Forbidden', `${full} is forbidden: cannot ${verb}`);
  };
  const client: RuntimeKubeClient = {
    namespaced: (gvk) => server.namespaced(gvk),
    list: async (gvk, options) => (check(gvk, 'list'), server.list(gvk, options)),
    watch: (gvk, options, onEvent) => {
      check(gvk, 'watch');
      return server.watch(gvk, options, onEvent);
    },
    get: async (ref: ObjectRef) => (check(ref, 'get'), server.get(ref)),
    create: async (o: KubeObject) => (check(o, 'create'), server.create(o)),
    update: async (o: KubeObject) => (check(o, 'update'), server.update(o)),
    updateStatus: async (o: KubeObject) => (check(o, 'update', 'status'), server.updateStatus(o)),
    delete: async (ref: ObjectRef) => (check(ref, 'delete'), server.delete(ref)),
  };
  return { client, sent };
}

const clock = new ManualClock(Date.UTC(2026, 10, 25, 9, 0, 0));
const host: KubeObject = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { namespace: 'site-1', name: 'node-0', uid: 'u-1' },
};

describe('the runtime’s requests, with the permissions the chart grants', () => {
  it('records an Event and counts its repeat with the verbs permissions.runtime grants', async () => {
    const server = new FakeApiServer();
    const { client, sent } = rbacClient(server, Permissions.runtime);
    const warnings: string[] = [];
    const recorder = new KubeEventRecorder({
      client,
      component: 'redfish-host',
      clock,
      log: createLogger({ level: 'warn', destination: { write: (l: string) => warnings.push(l) } }),
      bucket: new TokenBucket({ qps: 100, burst: 100, clock }),
    });
    recorder.event(host, EventType.Warning, 'PowerFailed', 'the BMC refused power on');
    recorder.event(host, EventType.Warning, 'PowerFailed', 'the BMC refused power on');
    await recorder.flush();

    expect(sent).toEqual(['create events', 'update events']);
    expect(warnings).toEqual([]);
    const { items } = await server.list({ apiVersion: 'v1', kind: 'Event' });
    expect(items.map((e) => e['count'])).toEqual([2]);
  });

  it('reads a host live and writes it and its status with the verbs its controller is granted', async () => {
    const server = new FakeApiServer().seed(host);
    const { client, sent } = rbacClient(server, Permissions.redfishHost);
    const writer = new RateLimitedObjectWriter(
      client,
      new TokenBucket({ qps: 100, burst: 100, clock }),
      new AbortController().signal,
    );
    const live = await writer.getLive({
      ...Gvk.BareMetalHost,
      namespace: 'site-1',
      name: 'node-0',
    });
    const updated = await writer.update({
      ...live!,
      metadata: { ...live!.metadata, labels: { a: 'b' } },
    });
    await writer.updateStatus({ ...updated, status: { operationalStatus: 'OK' } });
    expect(sent).toEqual([
      'get baremetalhosts',
      'update baremetalhosts',
      'update baremetalhosts/status',
    ]);
  });
});
