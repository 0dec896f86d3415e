import { describe, expect, it } from 'vitest';
import {
  KubeSpokeClient,
  kubeSpokeClientFactory,
} from '../../../../src/bmac/reconcilers/bmac/index.js';
import { ClientNodeKubeClient, KubeUnreachableError } from '../../../../src/kube/index.js';
import type {
  GroupVersionKind,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectRef,
} from '../../../../src/kube/index.js';

/** A KubeClient that records calls and answers lists from `pods`. */
class RecordingKube implements KubeClient {
  readonly calls: string[] = [];
  constructor(readonly pods: KubeObject[] = []) {}
  apply(object: KubeObject): Promise<KubeObject> {
    this.calls.push(
      `apply ${object.kind} ${object.metadata.name} ${JSON.stringify(object['spec'])}`,
    );
    return Promise.resolve(object);
  }
  get(ref: ObjectRef): Promise<KubeObject | undefined> {
    this.calls.push(`get ${ref.kind} ${ref.namespace ?? ''}/${ref.name}`);
    return Promise.resolve(undefined);
  }
  delete(ref: ObjectRef): Promise<boolean> {
    this.calls.push(`delete ${ref.kind} ${ref.namespace ?? ''}/${ref.name}`);
    return Promise.resolve(true);
  }
  list(gvk: GroupVersionKind, options: ListOptions = {}): Promise<KubeObject[]> {
    this.calls.push(`list ${gvk.kind} ${options.namespace ?? '*'} ${options.labelSelector ?? ''}`);
    return Promise.resolve(gvk.kind === 'Pod' ? this.pods : []);
  }
}

function pod(name: string, node: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'app', ...extra },
    spec: { nodeName: node },
  };
}

describe('KubeSpokeClient', () => {
  it('reads ConfigMaps and lists Machines in openshift-machine-api by label', async () => {
    const kube = new RecordingKube();
    const spoke = new KubeSpokeClient(kube);
    await spoke.getConfigMap('kube-system', 'root-ca');
    await spoke.listMachines({ 'machine.openshift.io/cluster-api-machine-type': 'master' });
    expect(kube.calls).toEqual([
      'get ConfigMap kube-system/root-ca',
      'list Machine openshift-machine-api machine.openshift.io/cluster-api-machine-type=master',
    ]);
  });

  it('cordons the node and deletes its pods except DaemonSet and mirror pods', async () => {
    const kube = new RecordingKube([
      pod('web', 'worker-0'),
      pod('ds', 'worker-0', { ownerReferences: [{ kind: 'DaemonSet', name: 'x' }] }),
      pod('static', 'worker-0', { annotations: { 'kubernetes.io/config.mirror': 'abc' } }),
      pod('elsewhere', 'worker-1'),
    ]);
    expect(await new KubeSpokeClient(kube).drainNode('worker-0')).toBe('pending');
    expect(kube.calls).toEqual([
      'apply Node worker-0 {"unschedulable":true}',
      'list Pod * ',
      'delete Pod app/web',
    ]);
  });

  it('reports a node without evictable pods as drained', async () => {
    expect(
      await new KubeSpokeClient(
        new RecordingKube([pod('ds', 'worker-0', { ownerReferences: [{ kind: 'DaemonSet' }] })]),
      ).drainNode('worker-0'),
    ).toBe('drained');
  });

  it('makes clients from kubeconfig text, refusing a bad one without quoting it', () => {
    const factory = kubeSpokeClientFactory((text) => ClientNodeKubeClient.fromKubeconfigText(text));
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: spoke, cluster: {server: "https://127.0.0.1:6443"}}]',
      'users: [{name: admin, user: {token: sekret-token}}]',
      'contexts: [{name: admin, context: {cluster: spoke, user: admin}}]',
      'current-context: admin',
    ].join('\n');
    expect(factory.fromKubeconfig(kubeconfig)).toBeInstanceOf(KubeSpokeClient);
    let error: unknown;
    try {
      factory.fromKubeconfig('token: sekret-token\n  bad: [indent');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KubeUnreachableError);
    expect((error as Error).message).not.toContain('sekret');
  });
});
