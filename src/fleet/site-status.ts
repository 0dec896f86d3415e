/**
 * The status of one site (one cluster), derived from the hub objects that describe it: its
 * BareMetalHosts (BMC boot, `status.operationHistory`), Agents (host status, conditions,
 * validationsInfo, install progress), AgentClusterInstall (conditions, debugInfo, progress),
 * ClusterDeployment and InfraEnvs (ImageCreated). Pure: the same objects give the same status;
 * every time shown is one the objects carry (operationHistory, lastTransitionTime, creation
 * and stage times), never the clock of the reader.
 *
 * The strings read are the ones assisted-service, the Bare Metal Operator and SiteForge's own
 * controllers write (../shared/reference/assisted.md §3, src/assisted, src/bmac).
 */
import type { KubeObject } from '../kube/index.js';
import { reasonHint, validationHint } from './hints.js';
import {
  at,
  conditionOf,
  createdAt,
  earliest,
  hasCondition,
  keyOf,
  latest,
  list,
  num,
  str,
} from './read.js';
import type { Condition } from './read.js';
import { SiteState } from './site-state.js';

/** The objects of one site, gathered by FleetModel (or by hand). */
export interface SiteObjects {
  readonly namespace: string;
  /** The site's name: its ClusterDeployment's name (the SiteConfig's clusterName). */
  readonly name: string;
  readonly clusterDeployment?: KubeObject;
  readonly agentClusterInstall?: KubeObject;
  readonly infraEnvs: readonly KubeObject[];
  readonly agents: readonly KubeObject[];
  readonly bareMetalHosts: readonly KubeObject[];
}

/**
 * Install stages an Agent was seen entering, with their start times (`progress.stageStartTime`
 * as it was then): an Agent's status shows only its current stage, so earlier stage times
 * come from what FleetModel saw before. Keyed by the Agent's `namespace/name`.
 */
export type StageMemory = (agentKey: string) => ReadonlyMap<string, string> | undefined;

/** Where a problem shows on the hub. */
export interface ProblemSource {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** Why a site does not move on: the hub's exact words and what to do about them. */
export interface SiteProblem {
  /** `error`: a person must act; `warning`: it may resolve itself, or is waiting for someone. */
  readonly severity: 'error' | 'warning';
  readonly source: ProblemSource;
  /** The condition type the message comes from; absent for a BareMetalHost's errorMessage. */
  readonly condition?: string;
  /** The condition reason, or the BareMetalHost errorType. */
  readonly reason: string;
  /** The message exactly as the object carries it. */
  readonly message: string;
  /** What a ZTP user should look at or do. */
  readonly hint: string;
  /** When the object started saying so, if it tells. */
  readonly since?: string;
}

/** One step of a site's timeline. */
export interface TimelineEntry {
  readonly step: TimelineStep;
  readonly label: string;
  readonly status: 'pending' | 'active' | 'done' | 'failed';
  readonly start?: string;
  readonly end?: string;
  /** A short account, e.g. `2/3 hosts booted`. */
  readonly detail?: string;
  /** For `install`: the stages of the site's bootstrap host (its only host on a single node). */
  readonly stages?: readonly StageEntry[];
}

/** The steps of a timeline, in order. */
export type TimelineStep = 'image' | 'bmc-boot' | 'discovery' | 'validations' | 'install' | 'done';

/** One install stage of a host. */
export interface StageEntry {
  readonly name: string;
  readonly status: 'pending' | 'active' | 'done' | 'failed';
  /** When the host entered it, if known. */
  readonly at?: string;
}

/** One host of a site: its BareMetalHost and its Agent, when they exist. */
export interface HostView {
  /** The BareMetalHost's name, else the Agent's hostname, else the Agent's name. */
  readonly name: string;
  readonly role?: string;
  readonly bareMetalHost?: {
    readonly name: string;
    /** `status.provisioning.state`. */
    readonly state: string;
    readonly operationalStatus: string;
    readonly poweredOn: boolean;
    readonly errorType?: string;
    readonly errorMessage?: string;
  };
  readonly agent?: {
    readonly name: string;
    /** The host status (`status.debugInfo.state`), e.g. `known`, `installing-in-progress`. */
    readonly state?: string;
    readonly stateInfo?: string;
    readonly stage?: string;
    readonly percent?: number;
    readonly approved: boolean;
  };
}

/** Counts of a site's hosts. */
export interface HostCounts {
  /** Hosts the cluster needs (AgentClusterInstall provisionRequirements), else hosts known. */
  readonly expected: number;
  /** Hosts whose discovery agent registered (Agents). */
  readonly registered: number;
  /** Hosts whose installation is done. */
  readonly installed: number;
}

/** What a site looks like, as the demo and the dashboard show it. */
export interface SiteStatus {
  /** `namespace/name`. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly state: SiteState;
  /** While installing: the stage of the bootstrap host, or `Preparing` / `Finalizing`. */
  readonly stage?: string;
  /** While installing and once installed: the cluster's progress, 0 to 100. */
  readonly percent?: number;
  /** When the site entered its state, as far as the objects tell. */
  readonly since?: string;
  /** When the site started provisioning (its first timeline time). */
  readonly startedAt?: string;
  /** When it was installed or failed. */
  readonly finishedAt?: string;
  readonly hosts: HostCounts;
  readonly hostViews: readonly HostView[];
  readonly timeline: readonly TimelineEntry[];
  /** Set while something keeps the site from moving on. */
  readonly problem?: SiteProblem;
}

const Label = {
  InfraEnv: 'infraenvs.agent-install.openshift.io',
  AgentBmh: 'agent-install.openshift.io/bmh',
} as const;

/** Host statuses of a host preparing or installing (assisted.md §4.1). */
const INSTALLING_HOST = new Set([
  'preparing-for-installation',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
]);

/** Cluster statuses of an installation under way (assisted.md §4.4). */
const INSTALLING_CLUSTER = new Set([
  'preparing-for-installation',
  'installing',
  'installing-pending-user-action',
  'finalizing',
]);

/** BareMetalHost provisioning states of a boot under way or done. */
const BOOTING_BMH = new Set(['inspecting', 'preparing', 'provisioning', 'provisioned']);

/** Cluster validations that fail while hosts are still coming: not a problem of the cluster. */
const HOST_DEPENDENT_CLUSTER_VALIDATIONS = new Set(['all-hosts-are-ready-to-install']);

/** The stages of a host when its Agent does not list them (SNO's, the common edge case). */
const SNO_STAGES = [
  'Starting installation',
  'Installing',
  'Waiting for bootkube',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Joined',
  'Done',
];

interface AgentFacts {
  readonly object: KubeObject;
  readonly key: string;
  readonly state?: string;
  readonly stateInfo?: string;
  readonly stage?: string;
  readonly stageStartTime?: string;
  readonly stageUpdateTime?: string;
  readonly stages: readonly string[];
  readonly percent?: number;
  readonly bootstrap: boolean;
  readonly role?: string;
  readonly approved: boolean;
  readonly hostname?: string;
  readonly macs: ReadonlySet<string>;
}

function agentFacts(agent: KubeObject): AgentFacts {
  const macs = new Set<string>();
  for (const nic of list(agent, 'status', 'inventory', 'interfaces')) {
    const mac = str(nic, 'macAddress');
    if (mac !== undefined) macs.add(mac.toLowerCase());
  }
  const stages = list(agent, 'status', 'progress', 'progressStages').filter(
    (s): s is string => typeof s === 'string',
  );
  const state = str(agent, 'status', 'debugInfo', 'state');
  const stateInfo = str(agent, 'status', 'debugInfo', 'stateInfo');
  const stage = str(agent, 'status', 'progress', 'currentStage');
  const stageStartTime = str(agent, 'status', 'progress', 'stageStartTime');
  const stageUpdateTime = str(agent, 'status', 'progress', 'stageUpdateTime');
  const percent = num(agent, 'status', 'progress', 'installationPercentage');
  const role = str(agent, 'status', 'role') ?? str(agent, 'spec', 'role');
  const hostname = str(agent, 'spec', 'hostname') ?? str(agent, 'status', 'inventory', 'hostname');
  return {
    object: agent,
    key: keyOf(agent),
    ...(state !== undefined && { state }),
    ...(stateInfo !== undefined && { stateInfo }),
    ...(stage !== undefined && { stage }),
    ...(stageStartTime !== undefined && { stageStartTime }),
    ...(stageUpdateTime !== undefined && { stageUpdateTime }),
    stages,
    ...(percent !== undefined && { percent }),
    bootstrap: at(agent, 'status', 'bootstrap') === true,
    ...(role !== undefined && { role }),
    approved: at(agent, 'spec', 'approved') === true,
    ...(hostname !== undefined && { hostname }),
    macs,
  };
}

interface Host {
  readonly bmh?: KubeObject;
  readonly agent?: AgentFacts;
}

/** Pairs BareMetalHosts and Agents as the BMAC does: the Agent's bmh label, else the boot MAC. */
function pairHosts(bmhs: readonly KubeObject[], agents: readonly AgentFacts[]): Host[] {
  const hosts: Host[] = [];
  const paired = new Set<AgentFacts>();
  for (const bmh of bmhs) {
    const name = bmh.metadata.name;
    const mac = str(bmh, 'spec', 'bootMACAddress')?.toLowerCase();
    const agent =
      agents.find((a) => !paired.has(a) && a.object.metadata.labels?.[Label.AgentBmh] === name) ??
      (mac === undefined ? undefined : agents.find((a) => !paired.has(a) && a.macs.has(mac)));
    if (agent !== undefined) paired.add(agent);
    hosts.push({ bmh, ...(agent !== undefined && { agent }) });
  }
  for (const agent of agents) if (!paired.has(agent)) hosts.push({ agent });
  return hosts.sort((a, b) => hostName(a).localeCompare(hostName(b)));
}

function hostName(host: Host): string {
  return host.bmh?.metadata.name ?? host.agent?.hostname ?? host.agent?.object.metadata.name ?? '';
}

function source(object: KubeObject): ProblemSource {
  return {
    kind: object.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}

/** A problem from a condition, with the hint of its reason (or of `hint`). */
function conditionProblem(
  object: KubeObject,
  condition: Condition,
  severity: SiteProblem['severity'],
  hint?: string,
): SiteProblem {
  return {
    severity,
    source: source(object),
    condition: condition.type,
    reason: condition.reason,
    message: condition.message,
    hint: hint ?? reasonHint(condition.reason) ?? '',
    ...(condition.lastTransitionTime !== undefined && { since: condition.lastTransitionTime }),
  };
}

/** The ids of validations in `status.validationsInfo` that fail (failure or error). */
function failingValidations(object: KubeObject): string[] {
  const info = at(object, 'status', 'validationsInfo');
  if (typeof info !== 'object' || info === null) return [];
  const ids: string[] = [];
  for (const results of Object.values(info as Record<string, unknown>))
    for (const result of Array.isArray(results) ? results : []) {
      const status = str(result, 'status');
      const id = str(result, 'id');
      if (id !== undefined && (status === 'failure' || status === 'error')) ids.push(id);
    }
  return ids;
}

/** The hint of the first failing validation that has one. */
function validationsHint(ids: readonly string[], fallback: string): string {
  for (const id of ids) {
    const hint = validationHint(id);
    if (hint !== undefined) return hint;
  }
  return fallback;
}

/** A more precise hint for the failure messages that name their cause. */
function installFailureHint(message: string): string | undefined {
  const timeout = /installation stage (.+?) took longer than expected/.exec(message);
  if (timeout !== null) {
    const stage = timeout[1] ?? '';
    if (stage === 'Rebooting' || stage === 'Waiting for ignition' || stage === 'Joined')
      return `The host did not come back from its reboot in time (stage ${stage}): check its console and boot order (it must boot the installed disk, not the ISO), then re-create the site.`;
    return `The stage ${stage} timed out: collect the logs (status.debugInfo.logsURL) to see what the host was doing, then re-create the site.`;
  }
  if (message.includes('timed out when pulling the configuration files'))
    return 'The host rebooted but could not fetch its ignition from the cluster: check the network from the host to the API VIP, then re-create the site.';
  return undefined;
}

function bmhState(bmh: KubeObject): string {
  return str(bmh, 'status', 'provisioning', 'state') ?? '';
}

function bmhIsBooting(bmh: KubeObject): boolean {
  return (
    str(bmh, 'spec', 'image', 'url') !== undefined ||
    str(bmh, 'spec', 'customDeploy', 'method') !== undefined ||
    BOOTING_BMH.has(bmhState(bmh))
  );
}

function bmhBooted(bmh: KubeObject): boolean {
  return (
    bmhState(bmh) === 'provisioned' ||
    str(bmh, 'status', 'operationalStatus') === 'detached' ||
    str(bmh, 'status', 'operationHistory', 'provision', 'end') !== undefined
  );
}

function bmhError(bmh: KubeObject): SiteProblem | undefined {
  if (str(bmh, 'status', 'operationalStatus') !== 'error') return undefined;
  const reason = str(bmh, 'status', 'errorType') ?? 'error';
  const count = num(bmh, 'status', 'errorCount');
  const since = str(bmh, 'status', 'lastUpdated');
  return {
    severity: 'error',
    source: source(bmh),
    reason,
    message: str(bmh, 'status', 'errorMessage') ?? '',
    hint:
      (reasonHint(reason) ?? '') +
      (count !== undefined && count > 0
        ? ` The controller retries with backoff (${String(count)} failure${count === 1 ? '' : 's'} so far).`
        : ''),
    ...(since !== undefined && { since }),
  };
}

/** Expected hosts: the ACI's provisionRequirements, else the BareMetalHosts, else the Agents. */
function expectedHosts(site: SiteObjects): number {
  const aci = site.agentClusterInstall;
  const required =
    (num(aci, 'spec', 'provisionRequirements', 'controlPlaneAgents') ?? 0) +
    (num(aci, 'spec', 'provisionRequirements', 'workerAgents') ?? 0) +
    (num(aci, 'spec', 'provisionRequirements', 'arbiterAgents') ?? 0);
  if (required > 0) return required;
  return Math.max(site.bareMetalHosts.length, site.agents.length);
}

/** The host whose stages stand for the site's: the bootstrap, else the least advanced. */
function leadAgent(agents: readonly AgentFacts[]): AgentFacts | undefined {
  return (
    agents.find((a) => a.bootstrap) ??
    [...agents].sort((a, b) => (a.percent ?? 0) - (b.percent ?? 0))[0]
  );
}

function isInstalledHost(agent: AgentFacts): boolean {
  return (
    agent.state === 'installed' ||
    agent.state === 'added-to-existing-cluster' ||
    hasCondition(agent.object, 'Installed', 'True')
  );
}

function isInstallingHost(agent: AgentFacts): boolean {
  return (
    (agent.state !== undefined && INSTALLING_HOST.has(agent.state)) ||
    (agent.stage !== undefined && agent.state !== 'error' && !isInstalledHost(agent))
  );
}

function isFailedHost(agent: AgentFacts): boolean {
  return (
    agent.state === 'error' ||
    hasCondition(agent.object, 'Installed', 'False', 'InstallationFailed')
  );
}

function isDiscoveringHost(agent: AgentFacts): boolean {
  return (
    agent.state === 'discovering' ||
    agent.state === 'discovering-unbound' ||
    at(agent.object, 'status', 'inventory') === undefined
  );
}

/** The problems that may hold a site in any state, worst first. */
function standingProblems(site: SiteObjects, agents: readonly AgentFacts[]): SiteProblem[] {
  const problems: SiteProblem[] = [];
  for (const bmh of site.bareMetalHosts) {
    const problem = bmhError(bmh);
    if (problem !== undefined) problems.push(problem);
  }
  for (const infraEnv of site.infraEnvs) {
    const image = conditionOf(infraEnv, 'ImageCreated');
    if (image !== undefined && image.status !== 'True' && image.reason !== '')
      problems.push(conditionProblem(infraEnv, image, 'error'));
  }
  const aci = site.agentClusterInstall;
  const aciSynced = conditionOf(aci, 'SpecSynced');
  if (aci !== undefined && aciSynced?.status === 'False')
    problems.push(conditionProblem(aci, aciSynced, 'error'));
  for (const agent of agents) {
    const synced = conditionOf(agent.object, 'SpecSynced');
    if (synced?.status === 'False') problems.push(conditionProblem(agent.object, synced, 'error'));
  }
  for (const agent of agents) {
    const connected = conditionOf(agent.object, 'Connected');
    if (connected?.status === 'False')
      problems.push(conditionProblem(agent.object, connected, 'error'));
  }
  return problems;
}

/** The install failure: the failed host's Installed condition, else the ACI's Failed one. */
function failure(site: SiteObjects, agents: readonly AgentFacts[]): SiteProblem | undefined {
  const aci = site.agentClusterInstall;
  const failed = conditionOf(aci, 'Failed');
  for (const agent of agents) {
    if (!isFailedHost(agent)) continue;
    const installed = conditionOf(agent.object, 'Installed');
    if (installed?.status !== 'False') continue;
    // The Agent's lastTransitionTime moves only when the status flips (False before, False
    // now): the time of the failure is the ACI's, else the host's last progress.
    const since =
      (failed?.status === 'True' ? failed.lastTransitionTime : undefined) ??
      agent.stageUpdateTime ??
      installed.lastTransitionTime;
    const problem = conditionProblem(
      agent.object,
      installed,
      'error',
      installFailureHint(installed.message),
    );
    return { ...problem, ...(since !== undefined && { since }) };
  }
  if (aci !== undefined && failed?.status === 'True')
    return conditionProblem(aci, failed, 'error', installFailureHint(failed.message));
  const stopped = conditionOf(aci, 'Stopped');
  if (aci !== undefined && stopped?.status === 'True' && stopped.reason === 'InstallationCancelled')
    return conditionProblem(aci, stopped, 'error');
  return undefined;
}

/** Why the site is insufficient: a host's failing validations, else the cluster's. */
function insufficiency(
  site: SiteObjects,
  agents: readonly AgentFacts[],
  allRegistered: boolean,
): SiteProblem | undefined {
  for (const agent of agents) {
    const validated = conditionOf(agent.object, 'Validated');
    if (
      validated?.status === 'False' &&
      (validated.reason === 'ValidationsFailing' || validated.reason === 'ValidationsUserPending')
    )
      return conditionProblem(
        agent.object,
        validated,
        'error',
        validationsHint(failingValidations(agent.object), reasonHint(validated.reason) ?? ''),
      );
  }
  const aci = site.agentClusterInstall;
  const validated = conditionOf(aci, 'Validated');
  if (aci === undefined || validated?.status !== 'False') return undefined;
  if (validated.reason === 'ValidationsUserPending')
    return conditionProblem(aci, validated, 'error', validationsHint(failingValidations(aci), ''));
  if (validated.reason !== 'ValidationsFailing' || !allRegistered) return undefined;
  if (agents.some((a) => isDiscoveringHost(a))) return undefined;
  const ids = failingValidations(aci).filter((id) => !HOST_DEPENDENT_CLUSTER_VALIDATIONS.has(id));
  if (ids.length === 0) return undefined;
  return conditionProblem(aci, validated, 'error', validationsHint(ids, ''));
}

/** What keeps validated hosts from installing: approval, agent counts, a hold. */
function waitingProblem(site: SiteObjects, agents: readonly AgentFacts[]): SiteProblem | undefined {
  for (const agent of agents) {
    const requirements = conditionOf(agent.object, 'RequirementsMet');
    if (requirements?.reason === 'AgentIsNotApproved')
      return conditionProblem(agent.object, requirements, 'warning');
  }
  const aci = site.agentClusterInstall;
  if (aci === undefined) return undefined;
  const completed = conditionOf(aci, 'Completed');
  if (completed?.reason === 'InstallationOnHold')
    return conditionProblem(aci, completed, 'warning');
  const requirements = conditionOf(aci, 'RequirementsMet');
  if (
    requirements?.status === 'False' &&
    ['InsufficientAgents', 'UnsyncedAgents', 'UnapprovedAgents'].includes(requirements.reason)
  )
    return conditionProblem(aci, requirements, 'warning');
  return undefined;
}

/** A host waiting for someone during the installation (wrong boot order, say). */
function pendingUserAction(agents: readonly AgentFacts[]): SiteProblem | undefined {
  const agent = agents.find((a) => a.state === 'installing-pending-user-action');
  if (agent === undefined) return undefined;
  const installed = conditionOf(agent.object, 'Installed');
  return {
    severity: 'error',
    source: source(agent.object),
    ...(installed !== undefined && { condition: installed.type }),
    reason: 'InstallingPendingUserAction',
    message: installed?.message ?? agent.stateInfo ?? '',
    hint: 'The host booted the discovery ISO again instead of its installed disk: fix the boot order (or eject the virtual media) and reboot it; the installation then continues.',
    ...(agent.stageUpdateTime !== undefined && { since: agent.stageUpdateTime }),
  };
}

function stageEntries(
  agent: AgentFacts | undefined,
  memory: StageMemory,
  failed: boolean,
): StageEntry[] {
  if (agent === undefined) return [];
  const stages = agent.stages.length > 0 ? agent.stages : SNO_STAGES;
  const seen = memory(agent.key);
  const current = agent.stage === undefined ? -1 : stages.indexOf(agent.stage);
  const done = isInstalledHost(agent);
  return stages.map((name, index) => {
    const at = name === agent.stage ? (agent.stageStartTime ?? seen?.get(name)) : seen?.get(name);
    const status: StageEntry['status'] =
      done || index < current
        ? 'done'
        : index === current
          ? failed
            ? 'failed'
            : name === 'Done'
              ? 'done'
              : 'active'
          : 'pending';
    return { name, status, ...(at !== undefined && { at }) };
  });
}

function entry(
  step: TimelineStep,
  label: string,
  status: TimelineEntry['status'],
  extra: Omit<TimelineEntry, 'step' | 'label' | 'status'> = {},
): TimelineEntry {
  const clean = Object.fromEntries(
    Object.entries(extra as Record<string, unknown>).filter(([, v]) => v !== undefined),
  );
  return { step, label, status, ...clean };
}

/**
 * The status of one site.
 * @param memory install stage times seen before (FleetModel keeps them); without it, only
 *   the current stage of each host has a time
 */
export function siteStatus(site: SiteObjects, memory: StageMemory = () => undefined): SiteStatus {
  const aci = site.agentClusterInstall;
  const agents = site.agents.map(agentFacts);
  const hosts = pairHosts(site.bareMetalHosts, agents);
  const expected = expectedHosts(site);
  const registered = agents.length;
  const installedHosts = agents.filter(isInstalledHost).length;
  const allRegistered = expected > 0 && registered >= expected;
  const clusterState = str(aci, 'status', 'debugInfo', 'state');
  const lead = leadAgent(agents);

  const completed = conditionOf(aci, 'Completed');
  const failedCondition = conditionOf(aci, 'Failed');
  const problems = standingProblems(site, agents);
  const failureProblem = failure(site, agents);
  const installedNow =
    completed?.status === 'True' || at(site.clusterDeployment, 'spec', 'installed') === true;
  const installingNow =
    (clusterState !== undefined && INSTALLING_CLUSTER.has(clusterState)) ||
    completed?.reason === 'InstallationInProgress' ||
    agents.some(isInstallingHost);

  let state: SiteState;
  let problem: SiteProblem | undefined;
  if (failureProblem !== undefined && !installedNow) {
    state = SiteState.Failed;
    problem = failureProblem;
  } else if (installedNow) {
    state = SiteState.Installed;
    problem = failureProblem;
  } else if (installingNow) {
    state = SiteState.Installing;
    problem = pendingUserAction(agents) ?? problems[0];
  } else {
    const insufficient = insufficiency(site, agents, allRegistered);
    if (insufficient !== undefined) {
      state = SiteState.Insufficient;
      problem = insufficient;
    } else if (allRegistered && !agents.some(isDiscoveringHost)) {
      state = SiteState.Validating;
      problem = problems[0] ?? waitingProblem(site, agents);
    } else if (registered > 0) {
      state = SiteState.Discovering;
      problem = problems[0];
    } else if (site.bareMetalHosts.some(bmhIsBooting)) {
      state = SiteState.Booting;
      problem = problems[0];
    } else {
      state = SiteState.Pending;
      problem = problems[0];
    }
  }

  // ---- timeline -----------------------------------------------------------------------------
  const timeline: TimelineEntry[] = [];
  const image = site.infraEnvs.map((i) => conditionOf(i, 'ImageCreated'));
  const imageReady = site.infraEnvs.length > 0 && image.every((c) => c?.status === 'True');
  const imageAt = latest(
    site.infraEnvs.map((i, n) =>
      image[n]?.status === 'True'
        ? (str(i, 'status', 'createdTime') ?? image[n].lastTransitionTime)
        : undefined,
    ),
  );
  const imageFailed = image.some((c) => c !== undefined && c.status !== 'True' && c.reason !== '');
  timeline.push(
    entry('image', 'Discovery ISO', imageReady ? 'done' : imageFailed ? 'failed' : 'pending', {
      end: imageReady ? imageAt : undefined,
      start: earliest(site.infraEnvs.map(createdAt)),
    }),
  );

  const bmhs = site.bareMetalHosts;
  const discoveryStart = earliest(agents.map((a) => createdAt(a.object)));
  if (bmhs.length > 0) {
    const booted = bmhs.filter(bmhBooted).length;
    const starts = bmhs.map((b) => str(b, 'status', 'operationHistory', 'provision', 'start'));
    const ends = bmhs.map((b) => str(b, 'status', 'operationHistory', 'provision', 'end'));
    const erring = bmhs.some((b) => str(b, 'status', 'operationalStatus') === 'error');
    const allBooted = booted === bmhs.length || registered >= bmhs.length;
    timeline.push(
      entry(
        'bmc-boot',
        'BMC boot',
        allBooted ? 'done' : erring ? 'failed' : bmhs.some(bmhIsBooting) ? 'active' : 'pending',
        {
          start: earliest(starts),
          end: allBooted ? latest(ends) : undefined,
          detail: `${String(booted)}/${String(bmhs.length)} hosts booted`,
        },
      ),
    );
  }

  const discoveryDone = allRegistered && !agents.some(isDiscoveringHost);
  timeline.push(
    entry(
      'discovery',
      'Discovery',
      discoveryDone ? 'done' : registered > 0 ? 'active' : 'pending',
      {
        start: discoveryStart,
        end: discoveryDone ? latest(agents.map((a) => createdAt(a.object))) : undefined,
        detail: `${String(registered)}/${String(expected)} hosts registered`,
      },
    ),
  );

  const afterValidation = installingNow || installedNow || state === SiteState.Failed;
  const validatedTimes = agents.map((a) => {
    const c = conditionOf(a.object, 'Validated');
    return c?.status === 'True' ? c.lastTransitionTime : undefined;
  });
  const validationsPassed =
    afterValidation ||
    (discoveryDone && agents.every((a) => hasCondition(a.object, 'Validated', 'True')));
  timeline.push(
    entry(
      'validations',
      'Validations',
      state === SiteState.Insufficient
        ? 'failed'
        : validationsPassed
          ? 'done'
          : discoveryDone || registered > 0
            ? 'active'
            : 'pending',
      {
        start: discoveryDone ? latest(agents.map((a) => createdAt(a.object))) : undefined,
        end: validationsPassed ? latest(validatedTimes) : undefined,
        detail:
          state === SiteState.Insufficient && problem !== undefined ? problem.message : undefined,
      },
    ),
  );

  const installFailed = state === SiteState.Failed;
  const stages = stageEntries(lead, memory, installFailed);
  const aciInstalling = conditionOf(aci, 'RequirementsMet');
  const installStart = earliest([
    ...agents.map((a) => memory(a.key)?.get('Starting installation')),
    ...agents.map((a) => (a.stage === 'Starting installation' ? a.stageStartTime : undefined)),
    aciInstalling?.reason === 'ClusterAlreadyInstalling'
      ? aciInstalling.lastTransitionTime
      : undefined,
    stages[0]?.at,
  ]);
  const doneAt = installedNow ? completed?.lastTransitionTime : undefined;
  const failedAt = installFailed
    ? ((failedCondition?.status === 'True' ? failedCondition.lastTransitionTime : undefined) ??
      failureProblem?.since ??
      lead?.stageUpdateTime)
    : undefined;
  const percent = installedNow
    ? 100
    : (num(aci, 'status', 'progress', 'totalPercentage') ??
      (agents.length > 0 && agents.some((a) => a.percent !== undefined)
        ? Math.trunc(agents.reduce((sum, a) => sum + (a.percent ?? 0), 0) / agents.length)
        : undefined));
  const stage =
    state !== SiteState.Installing
      ? undefined
      : clusterState === 'finalizing'
        ? 'Finalizing'
        : clusterState === 'preparing-for-installation' || lead?.stage === undefined
          ? 'Preparing'
          : lead.stage;
  timeline.push(
    entry(
      'install',
      'Installation',
      installedNow ? 'done' : installFailed ? 'failed' : installingNow ? 'active' : 'pending',
      {
        start: installStart,
        end: doneAt ?? failedAt,
        detail:
          state === SiteState.Installing
            ? `${stage ?? ''}${percent === undefined ? '' : ` (${String(percent)}%)`}`
            : installedNow
              ? `${String(installedHosts)}/${String(expected)} hosts installed`
              : undefined,
        stages,
      },
    ),
  );
  timeline.push(
    entry(
      'done',
      installFailed ? 'Failed' : 'Installed',
      installedNow ? 'done' : installFailed ? 'failed' : 'pending',
      { end: doneAt ?? failedAt },
    ),
  );

  // ---- since, start, end ----------------------------------------------------------------------
  const bootStart = earliest(
    bmhs.map((b) => str(b, 'status', 'operationHistory', 'provision', 'start')),
  );
  const startedAt = earliest([bootStart, discoveryStart]);
  let since: string | undefined;
  switch (state) {
    case SiteState.Failed:
      since = failedAt;
      break;
    case SiteState.Installed:
      since = doneAt;
      break;
    case SiteState.Installing:
      since = installStart;
      break;
    case SiteState.Insufficient:
      since = problem?.since;
      break;
    case SiteState.Validating:
      since = latest(agents.map((a) => createdAt(a.object)));
      break;
    case SiteState.Discovering:
      since = discoveryStart;
      break;
    case SiteState.Booting:
      since = bootStart ?? earliest(bmhs.map(createdAt));
      break;
    case SiteState.Pending:
      since = createdAt(site.clusterDeployment) ?? createdAt(aci);
      break;
  }

  const hostViews: HostView[] = hosts.map((host) => {
    const bmh = host.bmh;
    const agent = host.agent;
    const errorType = bmh === undefined ? undefined : str(bmh, 'status', 'errorType');
    const errorMessage = bmh === undefined ? undefined : str(bmh, 'status', 'errorMessage');
    const role = agent?.role ?? (bmh === undefined ? undefined : bmhRole(bmh));
    return {
      name: hostName(host),
      ...(role !== undefined && { role }),
      ...(bmh !== undefined && {
        bareMetalHost: {
          name: bmh.metadata.name,
          state: bmhState(bmh),
          operationalStatus: str(bmh, 'status', 'operationalStatus') ?? '',
          poweredOn: at(bmh, 'status', 'poweredOn') === true,
          ...(errorType !== undefined && { errorType }),
          ...(errorMessage !== undefined && { errorMessage }),
        },
      }),
      ...(agent !== undefined && {
        agent: {
          name: agent.object.metadata.name,
          ...(agent.state !== undefined && { state: agent.state }),
          ...(agent.stateInfo !== undefined && { stateInfo: agent.stateInfo }),
          ...(agent.stage !== undefined && { stage: agent.stage }),
          ...(agent.percent !== undefined && { percent: agent.percent }),
          approved: agent.approved,
        },
      }),
    };
  });

  const finishedAt = doneAt ?? failedAt;
  return {
    key: `${site.namespace}/${site.name}`,
    namespace: site.namespace,
    name: site.name,
    state,
    ...(stage !== undefined && { stage }),
    ...(percent !== undefined &&
      (state === SiteState.Installing || state === SiteState.Installed) && { percent }),
    ...(since !== undefined && { since }),
    ...(startedAt !== undefined && { startedAt }),
    ...(finishedAt !== undefined && isFinalState(state) && { finishedAt }),
    hosts: { expected, registered, installed: installedHosts },
    hostViews,
    timeline,
    ...(problem !== undefined && { problem }),
  };
}

function isFinalState(state: SiteState): boolean {
  return state === SiteState.Installed || state === SiteState.Failed;
}

function bmhRole(bmh: KubeObject): string | undefined {
  return bmh.metadata.annotations?.['bmac.agent-install.openshift.io/role'];
}

/** The InfraEnv a BareMetalHost or Agent belongs to (label), if any. */
export function infraEnvLabel(object: KubeObject): string | undefined {
  return object.metadata.labels?.[Label.InfraEnv];
}
