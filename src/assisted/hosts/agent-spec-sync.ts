/**
 * The Agent spec flowing into the host record (upstream's updateIfNeeded and bind/unbind in
 * ctl/agent_controller.go): the binding first, then installer arguments and ignition overrides
 * (always), then hostname, role, installation disk, machine config pool and node labels (only
 * before installation or while unbound; later they are left as they were, as upstream does),
 * then `approved` (always). An invalid field refuses the whole update, as upstream's
 * transaction does; its message becomes the SpecSynced condition's.
 */
import type { KubeObject } from '../../kube/index.js';
import { Gvk } from '../../bmac/api.js';
import type { ObjectReader } from '../../bmac/runtime/contract.js';
import { HostRole } from '../model.js';
import type { HostRecord } from '../model.js';
import {
  FORBIDDEN_HOSTNAMES,
  HOSTNAME_PATTERN,
  MAX_HOSTNAME_LENGTH,
} from '../validations/host-validations.js';
import type { SpecSyncError } from './agent-conditions.js';
import { clusterReference } from './agent-projection.js';
import { HostKind } from './agent-names.js';
import type { HostService } from './host-service.js';
import { BEFORE_INSTALLATION_OR_UNBOUND, INSTALLING } from './host-statuses.js';
import { diskIdentifier, findDisk } from './inventory.js';

type Json = Record<string, unknown>;

const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
const INSTALLER_FLAGS = [
  '--append-karg',
  '--delete-karg',
  '-n',
  '--copy-network',
  '--network-dir',
  '--save-partlabel',
  '--save-partindex',
  '--image-url',
  '--image-file',
];
const INSTALLER_VALUE = /^[A-Za-z0-9@!#$%*()_+\-=/.,";':{}[\]]+$/;

function inputError(message: string): SpecSyncError {
  return { internal: false, message };
}

function backendError(message: string): SpecSyncError {
  return { internal: true, message };
}

/** Upstream's hostname check (hostutil.ValidateHostname), with its messages. */
export function hostnameError(hostname: string): string | undefined {
  if (hostname.length > MAX_HOSTNAME_LENGTH)
    return `hostname is too long, must be 63 characters or less. Hostname: ${hostname} has ${String(hostname.length)} characters`;
  if (!HOSTNAME_RE.test(hostname))
    return `Hostname does not pass required regex validation: ${HOSTNAME_PATTERN}. Hostname: ${hostname}`;
  if (FORBIDDEN_HOSTNAMES.includes(hostname)) return `The host name ${hostname} is forbidden`;
  return undefined;
}

/** Upstream's installer-arguments check (pkg/validations ValidateInstallerArgs). */
export function installerArgsError(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg.startsWith('-')) {
      if (!INSTALLER_FLAGS.includes(arg))
        return `found unexpected flag ${arg} for installer - allowed flags are [${INSTALLER_FLAGS.join(' ')}]`;
      continue;
    }
    if (!INSTALLER_VALUE.test(arg)) return `found unexpected chars in value ${arg} for installer`;
  }
  return undefined;
}

function ignitionError(config: string): string | undefined {
  try {
    const parsed = JSON.parse(config) as Json;
    const version = (parsed['ignition'] as Json | undefined)?.['version'];
    return typeof version === 'string'
      ? undefined
      : 'config is not valid: ignition.version is missing';
  } catch (err) {
    return `config is not valid: ${(err as Error).message}`;
  }
}

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Json | undefined): boolean {
  const left = a ?? {};
  const right = (b ?? {}) as Record<string, string>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((k) => left[k] === right[k]);
}

const ROLES: ReadonlySet<string> = new Set(Object.values(HostRole));

/** The result of syncing an Agent's spec into its host. */
export interface SpecSyncResult {
  readonly error?: SpecSyncError;
  /** The binding changed: the pass ends (upstream returns after bind and unbind). */
  readonly bindingChanged: boolean;
}

/**
 * Applies the Agent spec to the host record through `hosts`.
 * @param reader the cache, for the ClusterDeployment the Agent names
 */
export function syncAgentSpec(
  agent: KubeObject,
  hosts: HostService,
  reader: ObjectReader,
  now: Date,
): SpecSyncResult {
  const hostId = agent.metadata.name;
  const current = hosts.get(hostId);
  if (current === undefined) return { bindingChanged: false };
  const ref = clusterReference(agent);

  // Binding (assisted.md §8 "Agent controller binding").
  if (ref === undefined && current.clusterId !== undefined) {
    if (INSTALLING.has(current.status) && hosts.kind(hostId) !== HostKind.AddToExistingClusterHost)
      return {
        error: inputError(
          `cancelling non-day-2 host [${hostId}] in the middle of installation is not allowed`,
        ),
        bindingChanged: false,
      };
    const outcome = hosts.apply(hostId, { type: 'UnbindHost' }, now);
    return outcome.ok
      ? { bindingChanged: true }
      : { error: inputError(outcome.reason), bindingChanged: false };
  }
  if (ref !== undefined) {
    const deployment = reader.get({ ...Gvk.ClusterDeployment, ...ref });
    if (deployment === undefined)
      return {
        error: backendError(
          `failed to get clusterDeployment with name ${ref.name} in namespace ${ref.namespace}: clusterdeployments.hive.openshift.io "${ref.name}" not found`,
        ),
        bindingChanged: false,
      };
    const cluster = hosts.clusterByDeployment(ref.namespace, ref.name);
    if (cluster === undefined)
      return { error: backendError('record not found'), bindingChanged: false };
    if (current.clusterId === undefined) {
      const outcome = hosts.apply(
        hostId,
        { type: 'BindHost', clusterId: cluster.id, clusterDeploymentName: ref.name },
        now,
      );
      return outcome.ok
        ? { bindingChanged: true }
        : { error: inputError(outcome.reason), bindingChanged: false };
    }
    if (current.clusterId !== cluster.id) {
      const outcome = hosts.apply(hostId, { type: 'UnbindHost' }, now);
      return outcome.ok
        ? { bindingChanged: true }
        : { error: inputError(outcome.reason), bindingChanged: false };
    }
  }

  const spec = (agent['spec'] ?? {}) as Json;
  const changes: { -readonly [K in keyof HostRecord]?: HostRecord[K] } = {};

  // Installer arguments and ignition overrides: applied in any status, as upstream.
  const installerArgsText = typeof spec['installerArgs'] === 'string' ? spec['installerArgs'] : '';
  let installerArgs: string[] = [];
  if (installerArgsText !== '') {
    try {
      const parsed = JSON.parse(installerArgsText) as unknown;
      if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
        throw new Error('installerArgs must be a JSON array of strings');
      installerArgs = parsed;
    } catch (err) {
      return {
        error: inputError(
          `Fail to unmarshal installer args for host ${hostId} in infraEnv ${current.infraEnvId}: ${(err as Error).message}`,
        ),
        bindingChanged: false,
      };
    }
  }
  if (JSON.stringify(installerArgs) !== JSON.stringify(current.installerArgs ?? [])) {
    const invalid = installerArgsError(installerArgs);
    if (invalid !== undefined) return { error: inputError(invalid), bindingChanged: false };
    changes.installerArgs = installerArgs;
  }
  const ignition =
    typeof spec['ignitionConfigOverrides'] === 'string' ? spec['ignitionConfigOverrides'] : '';
  if (ignition !== (current.ignitionConfigOverrides ?? '')) {
    const invalid = ignition === '' ? undefined : ignitionError(ignition);
    if (invalid !== undefined) return { error: inputError(invalid), bindingChanged: false };
    changes.ignitionConfigOverrides = ignition;
  }

  // Host fields: only before installation or while unbound.
  if (BEFORE_INSTALLATION_OR_UNBOUND.has(current.status)) {
    const nodeLabels = spec['nodeLabels'] as Json | undefined;
    if (!sameLabels(current.nodeLabels, nodeLabels))
      changes.nodeLabels = { ...((nodeLabels ?? {}) as Record<string, string>) };
    const hostname = typeof spec['hostname'] === 'string' ? spec['hostname'] : '';
    if (hostname !== '' && hostname !== current.requestedHostname) {
      const invalid = hostnameError(hostname);
      if (invalid !== undefined) return { error: inputError(invalid), bindingChanged: false };
      changes.requestedHostname = hostname;
    }
    const pool = typeof spec['machineConfigPool'] === 'string' ? spec['machineConfigPool'] : '';
    if (pool !== '' && pool !== current.machineConfigPool) changes.machineConfigPool = pool;
    const role = typeof spec['role'] === 'string' ? spec['role'] : '';
    if (role !== '' && role !== current.role) {
      const day2 = hosts.kind(hostId) === HostKind.AddToExistingClusterHost;
      if (!ROLES.has(role) || (day2 && role === HostRole.Bootstrap))
        return {
          error: inputError(
            `Requested role (${role}) is invalid for host ${hostId} from infraEnv ${current.infraEnvId}`,
          ),
          bindingChanged: false,
        };
      changes.role = role as HostRole;
      changes.suggestedRole = role as HostRole;
    }
    const diskPath =
      typeof spec['installation_disk_path'] === 'string' && spec['installation_disk_path'] !== ''
        ? spec['installation_disk_path']
        : typeof spec['installation_disk_id'] === 'string'
          ? spec['installation_disk_id']
          : '';
    if (diskPath !== '') {
      const installed = findDisk(current.inventory, current.installationDiskId ?? '');
      const matches =
        installed !== undefined &&
        (diskPath === diskIdentifier(installed) ||
          diskPath === installed.by_path ||
          diskPath === `/dev/${installed.name ?? ''}`);
      if (!matches) {
        const valid = hosts
          .validDisks(current)
          .map((id) => findDisk(current.inventory, id))
          .filter((d) => d !== undefined);
        const chosen = valid.find(
          (d) =>
            diskIdentifier(d) === diskPath ||
            d.by_path === diskPath ||
            `/dev/${d.name ?? ''}` === diskPath,
        );
        if (chosen === undefined)
          return {
            error: inputError("Requested installation disk is not part of the host's valid disks"),
            bindingChanged: false,
          };
        changes.installationDiskId = diskIdentifier(chosen);
      }
    }
  }
  const approved = spec['approved'] === true;
  if (approved !== current.approved) changes.approved = approved;

  if (Object.keys(changes).length > 0) {
    hosts.update(hostId, (h) => ({ ...h, ...changes }));
    hosts.refresh(hostId, now);
  }
  return { bindingChanged: false };
}
