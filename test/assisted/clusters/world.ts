/**
 * A hub with one cluster to install: ClusterDeployment `site` (uid `cluster-1`), its
 * AgentClusterInstall, a ClusterImageSet and the pull secret, plus the controller on fakes.
 */
import { createClusterDeploymentsController } from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import type { ClusterDeploymentsControllerOptions } from '../../../src/assisted/clusters/cluster-deployments-controller.js';
import type {
  GenerateOptions,
  InstallerAvailability,
  InstallerBackend,
  InstallerManifest,
  InstallerOutput,
} from '../../../src/assisted/installer/installer-backend.js';
import { InstallerError } from '../../../src/assisted/installer/installer-backend.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { draft } from '../../../src/assisted/clusters/kinds.js';
import type {
  AgentClusterInstall,
  AgentClusterInstallStatus,
  ClusterDeployment,
} from '../../../src/assisted/clusters/kinds.js';
import { FakeCluster, reconcileUntilStable } from '../../fakes/fake-cluster.js';
import { ManualClock } from '../../fakes/manual-clock.js';
import { FakeHostDirectory, FakeValidator, SimpleClusterMachine } from './fakes.js';

export const NS = 'site';
export const CLUSTER_ID = 'cluster-1';
export const ACI_REF = {
  apiVersion: 'extensions.hive.openshift.io/v1beta1',
  kind: 'AgentClusterInstall',
  namespace: NS,
  name: 'site',
} as const;
export const CD_REF = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
  namespace: NS,
  name: 'site',
} as const;

/** An installer backend whose availability and output a test sets. */
export class FakeInstaller implements InstallerBackend {
  readonly name = 'fake';
  availability_: InstallerAvailability = { available: true, description: 'fake installer' };
  failWith: string | undefined;
  readonly configs: string[] = [];
  readonly releaseImages: (string | undefined)[] = [];
  readonly manifests: string[][] = [];

  availability(): Promise<InstallerAvailability> {
    return Promise.resolve(this.availability_);
  }

  generate(
    installConfig: string,
    manifests: readonly InstallerManifest[],
    _d: string,
    options: GenerateOptions,
  ): Promise<InstallerOutput> {
    this.configs.push(installConfig);
    this.manifests.push(manifests.map((m) => m.fileName));
    this.releaseImages.push(options.releaseImage);
    if (this.failWith !== undefined) return Promise.reject(new InstallerError(this.failWith));
    const ign = (role: string) => ({ ignition: { version: '3.2.0' }, role });
    return Promise.resolve({
      ignitions: options.singleNode
        ? { bootstrap: ign('bootstrap') }
        : { bootstrap: ign('bootstrap'), master: ign('master'), worker: ign('worker') },
      kubeconfig: 'apiVersion: v1\nkind: Config\n',
      kubeadminPassword: 'abcde-fghij-klmno-pqrst',
      clusterId: 'ocp-cluster-id',
      infraId: 'site-abcde',
    });
  }
}

export interface WorldOptions {
  readonly masters?: number;
  readonly workers?: number;
  readonly aciSpec?: Record<string, unknown>;
  readonly aciAnnotations?: Record<string, string>;
  readonly cdAnnotations?: Record<string, string>;
  readonly cdSpec?: Record<string, unknown>;
  readonly withPullSecret?: boolean;
  readonly withImageSet?: boolean;
}

export function objects(options: WorldOptions = {}): KubeObject[] {
  const masters = options.masters ?? 3;
  const workers = options.workers ?? 2;
  const sno = masters === 1 && workers === 0;
  const list: KubeObject[] = [
    {
      ...CD_REF,
      metadata: {
        name: 'site',
        namespace: NS,
        uid: CLUSTER_ID,
        ...(options.cdAnnotations && { annotations: options.cdAnnotations }),
      },
      spec: {
        clusterName: 'site',
        baseDomain: 'example.com',
        pullSecretRef: { name: 'pull-secret' },
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name: 'site',
        },
        platform: { agentBareMetal: {} },
        ...options.cdSpec,
      },
    },
    {
      ...ACI_REF,
      metadata: {
        name: 'site',
        namespace: NS,
        uid: 'aci-uid',
        ...(options.aciAnnotations && { annotations: options.aciAnnotations }),
      },
      spec: {
        clusterDeploymentRef: { name: 'site' },
        imageSetRef: { name: 'img4.16' },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '10.0.0.0/24' }],
        },
        provisionRequirements: { controlPlaneAgents: masters, workerAgents: workers },
        sshPublicKey: 'ssh-ed25519 AAAA site',
        ...(!sno && { apiVIPs: ['10.0.0.100'], ingressVIPs: ['10.0.0.101'] }),
        ...options.aciSpec,
      },
    },
  ];
  if (options.withImageSet !== false)
    list.push({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: 'img4.16' },
      spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64' },
    });
  if (options.withPullSecret !== false)
    list.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret', namespace: NS },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
    });
  return list;
}

/** The world: hub, clock, hosts, machine, validator, installer and controller. */
export function world(
  options: WorldOptions = {},
  controllerOptions: Partial<ClusterDeploymentsControllerOptions> = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const hub = new FakeCluster(clock).seed(...objects(options));
  const hosts = new FakeHostDirectory();
  const validator = new FakeValidator();
  const installer = new FakeInstaller();
  const machine = new SimpleClusterMachine();
  const make = () =>
    createClusterDeploymentsController({
      hosts,
      machine,
      validator,
      installer,
      serviceBaseUrl: 'https://assisted.example:8090/',
      ...controllerOptions,
    });
  const state = { controller: make() };
  return {
    clock,
    hub,
    hosts,
    validator,
    installer,
    get controller() {
      return state.controller;
    },
    /** A new controller on the same hub and hosts: what a restarted process has. */
    restart() {
      state.controller = make();
    },
    reconcile: () =>
      reconcileUntilStable(state.controller, { namespace: NS, name: 'site' }, hub, 20),
    /** The ACI (throws when it is gone). */
    aci(): AgentClusterInstall & {
      spec: NonNullable<AgentClusterInstall['spec']>;
      status: AgentClusterInstallStatus;
    } {
      const object = hub.peek(ACI_REF);
      if (object === undefined) throw new Error('the AgentClusterInstall is gone');
      const aci = draft<AgentClusterInstall>(object);
      return { ...aci, spec: aci.spec ?? {}, status: aci.status ?? {} };
    },
    /** The ClusterDeployment (throws when it is gone). */
    cd(): ClusterDeployment & { spec: NonNullable<ClusterDeployment['spec']> } {
      const object = hub.peek(CD_REF);
      if (object === undefined) throw new Error('the ClusterDeployment is gone');
      const cd = draft<ClusterDeployment>(object);
      return { ...cd, spec: cd.spec ?? {} };
    },
    exists: (ref: typeof ACI_REF | typeof CD_REF) => hub.peek(ref) !== undefined,
    /** A key of a Secret in the cluster's namespace, decoded. */
    secret(name: string, key: string): string | undefined {
      const data = hub.peek({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name })?.['data'] as
        Record<string, string> | undefined;
      const value = data?.[key];
      return value === undefined ? undefined : Buffer.from(value, 'base64').toString();
    },
    /** The cluster status the ACI shows. */
    state(): string | undefined {
      const object = hub.peek(ACI_REF);
      return object && draft<AgentClusterInstall>(object).status?.debugInfo?.state;
    },
    condition(type: string) {
      const conditions = (
        hub.peek(ACI_REF)?.['status'] as { conditions?: { type: string }[] } | undefined
      )?.conditions;
      return conditions?.find((c) => c.type === type) as
        { type: string; status: string; reason: string; message: string } | undefined;
    },
  };
}
