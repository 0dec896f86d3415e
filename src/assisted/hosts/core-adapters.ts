/**
 * The host side's ports on the assisted core's own modules: the host state machine
 * (src/assisted/state), the host validations (src/assisted/validations) and the agent API's
 * step builder (src/assisted/agent-api/steps.ts). These adapters only translate: every rule
 * lives in those modules.
 */
import { buildInstruction } from '../agent-api/steps.js';
import type { StepContext } from '../agent-api/steps.js';
import type { Instruction } from '../agent-api/backend.js';
import { HostRole, HostStatus } from '../model.js';
import type { ClusterRecord, HostRecord, HostStage, StepType, ValidationsInfo } from '../model.js';
import { applyHostEvent, nextStepPlan, registerNewHost, stagesFor } from '../state/index.js';
import type {
  HostEvent as MachineEvent,
  HostMachineContext as MachineContext,
  HostTransitionOk,
} from '../state/index.js';
import {
  hwRequirementsFor,
  listEligibleDisks,
  deviceIdentifier,
  publishedValidations,
  roleRequirements,
  validateHost,
  withDiskEligibility,
} from '../validations/index.js';
import type {
  HostEvent,
  HostEventOutcome,
  HostMachine,
  HostMachineContext,
  HostValidationContext,
  HostValidator,
  InstructionBuilder,
  InstructionContext,
  StepPlan,
} from './ports.js';

type Json = Record<string, unknown>;

function isSingleNode(cluster: ClusterRecord | undefined): boolean {
  return cluster?.highAvailabilityMode === 'None' || cluster?.controlPlaneAgents === 1;
}

/** Whether the installation disk's speed was measured without failure (preparation). */
function diskSpeedMeasured(host: HostRecord): boolean {
  const result = host.stepResults.diskSpeed as Json | undefined;
  return (
    result !== undefined &&
    result['exit_code'] === undefined &&
    typeof result['io_sync_duration'] === 'number'
  );
}

/** Whether every image the host reported was pulled (at least one). */
function imagesPulled(host: HostRecord): boolean {
  const images = (host.stepResults.imageAvailability as Json | undefined)?.['images'];
  return (
    Array.isArray(images) &&
    images.length > 0 &&
    (images as Json[]).every((i) => i['result'] === 'success')
  );
}

function machineContext(host: HostRecord, ctx: HostMachineContext): MachineContext {
  const cluster = ctx.cluster;
  const bound = host.clusterId !== undefined;
  return {
    now: ctx.now,
    bound,
    day2: ctx.day2,
    ...(cluster !== undefined && { clusterStatus: cluster.status }),
    validations: ctx.validations,
    ignoredValidations: cluster?.ignoredHostValidations ?? [],
    connected: ctx.connected,
    sno: isSingleNode(cluster),
    installationDiskSpeedCheckSuccessful: diskSpeedMeasured(host),
    containerImagesAvailable: imagesPulled(host),
    ...(cluster !== undefined && {
      cluster: {
        controlPlaneAgents: cluster.controlPlaneAgents,
        arbiterAgents: cluster.arbiterAgents,
        hosts: ctx.clusterHosts,
      },
    }),
  };
}

function machineEvent(event: HostEvent, day2: boolean): MachineEvent {
  switch (event.type) {
    case 'RegisterHost':
    case 'Refresh':
    case 'BindHost':
    case 'UnbindHost':
    case 'MediaDisconnect':
      return { type: event.type };
    case 'InstallHost':
      // Day-1 hosts move to installing on Refresh once their cluster installs (upstream).
      return day2 ? { type: 'InstallHost' } : { type: 'Refresh' };
    case 'PrepareForInstallation':
      // Upstream moves hosts to preparing on Refresh once their cluster prepares.
      return { type: 'Refresh' };
    case 'HostProgressChanged':
      return {
        type: 'HostProgress',
        stage: event.currentStage,
        ...(event.progressInfo !== undefined && { progressInfo: event.progressInfo }),
      };
    case 'HostInstallationFailed':
      return { type: 'HostInstallationFailed', reason: event.reason };
    case 'CancelInstallation':
      return { type: 'CancelInstallation', reason: event.reason };
    case 'ResetHost':
      return { type: 'ResetPendingUserAction' };
  }
}

/** The record after an accepted transition. */
function applied(host: HostRecord, result: HostTransitionOk, now: Date): HostRecord {
  const nowIso = now.toISOString();
  const statusChanged = result.status !== host.status;
  const onlyStatus =
    !result.changed &&
    result.progress === undefined &&
    result.bootstrap === undefined &&
    result.role === undefined &&
    result.clearInventory !== true &&
    result.unbind !== true;
  if (onlyStatus) return host;
  const next: Record<string, unknown> = {
    ...host,
    status: result.status,
    statusInfo: result.statusInfo,
    statusUpdatedAt: statusChanged ? nowIso : host.statusUpdatedAt,
    ...(result.progress !== undefined && { progress: result.progress }),
    ...(result.bootstrap !== undefined && { bootstrap: result.bootstrap }),
    ...(result.role !== undefined && { role: result.role, suggestedRole: result.role }),
    ...(statusChanged && result.status === HostStatus.Installing && { installStartedAt: nowIso }),
  };
  if (result.clearInventory === true) {
    delete next['inventory'];
    delete next['installationDiskId'];
  }
  if (result.unbind === true) {
    delete next['clusterId'];
    delete next['clusterDeploymentName'];
    delete next['installationDiskId'];
    delete next['machineConfigPool'];
    next['role'] = HostRole.AutoAssign;
    next['suggestedRole'] = HostRole.AutoAssign;
    next['stepResults'] = {};
  }
  return next as unknown as HostRecord;
}

/** HostMachine on src/assisted/state's transition table. */
export class StateMachineHostMachine implements HostMachine {
  apply(host: HostRecord, event: HostEvent, ctx: HostMachineContext): HostEventOutcome {
    if (event.type === 'RegisterHost' && (host.status as string) === '') {
      const result = registerNewHost(machineContext(host, ctx));
      return { ok: true, host: applied(host, result, ctx.now) };
    }
    const mapped = machineEvent(event, ctx.day2);
    const result = applyHostEvent(host, mapped, machineContext(host, ctx));
    if (!result.ok) return result;
    const next = applied(host, result, ctx.now);
    if (event.type === 'BindHost')
      return {
        ok: true,
        host: {
          ...next,
          clusterId: event.clusterId,
          clusterDeploymentName: event.clusterDeploymentName,
        },
      };
    return { ok: true, host: next };
  }

  nextSteps(host: HostRecord, ctx: HostMachineContext): StepPlan {
    return nextStepPlan(host, { bound: host.clusterId !== undefined, day2: ctx.day2 });
  }

  progressStages(host: HostRecord, cluster: ClusterRecord | undefined): readonly HostStage[] {
    const role = host.role === HostRole.AutoAssign ? host.suggestedRole : host.role;
    return stagesFor(role, host.bootstrap, isSingleNode(cluster));
  }
}

/** HostValidator on src/assisted/validations. */
export class CoreHostValidator implements HostValidator {
  validate(host: HostRecord, ctx: HostValidationContext): ValidationsInfo {
    const info = validateHost(
      {
        ...host,
        ...(ctx.agentTimestamp !== undefined && { agentTimestamp: ctx.agentTimestamp }),
        ...(ctx.mediaStatus !== undefined && { mediaStatus: ctx.mediaStatus }),
      },
      {
        ...(ctx.cluster !== undefined && { cluster: ctx.cluster }),
        clusterHosts: ctx.clusterHosts,
        now: ctx.now,
        connected: ctx.connected,
      },
    );
    return publishedValidations(info, host.progress.currentStage);
  }

  validDisks(host: HostRecord, cluster: ClusterRecord | undefined): readonly string[] {
    if (host.inventory === undefined) return [];
    const version = cluster?.openshiftVersion ?? '';
    const requirements = roleRequirements(host, cluster, hwRequirementsFor(version));
    return listEligibleDisks(
      withDiskEligibility(host.inventory, requirements.diskSizeGb, version),
    ).map(deviceIdentifier);
  }
}

/** What the step builder needs besides the host and its cluster. */
export type StepSettingsContext = Omit<StepContext, 'host' | 'cluster' | 'clusterHosts'>;

/** InstructionBuilder on the agent API's step builder. */
export class CoreInstructionBuilder implements InstructionBuilder {
  /** @param settings images and settings; a function to read them per host (InfraEnv NTP, proxy) */
  constructor(
    private readonly settings:
      StepSettingsContext | ((context: InstructionContext) => StepSettingsContext),
  ) {}

  /** The settings read for the last context (a poll builds all its steps from one context). */
  private last: { context: InstructionContext; settings: StepSettingsContext } | undefined;

  build(type: StepType, context: InstructionContext): Instruction | undefined {
    const settings = this.settingsFor(context);
    return buildInstruction(type, {
      ...settings,
      host: context.host,
      ...(context.cluster !== undefined && { cluster: context.cluster }),
      clusterHosts: context.clusterHosts,
    });
  }

  private settingsFor(context: InstructionContext): StepSettingsContext {
    if (typeof this.settings !== 'function') return this.settings;
    if (this.last?.context === context) return this.last.settings;
    const settings = this.settings(context);
    this.last = { context, settings };
    return settings;
  }
}
