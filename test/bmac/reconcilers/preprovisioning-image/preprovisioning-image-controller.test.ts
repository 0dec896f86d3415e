/**
 * The PreprovisioningImage controller against an in-memory cluster that enforces the chart's
 * ClusterRole: every row of assisted.md §2 (conditions, reasons and messages as assisted-service
 * writes them), the served iso and initrd images, the finalizer rules of §8, the velero label,
 * the forced reboot of a host whose image changed, and the ironic agent ignition.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/kube/index.js';
import { KubeApiError } from '../../../../src/kube/index.js';
import {
  DELETION_RECHECK_MS,
  PreprovisioningImageController,
  ironicAgentIgnition,
} from '../../../../src/bmac/reconcilers/preprovisioning-image/index.js';
import type {
  BackendInfraEnv,
  InfraEnvBackend,
  PreprovisioningImageControllerProps,
} from '../../../../src/bmac/reconcilers/preprovisioning-image/index.js';
import type { ReconcileContext, Request } from '../../../../src/bmac/runtime/contract.js';
import { createLogger } from '../../../../src/shared/logger.js';
import { FakeCluster, reconcileUntilStable } from '../../../fakes/fake-cluster.js';
import { Permissions } from '../../../../src/bmac/permissions.js';
import { chartRules } from '../../../support/chart-rules.js';

const NS = 'site-1';
const HOST = 'host-0';
const ENV = 'site-1-env';
const PPI_REF = { namespace: NS, name: HOST };
const ISO = 'https://images.hub/byapikey/tok/4.18/x86_64/minimal.iso';
const T0 = Date.parse('2026-11-25T10:00:00Z');
const AT = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const IRONIC = { ironicUrl: 'https://10.0.0.5', inspectorUrl: 'https://10.0.0.5' };
const IRONIC_V6 = { ironicUrl: 'https://[fd00::5]', inspectorUrl: 'https://[fd00::5]' };
const AGENT = 'quay.io/openshift/ironic-agent:x86';
const AGENT_ARM = 'quay.io/openshift/ironic-agent:arm';

/** The assisted core's records, in memory. */
class FakeBackend implements InfraEnvBackend {
  readonly records = new Map<string, BackendInfraEnv>();
  readonly sets: string[] = [];

  register(name: string, record: Partial<BackendInfraEnv> = {}): this {
    this.records.set(`${NS}/${name}`, {
      internalIgnitionConfigOverride: '',
      staticNetworkConfig: false,
      ...record,
    });
    return this;
  }

  get(infraEnv: Request): Promise<BackendInfraEnv | undefined> {
    return Promise.resolve(this.records.get(`${infraEnv.namespace ?? ''}/${infraEnv.name}`));
  }

  setInternalIgnitionConfigOverride(infraEnv: Request, ignition: string): Promise<void> {
    const key = `${infraEnv.namespace ?? ''}/${infraEnv.name}`;
    this.sets.push(key);
    this.records.set(key, { ...this.records.get(key)!, internalIgnitionConfigOverride: ignition });
    return Promise.resolve();
  }
}

function bmh(
  overrides: { state?: string; cleaning?: string; deleting?: boolean } = {},
): KubeObject {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: HOST,
      namespace: NS,
      labels: { 'infraenvs.agent-install.openshift.io': ENV },
      ...(overrides.deleting === true && {
        deletionTimestamp: AT(T0),
        finalizers: ['baremetalhost.metal3.io'],
      }),
    },
    spec: { automatedCleaningMode: overrides.cleaning ?? 'metadata' },
    status: { provisioning: { state: overrides.state ?? 'ready' } },
  };
}

function ppi(
  overrides: {
    formats?: string[];
    architecture?: string;
    label?: string | null;
    status?: object;
    finalizers?: string[];
    deleting?: boolean;
    owner?: boolean;
    generation?: number;
  } = {},
): KubeObject {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'PreprovisioningImage',
    metadata: {
      name: HOST,
      namespace: NS,
      generation: overrides.generation ?? 1,
      labels:
        overrides.label === null
          ? {}
          : { 'infraenvs.agent-install.openshift.io': overrides.label ?? ENV },
      finalizers: overrides.finalizers ?? ['preprovisioningimage.metal3.io'],
      ...(overrides.owner !== false && {
        ownerReferences: [
          {
            apiVersion: 'metal3.io/v1alpha1',
            kind: 'BareMetalHost',
            name: HOST,
            uid: 'uid-host-0',
            controller: true,
          },
        ],
      }),
      ...(overrides.deleting === true && { deletionTimestamp: AT(T0) }),
    },
    spec: {
      architecture: overrides.architecture ?? 'x86_64',
      acceptFormats: overrides.formats ?? ['iso'],
    },
    ...(overrides.status && { status: overrides.status }),
  };
}

const AVAILABLE = {
  type: 'ImageCreated',
  status: 'True',
  reason: 'InfraEnvAvailable',
  message: 'InfraEnv is available: Image has been created',
  lastTransitionTime: AT(T0 - 600_000),
};

function infraEnv(
  overrides: {
    createdTime?: number | null;
    arch?: string;
    iso?: string;
    annotations?: Record<string, string>;
    kernelArguments?: object[];
    proxy?: object;
    imageCreated?: object | null;
    deleting?: boolean;
  } = {},
): KubeObject {
  const created = overrides.createdTime === undefined ? T0 - 120_000 : overrides.createdTime;
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: {
      name: ENV,
      namespace: NS,
      ...(overrides.annotations && { annotations: overrides.annotations }),
      ...(overrides.deleting === true && {
        deletionTimestamp: AT(T0),
        finalizers: ['infraenv.agent-install.openshift.io/ai-deprovision'],
      }),
    },
    spec: {
      cpuArchitecture: overrides.arch ?? 'x86_64',
      ...(overrides.kernelArguments && { kernelArguments: overrides.kernelArguments }),
      ...(overrides.proxy && { proxy: overrides.proxy }),
    },
    status: {
      ...(created !== null && { createdTime: AT(created), isoDownloadURL: overrides.iso ?? ISO }),
      bootArtifacts: {
        initrd: 'https://images.hub/images/env-id/pxe-initrd?arch=x86_64&version=4.18&api_key=k',
        kernel: 'https://images.hub/boot-artifacts/kernel?arch=x86_64&version=4.18',
        rootfs: 'https://images.hub/boot-artifacts/rootfs?arch=x86_64&version=4.18',
      },
      conditions: overrides.imageCreated === null ? [] : [overrides.imageCreated ?? AVAILABLE],
    },
  };
}

let now: number;
let backend: FakeBackend;
let cluster: FakeCluster;

function controller(props: Partial<PreprovisioningImageControllerProps> = {}) {
  return new PreprovisioningImageController({
    backend,
    ironic: IRONIC,
    ironicAgentImage: AGENT,
    ironicAgentImageArm: AGENT_ARM,
    ...props,
  });
}

function world(...objects: KubeObject[]): FakeCluster {
  cluster.seed(...objects);
  return cluster;
}

const get = (kind: 'PreprovisioningImage' | 'BareMetalHost' | 'InfraEnv', name: string) =>
  cluster.peek({
    apiVersion: kind === 'InfraEnv' ? 'agent-install.openshift.io/v1beta1' : 'metal3.io/v1alpha1',
    kind,
    namespace: NS,
    name,
  });
const image = () => get('PreprovisioningImage', HOST)!;
const statusOf = () => image()['status'] as Record<string, unknown> | undefined;

/** Ready and Error as the controller should write them for a failure row. */
function failed(reason: string, message: string, error: boolean, since = T0, generation = 1) {
  return [
    {
      type: 'Ready',
      status: 'False',
      reason,
      message,
      lastTransitionTime: AT(since),
      observedGeneration: generation,
    },
    {
      type: 'Error',
      status: error ? 'True' : 'False',
      reason,
      message,
      lastTransitionTime: AT(since),
      observedGeneration: generation,
    },
  ];
}

/** A status that served an image before, to see every failure clear it. */
const SERVED = {
  imageUrl: 'https://images.hub/old.iso',
  kernelUrl: 'https://images.hub/kernel',
  extraKernelParams: 'rd.bootif=0',
  format: 'iso',
  architecture: 'x86_64',
};

beforeEach(() => {
  now = T0;
  backend = new FakeBackend().register(ENV);
  cluster = new FakeCluster(
    { now: () => now, sleep: () => Promise.resolve() },
    { rules: chartRules() },
  );
});

describe('PreprovisioningImage controller: failures (assisted.md §2)', () => {
  it('refuses a PPI that accepts neither iso nor initrd: Ready False, Error True, image cleared', async () => {
    world(ppi({ formats: ['qcow2'], status: SERVED }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()).toEqual({
      conditions: failed('UnsupportedImageFormat', 'Unsupported image format', true),
    });
  });

  it('waits for a missing InfraEnv: Ready False, Error False, named <name>/<namespace>', async () => {
    world(ppi({ status: SERVED }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()).toEqual({
      conditions: failed(
        'InfraEnvNotAvailable',
        'InfraEnv site-1-env/site-1 is not found or is being deleted',
        false,
      ),
    });
  });

  it('treats a deleting InfraEnv, and a PPI without the InfraEnv label, as not available', async () => {
    world(ppi(), infraEnv({ deleting: true }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['conditions']).toEqual(
      failed(
        'InfraEnvNotAvailable',
        'InfraEnv site-1-env/site-1 is not found or is being deleted',
        false,
      ),
    );

    cluster.objects.clear();
    world(ppi({ label: null }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['conditions']).toEqual(
      failed('InfraEnvNotAvailable', 'InfraEnv /site-1 is not found or is being deleted', false),
    );
  });

  it('refuses an architecture mismatch, naming both normalised architectures', async () => {
    world(ppi({ architecture: 'aarch64', status: SERVED }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()).toEqual({
      conditions: failed(
        'InfraEnvArchMismatch',
        'PreprovisioningImage CPU architecture (arm64) does not match InfraEnv CPU architecture (x86_64)',
        true,
      ),
    });
  });

  it('takes amd64 and x86_64 as the same architecture', async () => {
    world(ppi({ architecture: 'amd64' }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['imageUrl']).toBe(ISO);
  });

  it('reports an ironic agent that could not be added and lets the runtime retry', async () => {
    backend.records.clear();
    world(ppi({ status: SERVED }), infraEnv(), bmh());
    await expect(reconcileUntilStable(controller(), PPI_REF, cluster)).rejects.toThrow(
      'InfraEnv site-1/site-1-env is not registered with the assisted service',
    );
    expect(statusOf()).toEqual({
      conditions: failed(
        'IronicAgentIgnitionUpdateFailure',
        'Could not add ironic agent to image: InfraEnv site-1/site-1-env is not registered with the assisted service',
        true,
      ),
    });
  });

  it('waits for the InfraEnv image to be created', async () => {
    world(ppi({ status: SERVED }), infraEnv({ createdTime: null }), bmh());
    const result = await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(result).toEqual({});
    expect(statusOf()).toEqual({
      conditions: failed(
        'WaitingForInfraEnvImageToBeCreated',
        'Waiting for InfraEnv image to be created',
        false,
      ),
    });
  });

  it('waits for an image younger than 60 s to cool down, then serves it', async () => {
    world(ppi(), infraEnv({ createdTime: T0 - 20_000 }), bmh());
    const result = await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(result).toEqual({ requeueAfterMs: 40_000 });
    expect(statusOf()).toEqual({
      conditions: failed(
        'WaitingForInfraEnvImageToCoolDown',
        'Waiting for InfraEnv image to cool down',
        false,
      ),
    });

    now = T0 + 40_000;
    expect(await reconcileUntilStable(controller(), PPI_REF, cluster)).toEqual({});
    expect(statusOf()?.['imageUrl']).toBe(ISO);
  });
});

describe('PreprovisioningImage controller: serving the image', () => {
  it('serves the InfraEnv ISO with the ImageCreated condition copied into Ready', async () => {
    world(ppi({ generation: 3 }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    const message = 'InfraEnv is available: Image has been created';
    expect(statusOf()).toEqual({
      architecture: 'x86_64',
      format: 'iso',
      imageUrl: ISO,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'InfraEnvAvailable',
          message,
          lastTransitionTime: AT(T0),
          observedGeneration: 3,
        },
        {
          type: 'Error',
          status: 'False',
          reason: 'InfraEnvAvailable',
          message,
          lastTransitionTime: AT(T0),
          observedGeneration: 3,
        },
      ],
    });
  });

  it('serves initrd with the kernel and the rootfs URL plus the appended kernel arguments only', async () => {
    world(
      ppi({ formats: ['initrd'] }),
      infraEnv({
        kernelArguments: [
          { operation: 'append', value: 'console=ttyS0,115200' },
          { operation: 'replace', value: 'quiet' },
          { operation: 'append', value: 'nosmt' },
          { operation: 'delete', value: 'rhgb' },
        ],
      }),
      bmh(),
    );
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    const status = statusOf()!;
    expect(status['format']).toBe('initrd');
    expect(status['imageUrl']).toBe(
      'https://images.hub/images/env-id/pxe-initrd?arch=x86_64&version=4.18&api_key=k',
    );
    expect(status['kernelUrl']).toBe(
      'https://images.hub/boot-artifacts/kernel?arch=x86_64&version=4.18',
    );
    expect(status['extraKernelParams']).toBe(
      'coreos.live.rootfs_url=https://images.hub/boot-artifacts/rootfs?arch=x86_64&version=4.18 rd.bootif=0 console=ttyS0,115200 nosmt',
    );
    expect(status['architecture']).toBe('x86_64');
  });

  it('prefers iso when both formats are accepted', async () => {
    world(ppi({ formats: ['initrd', 'iso'] }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()).toMatchObject({ format: 'iso', imageUrl: ISO });
    expect(statusOf()).not.toHaveProperty('kernelUrl');
    expect(statusOf()).not.toHaveProperty('extraKernelParams');
  });

  it('sets Error True when the InfraEnv image failed, with its reason and message', async () => {
    const failure = {
      ...AVAILABLE,
      status: 'False',
      reason: 'ImageCreationError',
      message: 'Failed to create image: boom',
    };
    world(ppi(), infraEnv({ imageCreated: failure }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    const conditions = statusOf()?.['conditions'] as { type: string; status: string }[];
    expect(conditions).toEqual([
      expect.objectContaining({
        type: 'Ready',
        status: 'False',
        reason: 'ImageCreationError',
        message: 'Failed to create image: boom',
      }),
      expect.objectContaining({
        type: 'Error',
        status: 'True',
        reason: 'ImageCreationError',
        message: 'Failed to create image: boom',
      }),
    ]);
  });

  it('moves lastTransitionTime only when a status flips, and follows the generation', async () => {
    world(ppi(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);

    now = T0 + 300_000;
    cluster.seed(infraEnv({ createdTime: null }));
    const generation2 = { ...image(), spec: { architecture: 'x86_64', acceptFormats: ['iso'] } };
    cluster.seed({ ...generation2, metadata: { ...generation2.metadata, generation: 2 } });
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['conditions']).toEqual(
      failed(
        'WaitingForInfraEnvImageToBeCreated',
        'Waiting for InfraEnv image to be created',
        false,
        T0,
        2,
      ),
    );

    now = T0 + 600_000;
    cluster.seed(infraEnv({ createdTime: T0 }));
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['conditions']).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', lastTransitionTime: AT(now) }),
      expect.objectContaining({ type: 'Error', status: 'False', lastTransitionTime: AT(T0) }),
    ]);
  });

  it('writes nothing when the status is already right', async () => {
    world(ppi(), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    const writes = cluster.writes.length;
    now = T0 + 3_600_000;
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(cluster.writes.slice(writes)).toEqual([]);
  });

  it('forces a reboot of a host that is not provisioned when its image URL changes', async () => {
    world(ppi({ status: SERVED }), infraEnv(), bmh({ state: 'available' }));
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['imageUrl']).toBe(ISO);
    expect(get('BareMetalHost', HOST)!.metadata.annotations).toEqual({
      'reboot.metal3.io': '{"force": true}',
    });
  });

  it('does not reboot a provisioned host, nor a host getting its first image', async () => {
    world(ppi({ status: SERVED }), infraEnv(), bmh({ state: 'provisioned' }));
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(statusOf()?.['imageUrl']).toBe(ISO);
    expect(get('BareMetalHost', HOST)!.metadata.annotations).toBeUndefined();

    cluster.objects.clear();
    world(ppi(), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(get('BareMetalHost', HOST)!.metadata.annotations).toBeUndefined();
  });

  it('fails, for the runtime to retry, when the PPI has no BareMetalHost owner or it is gone', async () => {
    world(ppi({ owner: false }), infraEnv());
    await expect(reconcileUntilStable(controller(), PPI_REF, cluster)).rejects.toThrow(
      'failed to find BMH owner for preprovisioningimage',
    );
    cluster.objects.clear();
    world(ppi(), infraEnv());
    await expect(reconcileUntilStable(controller(), PPI_REF, cluster)).rejects.toThrow(
      'failed to get owning bmh site-1/host-0: baremetalhosts.metal3.io "host-0" not found',
    );
  });
});

const OURS = 'preprovisioningimage.agent-install.openshift.io/ai-deprovision';
const BMO = 'preprovisioningimage.metal3.io';

describe('PreprovisioningImage controller: metadata and finalizer (assisted.md §8)', () => {
  it('adds its finalizer and the velero exclusion label in one write', async () => {
    world(ppi(), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(image().metadata['finalizers']).toEqual([BMO, OURS]);
    expect(image().metadata.labels).toEqual({
      'infraenvs.agent-install.openshift.io': ENV,
      'velero.io/exclude-from-backup': 'true',
    });
    expect(cluster.writes.filter((w) => w.startsWith('update PreprovisioningImage'))).toEqual([
      `update PreprovisioningImage ${NS}/${HOST}`,
    ]);
  });

  it('lets a deleting PPI go at once when its host never cleans disks', async () => {
    world(ppi({ deleting: true, finalizers: [BMO, OURS] }), bmh({ cleaning: 'disabled' }));
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(image().metadata['finalizers']).toEqual([BMO]);
  });

  it('keeps the image while a cleaning host is not being deleted', async () => {
    world(ppi({ deleting: true, finalizers: [BMO, OURS] }), bmh({ state: 'deprovisioning' }));
    const result = await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(result).toEqual({ requeueAfterMs: DELETION_RECHECK_MS });
    expect(image().metadata['finalizers']).toEqual([BMO, OURS]);
  });

  it('keeps the image while a deleting cleaning host deprovisions, and lets go after', async () => {
    world(
      ppi({ deleting: true, finalizers: [BMO, OURS] }),
      bmh({ deleting: true, state: 'deprovisioning' }),
    );
    expect(await reconcileUntilStable(controller(), PPI_REF, cluster)).toEqual({
      requeueAfterMs: DELETION_RECHECK_MS,
    });
    expect(image().metadata['finalizers']).toEqual([BMO, OURS]);

    for (const state of ['powering off before delete', 'deleting']) {
      cluster.seed(
        ppi({ deleting: true, finalizers: [BMO, OURS] }),
        bmh({ deleting: true, state }),
      );
      expect(await reconcileUntilStable(controller(), PPI_REF, cluster)).toEqual({});
      expect(image().metadata['finalizers']).toEqual([BMO]);
    }
  });

  it('lets a deleting PPI go when its host is gone or it has none', async () => {
    world(ppi({ deleting: true, finalizers: [BMO, OURS] }));
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(image().metadata['finalizers']).toEqual([BMO]);

    cluster.seed(ppi({ deleting: true, finalizers: [OURS], owner: false }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(image()).toBeUndefined();
  });

  it('leaves a deleting PPI without its finalizer alone', async () => {
    world(ppi({ deleting: true, finalizers: [BMO] }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(cluster.writes).toEqual([]);
  });
});

describe('PreprovisioningImage controller: the ironic agent in the InfraEnv image', () => {
  const expected = (props: Partial<Parameters<typeof ironicAgentIgnition>[0]> = {}) =>
    ironicAgentIgnition({ ...IRONIC, agentImage: AGENT, proxy: {}, ...props });
  const override = () => backend.records.get(`${NS}/${ENV}`)!.internalIgnitionConfigOverride;

  it('stores the ironic ignition, annotates the InfraEnv, and waits for the new image', async () => {
    world(ppi(), infraEnv(), bmh());
    const pass = controller();
    expect(await pass.reconcile(PPI_REF, contextOf(cluster))).toEqual({});
    expect(override()).toBe(expected());
    expect(get('InfraEnv', ENV)!.metadata.annotations).toEqual({
      'infraenv.agent-install.openshift.io/enable-ironic-agent': 'true',
    });
    expect(statusOf()).toBeUndefined();

    await reconcileUntilStable(pass, PPI_REF, cluster);
    expect(backend.sets).toEqual([`${NS}/${ENV}`]);
    expect(statusOf()?.['imageUrl']).toBe(ISO);
  });

  it('takes the proxy from the InfraEnv and leaves VLANs alone with a static network', async () => {
    backend.register(ENV, { staticNetworkConfig: true });
    const proxy = { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.local' };
    world(ppi(), infraEnv({ proxy }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(override()).toBe(expected({ proxy, staticNetwork: true }));
  });

  it('uses the image override annotation, else the arm64 image for an arm64 InfraEnv', async () => {
    const annotations = {
      'infraenv.agent-install.openshift.io/ironic-agent-image-override': 'registry.local/ipa:1',
    };
    world(ppi(), infraEnv({ annotations }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(override()).toBe(expected({ agentImage: 'registry.local/ipa:1' }));

    cluster.objects.clear();
    world(ppi({ architecture: 'arm64' }), infraEnv({ arch: 'aarch64' }), bmh());
    await reconcileUntilStable(controller(), PPI_REF, cluster);
    expect(override()).toBe(expected({ agentImage: AGENT_ARM }));
  });

  it('points IPv6-only InfraEnvs at the hub IPv6 ironic on a dual-stack hub', async () => {
    const cases: [
      Record<string, string> | undefined,
      BackendInfraEnv['clusterAddressFamilies'],
      boolean,
    ][] = [
      [{ 'infraenv.agent-install.openshift.io/ip-family': 'v6' }, undefined, true],
      [
        { 'infraenv.agent-install.openshift.io/ip-family': 'v4,v6' },
        { v4: false, v6: true },
        false,
      ],
      [undefined, { v4: false, v6: true }, true],
      [undefined, { v4: true, v6: true }, false],
      [undefined, undefined, false],
    ];
    for (const [annotations, families, v6] of cases) {
      cluster.objects.clear();
      backend.register(ENV, families && { clusterAddressFamilies: families });
      world(ppi(), infraEnv(annotations && { annotations }), bmh());
      await reconcileUntilStable(controller({ ironicIpv6: IRONIC_V6 }), PPI_REF, cluster);
      expect(override(), JSON.stringify(annotations ?? families)).toBe(
        expected(v6 ? IRONIC_V6 : IRONIC),
      );
    }
  });

  it('refuses to start without ironic URLs or an agent image', () => {
    expect(() => controller({ ironic: { ironicUrl: '', inspectorUrl: '' } })).toThrow(
      'PreprovisioningImage controller: the ironic and inspector URLs are required',
    );
    expect(() => controller({ ironicAgentImage: '' })).toThrow(
      'PreprovisioningImage controller: the ironic agent image is required',
    );
  });
});

describe('PreprovisioningImage controller: watches and RBAC', () => {
  it('wakes the PPIs that name a changed InfraEnv, and the PPI named like a changed host', () => {
    const other = { ...ppi(), metadata: { ...ppi().metadata, name: 'host-1' } };
    const elsewhere = { ...ppi(), metadata: { ...ppi().metadata, namespace: 'site-2' } };
    const unrelated = {
      ...ppi({ label: 'other' }),
      metadata: {
        ...ppi().metadata,
        name: 'x',
        labels: { 'infraenvs.agent-install.openshift.io': 'other' },
      },
    };
    world(ppi(), other, elsewhere, unrelated, infraEnv(), bmh());
    const [byInfraEnv, byHost] = controller().watches;
    expect(byInfraEnv!.gvk).toEqual({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
    });
    expect(byInfraEnv!.map(infraEnv(), cluster)).toEqual([
      { namespace: NS, name: HOST },
      { namespace: NS, name: 'host-1' },
    ]);
    expect(byHost!.gvk).toEqual({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' });
    expect(byHost!.map(bmh(), cluster)).toEqual([{ namespace: NS, name: HOST }]);
  });

  it('needs nothing beyond its own entry in permissions.ts', async () => {
    const own = new FakeCluster(
      { now: () => now, sleep: () => Promise.resolve() },
      { rules: Permissions.preprovisioningImage },
    );
    own.seed(ppi({ status: SERVED }), infraEnv(), bmh());
    await reconcileUntilStable(controller(), PPI_REF, own);
    expect(
      own.objects.get(`metal3.io/v1alpha1/BareMetalHost/${NS}/${HOST}`)!.metadata.annotations,
    ).toEqual({
      'reboot.metal3.io': '{"force": true}',
    });
    own.seed(ppi({ deleting: true, finalizers: [OURS] }), bmh({ cleaning: 'disabled' }));
    await reconcileUntilStable(controller(), PPI_REF, own);
    expect(
      own.objects.get(`metal3.io/v1alpha1/PreprovisioningImage/${NS}/${HOST}`),
    ).toBeUndefined();
  });

  it('fails with 403 Forbidden when the ClusterRole lacks a verb the controller uses', async () => {
    cluster = new FakeCluster(
      { now: () => now, sleep: () => Promise.resolve() },
      {
        rules: chartRules().filter((r) => !r.resources.includes('preprovisioningimages/status')),
      },
    );
    world(ppi(), infraEnv(), bmh());
    const error = await reconcileUntilStable(controller(), PPI_REF, cluster).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).status).toBe(403);
    expect((error as KubeApiError).message).toContain('preprovisioningimages/status.metal3.io');
  });
});

const silentLog = createLogger({ level: 'silent' });

function contextOf(c: FakeCluster): ReconcileContext {
  return {
    reader: c,
    writer: c,
    events: c,
    clock: c.clock,
    log: silentLog,
    signal: new AbortController().signal,
  };
}
