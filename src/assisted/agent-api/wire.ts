/**
 * The JSON the agent API speaks (assisted-service `swagger.yaml` definitions), and the
 * rendering of the assisted core's records into it: snake_case, the inventory and the
 * validations as JSON strings, `href` and `kind` as upstream's models carry them.
 */
import type { HostRecord, WireInventory } from '../model.js';
import type { AgentHostView, Steps } from './backend.js';
import { goJson } from './steps.js';

/** The API's base path (swagger `basePath`). */
export const BASE_PATH = '/api/assisted-install';

/** swagger `error`: what assisted-service's handlers answer a refusal with. */
export interface WireError {
  readonly code: string;
  readonly href: string;
  readonly id: number;
  readonly kind: 'Error';
  readonly reason: string;
}

/**
 * swagger `infra_error`, and the `{code, message}` body the go-openapi runtime itself answers
 * with (authentication, unparsable bodies, validation, unknown paths) before a handler runs.
 */
export interface WireInfraError {
  readonly code: number;
  readonly message: string;
}

/** The body of a handler's refusal (`common.GenerateError`): the status as code and id. */
export function apiError(status: number, reason: string): WireError {
  return { code: String(status), href: '', id: status, kind: 'Error', reason };
}

/** The body of a refusal before the handler (go-openapi `errors.ServeError`). */
export function infraError(code: number, message: string): WireInfraError {
  return { code, message };
}

/**
 * The one 401 body: whatever failed (no token, a forged, expired or other InfraEnv's token,
 * an InfraEnv that does not exist, userAuth), the caller learns nothing more. The text is what
 * go-openapi answers a request without credentials.
 */
export const UNAUTHORIZED: WireInfraError = infraError(
  401,
  'unauthenticated for invalid credentials',
);

/** swagger `step`. */
export interface WireStep {
  readonly step_type: string;
  readonly step_id: string;
  readonly args: readonly string[];
}

/** swagger `steps`. */
export interface WireSteps {
  readonly next_instruction_seconds: number;
  readonly post_step_action: 'continue' | 'exit';
  readonly instructions: readonly WireStep[];
}

/** The steps as the agent reads them. */
export function renderSteps(steps: Steps): WireSteps {
  return {
    next_instruction_seconds: steps.nextInstructionSeconds,
    post_step_action: steps.postStepAction,
    instructions: steps.instructions.map((step) => ({
      step_type: step.stepType,
      step_id: step.stepId,
      args: [...step.args],
    })),
  };
}

/** swagger `host` (the fields the assisted core knows). */
export type WireHost = Readonly<Record<string, unknown>> & {
  readonly kind: 'Host';
  readonly id: string;
  readonly href: string;
  readonly status: string;
  readonly status_info: string;
};

/** Go's zero `strfmt.DateTime`, which upstream's host JSON shows for times never set. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

/** The `href` of a host (upstream `V2GetHostURL`). */
export function hostHref(infraEnvId: string, hostId: string): string {
  return `${BASE_PATH}/v2/infra-envs/${infraEnvId}/hosts/${hostId}`;
}

/**
 * A host record as `models.Host` JSON. `requested_hostname` is the hostname upstream shows
 * (the requested one, else the inventory's, else the host id); `free_addresses` is left out as
 * upstream's GET host clears it. `view` adds the log collection and the role's stages.
 */
export function renderHost(host: HostRecord, view: AgentHostView = {}): WireHost {
  const { progress, stepResults } = host;
  const times = [host.statusUpdatedAt, host.checkedInAt, progress.stageUpdatedAt].filter(
    (time): time is string => time !== undefined,
  );
  const updatedAt = times.reduce(
    (latest, time) => (time > latest ? time : latest),
    host.registeredAt,
  );
  const hostname =
    nonEmpty(host.requestedHostname) ?? nonEmpty(host.inventory?.hostname) ?? host.id;
  const disk = installationDisk(host.inventory, host.installationDiskId);
  const result: Record<string, unknown> = {
    kind: 'Host',
    id: host.id,
    href: hostHref(host.infraEnvId, host.id),
    ...(host.clusterId !== undefined ? { cluster_id: host.clusterId } : {}),
    infra_env_id: host.infraEnvId,
    status: host.status,
    status_info: host.statusInfo,
    ...(Object.keys(host.validationsInfo).length > 0
      ? { validations_info: goJson(host.validationsInfo) }
      : {}),
    status_updated_at: host.statusUpdatedAt,
    progress: {
      ...(progress.currentStage !== undefined ? { current_stage: progress.currentStage } : {}),
      ...(progress.installationPercentage !== undefined
        ? { installation_percentage: progress.installationPercentage }
        : {}),
      ...(progress.progressInfo !== undefined ? { progress_info: progress.progressInfo } : {}),
      stage_started_at: progress.stageStartedAt ?? ZERO_TIME,
      stage_updated_at: progress.stageUpdatedAt ?? ZERO_TIME,
    },
    stage_started_at: progress.stageStartedAt ?? ZERO_TIME,
    stage_updated_at: progress.stageUpdatedAt ?? ZERO_TIME,
    ...jsonField('connectivity', stepResults.connectivity),
    ...jsonField('api_vip_connectivity', stepResults.apiVipConnectivity),
    ...jsonField('tang_connectivity', stepResults.tangConnectivity),
    ...(host.inventory !== undefined ? { inventory: goJson(host.inventory) } : {}),
    ...jsonField('ntp_sources', ntpSources(stepResults.ntp)),
    ...jsonField('domain_name_resolutions', stepResults.domainResolution),
    role: host.role,
    suggested_role: host.suggestedRole,
    bootstrap: host.bootstrap,
    logs_collected_at: host.logsCollectedAt ?? ZERO_TIME,
    ...(view.logsInfo !== undefined && view.logsInfo !== '' ? { logs_info: view.logsInfo } : {}),
    logs_started_at: view.logsStartedAt ?? ZERO_TIME,
    ...(disk?.path !== undefined ? { installation_disk_path: disk.path } : {}),
    ...(host.installationDiskId !== undefined
      ? { installation_disk_id: host.installationDiskId }
      : {}),
    updated_at: updatedAt,
    created_at: host.registeredAt,
    checked_in_at: host.checkedInAt,
    registered_at: host.registeredAt,
    ...(host.discoveryAgentVersion !== undefined
      ? { discovery_agent_version: host.discoveryAgentVersion }
      : {}),
    requested_hostname: hostname,
    progress_stages: [...(view.progressStages ?? [])],
    ...(host.ignitionConfigOverrides !== undefined
      ? { ignition_config_overrides: host.ignitionConfigOverrides }
      : {}),
    ...(host.installerArgs !== undefined && host.installerArgs.length > 0
      ? { installer_args: goJson(host.installerArgs) }
      : {}),
    ...(host.machineConfigPool !== undefined
      ? { machine_config_pool_name: host.machineConfigPool }
      : {}),
    ...(host.nodeLabels !== undefined && Object.keys(host.nodeLabels).length > 0
      ? { node_labels: goJson(host.nodeLabels) }
      : {}),
  };
  return result as WireHost;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function jsonField(name: string, value: unknown): Record<string, string> {
  return value === undefined ? {} : { [name]: goJson(value) };
}

/** Upstream keeps the sources array only, not the whole ntp reply. */
function ntpSources(ntp: unknown): unknown {
  if (typeof ntp === 'object' && ntp !== null && !Array.isArray(ntp)) {
    const record = ntp as Record<string, unknown>;
    if (Array.isArray(record['ntp_sources'])) return record['ntp_sources'];
    if (Array.isArray(record['ntpSources'])) return record['ntpSources'];
  }
  return ntp;
}

function installationDisk(
  inventory: WireInventory | undefined,
  diskId: string | undefined,
): { readonly path?: string } | undefined {
  if (!inventory || diskId === undefined) return undefined;
  const disk = (inventory.disks ?? []).find((candidate) => candidate.id === diskId);
  if (!disk) return undefined;
  return { path: disk.path ?? (disk.name !== undefined ? `/dev/${disk.name}` : undefined) };
}
