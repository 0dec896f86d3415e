/**
 * What the assisted hub tests (test/hub/assisted-*.test.ts) share: the assisted core of
 * `siteforge controller` on the test run's hub, with sites made as a user makes them (a
 * SiteConfig compiled by the real compiler, applied wave by wave, without BareMetalHosts and BMC
 * Secrets: there are no BMCs here) and scripted discovery agents that take the service URL,
 * InfraEnv id, token and CA from the discovery ISO the controller serves, register with
 * inventories matching the SiteConfig's nodes, answer their steps and report install stages.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferAccess, locateEmbedAreas } from '../../src/assisted/discovery/index.js';
import { runController } from '../../src/bmac/main.js';
import type { ControllerOptions } from '../../src/bmac/main.js';
import { systemRuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';
import type { RuntimeClock } from '../../src/bmac/runtime/runtime-clock.js';
import type { KubeObject, ObjectRef, RuntimeKubeClient } from '../../src/kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../../src/kube/index.js';
import { compileSiteConfig, waveOf } from '../../src/siteconfig/index.js';
import type { Manifest } from '../../src/siteconfig/index.js';
import {
  AgentClient,
  agentDispatcher,
  describeHost,
  installStagesOf,
} from '../../src/sim/agent-client.js';
import type { AgentResponse, HostDescription } from '../../src/sim/agent-client.js';
import { configIgnition } from '../../src/sim/boot-media.js';
import { discoveryOf } from '../../src/sim/discovery-config.js';
import type { Discovery } from '../../src/sim/discovery-config.js';
import { AGENT, INFRA_ENV, field, waitFor } from './controller-hub.js';
import type { InProcessController } from './controller-hub.js';
import { hubKubeconfig } from './hub.js';
import { buildTestIso } from './coreos-installer.js';
import { loopbackCert } from './loopback-cert.js';
import { loadText } from './sites.js';

export const ACI = {
  apiVersion: 'extensions.hive.openshift.io/v1beta1',
  kind: 'AgentClusterInstall',
} as const;
export const CLUSTER_DEPLOYMENT = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
} as const;
export const CLUSTER_IMAGE_SET = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterImageSet',
} as const;
export const NMSTATE_CONFIG = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'NMStateConfig',
} as const;
export const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** The OpenShift version of the test sites (ClusterImageSet and osImages). */
export const OPENSHIFT_VERSION = '4.18';

// ---- the controller's environment ---------------------------------------------------------

/** Files and ports an assisted controller runs with, kept across its restarts. */
export interface AssistedEnvironment {
  /** `https://127.0.0.1:PORT`, where agents are sent. */
  readonly agentApiUrl: string;
  /** The options of startInProcessController for `namespaces`. */
  options(
    namespaces: readonly string[],
  ): Partial<ControllerOptions> & Pick<ControllerOptions, 'mode' | 'namespaces'>;
  close(): Promise<void>;
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/**
 * The base live ISO (the small test ISO in CoreOS's layout) served over HTTP, an osImages file
 * naming it, the agent API's certificate and the agent token key as files (so a restarted
 * controller serves the ISOs it made before), and a port for the agent API.
 */
export async function assistedEnvironment(): Promise<AssistedEnvironment> {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-assisted-e2e-'));
  const iso = await buildTestIso(dir);
  const size = statSync(iso).size;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/rhcos-live.iso') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    createReadStream(iso).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const isoUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/rhcos-live.iso`;
  const osImagesFile = join(dir, 'os-images.json');
  writeFileSync(
    osImagesFile,
    JSON.stringify({
      osImages: [
        {
          openshiftVersion: OPENSHIFT_VERSION,
          version: '418.94.202501221327-0',
          url: isoUrl,
          cpuArchitecture: 'x86_64',
        },
      ],
    }),
  );
  const cert = loopbackCert(dir);
  const tokenKeyFile = join(dir, 'agent-token-key.pem');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(tokenKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const port = await freePort();
  const agentApiUrl = `https://127.0.0.1:${String(port)}`;
  return {
    agentApiUrl,
    options: (namespaces) => ({
      mode: 'redfish',
      namespaces: [...namespaces],
      assisted: true,
      installer: 'simulated',
      agentApiBindAddress: { host: '127.0.0.1', port },
      agentApiUrl,
      agentApiTlsCertFile: cert.certFile,
      agentApiTlsKeyFile: cert.keyFile,
      agentTokenKeyFile: tokenKeyFile,
      osImagesFile,
      discoveryIsoType: 'full-iso',
    }),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Real time plus an offset a test moves forward: timers still run in real time. */
export interface JumpingClock extends RuntimeClock {
  /** Moves the clock forward by `ms` at once (a host silent for that long, a stage that long). */
  jump(ms: number): void;
}

/** A RuntimeClock on real time that can jump ahead. */
export function jumpingClock(): JumpingClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    sleep: (ms) => systemRuntimeClock.sleep(ms),
    setTimer: (ms, callback) => systemRuntimeClock.setTimer(ms, callback),
    jump: (ms) => {
      offset += ms;
    },
  };
}

/**
 * Starts `siteforge controller` with the assisted core in this process, watching the test's
 * namespaces only, on `clock`. Resolves once its controllers are about to start and its agent
 * API answers.
 */
export async function startAssistedController(
  env: AssistedEnvironment,
  namespaces: readonly string[],
  options: {
    readonly clock?: RuntimeClock;
    /** More controller options (a dashboard address, say). */
    readonly controller?: Partial<ControllerOptions>;
  } = {},
): Promise<InProcessController> {
  const stop = new AbortController();
  const lines: Record<string, unknown>[] = [];
  const cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-assisted-images-'));
  let failure: unknown;
  const done = runController(
    {
      kubeconfig: hubKubeconfig(),
      leaderElect: false,
      leaderElectionId: 'siteforge-controller',
      imageServerBindAddress: { host: '127.0.0.1', port: 0 },
      imageCacheDir: cacheDir,
      workers: 4,
      kubeApiQps: 200,
      kubeApiBurst: 400,
      maxConcurrentBmcOperations: 64,
      logLevel: 'debug',
      ...env.options(namespaces),
      ...options.controller,
    },
    {
      stop: stop.signal,
      ...(options.clock !== undefined && { clock: options.clock }),
      logDestination: {
        write: (text: string) => {
          for (const line of text.split('\n').filter((l) => l !== ''))
            lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    },
  ).catch((err: unknown) => {
    failure = err;
    return -1;
  });
  const up = (): boolean => lines.some((l) => l['msg'] === 'agent API up');
  const deadline = Date.now() + 30_000;
  while (!up() && failure === undefined) {
    if (Date.now() > deadline) throw new Error('the assisted controller did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
  return {
    lines,
    imageOrigin: undefined,
    failure: () => failure,
    stop: async () => {
      stop.abort();
      const code = await done;
      rmSync(cacheDir, { recursive: true, force: true });
      return code;
    },
  };
}

// ---- sites ----------------------------------------------------------------------------------

/** One node of a test site, as its SiteConfig names it. */
export interface SiteNode {
  readonly hostname: string;
  readonly role: 'master' | 'worker';
  readonly mac: string;
  /** Its address with prefix, inside the machine network. */
  readonly ip: string;
}

/** A compiled test site. */
export interface AssistedSite {
  /** Cluster name = namespace = InfraEnv, ClusterDeployment and ACI name. */
  readonly name: string;
  readonly namespace: string;
  readonly nodes: readonly SiteNode[];
  readonly baseDomain: string;
  readonly imageSetName: string;
  readonly apiVip?: string;
  readonly ingressVip?: string;
  /** What is applied, in wave order (no BareMetalHost, no BMC Secret). */
  readonly manifests: readonly Manifest[];
}

/** A name no other test file uses: `<prefix>-<5 random characters>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).readUInt32BE().toString(36).slice(0, 5).padEnd(5, '0')}`;
}

function randomMac(): string {
  const bytes = randomBytes(3);
  return `52:54:01:${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
}

/** A single-node site named `name`. */
export function snoSite(name: string): AssistedSite {
  const mac = randomMac();
  const node: SiteNode = { hostname: `${name}-node`, role: 'master', mac, ip: '10.0.0.10/24' };
  const text = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${name}
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: img-${name}
  sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly000000000000000000000 test@example.com'
  clusters:
    - clusterName: ${name}
      machineNetwork:
        - cidr: 10.0.0.0/24
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      serviceNetwork:
        - 172.30.0.0/16
      nodes:
        - hostName: ${node.hostname}
          role: master
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${name}-bmc
          bootMACAddress: '${mac}'
`;
  return compiled(name, text, [node], 'example.com', {});
}

/** A site of three control-plane nodes (static addresses, NMStateConfigs) and two workers. */
export function standardSite(name: string): AssistedSite {
  const nodes: SiteNode[] = [
    ...[0, 1, 2].map((i) => ({
      hostname: `${name}-m${String(i)}`,
      role: 'master' as const,
      mac: randomMac(),
      ip: `10.30.0.${String(10 + i)}/24`,
    })),
    ...[0, 1].map((i) => ({
      hostname: `${name}-w${String(i)}`,
      role: 'worker' as const,
      mac: randomMac(),
      ip: `10.30.0.${String(20 + i)}/24`,
    })),
  ];
  const nodeText = (node: SiteNode, i: number): string => {
    const address = node.ip.split('/')[0] ?? '';
    const network =
      node.role === 'master'
        ? `          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: '${node.mac}'
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    address:
                      - ip: ${address}
                        prefix-length: 24
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.30.0.1
`
        : '';
    return `        - hostName: ${node.hostname}
          role: ${node.role}
          bmcAddress: redfish-virtualmedia://10.30.1.${String(10 + i)}/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${node.hostname}-bmc
          bootMACAddress: '${node.mac}'
${network}`;
  };
  const text = `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${name}
spec:
  baseDomain: core.example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: img-${name}
  sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly000000000000000000000 test@example.com'
  clusters:
    - clusterName: ${name}
      apiVIPs:
        - 10.30.0.5
      ingressVIPs:
        - 10.30.0.6
      machineNetwork:
        - cidr: 10.30.0.0/24
      clusterNetwork:
        - cidr: 10.128.0.0/14
          hostPrefix: 23
      serviceNetwork:
        - 172.30.0.0/16
      nodes:
${nodes.map(nodeText).join('')}`;
  return compiled(name, text, nodes, 'core.example.com', {
    apiVip: '10.30.0.5',
    ingressVip: '10.30.0.6',
  });
}

function compiled(
  name: string,
  text: string,
  nodes: readonly SiteNode[],
  baseDomain: string,
  vips: { apiVip?: string; ingressVip?: string },
): AssistedSite {
  const { sites, issues } = loadText(text, `${name}.yaml`);
  const errors = issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 || sites[0] === undefined)
    throw new Error(`the test SiteConfig ${name} is invalid: ${JSON.stringify(errors)}`);
  const [cluster] = compileSiteConfig(sites[0].siteConfig, sites[0].resources);
  if (cluster === undefined) throw new Error(`the test SiteConfig ${name} has no cluster`);
  const manifests = cluster.manifests
    .filter((m) => m.kind !== 'BareMetalHost')
    .filter((m) => !(m.kind === 'Secret' && m.metadata.name.endsWith('-bmc')))
    .sort((a, b) => waveOf(a) - waveOf(b));
  return {
    name,
    namespace: name,
    nodes,
    baseDomain,
    imageSetName: `img-${name}`,
    ...vips,
    manifests,
  };
}

/** The pull secret the sites name (a docker config JSON, as a user's pull secret is). */
function pullSecret(namespace: string): KubeObject {
  const config = { auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64') } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

/**
 * Applies a site as a user's GitOps would: its ClusterImageSet, then its objects wave by wave,
 * the pull secret with the namespace.
 */
export async function applySite(client: RuntimeKubeClient, site: AssistedSite): Promise<void> {
  await client.create({
    ...CLUSTER_IMAGE_SET,
    metadata: { name: site.imageSetName },
    spec: {
      releaseImage: `quay.io/openshift-release-dev/ocp-release:${OPENSHIFT_VERSION}.12-x86_64`,
    },
  });
  for (const manifest of site.manifests) {
    await client.create(manifest);
    if (manifest.kind === 'Namespace') await client.create(pullSecret(site.namespace));
  }
}

/**
 * Removes a site: its objects deleted, the finalizers a stopped controller would have released
 * let go, its namespace, ManagedCluster and ClusterImageSet gone.
 */
export async function removeSite(client: RuntimeKubeClient, site: AssistedSite): Promise<void> {
  const namespace = site.namespace;
  for (const gvk of [AGENT, ACI, CLUSTER_DEPLOYMENT, INFRA_ENV, NMSTATE_CONFIG]) {
    const { items } = await client.list(gvk, { namespace });
    for (const item of items) {
      const ref = { ...gvk, namespace, name: item.metadata.name };
      await client.delete(ref);
      await updateWith(client, ref, (live) =>
        Array.isArray(live.metadata['finalizers']) && live.metadata['finalizers'].length > 0
          ? { ...live, metadata: { ...live.metadata, finalizers: [] } }
          : undefined,
      );
    }
  }
  await client.delete({
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    name: site.name,
  });
  await client.delete({ ...CLUSTER_IMAGE_SET, name: site.imageSetName });
  await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
}

/**
 * Reads the object, lets `change` edit it and writes it back, again on a conflict (the
 * controller writes the same objects). `change` returning undefined writes nothing.
 * @returns the stored object, or undefined when it is gone or unchanged
 */
export async function updateWith(
  client: RuntimeKubeClient,
  ref: ObjectRef,
  change: (live: KubeObject) => KubeObject | undefined,
): Promise<KubeObject | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const live = await client.get(ref);
    if (live === undefined) return undefined;
    const next = change(live);
    if (next === undefined) return undefined;
    try {
      return await client.update(next);
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict) continue;
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.NotFound) return undefined;
      throw err;
    }
  }
  throw new Error(`${ref.kind} ${ref.name}: still conflicting after 20 attempts`);
}

/** Approves an Agent as a user does (`spec.approved: true`), with other spec fields. */
export async function editAgentSpec(
  client: RuntimeKubeClient,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await updateWith(client, { ...AGENT, namespace, name }, (live) => ({
    ...live,
    spec: { ...(live['spec'] as Record<string, unknown>), ...spec },
  }));
}

/** A condition of an object's status, as `kubectl get -o yaml` shows it. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The condition `type` of an object, or undefined. */
export function conditionOf(object: KubeObject | undefined, type: string): Condition | undefined {
  const conditions = field(object, 'status', 'conditions');
  if (!Array.isArray(conditions)) return undefined;
  return (conditions as Condition[]).find((c) => c.type === type);
}

/** `{type: 'status reason: message'}` of every condition, for readable failures. */
export function conditionsText(object: KubeObject | undefined): Record<string, string> {
  const conditions = field(object, 'status', 'conditions');
  if (!Array.isArray(conditions)) return {};
  return Object.fromEntries(
    (conditions as Condition[]).map((c) => [
      c.type,
      `${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`,
    ]),
  );
}

/** Whether the condition has the status, reason and (when given) message. */
export function hasCondition(
  object: KubeObject | undefined,
  type: string,
  status: string,
  reason: string,
  message?: string | RegExp,
): boolean {
  const c = conditionOf(object, type);
  if (c?.status !== status || c.reason !== reason) return false;
  if (message === undefined) return true;
  return typeof message === 'string' ? c.message === message : message.test(c.message ?? '');
}

// ---- discovery --------------------------------------------------------------------------------

export type { Discovery };

/** The ignition embedded in a live ISO's embed area (gzip-compressed cpio with `config.ign`). */
export async function embeddedIgnition(iso: Buffer): Promise<Record<string, unknown>> {
  const areas = await locateEmbedAreas(bufferAccess(iso));
  const area = iso.subarray(areas.ignition.offset, areas.ignition.offset + areas.ignition.length);
  const config = configIgnition(area);
  if (config === undefined) throw new Error("the ISO's ignition embed area holds no config.ign");
  return config;
}

/**
 * Waits for the InfraEnv's ISO (ImageCreated True, `isoDownloadURL`), downloads it as a BMC
 * would and reads the agent's settings from the ignition in its embed area.
 */
export async function discoveryFromIso(
  client: RuntimeKubeClient,
  namespace: string,
  name: string,
  options: { timeoutMs?: number } = {},
): Promise<Discovery> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let infraEnv: KubeObject | undefined;
  for (;;) {
    infraEnv = await client.get({ ...INFRA_ENV, namespace, name });
    const url = field(infraEnv, 'status', 'isoDownloadURL');
    if (
      typeof url === 'string' &&
      url !== '' &&
      hasCondition(infraEnv, 'ImageCreated', 'True', 'InfraEnvAvailable')
    ) {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`GET ${url}: ${String(response.status)}`);
      const iso = Buffer.from(await response.arrayBuffer());
      return discoveryOf(await embeddedIgnition(iso));
    }
    if (Date.now() > deadline)
      throw new Error(
        `InfraEnv ${namespace}/${name} has no image: ${JSON.stringify(field(infraEnv, 'status'))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// ---- scripted agents ---------------------------------------------------------------------------

/** The host description of a site's node: its MAC and address, enough CPU, RAM and disk. */
export function hostOf(
  site: AssistedSite,
  node: SiteNode,
  index: number,
  overrides: Partial<HostDescription> = {},
): HostDescription {
  const address = node.ip.split('/')[0] ?? '';
  const suffix = `${site.name}.${site.baseDomain}`;
  const api = site.apiVip ?? address;
  const apps = site.ingressVip ?? address;
  return describeHost(index, {
    hostname: node.hostname,
    macs: [node.mac],
    ips: [node.ip],
    cpus: 16,
    ramMiB: 65_536,
    disks: [{ name: 'sda', sizeBytes: 480 * 1000 ** 3 }],
    dns: {
      [`api.${suffix}`]: [api],
      [`api-int.${suffix}`]: [api],
      [`console-openshift-console.apps.${suffix}`]: [apps],
      'quay.io': ['192.0.2.10'],
    },
    ...overrides,
  });
}

/** What one scripted host is doing. */
interface HostState {
  description: HostDescription;
  registered: boolean;
  paused: boolean;
  /** Stages the installer reports, once the install step came. */
  stages: readonly string[] | undefined;
  reported: number;
  /** The installer reports no stage after this one. */
  stopAfter: string | undefined;
  /** Answers of the API that were not what the agent expects. */
  readonly surprises: string[];
}

/**
 * Scripted discovery agents for the hosts of one InfraEnv: each registers, polls and answers
 * its steps, and once told to install, reports its role's stages one per poll. Loops run until
 * stop(); tests wait on the hub for what the controller makes of them.
 */
export class ScriptedAgents {
  private readonly client: AgentClient;
  private readonly hosts = new Map<string, HostState>();
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    readonly discovery: Discovery,
    hosts: readonly HostDescription[],
    private readonly options: { readonly pollMs?: number } = {},
  ) {
    this.client = new AgentClient({
      url: discovery.url,
      infraEnvId: discovery.infraEnvId,
      token: discovery.token,
      dispatcher: agentDispatcher(discovery.url, {
        ...(discovery.ca !== undefined && { ca: discovery.ca }),
        connections: 4,
      }),
    });
    for (const description of hosts) this.add(description);
  }

  /** Adds a host (its agent starts with the next start(), or at once when running). */
  add(description: HostDescription): void {
    const state: HostState = {
      description,
      registered: false,
      paused: false,
      stages: undefined,
      reported: 0,
      stopAfter: undefined,
      surprises: [],
    };
    this.hosts.set(description.hostId, state);
    if (this.running) this.loops.push(this.loop(state));
  }

  /** Host ids, in the order given. */
  get hostIds(): string[] {
    return [...this.hosts.keys()];
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [...this.hosts.values()].map((state) => this.loop(state));
  }

  /** Stops every loop (and waits for them). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await this.client.close();
  }

  /** The host stops calling the service (unplugged), until resume(). */
  pause(hostId: string): void {
    this.state(hostId).paused = true;
  }

  resume(hostId: string): void {
    this.state(hostId).paused = false;
  }

  /** The host reboots into discovery with another description (e.g. more RAM): it re-registers. */
  replace(hostId: string, description: Partial<HostDescription>): void {
    const state = this.state(hostId);
    state.description = { ...state.description, ...description, hostId };
    state.registered = false;
  }

  /** The installer of the host reports no stage after `stage` (it hangs there). */
  stopAfter(hostId: string, stage: string | undefined): void {
    this.state(hostId).stopAfter = stage;
  }

  /** Stages reported so far by the host. */
  reportedStages(hostId: string): readonly string[] {
    const state = this.state(hostId);
    return (state.stages ?? []).slice(0, state.reported);
  }

  /** Answers of the API no agent expects (e.g. a 500), per host. */
  surprises(): Record<string, readonly string[]> {
    return Object.fromEntries(
      [...this.hosts.entries()]
        .filter(([, s]) => s.surprises.length > 0)
        .map(([id, s]) => [id, s.surprises]),
    );
  }

  private state(hostId: string): HostState {
    const state = this.hosts.get(hostId);
    if (state === undefined) throw new Error(`no scripted host ${hostId}`);
    return state;
  }

  private async loop(state: HostState): Promise<void> {
    const pollMs = this.options.pollMs ?? 300;
    while (this.running) {
      if (!state.paused) {
        try {
          await this.tick(state);
        } catch (err) {
          // The service restarting or going away: the agent retries, as the real one does.
          state.surprises.push(
            `request failed: ${err instanceof Error ? err.message : String(err)}`,
          );
          if (state.surprises.length > 200) state.surprises.splice(0, 100);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  private note(state: HostState, what: string, response: AgentResponse): void {
    state.surprises.push(`${what}: ${String(response.status)} ${response.text.slice(0, 300)}`);
    if (state.surprises.length > 200) state.surprises.splice(0, 100);
  }

  private async tick(state: HostState): Promise<void> {
    const hostId = state.description.hostId;
    if (!state.registered) {
      const registered = await this.client.register(hostId);
      if (registered.status !== 201) {
        this.note(state, 'register', registered);
        return;
      }
      state.registered = true;
    }
    if (state.stages !== undefined) {
      await this.reportNextStage(state);
      // After the reboot the discovery agent is gone; only the installed OS reports.
      if (this.afterReboot(state)) return;
    }
    const { steps, replies } = await this.client.runSteps(state.description);
    if (steps.status !== 200) {
      this.note(state, 'instructions', steps);
      if (steps.status === 404) state.registered = false;
      return;
    }
    for (const reply of replies) if (reply.status !== 204) this.note(state, 'reply', reply);
    if (process.env['ASSISTED_E2E_TRACE'] === '1')
      console.log(
        hostId.slice(0, 8),
        steps.body.instructions.map((s) => `${s.step_type} ${s.args.join(' ').slice(0, 200)}`),
      );
    if (steps.body.post_step_action === 'exit') {
      // The agent exits; systemd starts it again and it registers anew.
      state.registered = false;
      return;
    }
    const install = steps.body.instructions.find((s) => s.step_type === 'install');
    if (install !== undefined && state.stages === undefined) {
      state.stages = installStagesOf(install.args[0]);
      state.reported = 0;
    }
  }

  private afterReboot(state: HostState): boolean {
    const stages = state.stages ?? [];
    const rebooting = stages.indexOf('Rebooting');
    return rebooting >= 0 && state.reported > rebooting;
  }

  private async reportNextStage(state: HostState): Promise<void> {
    const stages = state.stages ?? [];
    if (state.reported >= stages.length) return;
    const last = stages[state.reported - 1];
    if (last !== undefined && last === state.stopAfter) return;
    const stage = stages[state.reported] ?? '';
    const response = await this.client.reportProgress(state.description.hostId, stage);
    if (response.status !== 200) {
      this.note(state, `progress ${stage}`, response);
      return;
    }
    state.reported++;
  }
}

/** The Agents of a namespace. */
export async function agentsIn(
  client: RuntimeKubeClient,
  namespace: string,
): Promise<readonly KubeObject[]> {
  return (await client.list(AGENT, { namespace })).items;
}

/** What a user would look at when a site is stuck: states, conditions, failing validations. */
export async function siteSummary(client: RuntimeKubeClient, site: AssistedSite): Promise<string> {
  const namespace = site.namespace;
  const failing = (object: KubeObject | undefined): string[] => {
    const info = field(object, 'status', 'validationsInfo') as
      Record<string, { id: string; status: string; message: string }[]> | undefined;
    return Object.values(info ?? {})
      .flat()
      .filter((v) => v.status !== 'success' && v.status !== 'disabled')
      .map((v) => `${v.id} ${v.status}: ${v.message}`);
  };
  const aci = await client.get({ ...ACI, namespace, name: site.name });
  const lines = [
    `ACI ${String(field(aci, 'status', 'debugInfo', 'state'))} (${String(field(aci, 'status', 'debugInfo', 'stateInfo'))})`,
    ...Object.entries(conditionsText(aci)).map(([t, c]) => `  ${t}: ${c}`),
    ...failing(aci).map((f) => `  ! ${f}`),
  ];
  for (const agent of await agentsIn(client, namespace)) {
    lines.push(
      `Agent ${agent.metadata.name} ${String(field(agent, 'status', 'debugInfo', 'state'))} (${String(field(agent, 'status', 'debugInfo', 'stateInfo'))}) role ${String(field(agent, 'status', 'role'))} stage ${String(field(agent, 'status', 'progress', 'currentStage'))}`,
      ...Object.entries(conditionsText(agent)).map(([t, c]) => `  ${t}: ${c}`),
      ...failing(agent).map((f) => `  ! ${f}`),
    );
  }
  return lines.join('\n');
}

/**
 * waitFor with the site's summary in the failure: polls `check` until it gives a value; fails
 * after `timeoutMs` saying what the site looks like.
 */
export async function waitForSite<T>(
  client: RuntimeKubeClient,
  site: AssistedSite,
  what: string,
  check: () => Promise<T | undefined | false>,
  options: { readonly timeoutMs?: number; readonly controller?: InProcessController } = {},
): Promise<T> {
  try {
    return await waitFor(what, check, options);
  } catch (err) {
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}\n${await siteSummary(client, site)}`,
    );
  }
}
