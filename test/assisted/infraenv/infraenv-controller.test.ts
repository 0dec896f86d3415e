import { createHash, generateKeyPairSync } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Gvk } from '../../../src/bmac/api.js';
import { ImageSourceError } from '../../../src/bmac/images/index.js';
import { INTERNAL_IGNITION_ANNOTATION } from '../../../src/bmac/infraenv-backend.js';
import { verifyAgentToken } from '../../../src/assisted/agent-api/auth.js';
import { DiscoveryImageNotReadyError } from '../../../src/assisted/discovery/index.js';
import type {
  DiscoveryIsoRequest,
  DiscoveryIsoStore,
} from '../../../src/assisted/discovery/index.js';
import {
  INFRAENV_FINALIZER,
  InfraEnvController,
  NMStateConfigGvk,
  RECOVERABLE_ERROR_REQUEUE_MS,
} from '../../../src/assisted/infraenv/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { FakeCluster, reconcileUntilStable } from '../../fakes/fake-cluster.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const NS = 'site-a';
const UID = '5e1f0c3a-7d1b-4b8e-9f2a-3c4d5e6f7a8b';
const REQUEST = { namespace: NS, name: 'sno-1' };
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';
const START = Date.parse('2026-11-25T10:00:00Z');

/** Records what it is asked and answers with a URL naming the request's content. */
class FakeIsos implements DiscoveryIsoStore {
  minimalIso = false;
  readonly requests: DiscoveryIsoRequest[] = [];
  failure: Error | undefined;
  isoUrl(request: DiscoveryIsoRequest): Promise<string> {
    this.requests.push(request);
    if (this.failure) return Promise.reject(this.failure);
    const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
    return Promise.resolve(`https://images.example/images/${hash}.iso`);
  }
  get last(): DiscoveryIsoRequest {
    return this.requests.at(-1)!;
  }
}

let now: number;
let cluster: FakeCluster;
let isos: FakeIsos;
let controller: InfraEnvController;

function infraEnv(
  spec: Record<string, unknown> = {},
  annotations?: Record<string, string>,
): KubeObject {
  return {
    ...Gvk.InfraEnv,
    metadata: { namespace: NS, name: 'sno-1', uid: UID, ...(annotations && { annotations }) },
    spec: { pullSecretRef: { name: 'pull-secret' }, ...spec },
  };
}

const pullSecret = (data: string = PULL_SECRET): KubeObject => ({
  ...Gvk.Secret,
  metadata: { namespace: NS, name: 'pull-secret' },
  data: { '.dockerconfigjson': Buffer.from(data).toString('base64') },
});

const nmstate = (name: string, mac: string, labels = { site: 'a' }): KubeObject => ({
  ...NMStateConfigGvk,
  metadata: { namespace: NS, name, labels },
  spec: {
    config: { interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up' }] },
    interfaces: [{ name: 'eth0', macAddress: mac }],
  },
});

const stored = () => cluster.peek({ ...Gvk.InfraEnv, ...REQUEST })!;
const status = () => (stored()['status'] ?? {}) as Record<string, unknown>;
const condition = () =>
  (status()['conditions'] as { status: string; reason: string; message: string }[])[0]!;
const reconcile = () => reconcileUntilStable(controller, REQUEST, cluster);

async function update(change: (o: KubeObject) => KubeObject): Promise<void> {
  await cluster.asOtherActor((c) => c.update(change(stored())));
}

beforeEach(() => {
  now = START;
  cluster = new FakeCluster({ now: () => now, sleep: () => Promise.resolve() });
  isos = new FakeIsos();
  controller = new InfraEnvController({
    privateKey,
    isos,
    osImages: [
      {
        openshiftVersion: '4.16',
        version: '416.94',
        url: 'https://mirror.example/4.16.iso',
        rootFSUrl: 'https://mirror.example/4.16.img',
        cpuArchitecture: 'x86_64',
      },
      {
        openshiftVersion: '4.17',
        version: '417.94',
        url: 'https://mirror.example/4.17.iso',
        cpuArchitecture: 'x86_64',
      },
    ],
    serviceBaseUrl: 'https://hub.example:8090/',
    imageServiceBaseUrl: 'https://images.example',
  });
});

describe('InfraEnv controller', () => {
  it('creates the image and fills the status as assisted-service does', async () => {
    cluster.seed(infraEnv({ sshAuthorizedKey: 'ssh-ed25519 AAAA me' }), pullSecret());
    expect(await reconcile()).toEqual({});

    const object = stored();
    expect(object.metadata['finalizers']).toEqual([INFRAENV_FINALIZER]);
    const s = status();
    expect(s['isoDownloadURL']).toMatch(/^https:\/\/images\.example\/images\/.+\.iso$/);
    expect(s['createdTime']).toBe('2026-11-25T10:00:00Z');
    expect(s['agentLabelSelector']).toEqual({
      matchLabels: { 'infraenvs.agent-install.openshift.io': 'sno-1' },
    });
    expect(condition()).toMatchObject({
      type: 'ImageCreated',
      status: 'True',
      reason: 'InfraEnvAvailable',
      message: 'InfraEnv is available: Image has been created',
    });

    // The newest image when none is named; the full ISO while there is no minimal template.
    expect(isos.last.osImage.openshiftVersion).toBe('4.17');
    expect(isos.last.imageType).toBe('full-iso');
    const ignition = JSON.parse(isos.last.ignition) as {
      systemd: { units: { name: string; contents?: string }[] };
    };
    const agent = ignition.systemd.units.find((u) => u.name === 'agent.service')!.contents!;
    expect(agent).toContain(`--url https://hub.example:8090 --infra-env-id ${UID} `);
    const token = /PULL_SECRET_TOKEN=(\S+)/.exec(agent)![1]!;
    expect(await verifyAgentToken(token, publicKey, new Date(START))).toBe(UID);

    const files = `https://hub.example:8090/api/assisted-install/v2/infra-envs/${UID}/downloads/files`;
    expect(s['bootArtifacts']).toEqual({
      kernel: 'https://images.example/boot-artifacts/kernel?arch=x86_64&version=4.17',
      rootfs: 'https://images.example/boot-artifacts/rootfs?arch=x86_64&version=4.17',
      initrd: `https://images.example/images/${UID}/pxe-initrd?arch=x86_64&version=4.17&api_key=${token}`,
      ipxeScript: `${files}?file_name=ipxe-script&api_key=${token}`,
      discoveryIgnitionURL: `${files}?file_name=discovery.ign&api_key=${token}`,
    });
    expect(s['debugInfo']).toEqual({
      eventsURL: `https://hub.example:8090/api/assisted-install/v2/events?infra_env_id=${UID}&api_key=${token}`,
    });
  });

  it('serves the minimal ISO by default when it can: a template, a rootfs URL, no static network', async () => {
    isos.minimalIso = true;
    cluster.seed(infraEnv({ osImageVersion: '4.16' }), pullSecret());
    await reconcile();
    expect(isos.last.imageType).toBe('minimal-iso');
    await update((o) => ({ ...o, spec: { ...(o['spec'] as object), osImageVersion: '4.17' } }));
    await reconcile();
    expect(isos.last.imageType).toBe('full-iso'); // 4.17 has no rootfs URL
    await update((o) => ({
      ...o,
      spec: {
        ...(o['spec'] as object),
        osImageVersion: '4.16',
        nmStateConfigLabelSelector: { matchLabels: { site: 'a' } },
      },
    }));
    cluster.seed(nmstate('host-0', '52:54:00:00:00:01'));
    await reconcile();
    expect(isos.last.imageType).toBe('full-iso');
    expect(isos.last.ignition).toContain('/etc/assisted/network/host0/mac_interface.ini');
    await update((o) => ({
      ...o,
      spec: {
        ...(o['spec'] as object),
        nmStateConfigLabelSelector: undefined,
        imageType: 'full-iso',
      },
    }));
    await reconcile();
    expect(isos.last.imageType).toBe('full-iso');
  });

  it('keeps the URL, the token and createdTime when nothing changed', async () => {
    cluster.seed(infraEnv(), pullSecret());
    await reconcile();
    const first = status();
    now += 3_600_000;
    const writes = cluster.writes.length;
    await reconcile();
    expect(cluster.writes.length).toBe(writes);
    expect(status()).toEqual(first);
  });

  it('a pass with nothing changed neither reads the pull secret from the API server nor rebuilds the image; a changed pull secret wakes the InfraEnv and regenerates the ignition', async () => {
    cluster.seed(infraEnv(), pullSecret());
    await reconcile();
    const url = status()['isoDownloadURL'];
    const builds = isos.requests.length;
    const liveReads = vi.spyOn(cluster, 'getLive');
    const writes = cluster.writes.length;
    now += 3_600_000;
    await reconcile();
    await reconcile();
    expect([isos.requests.length, liveReads.mock.calls.length]).toEqual([builds, 0]);
    expect(cluster.writes.length).toBe(writes);
    expect(status()['isoDownloadURL']).toBe(url);

    // The pull secret is rotated: its watch event names this InfraEnv, whose pass rebuilds.
    const secret = cluster.peek({ ...Gvk.Secret, namespace: NS, name: 'pull-secret' })!;
    const ignition = isos.last.ignition;
    const rotated = '{"auths":{"registry.example":{"auth":"bmV3OnB3"}}}';
    await cluster.asOtherActor((c) => c.update({ ...secret, data: pullSecret(rotated)['data'] }));
    const watch = controller.watches.find((w) => w.gvk.kind === 'Secret')!;
    const changed = cluster.peek({ ...Gvk.Secret, namespace: NS, name: 'pull-secret' })!;
    expect(watch.onUpdate?.(changed, secret)).toBe(true);
    expect(watch.map(changed, cluster)).toEqual([REQUEST]);
    await reconcile();
    expect(liveReads.mock.calls.length).toBe(0);
    expect(isos.last.ignition).not.toBe(ignition);
    expect(JSON.stringify(isos.last.ignition)).toContain(
      `base64,${Buffer.from(rotated).toString('base64')}`,
    );
    expect(status()['isoDownloadURL']).not.toBe(url);
  });

  it('regenerates the image when the spec changes, moving createdTime only then', async () => {
    cluster.seed(infraEnv(), pullSecret());
    await reconcile();
    const before = status()['isoDownloadURL'] as string;
    now += 60_000;
    await update((o) => ({
      ...o,
      spec: {
        ...(o['spec'] as object),
        sshAuthorizedKey: 'ssh-rsa BBBB you',
        kernelArguments: [{ operation: 'append', value: 'rd.debug' }],
      },
    }));
    await reconcile();
    expect(status()['isoDownloadURL']).not.toBe(before);
    expect(status()['createdTime']).toBe('2026-11-25T10:01:00Z');
    expect(isos.last.kernelArguments).toEqual(['rd.debug']);
    expect(isos.last.ignition).toContain('ssh-rsa BBBB you');
  });

  it('puts the NMStateConfigs its selector matches in the image, and wakes when one comes', async () => {
    cluster.seed(
      infraEnv({ nmStateConfigLabelSelector: { matchLabels: { site: 'a' } } }),
      pullSecret(),
    );
    cluster.seed(nmstate('other', '52:54:00:00:00:09', { site: 'b' }));
    await reconcile();
    expect(isos.last.ignition).not.toContain('/etc/assisted/network');
    const before = status()['isoDownloadURL'] as string;

    const config = nmstate('host-0', '52:54:00:00:00:01');
    cluster.seed(config);
    const watch = controller.watches.find((w) => w.gvk.kind === 'NMStateConfig')!;
    expect(watch.map(config, cluster)).toEqual([REQUEST]);
    expect(watch.map(nmstate('other', 'x', { site: 'b' }), cluster)).toEqual([]);
    now += 1000;
    await reconcile();
    expect(status()['isoDownloadURL']).not.toBe(before);
    const files = (
      JSON.parse(isos.last.ignition) as {
        storage: { files: { path: string; contents: { source: string } }[] };
      }
    ).storage.files;
    const ini = files.find((f) => f.path === '/etc/assisted/network/host0/mac_interface.ini')!;
    expect(Buffer.from(ini.contents.source.split(',')[1]!, 'base64').toString()).toBe(
      '52:54:00:00:00:01=eth0',
    );
    expect(files.some((f) => f.path === '/etc/assisted/network/host1/mac_interface.ini')).toBe(
      false,
    );
    const yml = files.find((f) => f.path === '/etc/assisted/network/host0/ymlFile0.yml')!;
    expect(Buffer.from(yml.contents.source.split(',')[1]!, 'base64').toString()).toContain(
      'name: eth0',
    );
    expect((status()['debugInfo'] as Record<string, string>)['staticNetworkDownloadURL']).toMatch(
      /file_name=static-network-config&api_key=/,
    );
  });

  it('runs the ironic agent instead of the discovery agent with an internal override', async () => {
    const internal = JSON.stringify({
      ignition: { version: '3.1.0' },
      systemd: { units: [{ name: 'ironic-agent.service', enabled: true }] },
    });
    cluster.seed(infraEnv({}, { [INTERNAL_IGNITION_ANNOTATION]: internal }), pullSecret());
    await reconcile();
    const units = (
      JSON.parse(isos.last.ignition) as {
        systemd: { units: { name: string; enabled?: boolean }[] };
      }
    ).systemd.units;
    expect(units.find((u) => u.name === 'agent.service')!.enabled).toBe(false);
    expect(units.find((u) => u.name === 'ironic-agent.service')!.enabled).toBe(true);
  });

  it('says when the ignition override is not valid, and clears the URL', async () => {
    cluster.seed(infraEnv(), pullSecret());
    await reconcile();
    await update((o) => ({
      ...o,
      spec: {
        ...(o['spec'] as object),
        ignitionConfigOverride: '{"ignition":{"version":"2.2.0"}}',
      },
    }));
    expect(await reconcile()).toEqual({});
    expect(condition()).toMatchObject({
      status: 'False',
      reason: 'ImageCreationError',
      message:
        'Failed to create image: error parsing ignition: unsupported config version, error report: ',
    });
    expect(status()['isoDownloadURL']).toBeUndefined();
    expect(status()['createdTime']).toBeUndefined();
  });

  it('says when the ignition does not fit the embed area', async () => {
    cluster.seed(infraEnv(), pullSecret());
    const { DiscoveryIgnitionError } = await import('../../../src/assisted/discovery/index.js');
    isos.failure = new DiscoveryIgnitionError(
      'content length (300000) exceeds embed area size (262144)',
    );
    await reconcile();
    expect(condition().message).toBe(
      'Failed to create image: content length (300000) exceeds embed area size (262144)',
    );
  });

  it('says when the base image is unreachable or not configured, and tries again later', async () => {
    cluster.seed(infraEnv(), pullSecret());
    isos.failure = new ImageSourceError('https://mirror.example/4.17.iso answered 404');
    expect(await reconcile()).toEqual({ requeueAfterMs: RECOVERABLE_ERROR_REQUEUE_MS });
    expect(condition()).toMatchObject({
      status: 'False',
      reason: 'ImageCreationError',
      message: 'Failed to create image: https://mirror.example/4.17.iso answered 404',
    });
    isos.failure = undefined;
    await reconcile();
    expect(condition().reason).toBe('InfraEnvAvailable');

    await update((o) => ({
      ...o,
      spec: { ...(o['spec'] as object), osImageVersion: '4.12', cpuArchitecture: 'arm64' },
    }));
    expect(await reconcile()).toEqual({});
    expect(condition().message).toBe(
      "Failed to create image: No OS image for Openshift version 4.12 and architecture arm64: The requested CPU architecture (arm64) isn't specified in OS images list",
    );
  });

  it('says the image is being created while its base downloads, keeping an error shown', async () => {
    cluster.seed(infraEnv(), pullSecret());
    isos.failure = new DiscoveryImageNotReadyError('https://mirror.example/4.17.iso');
    expect(await reconcile()).toEqual({ requeueAfterMs: RECOVERABLE_ERROR_REQUEUE_MS });
    expect(condition()).toMatchObject({
      status: 'True',
      reason: 'ImageCreated',
      message: 'Image has been created',
    });
    expect(status()['isoDownloadURL']).toBeUndefined();
    isos.failure = new ImageSourceError('https://mirror.example/4.17.iso answered 503');
    await reconcile();
    isos.failure = new DiscoveryImageNotReadyError('https://mirror.example/4.17.iso');
    await reconcile();
    expect(condition().reason).toBe('ImageCreationError');
    isos.failure = undefined;
    await reconcile();
    expect(condition().reason).toBe('InfraEnvAvailable');
  });

  it('says what is wrong with the pull secret', async () => {
    cluster.seed(infraEnv({ pullSecretRef: undefined }));
    expect(await reconcile()).toEqual({});
    expect(condition().message).toBe('Failed to create image: Missing reference to pull secret');

    await update((o) => ({
      ...o,
      spec: { ...(o['spec'] as object), pullSecretRef: { name: 'pull-secret' } },
    }));
    expect(await reconcile()).toEqual({ requeueAfterMs: RECOVERABLE_ERROR_REQUEUE_MS });
    expect(condition().message).toBe(
      'Failed to create image due to an internal error: failed to find secret pull-secret: secrets "pull-secret" not found',
    );
    cluster.seed(pullSecret());
    await reconcile();
    expect(condition().status).toBe('True');
  });

  it('waits for the ClusterDeployment it is bound to, with the upstream messages', async () => {
    cluster.seed(infraEnv({ clusterRef: { name: 'sno-1', namespace: NS } }), pullSecret());
    await reconcile();
    expect(condition()).toMatchObject({
      status: 'Unknown',
      reason: 'MissingClusterDeployment',
      message:
        'ClusterDeployment is missing: failed to get clusterDeployment with name sno-1 in namespace site-a: clusterdeployments.hive.openshift.io "sno-1" not found',
    });
    const cd: KubeObject = {
      ...Gvk.ClusterDeployment,
      metadata: { namespace: NS, name: 'sno-1' },
      spec: {},
    };
    cluster.seed(cd);
    const watch = controller.watches.find((w) => w.gvk.kind === 'ClusterDeployment')!;
    expect(watch.map(cd, cluster)).toEqual([REQUEST]);
    await reconcile();
    expect(condition().message).toBe(
      'ClusterDeployment is missing: cluster does not exist: sno-1, AgentClusterInstall is not defined in ClusterDeployment',
    );
    await cluster.asOtherActor((c) =>
      c.update({
        ...c.peek({ ...Gvk.ClusterDeployment, namespace: NS, name: 'sno-1' })!,
        spec: { clusterInstallRef: { name: 'sno-1', kind: 'AgentClusterInstall' } },
      }),
    );
    await reconcile();
    expect(condition().reason).toBe('InfraEnvAvailable');
  });

  it('is woken by a change of the ClusterDeployment it names, from any namespace, and only by that one', async () => {
    const cdIn = (namespace: string, name: string): KubeObject => ({
      ...Gvk.ClusterDeployment,
      metadata: { namespace, name },
      spec: {},
    });
    const watch = controller.watches.find((w) => w.gvk.kind === 'ClusterDeployment')!;
    cluster.seed(
      infraEnv({ clusterRef: { name: 'shared', namespace: 'hub-clusters' } }),
      pullSecret(),
    );
    await reconcile();
    expect(watch.map(cdIn('hub-clusters', 'shared'), cluster)).toEqual([REQUEST]);
    expect(watch.map(cdIn(NS, 'shared'), cluster)).toEqual([]);
    // Bound elsewhere: the old ClusterDeployment no longer wakes it.
    await update((o) => ({
      ...o,
      spec: {
        ...(o['spec'] as Record<string, unknown>),
        clusterRef: { name: 'sno-1', namespace: NS },
      },
    }));
    await reconcile();
    expect(watch.map(cdIn('hub-clusters', 'shared'), cluster)).toEqual([]);
    expect(watch.map(cdIn(NS, 'sno-1'), cluster)).toEqual([REQUEST]);
    // Gone: nothing wakes it.
    await cluster.asOtherActor((c) => c.delete({ ...Gvk.InfraEnv, ...REQUEST }));
    await reconcile();
    expect(watch.map(cdIn(NS, 'sno-1'), cluster)).toEqual([]);
  });

  it('lets a deleted InfraEnv go', async () => {
    cluster.seed(infraEnv(), pullSecret());
    await reconcile();
    await cluster.asOtherActor((c) => c.delete({ ...Gvk.InfraEnv, ...REQUEST }));
    expect(stored().metadata['deletionTimestamp']).toBeDefined();
    await reconcile();
    expect(cluster.peek({ ...Gvk.InfraEnv, ...REQUEST })).toBeUndefined();
  });
});
