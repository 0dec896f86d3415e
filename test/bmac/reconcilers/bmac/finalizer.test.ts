import { describe, expect, it } from 'vitest';
import { ASSISTED_OWNER_VALUE, Finalizer, Gvk, Label } from '../../../../src/bmac/api.js';
import { KubeApiError } from '../../../../src/kube/index.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { FakeCluster, reconcileUntilStable } from '../../../fakes/fake-cluster.js';
import { chartRules } from '../../../support/chart-rules.js';
import { createBmacController } from '../../../../src/bmac/reconcilers/bmac/index.js';
import { createLogger } from '../../../../src/shared/logger.js';
import {
  FakeSpoke,
  NS,
  T0,
  agent,
  bmh,
  clusterDeployment,
  fakeClock,
  infraEnv,
  secret,
  world,
} from './fixtures.js';

const REMOVE = 'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete';
const DELAY = '{"deleteAction":"delay"}';
const deleting = new Date(T0 - 1000).toISOString();

function deletingHost(annotations: Record<string, string>, state = 'provisioned'): KubeObject {
  const host = bmh('host-0', {
    finalizers: [Finalizer.Bmac],
    annotations,
    status: { provisioning: { state } },
  });
  return { ...host, metadata: { ...host.metadata, deletionTimestamp: deleting } };
}

describe('BMAC labels and finalizer', () => {
  it('removes its finalizer from a host without the InfraEnv label and changes nothing else', async () => {
    const host = bmh('host-0', {
      labels: { app: 'x' },
      finalizers: [Finalizer.Bmac, 'example.com/keep'],
      annotations: { 'baremetalhost.metal3.io/detached': ASSISTED_OWNER_VALUE },
    });
    const w = world({}, host, infraEnv(), agent());
    await w.stable();
    const after = w.host();
    expect(after.metadata.finalizers).toEqual(['example.com/keep']);
    expect(after.spec).toEqual(host['spec']);
    expect(after.metadata.annotations).toEqual(host.metadata.annotations);
    expect(after.metadata.labels).toEqual({ app: 'x' });
    expect(w.agentNamed()?.spec['approved']).toBe(false);
    expect(w.cluster.writes).toEqual([`update BareMetalHost ${NS}/host-0`]);
  });

  it('never writes a host that is not its own and has no finalizer', async () => {
    const w = world({}, bmh('host-0', { labels: {} }), infraEnv());
    await w.stable();
    expect(w.cluster.writes).toEqual([]);
  });

  it('adds its finalizer and the backup label in a first write of their own, before anything else', async () => {
    const w = world({}, bmh(), infraEnv(), agent());
    await w.once();
    expect(w.cluster.writes).toEqual([`update BareMetalHost ${NS}/host-0`]);
    const first = w.host();
    expect(first.metadata.finalizers).toEqual([Finalizer.Bmac]);
    expect(first.metadata.labels).toEqual({ [Label.InfraEnv]: 'ie', [Label.Backup]: 'true' });
    expect(first.spec.image).toBeUndefined();
    expect(w.agentNamed()?.spec['approved']).toBe(false);
    await w.stable();
    expect(w.host().spec.image).toBeDefined();
  });

  it('adds no backup label while the InfraEnv does not exist', async () => {
    const w = world({}, bmh());
    await w.stable();
    expect(w.host().metadata.labels).toEqual({ [Label.InfraEnv]: 'ie' });
    expect(w.host().metadata.finalizers).toEqual([Finalizer.Bmac]);
  });
});

describe('BMAC on host deletion', () => {
  it('lets a deleting host without an Agent go: paused removed, finalizer removed', async () => {
    const w = world(
      {},
      deletingHost({
        'baremetalhost.metal3.io/paused': ASSISTED_OWNER_VALUE,
        'baremetalhost.metal3.io/detached': ASSISTED_OWNER_VALUE,
      }),
      infraEnv(),
    );
    await w.stable();
    expect(w.cluster.objects.size).toBe(1); // only the InfraEnv: the host is gone
    expect(w.cluster.writes).toEqual([`update BareMetalHost ${NS}/host-0`]);
  });

  it('removes its finalizer from a deleting host with an Agent, keeping the Agent (non-converged)', async () => {
    const w = world({}, deletingHost({ [REMOVE]: '' }), infraEnv(), agent());
    await w.stable();
    expect(w.host()).toBeUndefined();
    expect(w.agentNamed()).toBeDefined();
  });

  it('deletes the unbound Agent of a deleting converged host with remove-agent-and-node-on-delete', async () => {
    const w = world(
      { converged: true },
      deletingHost({ [REMOVE]: '', 'baremetalhost.metal3.io/detached': DELAY }),
      infraEnv(),
      agent(),
    );
    await w.stable();
    expect(w.host()).toBeUndefined();
    expect(w.agentNamed()).toBeUndefined();
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({ reason: 'AgentDeleted', message: `Deleted Agent ${NS}/agent-0` }),
    );
  });

  function drainWorld(annotations: Record<string, string> = {}) {
    const spoke = new FakeSpoke();
    const kubeconfigs: string[] = [];
    const w = world(
      {
        converged: true,
        spokeClients: {
          fromKubeconfig: (k) => {
            kubeconfigs.push(k);
            return spoke;
          },
        },
      },
      deletingHost({
        [REMOVE]: '',
        'baremetalhost.metal3.io/detached': DELAY,
        'baremetalhost.metal3.io/paused': ASSISTED_OWNER_VALUE,
        ...annotations,
      }),
      infraEnv(),
      agent('agent-0', {
        spec: { hostname: 'worker-0', clusterDeploymentName: { namespace: NS, name: 'spoke' } },
      }),
      clusterDeployment(true),
      secret('spoke-admin-kubeconfig', { kubeconfig: 'apiVersion: v1\nkind: Config\n' }),
    );
    return { w, spoke, kubeconfigs };
  }

  it('drains the node of a bound Agent, waits for deprovisioning, then deletes the Agent', async () => {
    const { w, spoke, kubeconfigs } = drainWorld();
    spoke.drainAnswers = ['pending'];

    expect(await w.once()).toEqual({ requeueAfterMs: 20_000 });
    let host = w.host();
    expect(host.metadata.annotations?.['bmac.agent-install.openshift.io/drain-started-at']).toBe(
      '2026-11-25T09:00:00Z',
    );
    expect(host.metadata.annotations?.['bmac.agent-install.openshift.io/drain-status']).toBe(
      'draining in progress',
    );
    expect(host.metadata.annotations?.['baremetalhost.metal3.io/detached']).toBe(DELAY);
    expect(spoke.drains).toEqual(['worker-0']);
    expect(kubeconfigs).toEqual(['apiVersion: v1\nkind: Config\n']);
    const kubeconfigSecret = await w.cluster.getLive({
      ...Gvk.Secret,
      namespace: NS,
      name: 'spoke-admin-kubeconfig',
    });
    expect(kubeconfigSecret?.metadata.labels).toEqual({
      [Label.Backup]: 'true',
      [Label.Watch]: 'true',
    });

    w.clock.advance(20_000);
    expect(await w.stable()).toEqual({ requeueAfterMs: 10_000 });
    host = w.host();
    expect(host.metadata.annotations?.['bmac.agent-install.openshift.io/drain-status']).toBe(
      'drain succeeded',
    );
    expect(host.metadata.annotations?.['baremetalhost.metal3.io/detached']).toBeUndefined();
    expect(host.metadata.annotations?.['baremetalhost.metal3.io/paused']).toBeUndefined();
    expect(host.spec['automatedCleaningMode']).toBe('metadata');
    expect(w.agentNamed()).toBeDefined();

    // BMO deprovisions, then moves the host to deleting.
    await w.cluster.asOtherActor((c) =>
      c.updateStatus({ ...host, status: { provisioning: { state: 'deleting' } } }),
    );
    await w.stable();
    expect(w.agentNamed()).toBeUndefined();
    expect(w.host()).toBeUndefined();
    expect(spoke.drains).toEqual(['worker-0', 'worker-0']);
  });

  it('gives up draining after the drain-timeout and deprovisions all the same', async () => {
    const { w, spoke } = drainWorld({
      'bmac.agent-install.openshift.io/drain-timeout': '1m30s',
      'bmac.agent-install.openshift.io/drain-started-at': new Date(T0 - 90_000)
        .toISOString()
        .replace('.000', ''),
    });
    expect(await w.stable()).toEqual({ requeueAfterMs: 10_000 });
    expect(w.host().metadata.annotations?.['bmac.agent-install.openshift.io/drain-status']).toBe(
      'drain timed out',
    );
    expect(spoke.drains).toEqual([]);
  });

  it('records a drain-timeout that is not a Go duration in drain-status and stops', async () => {
    const { w, spoke } = drainWorld({
      'bmac.agent-install.openshift.io/drain-timeout': 'soon',
      'bmac.agent-install.openshift.io/drain-started-at': '2026-11-25T08:00:00Z',
    });
    expect(await w.stable()).toEqual({});
    expect(w.host().metadata.annotations?.['bmac.agent-install.openshift.io/drain-status']).toBe(
      'failed to check node drain timeout: time: invalid duration "soon"',
    );
    expect(spoke.drains).toEqual([]);
    expect(w.cluster.events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'DrainTimeoutInvalid' }),
    );
  });

  it('records a failed drain in drain-status and fails the pass for a retry', async () => {
    const { w, spoke } = drainWorld();
    spoke.drainAnswers = [new Error('node "worker-0" not found')];
    await expect(w.once()).rejects.toThrow('node "worker-0" not found');
    expect(w.host().metadata.annotations?.['bmac.agent-install.openshift.io/drain-status']).toBe(
      'failed to drain node: node "worker-0" not found',
    );
    expect(w.agentNamed()).toBeDefined();
  });
});

describe('BMAC optimistic locking', () => {
  it('retries the whole pass when the host changed under it (409) and converges', async () => {
    const clock = fakeClock();
    class RacingCluster extends FakeCluster {
      raced = 0;
      override async update(object: KubeObject): Promise<KubeObject> {
        if (object.kind === 'BareMetalHost' && this.raced === 0) {
          this.raced++;
          // Someone else (the BMO) writes the host first.
          const current = this.get({
            ...Gvk.BareMetalHost,
            namespace: NS,
            name: object.metadata.name,
          })!;
          await super.update({
            ...current,
            metadata: { ...current.metadata, annotations: { 'example.com/other': 'yes' } },
          });
        }
        return super.update(object);
      }
    }
    const cluster = new RacingCluster(clock, { rules: chartRules() }).seed(
      bmh('host-0', { finalizers: [Finalizer.Bmac] }),
      infraEnv(),
      agent(),
    );
    const controller = createBmacController({ converged: false });
    const request = { namespace: NS, name: 'host-0' };
    const conflicts: unknown[] = [];
    // One pass alone rejects with the conflict...
    await controller
      .reconcile(request, {
        reader: cluster,
        writer: cluster,
        events: cluster,
        clock,
        log: createLogger({ level: 'silent' }),
        signal: new AbortController().signal,
      })
      .catch((err: unknown) => conflicts.push(err));
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toBeInstanceOf(KubeApiError);
    expect((conflicts[0] as KubeApiError).status).toBe(409);
    // ... and the passes after it converge on the newer host, keeping the other writer's change.
    await reconcileUntilStable(controller, request, cluster);
    const host = cluster.get({ ...Gvk.BareMetalHost, ...request })!;
    expect(host.metadata.annotations).toMatchObject({
      'example.com/other': 'yes',
      'inspect.metal3.io': 'disabled',
    });
    expect((host['spec'] as { image?: unknown }).image).toBeDefined();
    expect(cluster.get({ ...Gvk.Agent, namespace: NS, name: 'agent-0' })?.['spec']).toMatchObject({
      approved: true,
    });
  });
});

describe('BMAC on shutdown', () => {
  it('writes nothing once its signal is aborted (shutdown or lost leadership)', async () => {
    const clock = fakeClock();
    const cluster = new FakeCluster(clock, { rules: chartRules() }).seed(
      bmh('host-0', { finalizers: [Finalizer.Bmac] }),
      infraEnv(),
      agent(),
    );
    const controller = createBmacController({ converged: false });
    const abort = new AbortController();
    abort.abort();
    const result = await controller.reconcile(
      { namespace: NS, name: 'host-0' },
      {
        reader: cluster,
        writer: cluster,
        events: cluster,
        clock,
        log: createLogger({ level: 'silent' }),
        signal: abort.signal,
      },
    );
    expect(result).toEqual({});
    expect(cluster.writes).toEqual([]);
  });
});
