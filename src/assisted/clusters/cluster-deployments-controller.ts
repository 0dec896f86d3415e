/**
 * Install orchestration: assisted-service's ClusterDeployments controller (AS
 * `ctl/clusterdeployments_controller.go`) over the in-memory assisted core. One pass per
 * ClusterDeployment: the finalizers (§8), the cluster record from the ClusterDeployment and its
 * AgentClusterInstall, role suggestions, validations and the cluster state machine, the install
 * trigger (installDay1), preparation (the installer backend generates the ignition while the
 * hosts check their disks and images), the hosts' installation, and on completion the
 * credentials Secrets, `spec.clusterMetadata` and `ClusterDeployment.spec.installed`. Every pass
 * ends with the ACI conditions of §3.3 written in one status update.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  Controller,
  ObjectReader,
  ObjectWriter,
  ReconcileContext,
  ReconcileResult,
  Request,
} from '../../bmac/runtime/contract.js';
import { KubeApiError, KubeUnreachableError } from '../../kube/index.js';
import type { KubeObject } from '../../kube/index.js';
import { cidrContains, parseCidr, parseIp } from '../../shared/ip.js';
import type {
  InstallerAvailability,
  InstallerBackend,
  InstallerManifest,
  InstallerOutput,
} from '../installer/installer-backend.js';
import type { ClusterRecord, HostRecord } from '../model.js';
import { CLUSTER_PREPARE_TIMEOUT_MS } from '../state/index.js';
import { connectivityMajorityGroups } from '../validations/index.js';
import { ClusterEventLog, ClusterEventText } from './cluster-events.js';
import { ClusterInstallations } from './cluster-installations.js';
import {
  clusterInstallationOf,
  hivePlatformType,
  persistedStateOf,
  versionOfReleaseImage,
} from './cluster-record.js';
import type { ClusterInstallation } from './cluster-record.js';
import {
  clusterConditions,
  installerBackend,
  notAvailable,
  setClusterCondition,
  specSynced,
} from './conditions.js';
import type { AgentCounts, ConditionValue, SyncError } from './conditions.js';
import {
  ensureKubeconfigSecret,
  ensurePasswordSecret,
  loadInstallerOutput,
  secretNames,
  storeInstallerOutput,
} from './credentials.js';
import { handleAciFinalizer, handleCdFinalizer } from './deletion.js';
import {
  InstallConfigOverridesError,
  buildInstallConfig,
  installConfigYaml,
  parseOverrides,
} from './install-config.js';
import {
  ACI_GROUP,
  ClusterAnnotation,
  ClusterGvk,
  ClusterLabel,
  asKube,
  draft,
  view,
} from './kinds.js';
import type {
  Agent,
  AgentClusterInstall,
  AgentClusterInstallStatus,
  ClusterDeployment,
  ClusterImageSet,
  ClusterMetadata,
} from './kinds.js';
import { jsonEqual } from '../hosts/deep-equal.js';
import type { ClusterEvent, ClusterMachine, ClusterValidator, HostDirectory } from './ports.js';
import { totalPercentage } from './progress.js';
import { chooseBootstrap, countByRole, effectiveRole, suggestRoles } from './roles.js';

/** The controller's name. */
export const CLUSTER_DEPLOYMENTS_CONTROLLER = 'clusterdeployments-controller';

/** How often a cluster is looked at again, by phase (host changes wake it sooner via Agents). */
export const ClusterRequeueMs = {
  /** Host changes wake a cluster at once (the host service enqueues it): this is a backstop. */
  preInstall: 300_000,
  /**
   * Hosts' stages and statuses wake an installing cluster; the installation's own timeouts are
   * hours: a backstop. (Every 30 s, a fleet of 3,500 installing sites filled the queue.)
   */
  installing: 300_000,
  installerUnavailable: 30_000,
  /** After a backend (not input) error, as upstream's defaultRequeueAfterOnError. */
  backendError: 10_000,
  /** After a pass that moved the cluster to another status. */
  afterMove: 1_000,
} as const;

/**
 * How long a pull secret read for a cluster is used without reading it again (Secrets are not
 * cached and not watched) before its installation starts; the pass that starts an installation
 * always reads it, and from then on a remembered read is used whatever its age.
 */
export const PULL_SECRET_RECHECK_MS = 300_000;

/**
 * How long the manifests read from an ACI's ConfigMaps are used for SpecSynced before they are
 * read again (ConfigMaps are not cached either). A failed read is not remembered, and the pass
 * that starts an installation (or prepares one after a restart) always reads them.
 */
export const MANIFESTS_RECHECK_MS = 60_000;

/** What the controller is built from. */
export interface ClusterDeploymentsControllerOptions {
  readonly hosts: HostDirectory;
  readonly machine: ClusterMachine;
  readonly validator: ClusterValidator;
  /** Generates the ignition and credentials; see selectInstallerBackend. */
  readonly installer: InstallerBackend;
  /** The base URL of the assisted API, for `debugInfo.eventsURL` (e.g. `https://hub:8090`). */
  readonly serviceBaseUrl: string;
  /** @default `<serviceBaseUrl>/api/assisted-install/v2/events?cluster_id=<id>` */
  readonly eventsUrl?: (clusterId: string) => string;
  /** Shared with the agent API. @default a new, private list */
  readonly events?: ClusterEventLog;
  /** Shared with the agent API and the host service. @default a new, private store */
  readonly installations?: ClusterInstallations;
  /** Where installer work directories are made. @default the OS temp directory */
  readonly workDir?: string;
  /**
   * Turn an installed cluster into an `adding-hosts` day-2 cluster once its ClusterDeployment
   * says installed, as upstream does (then `debugInfo.state` ends at `adding-hosts` and
   * RequirementsMet at ClusterAlreadyInstalling). Off, a finished cluster stays `installed`.
   * ClusterDeployments installed by other means are imported as `adding-hosts` either way.
   * @default false
   */
  readonly day2AfterInstall?: boolean;
}

const PRE_INSTALL = new Set(['insufficient', 'pending-for-input', 'ready']);
const DONE = new Set(['installed', 'adding-hosts', 'error', 'cancelled']);
const INSTALLING = new Set(['installing', 'installing-pending-user-action', 'finalizing']);

/** strconv.ParseBool's true values. */
function isTrue(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

/** ACI `spec.holdInstallation`, or the ClusterDeployment's reconcile-pause annotation. */
export function isOnHold(aci: AgentClusterInstall, cd: ClusterDeployment): boolean {
  return (
    aci.spec?.holdInstallation === true ||
    isTrue(cd.metadata.annotations?.[ClusterAnnotation.ReconcilePause])
  );
}

/** The Agents bound to the ClusterDeployment (upstream findAgentsByAgentClusterInstall). */
function agentsOf(reader: ObjectReader, cd: ClusterDeployment): Agent[] {
  return reader
    .list(ClusterGvk.Agent, {
      labels: { [ClusterLabel.ClusterDeploymentNamespace]: cd.metadata.namespace ?? '' },
    })
    .map((o) => view<Agent>(o))
    .filter((a) => a.spec?.clusterDeploymentName?.name === cd.metadata.name);
}

/** Whether an Agent's update changes what a cluster pass reads of it. */
export function agentMattersToCluster(object: KubeObject, previous: KubeObject): boolean {
  const now = view<Agent>(object);
  const before = view<Agent>(previous);
  const specSynced = (agent: Agent): string | undefined =>
    (agent.status?.conditions ?? []).find((c) => c.type === 'SpecSynced')?.status;
  return (
    !jsonEqual(now.spec, before.spec) ||
    now.metadata.labels?.[ClusterLabel.ClusterDeploymentNamespace] !==
      before.metadata.labels?.[ClusterLabel.ClusterDeploymentNamespace] ||
    now.metadata.deletionTimestamp !== before.metadata.deletionTimestamp ||
    specSynced(now) !== specSynced(before)
  );
}

function unsyncedAgents(agents: readonly Agent[]): number {
  return agents.filter((a) =>
    (a.status?.conditions ?? []).some((c) => c.type === 'SpecSynced' && c.status === 'False'),
  ).length;
}

/** The counts RequirementsMet and the install trigger compare (GetKnownHostApprovedCounts). */
function agentCounts(
  record: ClusterRecord,
  hosts: readonly HostRecord[],
  unsynced: number,
): AgentCounts & { known: number } {
  const known = hosts.filter((h) => h.status === 'known');
  return {
    expected: {
      masters: record.controlPlaneAgents,
      arbiters: record.arbiterAgents,
      workers: record.workerAgents,
    },
    registered: countByRole(hosts),
    approved: known.filter((h) => h.approved).length,
    unsynced,
    known: known.length,
  };
}

/** upstream isReadyForInstallation, past the cluster's own readiness. */
function readyToInstall(counts: AgentCounts & { known: number }): boolean {
  const e = counts.expected;
  const expected = e.masters + e.arbiters + e.workers;
  return (
    counts.approved === expected &&
    counts.known === expected &&
    counts.registered.masters === e.masters &&
    counts.registered.arbiters === e.arbiters &&
    counts.registered.workers === e.workers &&
    counts.unsynced === 0
  );
}

/** The names of the ACI's manifests ConfigMaps: `manifestsConfigMapRefs`, else the older single ref. */
export function manifestConfigMapNames(aci: AgentClusterInstall): string[] {
  const spec = aci.spec ?? {};
  const refs = spec['manifestsConfigMapRefs'] as { name?: string }[] | undefined;
  if (refs !== undefined) return refs.map((r) => r.name ?? '');
  const ref = spec['manifestsConfigMapRef'] as { name?: string } | undefined;
  return ref?.name === undefined ? [] : [ref.name];
}

/**
 * The extra manifests of the ACI, one per ConfigMap key, or why they cannot be read. The
 * ConfigMaps are read live (a hub has many ConfigMaps: none is cached); a change to one is seen
 * on the cluster's next pass.
 */
async function manifestsOf(
  writer: ObjectWriter,
  aci: AgentClusterInstall,
): Promise<InstallerManifest[] | SyncError> {
  const manifests = new Map<string, string>();
  for (const name of manifestConfigMapNames(aci)) {
    let configMap: KubeObject | undefined;
    try {
      configMap = await writer.getLive({
        ...ClusterGvk.ConfigMap,
        name,
        namespace: aci.metadata.namespace ?? '',
      });
    } catch (err) {
      // A refused read (RBAC) or an unreachable API server: said in SpecSynced, looked at again.
      if (!(err instanceof KubeApiError || err instanceof KubeUnreachableError)) throw err;
      return { kind: 'backend', message: err.message };
    }
    if (configMap === undefined)
      return { kind: 'backend', message: `configmaps "${name}" not found` };
    for (const [fileName, content] of Object.entries(
      (configMap['data'] ?? {}) as Record<string, string>,
    )) {
      if (manifests.has(fileName))
        return {
          kind: 'backend',
          message: `Conflict in manifest names ('${fileName}' is not unique)`,
        };
      manifests.set(fileName, content);
    }
  }
  return [...manifests].map(([fileName, content]) => ({ fileName, content }));
}

function sortedKeys<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/**
 * `status.connectivityMajorityGroups`: upstream's marshalled `network.Connectivity` (keys in Go's
 * map order), recomputed only before the installation as upstream.
 */
export function majorityGroupsText(hosts: readonly HostRecord[]): string {
  const connectivity = connectivityMajorityGroups(hosts);
  return JSON.stringify({
    majority_groups: sortedKeys(connectivity.majorityGroups),
    l3_connected_addresses: sortedKeys(connectivity.l3ConnectedAddresses),
  });
}

/** Statuses from the installation's start on. */
const STARTED = new Set([
  'installing',
  'installing-pending-user-action',
  'finalizing',
  'installed',
  'error',
]);

/**
 * The VIPs the ACI shows: a single node's API and ingress answer on the node's own address in
 * the machine network once it installs (upstream updateSNOClusterVips).
 */
export function shownVips(
  cluster: ClusterRecord,
  hosts: readonly HostRecord[],
): { api: readonly string[]; ingress: readonly string[] } {
  if (cluster.highAvailabilityMode !== 'None' || !STARTED.has(cluster.status))
    return { api: cluster.apiVips, ingress: cluster.ingressVips };
  const node = hosts.find((h) => h.bootstrap) ?? hosts[0];
  const cidrs = cluster.machineNetworks.map((c) => parseCidr(c)).filter((c) => c !== undefined);
  for (const iface of node?.inventory?.interfaces ?? [])
    for (const address of [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])]) {
      const ip = parseIp(address.split('/')[0] ?? '');
      if (ip !== undefined && cidrs.some((c) => cidrContains(c, ip)))
        return { api: [ip.text], ingress: [ip.text] };
    }
  return { api: cluster.apiVips, ingress: cluster.ingressVips };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Everything one pass works on. */
interface Pass {
  readonly ctx: ReconcileContext;
  readonly cd: ClusterDeployment;
  readonly aci: AgentClusterInstall;
  readonly now: Date;
  installation: ClusterInstallation;
  hosts: readonly HostRecord[];
  output: InstallerOutput | undefined;
  availability: InstallerAvailability;
  syncError: SyncError | undefined;
  /** The pull secret when this pass read it live; a remembered read says only whether it is set. */
  pullSecret: string | undefined;
  releaseImage: string;
  manifests: readonly InstallerManifest[];
  requeueAfterMs?: number;
}

/** The controller, and what the agent API and host service read from it. */
export interface ClusterDeploymentsController extends Controller {
  /** The clusters' upstream events (`GET /v2/events?cluster_id=`). */
  readonly events: ClusterEventLog;
  /** The clusters this process orchestrates. */
  readonly installations: ClusterInstallations;
  /**
   * The installer output of a cluster once generated (the hosts' ignition, the credentials),
   * as this process has read or made it.
   */
  installerOutput(clusterId: string): InstallerOutput | undefined;
}

/** Creates the controller. */
export function createClusterDeploymentsController(
  options: ClusterDeploymentsControllerOptions,
): ClusterDeploymentsController {
  const events = options.events ?? new ClusterEventLog();
  const installations = options.installations ?? new ClusterInstallations();
  const eventsUrl =
    options.eventsUrl ??
    ((id: string) =>
      `${options.serviceBaseUrl.replace(/\/$/, '')}/api/assisted-install/v2/events?cluster_id=${id}`);
  /** Installer output by cluster id, read once from its Secret. */
  const outputs = new Map<string, InstallerOutput>();
  /**
   * Pull secrets by `namespace/name` as last read, and when. Secrets are neither cached nor
   * watched (a hub has thousands), and a cluster is looked at on every change of its hosts: a
   * live read per pass was the controller's most frequent API request. One is read again once
   * older than PULL_SECRET_RECHECK_MS, and always for the pass that starts the installation.
   */
  const pullSecrets = new Map<string, { readonly set: boolean; readonly at: number }>();
  /**
   * When the manifests of an ACI (`namespace/name`) were last read without error, and the
   * ConfigMap names read. Their contents are not kept (extra manifests of a fleet add up): only
   * the installer needs them, and the passes that run it read them fresh.
   */
  const manifestReads = new Map<string, { readonly names: string; readonly at: number }>();
  /**
   * Clusters (by id) whose kubeconfig Secret this process created during their installation,
   * with a digest of what it holds: the pass that publishes the completion need not read it back.
   */
  const kubeconfigsWritten = new Map<string, string>();

  /**
   * The ACI's manifests into `pass.manifests`, or why they cannot be read into `pass.syncError`
   * (and returned). A remembered read leaves `pass.manifests` empty.
   * @param fresh read them live even when a recent read is remembered
   */
  const readManifests = async (pass: Pass, fresh: boolean): Promise<SyncError | undefined> => {
    const { aci } = pass;
    const key = `${aci.metadata.namespace ?? ''}/${aci.metadata.name}`;
    const names = manifestConfigMapNames(aci).join('\n');
    const now = pass.ctx.clock.now();
    const known = manifestReads.get(key);
    if (!fresh && known?.names === names && now - known.at < MANIFESTS_RECHECK_MS) return undefined;
    manifestReads.delete(key);
    const manifests = await manifestsOf(pass.ctx.writer, aci);
    if ('kind' in manifests) {
      pass.syncError ??= manifests;
      return manifests;
    }
    pass.manifests = manifests;
    manifestReads.set(key, { names, at: now });
    return undefined;
  };

  const record = (pass: Pass, update: Partial<ClusterRecord>): void => {
    pass.installation = {
      ...pass.installation,
      record: { ...pass.installation.record, ...update },
    };
  };

  /** Applies a cluster event and records the status change as upstream's event. */
  const move = (pass: Pass, event: ClusterEvent): void => {
    const before = pass.installation.record;
    const after = options.machine.apply(before, event, {
      hosts: pass.hosts,
      validationsInfo: before.validationsInfo,
      now: pass.now,
      installerOutputReady: pass.output !== undefined,
    });
    if (after === before) return;
    pass.installation = { ...pass.installation, record: after };
    // The host service reads the cluster from the store: it sees the new status at once.
    installations.set(pass.installation);
    if (after.status === before.status) return;
    const id = after.id;
    events.record(id, ClusterEventText.statusUpdated(after.status), pass.now);
    if (after.status === 'installed')
      events.record(id, ClusterEventText.installCompleted(), pass.now);
    if (after.status === 'error')
      events.record(id, ClusterEventText.installFailed(after.statusInfo), pass.now, {
        severity: 'critical',
      });
    if (after.status === 'cancelled')
      events.record(id, ClusterEventText.installCancelled(), pass.now);
  };

  const refreshHosts = (pass: Pass): void => {
    pass.hosts = options.hosts.hostsOf(pass.installation.record.id);
  };

  const applyHost = async (
    pass: Pass,
    host: HostRecord,
    event: Parameters<HostDirectory['apply']>[1],
  ): Promise<void> => {
    await options.hosts.apply(host.id, event, pass.now);
  };

  /** Suggested roles of auto-assign hosts, refreshed before the installation. */
  const refreshRoles = async (pass: Pass): Promise<void> => {
    const suggestions = suggestRoles(pass.installation.record, pass.hosts);
    let changed = false;
    for (const host of pass.hosts) {
      const role = suggestions.get(host.id);
      if (role === undefined || role === host.suggestedRole) continue;
      await applyHost(pass, host, { type: 'SuggestRole', role });
      const name = host.requestedHostname ?? host.inventory?.hostname ?? host.id;
      events.record(
        pass.installation.record.id,
        ClusterEventText.roleSuggested(name, role),
        pass.now,
        {
          hostId: host.id,
        },
      );
      changed = true;
    }
    if (changed) refreshHosts(pass);
  };

  /** Runs the installer backend for this cluster and keeps its output. */
  const generate = async (pass: Pass): Promise<void> => {
    const { record: cluster } = pass.installation;
    if (pass.pullSecret === undefined) {
      const read = await pullSecretOf(pass.ctx, pass.cd, true);
      if ('kind' in read) throw new Error(read.message);
      pass.pullSecret = read.value ?? '';
    }
    const config = buildInstallConfig({
      cluster,
      hosts: pass.hosts,
      pullSecret: pass.pullSecret,
      ...(pass.aci.spec?.proxy !== undefined && { proxy: pass.aci.spec.proxy }),
      overrides: pass.installation.installConfigOverrides,
    });
    const root = options.workDir ?? tmpdir();
    await mkdir(root, { recursive: true });
    const dir = await mkdtemp(join(root, `assisted-${cluster.name}-`));
    try {
      const output = await options.installer.generate(
        installConfigYaml(config),
        pass.manifests,
        dir,
        {
          singleNode: cluster.highAvailabilityMode === 'None',
          ...(pass.releaseImage !== '' && { releaseImage: pass.releaseImage }),
          signal: pass.ctx.signal,
        },
      );
      await storeInstallerOutput(pass.ctx.writer, pass.cd, output, pass.now);
      outputs.set(cluster.id, output);
      pass.output = output;
      pass.installation = {
        ...pass.installation,
        installer: { clusterId: output.clusterId, infraId: output.infraId },
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  /**
   * Preparation: the ignition is generated once per attempt and recorded as the preparation's
   * success; a failure is recorded (the next Refresh sends the cluster back to ready) and the
   * hosts stop preparing.
   */
  const prepare = async (pass: Pass): Promise<void> => {
    if (pass.output === undefined) {
      try {
        await generate(pass);
      } catch (err) {
        const reason = `failed generating install config for cluster ${pass.installation.record.id}: ${errorMessage(err)}`;
        pass.ctx.log.warn({ err }, 'installation preparation failed');
        move(pass, { type: 'PreparationFailed', reason });
        for (const host of pass.hosts)
          if (
            host.status === 'preparing-for-installation' ||
            host.status === 'preparing-successful'
          )
            await applyHost(pass, host, { type: 'CancelPreparation' });
        refreshHosts(pass);
        return;
      }
    }
    if (pass.installation.record.lastPreparation.status !== 'success')
      move(pass, { type: 'PreparationSucceeded' });
  };

  /** installDay1: the trigger, role assignment, bootstrap and preparation. */
  const installDay1 = async (
    pass: Pass,
    counts: AgentCounts & { known: number },
  ): Promise<void> => {
    const { record: cluster } = pass.installation;
    // A spec that could not be applied (overrides, manifests) does not start an installation.
    if (cluster.status !== 'ready' || isOnHold(pass.aci, pass.cd) || pass.syncError) return;
    if (!pass.availability.available) {
      pass.requeueAfterMs = ClusterRequeueMs.installerUnavailable;
      return;
    }
    if (!readyToInstall(counts)) return;
    // The installer gets the pull secret as it is now, not as a pass minutes ago read it.
    const pullSecret = await pullSecretOf(pass.ctx, pass.cd, true);
    if ('kind' in pullSecret) {
      pass.syncError = pullSecret;
      return;
    }
    pass.pullSecret = pullSecret.value;
    // The installer gets the manifests as they are now too.
    if ((await readManifests(pass, true)) !== undefined) return;
    pass.ctx.log.info('installing the cluster');
    for (const host of pass.hosts)
      if (host.role === 'auto-assign')
        await applyHost(pass, host, { type: 'AssignRole', role: effectiveRole(host) });
    refreshHosts(pass);
    const bootstrap = chooseBootstrap(pass.hosts);
    if (bootstrap !== undefined)
      await applyHost(pass, bootstrap, { type: 'SetBootstrap', bootstrap: true });
    move(pass, { type: 'PrepareForInstallation' });
    if (pass.installation.record.status !== 'preparing-for-installation') return;
    events.record(cluster.id, ClusterEventText.prepareStarted(), pass.now);
    pass.installation = { ...pass.installation, preparationStartedAt: pass.now.toISOString() };
    refreshHosts(pass);
    for (const host of pass.hosts)
      if (host.status === 'known') await applyHost(pass, host, { type: 'PrepareForInstallation' });
    refreshHosts(pass);
    outputs.delete(cluster.id);
    pass.output = undefined;
    await prepare(pass);
  };

  /** The kubeconfig Secret during the installation, and everything else once installed. */
  const publishCredentials = async (pass: Pass): Promise<void> => {
    const { output, cd, aci, ctx } = pass;
    const status = pass.installation.record.status;
    if (output === undefined) return;
    const metadata = (passwordRef: string | undefined, kubeconfigRef: string): ClusterMetadata => ({
      clusterID: output.clusterId,
      infraID: pass.installation.record.id,
      adminKubeconfigSecretRef: { name: kubeconfigRef },
      ...(passwordRef !== undefined && { adminPasswordSecretRef: { name: passwordRef } }),
    });
    const clusterId = pass.installation.record.id;
    const digest = createHash('sha256').update(output.kubeconfig).digest('base64');
    if (INSTALLING.has(status) && aci.spec?.clusterMetadata === undefined) {
      const kubeconfigRef = await ensureKubeconfigSecret(ctx.writer, cd, output.kubeconfig, true);
      kubeconfigsWritten.set(clusterId, digest);
      aci.spec = { ...aci.spec, clusterMetadata: metadata(undefined, kubeconfigRef) };
    }
    if (status !== 'installed') return;
    const passwordRef = await ensurePasswordSecret(
      ctx.writer,
      cd,
      output.kubeadminPassword,
      aci.spec?.clusterMetadata?.adminPasswordSecretRef === undefined,
    );
    // Written by this process with this content: not read back.
    const kubeconfigRef =
      kubeconfigsWritten.get(clusterId) === digest
        ? secretNames(cd.metadata.name).kubeconfig
        : await ensureKubeconfigSecret(ctx.writer, cd, output.kubeconfig);
    kubeconfigsWritten.delete(clusterId);
    const full = metadata(passwordRef, kubeconfigRef);
    aci.spec = { ...aci.spec, clusterMetadata: full };
    if (cd.spec?.installed !== true || cd.spec.clusterMetadata === undefined) {
      const next: ClusterDeployment = {
        ...cd,
        spec: { ...cd.spec, installed: true, clusterMetadata: full },
      };
      await ctx.writer.update(asKube(next));
    }
  };

  /**
   * An installed cluster whose ClusterDeployment said installed when the pass began becomes a
   * day-2 cluster that takes more hosts, one pass after its completion was published (upstream
   * TransformClusterToDay2: the status only, the status info stays).
   */
  const toDay2 = (pass: Pass): void => {
    const { record: cluster } = pass.installation;
    if (options.day2AfterInstall !== true) return;
    if (cluster.status !== 'installed' || pass.cd.spec?.installed !== true) return;
    record(pass, { status: 'adding-hosts', statusUpdatedAt: pass.now.toISOString() });
    installations.set(pass.installation);
  };

  /** Day 2: every known, approved host is installed on its own (upstream installDay2Hosts). */
  const installDay2Hosts = async (pass: Pass): Promise<void> => {
    if (pass.installation.record.status !== 'adding-hosts') return;
    let moved = false;
    for (const host of pass.hosts)
      if (host.status === 'known' && host.approved) {
        pass.ctx.log.info({ host: host.id }, 'installing a day-2 host');
        await applyHost(pass, host, { type: 'Install' });
        moved = true;
      }
    if (moved) refreshHosts(pass);
  };

  /** The hosts follow the cluster: install after preparation, fail with the cluster. */
  const driveHosts = async (pass: Pass, previous: ClusterRecord): Promise<void> => {
    const { record: cluster } = pass.installation;
    if (cluster.status === 'installing' || cluster.status === 'installing-pending-user-action') {
      let moved = false;
      for (const host of pass.hosts)
        if (host.status === 'preparing-successful') {
          await applyHost(pass, host, { type: 'Install' });
          moved = true;
        }
      if (moved) refreshHosts(pass);
    }
    if (cluster.status === 'error' && previous.status !== 'error')
      for (const host of pass.hosts)
        if (host.status.startsWith('installing') || host.status.startsWith('preparing'))
          await applyHost(pass, host, { type: 'ClusterFailed', reason: cluster.statusInfo });
  };

  /**
   * A preparing cluster moves when its hosts do (they wake it) or when the preparation times
   * out: it is looked at again just after that deadline. (Every 5 s, as this did before, 1,700
   * preparing sites of a 3,500-site fleet kept the queue full.)
   */
  const untilPreparationTimeout = (pass: Pass): number => {
    const since = Date.parse(pass.installation.record.statusUpdatedAt);
    if (Number.isNaN(since)) return CLUSTER_PREPARE_TIMEOUT_MS;
    return Math.max(1_000, since + CLUSTER_PREPARE_TIMEOUT_MS - pass.now.getTime() + 1_000);
  };

  /** @param moved the cluster's status changed in this pass */
  const requeueFor = (pass: Pass, moved: boolean): number | undefined => {
    const status = pass.installation.record.status;
    // A move may enable the next one with nothing else changing (finalizing → installed once
    // the installer's output is in): look again soon, not a phase's backstop later.
    if (moved && !DONE.has(status)) return ClusterRequeueMs.afterMove;
    const byPhase =
      status === 'preparing-for-installation'
        ? untilPreparationTimeout(pass)
        : INSTALLING.has(status)
          ? ClusterRequeueMs.installing
          : PRE_INSTALL.has(status)
            ? ClusterRequeueMs.preInstall
            : undefined;
    if (pass.requeueAfterMs === undefined) return byPhase;
    return byPhase === undefined ? pass.requeueAfterMs : Math.min(byPhase, pass.requeueAfterMs);
  };

  /** The spec the ACI should have, and its status. */
  const statusOf = (
    pass: Pass,
    counts: AgentCounts,
    previous: AgentClusterInstallStatus,
  ): AgentClusterInstallStatus => {
    const { record: cluster } = pass.installation;
    const values: ConditionValue[] = [
      specSynced(pass.syncError),
      ...clusterConditions({
        status: cluster.status,
        statusInfo: cluster.statusInfo,
        validationsInfo: cluster.validationsInfo,
        counts,
        onHold: isOnHold(pass.aci, pass.cd),
        lastPreparation: cluster.lastPreparation,
      }),
      installerBackend(options.installer.name, pass.availability),
    ];
    let conditions = previous.conditions ?? [];
    for (const value of values)
      conditions = setClusterCondition(conditions, value, pass.now.getTime());
    const masters = pass.hosts.filter((h) => effectiveRole(h) === 'master');
    const workers = pass.hosts.filter((h) => effectiveRole(h) === 'worker');
    const ready = (hosts: readonly HostRecord[]): number =>
      hosts.filter(
        (h) =>
          h.approved &&
          !['discovering', 'insufficient', 'pending-for-input', 'disconnected'].includes(h.status),
      ).length;
    const percentage = totalPercentage(cluster, pass.hosts);
    const vips = shownVips(cluster, pass.hosts);
    return {
      ...previous,
      conditions,
      debugInfo: {
        ...previous.debugInfo,
        state: cluster.status,
        stateInfo: cluster.statusInfo,
        eventsURL:
          previous.debugInfo?.eventsURL === undefined || previous.debugInfo.eventsURL === ''
            ? eventsUrl(cluster.id)
            : previous.debugInfo.eventsURL,
        logsURL: previous.debugInfo?.logsURL ?? '',
      },
      progress: { totalPercentage: percentage ?? 0 },
      controlPlaneAgentsDiscovered: masters.length,
      controlPlaneAgentsReady: ready(masters),
      workerAgentsDiscovered: workers.length,
      workerAgentsReady: ready(workers),
      connectivityMajorityGroups: PRE_INSTALL.has(cluster.status)
        ? majorityGroupsText(pass.hosts)
        : (previous.connectivityMajorityGroups ?? ''),
      machineNetwork: cluster.machineNetworks.map((cidr) => ({ cidr })),
      apiVIP: vips.api[0] ?? '',
      apiVIPs: [...vips.api],
      ingressVIP: vips.ingress[0] ?? '',
      ingressVIPs: [...vips.ingress],
      userManagedNetworking: cluster.userManagedNetworking,
      platformType: hivePlatformType(cluster.platformType),
      validationsInfo: cluster.validationsInfo as AgentClusterInstallStatus['validationsInfo'],
    };
  };

  /** Writes the ACI (metadata/spec, then status) when it changed. */
  const writeAci = async (
    ctx: ReconcileContext,
    original: KubeObject,
    aci: AgentClusterInstall,
    status: AgentClusterInstallStatus,
  ): Promise<void> => {
    let resourceVersion = aci.metadata.resourceVersion;
    const originalAci = view<AgentClusterInstall>(original);
    // By value, not serialised: the API server returns maps with their keys re-ordered.
    const specChanged = !jsonEqual(
      { m: originalAci.metadata, s: originalAci.spec },
      { m: aci.metadata, s: aci.spec },
    );
    if (specChanged) {
      const stored = await ctx.writer.update(asKube(aci));
      resourceVersion = stored.metadata.resourceVersion;
    }
    if (jsonEqual(originalAci.status ?? {}, status)) return;
    await ctx.writer.updateStatus(
      asKube({ ...aci, metadata: { ...aci.metadata, resourceVersion }, status }),
    );
  };

  /** A pass that cannot build the cluster: SpecSynced says why, the rest are unknown. */
  const writeSyncFailure = async (
    ctx: ReconcileContext,
    original: KubeObject,
    aci: AgentClusterInstall,
    error: SyncError,
  ): Promise<ReconcileResult> => {
    const now = ctx.clock.now();
    let conditions = aci.status?.conditions ?? [];
    for (const value of [specSynced(error), ...notAvailable()])
      conditions = setClusterCondition(conditions, value, now);
    const status: AgentClusterInstallStatus = {
      ...aci.status,
      conditions,
      debugInfo: { state: '', stateInfo: '', eventsURL: '', logsURL: '' },
    };
    await writeAci(ctx, original, aci, status);
    return error.kind === 'backend' ? { requeueAfterMs: ClusterRequeueMs.backendError } : {};
  };

  /**
   * The ClusterDeployment's pull secret: its value when read live, else (a recent read
   * remembered) only whether it is set.
   * @param fresh read it live even when a recent read is remembered
   * @param started the installation has started: the installer has the pull secret, so a
   *   remembered read of any age will do (only its `pull-secret-set` validation shows it)
   */
  const pullSecretOf = async (
    ctx: ReconcileContext,
    cd: ClusterDeployment,
    fresh: boolean,
    started = false,
  ): Promise<{ value: string | undefined; set: boolean } | SyncError> => {
    const name = cd.spec?.pullSecretRef?.name;
    const namespace = cd.metadata.namespace ?? '';
    // An installed cluster needs none (upstream getPullSecret).
    if ((name === undefined || name === '') && cd.spec?.installed === true)
      return { value: '', set: false };
    if (name === undefined || name === '')
      return {
        kind: 'input',
        message: `PullSecret is required for ClusterDeployment ${cd.metadata.name}/${namespace}`,
      };
    const key = `${namespace}/${name}`;
    const now = ctx.clock.now();
    const known = pullSecrets.get(key);
    if (!fresh && known !== undefined && (started || now - known.at < PULL_SECRET_RECHECK_MS))
      return { value: undefined, set: known.set };
    pullSecrets.delete(key);
    const secret = await ctx.writer.getLive({ ...ClusterGvk.Secret, name, namespace });
    if (secret === undefined)
      return {
        kind: 'backend',
        message: `failed to validate pull secret for ClusterDeployment ${cd.metadata.name}/${namespace}: failed to find secret ${name}: secrets "${name}" not found`,
      };
    const data = (secret['data'] ?? {}) as Record<string, unknown>;
    const encoded = data['.dockerconfigjson'];
    const value = typeof encoded === 'string' ? Buffer.from(encoded, 'base64').toString() : '';
    pullSecrets.set(key, { set: value !== '', at: now });
    return { value, set: value !== '' };
  };

  const releaseImageOf = (
    ctx: ReconcileContext,
    aci: AgentClusterInstall,
    installed: boolean,
  ): { version: string; image: string } | SyncError => {
    const name = aci.spec?.imageSetRef?.name;
    if ((name === undefined || name === '') && installed) return { version: '', image: '' };
    if (name === undefined || name === '')
      return {
        kind: 'input',
        message:
          'ClusterImageSet must be specified in AgentClusterInstall.Spec.ImageSetRef for cluster that is not installed',
      };
    const object = ctx.reader.get({ ...ClusterGvk.ClusterImageSet, name });
    if (object === undefined)
      return {
        kind: 'backend',
        message: `ClusterImageSet ${name} not found. Please ensure the ClusterImageSet exists`,
      };
    return {
      version: versionOfReleaseImage(view<ClusterImageSet>(object).spec?.releaseImage ?? ''),
      image: view<ClusterImageSet>(object).spec?.releaseImage ?? '',
    };
  };

  /**
   * ACIs being deleted whose ClusterDeployment is already gone (deleted without its finalizer, or
   * by force): the ACI finalizer runs as far as it can without it, so they do not hang.
   */
  async function releaseOrphans(request: Request, ctx: ReconcileContext): Promise<void> {
    const orphans = ctx.reader
      .list(ClusterGvk.AgentClusterInstall, { namespace: request.namespace ?? '' })
      .map((o) => draft<AgentClusterInstall>(o))
      .filter(
        (a) =>
          a.spec?.clusterDeploymentRef?.name === request.name &&
          a.metadata.deletionTimestamp !== undefined,
      );
    for (const aci of orphans) {
      const stand: ClusterDeployment = {
        ...ClusterGvk.ClusterDeployment,
        metadata: { name: request.name, namespace: request.namespace ?? '' },
      };
      const known = installations
        .records()
        .find((c) => c.namespace === request.namespace && c.clusterDeploymentName === request.name);
      const id = known?.id;
      const installation = id === undefined ? undefined : installations.get(id);
      await handleAciFinalizer(
        { hosts: options.hosts, machine: options.machine, installations, events },
        ctx,
        aci,
        { ...stand, metadata: { ...stand.metadata, ...(id !== undefined && { uid: id }) } },
        installation,
      );
    }
  }

  async function reconcile(request: Request, ctx: ReconcileContext): Promise<ReconcileResult> {
    const cdObject = ctx.reader.get({ ...ClusterGvk.ClusterDeployment, ...request });
    if (cdObject === undefined) {
      for (const key of pullSecrets.keys())
        if (key.startsWith(`${request.namespace ?? ''}/`)) pullSecrets.delete(key);
      for (const key of manifestReads.keys())
        if (key.startsWith(`${request.namespace ?? ''}/`)) manifestReads.delete(key);
      await releaseOrphans(request, ctx);
      return {};
    }
    const cd = draft<ClusterDeployment>(cdObject);
    const ref = cd.spec?.clusterInstallRef;
    if (ref?.kind !== 'AgentClusterInstall' || (ref.group !== undefined && ref.group !== ACI_GROUP))
      return {};
    const namespace = cd.metadata.namespace ?? '';
    const aciObject = ctx.reader.get({
      ...ClusterGvk.AgentClusterInstall,
      name: ref.name ?? '',
      namespace,
    });
    const aci = aciObject && draft<AgentClusterInstall>(aciObject);
    if (aci === undefined && cd.metadata.deletionTimestamp === undefined) return {};
    const now = new Date(ctx.clock.now());
    const deps = { hosts: options.hosts, machine: options.machine, installations, events };
    if (aci !== undefined) {
      const known =
        installations.get(cd.metadata.uid ?? '') ??
        (aci.metadata.deletionTimestamp === undefined
          ? undefined
          : clusterInstallationOf(cd, aci, '', true, undefined, now));
      if (aci.metadata.deletionTimestamp !== undefined) outputs.delete(cd.metadata.uid ?? '');
      const done = await handleAciFinalizer(deps, ctx, aci, cd, known);
      if (done !== undefined) return done;
    }
    const cdDone = await handleCdFinalizer(ctx, cd, aci);
    if (cdDone !== undefined) return cdDone;
    if (aci === undefined || aciObject === undefined) return {};

    // The ACI is owned by its ClusterDeployment (upstream ensureOwnerRef).
    const owners = aci.metadata.ownerReferences ?? [];
    if (!owners.some((o) => o.uid === cd.metadata.uid))
      aci.metadata.ownerReferences = [
        ...owners,
        {
          apiVersion: cd.apiVersion,
          kind: cd.kind,
          name: cd.metadata.name,
          uid: cd.metadata.uid ?? '',
        },
      ];

    const clusterId = cd.metadata.uid ?? '';
    const pullSecret = await pullSecretOf(
      ctx,
      cd,
      false,
      STARTED.has(installations.get(clusterId)?.record.status ?? '') ||
        installations.get(clusterId)?.record.status === 'preparing-for-installation',
    );
    if ('kind' in pullSecret) return writeSyncFailure(ctx, aciObject, aci, pullSecret);
    const release = releaseImageOf(ctx, aci, cd.spec?.installed === true);
    if ('kind' in release) return writeSyncFailure(ctx, aciObject, aci, release);

    const isNew =
      installations.get(clusterId) === undefined &&
      aci.metadata.annotations?.[ClusterAnnotation.ClusterState] === undefined;
    const installation = clusterInstallationOf(
      cd,
      aci,
      release.version,
      pullSecret.set,
      installations.get(clusterId),
      now,
    );
    if (isNew) events.record(clusterId, ClusterEventText.registered(), now);
    const pass: Pass = {
      ctx,
      cd,
      aci,
      now,
      installation,
      hosts: options.hosts.hostsOf(clusterId),
      output: outputs.get(clusterId),
      availability: await options.installer.availability(),
      syncError: undefined,
      pullSecret: pullSecret.value,
      releaseImage: release.image,
      manifests: [],
    };

    // install-config overrides: a bad annotation is the user's error; the last good one stays.
    const overrides = aci.metadata.annotations?.[ClusterAnnotation.InstallConfigOverrides] ?? '';
    if (overrides !== pass.installation.installConfigOverrides) {
      try {
        if (overrides !== '') parseOverrides(overrides);
        pass.installation = { ...pass.installation, installConfigOverrides: overrides };
        events.record(clusterId, ClusterEventText.installConfigApplied(), now);
      } catch (err) {
        if (!(err instanceof InstallConfigOverridesError)) throw err;
        pass.syncError = { kind: 'input', message: err.message };
      }
    }
    const status = pass.installation.record.status;
    const published =
      cd.spec?.installed === true &&
      aci.spec?.clusterMetadata?.adminPasswordSecretRef !== undefined;
    // Read back after a restart while still needed: preparing, installing, or installed with
    // the credentials not yet published.
    if (
      pass.output === undefined &&
      (INSTALLING.has(status) ||
        status === 'preparing-for-installation' ||
        (status === 'installed' && !published))
    ) {
      pass.output = await loadInstallerOutput(
        ctx.writer,
        namespace,
        cd.metadata.name,
        pass.installation.preparationStartedAt,
      );
      if (pass.output !== undefined) outputs.set(clusterId, pass.output);
    }
    // The ACI's manifests ConfigMaps (upstream getClusterDeploymentManifest): read while they
    // can still change the installation, and for a preparation whose output is not made yet.
    if (PRE_INSTALL.has(status)) await readManifests(pass, false);
    else if (status === 'preparing-for-installation' && pass.output === undefined)
      await readManifests(pass, true);
    if (PRE_INSTALL.has(status)) await refreshRoles(pass);

    const previous = pass.installation.record;
    record(pass, { validationsInfo: options.validator.validate(previous, pass.hosts, now) });
    if (status === 'preparing-for-installation') await prepare(pass);
    move(pass, { type: 'Refresh' });
    const agents = agentsOf(ctx.reader, cd);
    let counts = agentCounts(pass.installation.record, pass.hosts, unsyncedAgents(agents));
    await installDay1(pass, counts);
    await driveHosts(pass, previous);
    refreshHosts(pass);
    counts = agentCounts(pass.installation.record, pass.hosts, unsyncedAgents(agents));
    record(pass, { totalPercentage: totalPercentage(pass.installation.record, pass.hosts) ?? 0 });
    await publishCredentials(pass);
    toDay2(pass);
    await installDay2Hosts(pass);
    // A finished installation's ignition is not needed again (it stays in its Secret): a fleet of
    // finished clusters keeps no installer output in memory.
    if (DONE.has(pass.installation.record.status)) {
      outputs.delete(clusterId);
      kubeconfigsWritten.delete(clusterId);
      manifestReads.delete(`${namespace}/${aci.metadata.name}`);
    }
    installations.set(pass.installation);
    // Shutting down or no longer the leader: another replica writes the ACI from here.
    if (ctx.signal.aborted) return {};

    aci.metadata.annotations = {
      ...aci.metadata.annotations,
      [ClusterAnnotation.ClusterState]: persistedStateOf(
        pass.installation,
        aci.metadata.annotations?.[ClusterAnnotation.ClusterState],
      ),
    };
    await writeAci(ctx, aciObject, aci, statusOf(pass, counts, aci.status ?? {}));
    const requeueAfterMs = requeueFor(pass, pass.installation.record.status !== status);
    if (pass.syncError?.kind === 'backend')
      return { requeueAfterMs: ClusterRequeueMs.backendError };
    return requeueAfterMs === undefined ? {} : { requeueAfterMs };
  }

  return {
    name: CLUSTER_DEPLOYMENTS_CONTROLLER,
    for: ClusterGvk.ClusterDeployment,
    watches: [
      {
        gvk: ClusterGvk.AgentClusterInstall,
        map: (object) => {
          const name = view<AgentClusterInstall>(object).spec?.clusterDeploymentRef?.name;
          const namespace = object.metadata.namespace;
          return name === undefined || namespace === undefined ? [] : [{ namespace, name }];
        },
      },
      {
        gvk: ClusterGvk.Agent,
        map: (object) => {
          const ref = view<Agent>(object).spec?.clusterDeploymentName;
          return ref?.name === undefined || ref.namespace === undefined
            ? []
            : [{ namespace: ref.namespace, name: ref.name }];
        },
        // What a pass reads of Agents (binding, the namespace label, SpecSynced, deletion); a
        // change of their host arrives from the host service, and the Agent controller's
        // projections of it (status, annotations) would only repeat it.
        onUpdate: agentMattersToCluster,
      },
      {
        gvk: ClusterGvk.ClusterImageSet,
        map: (object, reader) =>
          reader
            .list(ClusterGvk.AgentClusterInstall)
            .map((o) => view<AgentClusterInstall>(o))
            .filter((a) => a.spec?.imageSetRef?.name === object.metadata.name)
            .flatMap((a) => {
              const name = a.spec?.clusterDeploymentRef?.name;
              const namespace = a.metadata.namespace;
              return name === undefined || namespace === undefined ? [] : [{ namespace, name }];
            }),
      },
      // Read on deletion (whose Agents to delete); an InfraEnv's change wakes no cluster.
      { gvk: ClusterGvk.InfraEnv, map: () => [] },
    ],
    reconcile,
    events,
    installations,
    installerOutput: (clusterId) => outputs.get(clusterId),
  };
}

/** The name of the Secret holding an installation's generated files. */
export const installerOutputSecretName = (cdName: string): string => secretNames(cdName).output;
