/**
 * The world of the BMAC tests: builders for hosts, Agents, InfraEnvs and friends in namespace
 * `site`, a FakeCluster on a fake clock, and short ways to run the controller and read results.
 */
import { Gvk, Label } from '../../../../src/bmac/api.js';
import { createBmacController } from '../../../../src/bmac/reconcilers/bmac/index.js';
import type { BmacOptions } from '../../../../src/bmac/reconcilers/bmac/index.js';
import type { SpokeClient } from '../../../../src/bmac/reconcilers/bmac/spoke.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import type { ReconcileResult } from '../../../../src/bmac/runtime/contract.js';
import { createLogger } from '../../../../src/shared/logger.js';
import { FakeCluster, reconcileUntilStable } from '../../../fakes/fake-cluster.js';
import { chartRules } from '../../../support/chart-rules.js';

export const NS = 'site';
export const T0 = Date.parse('2026-11-25T09:00:00Z');
export const ISO_URL = 'https://images.example.com/byid/ie-1/4.16/x86_64/full.iso';
export const MAC = '52:54:00:aa:bb:01';

/** A clock that moves only when the test says. */
export function fakeClock(start = T0) {
  let now = start;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

type Obj = Record<string, unknown>;

/** A host labelled with InfraEnv `ie` (unless `labels` says otherwise). */
export function bmh(
  name = 'host-0',
  options: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    spec?: Obj;
    status?: Obj;
    finalizers?: string[];
  } = {},
): KubeObject {
  return {
    ...Gvk.BareMetalHost,
    metadata: {
      name,
      namespace: NS,
      labels: options.labels ?? { [Label.InfraEnv]: 'ie' },
      ...(options.annotations && { annotations: options.annotations }),
      ...(options.finalizers && { finalizers: options.finalizers }),
    },
    spec: {
      bootMACAddress: MAC,
      online: false,
      bmc: {
        address: 'redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1',
        credentialsName: `${name}-bmc`,
      },
      ...options.spec,
    },
    status: { provisioning: { state: 'ready' }, operationalStatus: 'OK', ...options.status },
  };
}

/** An InfraEnv `ie` whose ISO exists since `createdTime` (default: 2 minutes before T0). */
export function infraEnv(
  options: { url?: string; createdTime?: string; clusterRef?: Obj } = {},
): KubeObject {
  return {
    ...Gvk.InfraEnv,
    metadata: { name: 'ie', namespace: NS },
    spec: options.clusterRef ? { clusterRef: options.clusterRef } : {},
    status: {
      isoDownloadURL: options.url ?? ISO_URL,
      createdTime: options.createdTime ?? new Date(T0 - 120_000).toISOString(),
    },
  };
}

/** An Agent whose inventory has one NIC with `mac`. */
export function agent(
  name = 'agent-0',
  options: {
    mac?: string;
    labels?: Record<string, string>;
    spec?: Obj;
    status?: Obj;
    inventory?: Obj;
    creationTimestamp?: string;
  } = {},
): KubeObject {
  return {
    ...Gvk.Agent,
    metadata: {
      name,
      namespace: NS,
      ...(options.labels && { labels: options.labels }),
      ...(options.creationTimestamp && { creationTimestamp: options.creationTimestamp }),
    },
    spec: { approved: false, role: '', ...options.spec },
    status: {
      inventory: {
        hostname: 'worker-0.example.com',
        interfaces: [
          {
            name: 'eno1',
            macAddress: options.mac ?? MAC,
            ipV4Addresses: ['192.168.1.10/24'],
            ipV6Addresses: [],
          },
        ],
        ...options.inventory,
      },
      ...options.status,
    },
  };
}

/** A PreprovisioningImage of host `name`, Ready with `reason`. */
export function ppi(name = 'host-0', status = 'True', reason = 'InfraEnvAvailable'): KubeObject {
  return {
    ...Gvk.PreprovisioningImage,
    metadata: { name, namespace: NS },
    status: { conditions: [{ type: 'Ready', status, reason, message: '' }] },
  };
}

/** A Secret with string `data` (stored base64). */
export function secret(name: string, data: Record<string, string>, namespace = NS): KubeObject {
  return {
    ...Gvk.Secret,
    metadata: { name, namespace },
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
  };
}

/** A ClusterDeployment `spoke` (installed or not) with its AgentClusterInstall ref. */
export function clusterDeployment(installed: boolean, name = 'spoke'): KubeObject {
  return {
    ...Gvk.ClusterDeployment,
    metadata: { name, namespace: NS },
    spec: {
      installed,
      clusterInstallRef: {
        name,
        group: 'extensions.hive.openshift.io',
        kind: 'AgentClusterInstall',
        version: 'v1beta1',
      },
    },
  };
}

/**
 * The controller and a cluster seeded with `objects`, on a fake clock, with exactly the
 * permissions the chart grants (tests writing as BMO or a user go through asOtherActor).
 */
export function world(options: Partial<BmacOptions> = {}, ...objects: KubeObject[]) {
  const clock = fakeClock();
  const cluster = new FakeCluster(clock, { rules: chartRules() }).seed(...objects);
  const controller = createBmacController({ converged: false, ...options });
  const request = { namespace: NS, name: 'host-0' };
  return {
    clock,
    cluster,
    controller,
    /** One pass on host-0 (or `name`). */
    once(name = 'host-0'): Promise<ReconcileResult> {
      return controller.reconcile(
        { namespace: NS, name },
        {
          reader: cluster,
          writer: cluster,
          events: cluster,
          clock,
          log: createLogger({ level: 'silent' }),
          signal: new AbortController().signal,
        },
      );
    },
    /** Passes until nothing changes. */
    stable(name = request.name): Promise<ReconcileResult> {
      return reconcileUntilStable(controller, { namespace: NS, name }, cluster);
    },
    host(name = 'host-0') {
      return cluster.get({ ...Gvk.BareMetalHost, namespace: NS, name }) as KubeObject & {
        metadata: {
          annotations?: Record<string, string>;
          finalizers?: string[];
          labels?: Record<string, string>;
        };
        spec: Obj & { image?: Obj; customDeploy?: Obj };
      };
    },
    agentNamed(name = 'agent-0') {
      return cluster.get({ ...Gvk.Agent, namespace: NS, name }) as
        (KubeObject & { spec: Obj & { nodeLabels?: Record<string, string> } }) | undefined;
    },
  };
}

/** A spoke cluster in memory, recording what the BMAC does on it. */
export class FakeSpoke implements SpokeClient {
  readonly configMaps = new Map<string, KubeObject>();
  readonly applied: KubeObject[] = [];
  machines: KubeObject[] = [];
  readonly drains: string[] = [];
  /** What each drainNode call answers, in turn (then `drained`). */
  drainAnswers: ('drained' | 'pending' | Error)[] = [];

  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined> {
    return Promise.resolve(this.configMaps.get(`${namespace}/${name}`));
  }
  listMachines(labels: Readonly<Record<string, string>>): Promise<readonly KubeObject[]> {
    return Promise.resolve(
      this.machines.filter((m) =>
        Object.entries(labels).every(([k, v]) => m.metadata.labels?.[k] === v),
      ),
    );
  }
  createOrUpdate(object: KubeObject): Promise<void> {
    this.applied.push(structuredClone(object));
    return Promise.resolve();
  }
  drainNode(name: string): Promise<'drained' | 'pending'> {
    this.drains.push(name);
    const answer = this.drainAnswers.shift() ?? 'drained';
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
}
