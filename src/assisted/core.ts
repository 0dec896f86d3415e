/**
 * The assisted core's composition: the parts of src/assisted wired to each other and to the
 * controller runtime, as `siteforge controller` runs them beside the BMAC.
 *
 * - The InfraEnv controller makes each InfraEnv's discovery ISO (served by the image server
 *   as base + overlay) and its agent token.
 * - The agent API (HTTPS) answers the discovery agents for the HostService, which keeps the
 *   host records in memory and has the Agent controller persist them in the Agents.
 * - The ClusterDeployments controller drives the clusters (AgentClusterInstall conditions,
 *   install trigger, installer backend, credentials) and moves their hosts.
 * - The host monitor refreshes every host periodically (disconnection, stage timeouts).
 *
 * Only the replica that acts (leader, caches synced) answers agents: a standby answers 503,
 * which the agent retries (a 401 or 404 would make it stop for good).
 */
import { mkdirSync } from 'node:fs';
import type { ImageServer } from '../bmac/images/index.js';
import type { Controller, ObjectWriter, Request } from '../bmac/runtime/contract.js';
import type { Manager } from '../bmac/runtime/manager.js';
import type { RuntimeClock } from '../bmac/runtime/runtime-clock.js';
import type { Logger } from '../shared/logger.js';
import { startAgentApiServer } from './agent-api/server.js';
import type { AgentApiServer } from './agent-api/server.js';
import {
  assistedClusterValidator,
  clusterDirectoryOf,
  hostServiceDirectory,
  stateTableClusterMachine,
} from './clusters/adapters.js';
import { ClusterEventLog } from './clusters/cluster-events.js';
import { ClusterInstallations } from './clusters/cluster-installations.js';
import {
  CLUSTER_DEPLOYMENTS_CONTROLLER,
  createClusterDeploymentsController,
} from './clusters/cluster-deployments-controller.js';
import type { AssistedSettings } from './config/assisted-settings.js';
import { executableOnPath } from './config/options.js';
import { ImageServerDiscoveryIsos } from './discovery/index.js';
import { AGENT_CONTROLLER_NAME, agentController } from './hosts/agent-controller.js';
import {
  CoreHostValidator,
  CoreInstructionBuilder,
  StateMachineHostMachine,
} from './hosts/core-adapters.js';
import { HostMonitor } from './hosts/host-monitor.js';
import { HostService } from './hosts/host-service.js';
import { InfraEnvController } from './infraenv/index.js';
import { selectInstallerBackend } from './installer/index.js';
import { DEFAULT_AGENT_IMAGE } from './discovery/index.js';
import { ClusterStatus, HostStatus } from './model.js';
import type { ClusterRecord, HostRecord } from './model.js';
import { BmacGvk, Gvk } from '../bmac/api.js';

/** What the assisted core is built from. */
export interface AssistedCoreDeps {
  readonly settings: AssistedSettings;
  /** The runtime the controllers are added to; its cache and writes serve the agent API too. */
  readonly manager: Manager;
  /** Serves the discovery ISOs. */
  readonly images: ImageServer;
  readonly log: Logger;
  readonly clock: RuntimeClock;
  /** Where host log uploads and installer work directories go. */
  readonly dataDir: string;
  /** The discovery agent image. @default DEFAULT_AGENT_IMAGE */
  readonly agentImage?: string;
  /** Hosts silent longer than this are disconnected. @default HostService's (3 minutes) */
  readonly maxDisconnectionMs?: number;
  /** How often the monitor refreshes every host. @default HostMonitor's */
  readonly monitorIntervalMs?: number;
}

/** The assisted core of one controller process. */
export interface AssistedCore {
  /** To add to the Manager before it starts. */
  readonly controllers: readonly Controller[];
  readonly hosts: HostService;
  /** Starts the agent API and the monitor, and fetches the base images. */
  start(): Promise<void>;
  /** The agent API's listening URL, once started. */
  apiUrl(): string | undefined;
  stop(): Promise<void>;
}

/** A writer that takes the Manager's writer of the current leadership term at each call. */
function termWriter(manager: Manager): ObjectWriter {
  return {
    create: (object) => manager.writer().create(object),
    update: (object) => manager.writer().update(object),
    updateStatus: (object) => manager.writer().updateStatus(object),
    delete: (ref, options) => manager.writer().delete(ref, options),
    getLive: (ref) => manager.writer().getLive(ref),
  };
}

/**
 * Whether a host's change matters to its cluster: statuses, roles, approval, binding, and what
 * the cluster's validations and status read of its hosts (inventory, validations, connectivity).
 * This is how host changes reach the cluster controller; its watch of Agents takes only what a
 * user changes there (agentMattersToCluster), not the Agent controller's projections.
 */
function movesCluster(previous: HostRecord, host: HostRecord): boolean {
  return (
    previous.status !== host.status ||
    previous.role !== host.role ||
    previous.suggestedRole !== host.suggestedRole ||
    previous.bootstrap !== host.bootstrap ||
    previous.approved !== host.approved ||
    previous.clusterId !== host.clusterId ||
    previous.progress.currentStage !== host.progress.currentStage ||
    previous.inventory !== host.inventory ||
    previous.validationsInfo !== host.validationsInfo ||
    previous.requestedHostname !== host.requestedHostname ||
    previous.stepResults.connectivity !== host.stepResults.connectivity
  );
}

/**
 * Annotation of a ClusterImageSet naming its release's machine-config-operator image, which
 * the install step needs. assisted-service reads it from the release payload in a registry; a
 * controller that cannot reach the registry uses the release image unless this says otherwise.
 */
export const MCO_IMAGE_ANNOTATION = 'siteforge.io/mco-image';

/** The release and MCO images of a cluster, from the ClusterImageSet its ACI names. */
function releaseImagesOf(
  manager: Manager,
  cluster: ClusterRecord | undefined,
): { release?: string; mco?: string } {
  if (cluster === undefined) return {};
  const aci = manager.cache.get({
    ...BmacGvk.AgentClusterInstall,
    namespace: cluster.namespace,
    name: cluster.agentClusterInstallName,
  });
  const imageSet = (aci?.['spec'] as { imageSetRef?: { name?: string } } | undefined)?.imageSetRef
    ?.name;
  if (imageSet === undefined) return {};
  const set = manager.cache.get({ ...Gvk.ClusterImageSet, name: imageSet });
  const release = (set?.['spec'] as { releaseImage?: string } | undefined)?.releaseImage;
  if (release === undefined || release === '') return {};
  return { release, mco: set?.metadata.annotations?.[MCO_IMAGE_ANNOTATION] ?? release };
}

/** Builds the assisted core; nothing listens or runs until start(). */
export function createAssistedCore(deps: AssistedCoreDeps): AssistedCore {
  const { settings, manager, log, clock } = deps;
  const agentImage = deps.agentImage ?? DEFAULT_AGENT_IMAGE;
  const installations = new ClusterInstallations();
  const events = new ClusterEventLog();
  const enqueue = (controller: string) => (request: Request) => {
    manager.enqueue(controller, request);
  };

  const hosts = new HostService({
    reader: manager.cache,
    writer: termWriter(manager),
    enqueueAgent: enqueue(AGENT_CONTROLLER_NAME),
    machine: new StateMachineHostMachine(),
    validator: new CoreHostValidator(),
    instructions: new CoreInstructionBuilder((context) => ({
      images: { agent: agentImage, ...releaseImagesOf(manager, context.cluster) },
    })),
    clusters: clusterDirectoryOf(installations),
    log: log.child({ component: 'assisted-hosts' }),
    clock,
    ...(deps.maxDisconnectionMs !== undefined && { maxDisconnectionMs: deps.maxDisconnectionMs }),
  });

  const installer = selectInstallerBackend({
    backend: settings.installer,
    path: settings.openshiftInstallPath,
    howToConfigure: 'pass --openshift-install-path PATH to siteforge controller',
  });
  const clusters = createClusterDeploymentsController({
    hosts: hostServiceDirectory(hosts),
    machine: stateTableClusterMachine,
    validator: assistedClusterValidator,
    installer,
    serviceBaseUrl: settings.agentApiUrl,
    events,
    installations,
    workDir: `${deps.dataDir}/installer`,
  });

  // A host that changes moves its cluster: the cluster controller looks again.
  hosts.subscribe((host, previous) => {
    const cluster = host.clusterId ?? previous?.clusterId;
    if (cluster === undefined) return;
    const record = installations.record(cluster);
    if (record === undefined) return;
    if (previous !== undefined && !movesCluster(previous, host)) return;
    manager.enqueue(CLUSTER_DEPLOYMENTS_CONTROLLER, {
      namespace: record.namespace,
      name: record.clusterDeploymentName,
    });
  });

  // Minimal ISOs need a template per base image, made once with xorriso; without it every
  // InfraEnv gets the full ISO (said once at start).
  const xorriso = executableOnPath('xorriso', process.env);
  const minimal = xorriso.includes('/')
    ? { xorriso, templateDir: `${deps.dataDir}/templates` }
    : undefined;
  if (minimal === undefined && settings.discoveryIsoType === 'minimal-iso')
    log.warn('xorriso is not on PATH: InfraEnvs get full discovery ISOs, not minimal ones');
  const isos = new ImageServerDiscoveryIsos(deps.images, { ...(minimal && { minimal }) });
  const infraEnvs = new InfraEnvController({
    privateKey: settings.tokenKey.privateKey,
    isos,
    osImages: settings.osImages,
    serviceBaseUrl: settings.agentApiUrl,
    serviceCaCert: settings.tls.caBundle,
    agentImage,
    defaultImageType: settings.discoveryIsoType,
  });

  // Each term starts from what the Agents and AgentClusterInstalls say (another replica may
  // have moved them): the records are rebuilt before any worker or agent request runs.
  manager.beforeActing(() => {
    for (const host of hosts.all()) hosts.deregister(host.id);
    for (const cluster of installations.records()) installations.delete(cluster.id);
    const restored = hosts.restoreAll(new Date(clock.now()));
    log.info({ hosts: restored }, 'assisted core: host records restored from the Agents');
  });

  // Hosts and clusters per status, counted when /metrics is scraped (records of this term only).
  manager.metrics.assistedStatuses({
    hostStatuses: () => hosts.all().map((host) => host.status),
    clusterStatuses: () => installations.records().map((cluster) => cluster.status),
    knownHostStatuses: Object.values(HostStatus),
    knownClusterStatuses: Object.values(ClusterStatus),
    active: () => manager.acting(),
  });

  const monitor = new HostMonitor({
    hosts,
    clock,
    log: log.child({ component: 'assisted-monitor' }),
    isLeader: () => manager.acting(),
    ...(deps.monitorIntervalMs !== undefined && { intervalMs: deps.monitorIntervalMs }),
  });

  let api: AgentApiServer | undefined;
  return {
    controllers: [infraEnvs, agentController({ hosts }), clusters],
    hosts,
    async start() {
      const logsDir = `${deps.dataDir}/logs`;
      mkdirSync(logsDir, { recursive: true });
      const { host, port } = settings.agentApiBindAddress;
      api = await startAgentApiServer({
        backend: hosts,
        tokenKey: settings.tokenKey.publicKey,
        agentImage,
        logsDir,
        host: host === '' ? '::' : host,
        port,
        tls: { cert: settings.tls.cert, key: settings.tls.key },
        available: () => manager.acting(),
        now: () => new Date(clock.now()),
        log: log.child({ component: 'agent-api' }),
        observe: (event) => {
          manager.metrics.agentApiRequest(event);
        },
      });
      log.info({ listening: api.url, url: settings.agentApiUrl }, 'agent API up');
      monitor.start();
      for (const image of settings.osImages)
        isos.prefetch(image.url).catch((err: unknown) => {
          log.warn(
            { url: image.url, err: (err as Error).message },
            'base image could not be fetched: InfraEnvs of its version say so in ImageCreated',
          );
        });
    },
    apiUrl: () => api?.url,
    async stop() {
      monitor.stop();
      await api?.close();
    },
  };
}
