/**
 * Applying an event to a host: the transition table (`host-transitions.ts`) picks the row, this
 * module fills in the status info and what else changes. Progress reports first pass upstream's
 * checks of `internal/host/host.go` UpdateInstallProgress.
 */
import { HostRole, HostStage, HostStatus } from '../model.js';
import type { HostProgress, HostRecord, ValidationsInfo, WireDisk } from '../model.js';
import { elapsedMs, hostFacts } from './host-facts.js';
import type {
  HostEvent,
  HostEventType,
  HostFacts,
  HostMachineContext,
  HostRefusal,
  HostTransitionOk,
  HostTransitionResult,
} from './host-facts.js';
import { HostRefusalReason, HostStatusInfo, STATUS_INFO_MAX_LENGTH } from './host-status-info.js';
import {
  goDuration,
  hostStageTimeoutMs,
  installationPercentage,
  stagesFor,
} from './host-stages.js';
import { NEW_HOST, findHostTransition } from './host-transitions.js';
import type { HostReset, HostSource, HostTransition } from './host-transitions.js';
import { failingValidationMessages } from './validation-sets.js';

const H = HostStatus;
const I = HostStatusInfo;
const MINUTE_MS = 60_000;

// ---- Applying an event ------------------------------------------------------------------------

function noTransition(event: HostEventType): HostRefusal {
  return {
    ok: false,
    httpStatus: event === 'RegisterHost' ? 400 : 409,
    reason: HostRefusalReason.noTransition,
  };
}

function truncateInfo(info: string): string {
  return info.length > STATUS_INFO_MAX_LENGTH ? info.slice(0, STATUS_INFO_MAX_LENGTH) : info;
}

/** The disk the host installs to (matched by id, by-path or `/dev/<name>`, as upstream). */
function installationDisk(host: HostRecord): WireDisk | undefined {
  const path = host.installationDiskId;
  if (path === undefined || path === '') return undefined;
  return host.inventory?.disks?.find(
    (d) => d.id === path || d.by_path === path || `/dev/${d.name ?? ''}` === path,
  );
}

function diskLabel(disk: WireDisk): string {
  const id = disk.id !== undefined && disk.id !== '' ? disk.id : `/dev/${disk.name ?? ''}`;
  return `(${disk.name ?? ''}, ${id})`;
}

/** Fills in `$STAGE`, `$MAX_TIME`, `$INSTALLATION_DISK` and `$FAILING_VALIDATIONS`. */
export function renderHostStatusInfo(
  template: string,
  host: HostRecord,
  validations: ValidationsInfo,
): string {
  const stage = host.progress.currentStage;
  let out = template
    .replace('$STAGE', stage ?? '')
    .replace('$MAX_TIME', goDuration(hostStageTimeoutMs(stage)));
  if (out.includes('$INSTALLATION_DISK')) {
    const disk = installationDisk(host);
    out = out.replace('$INSTALLATION_DISK', disk === undefined ? '' : diskLabel(disk));
  }
  if (out.includes('$FAILING_VALIDATIONS')) {
    out = out.replace('$FAILING_VALIDATIONS', failingValidationMessages(validations));
  }
  return truncateInfo(out);
}

type InfoOutcome = { readonly ok: true; readonly info: string } | HostRefusal;

function statusInfoFor(
  row: HostTransition,
  host: HostRecord,
  event: HostEvent,
  facts: HostFacts,
  ctx: HostMachineContext,
): InfoOutcome {
  const rule = row.info;
  switch (rule.kind) {
    case 'template':
      return { ok: true, info: renderHostStatusInfo(rule.template, host, ctx.validations) };
    case 'keep':
      return { ok: true, info: host.statusInfo };
    case 'event-reason':
      return { ok: true, info: eventReason(event) };
    case 'stage':
      return { ok: true, info: host.progress.currentStage ?? '' };
    case 'media-disconnect':
      return { ok: true, info: mediaDisconnectInfo(host) };
    case 'preparation-timeout': {
      const failing: string[] = [];
      if (!facts.diskSpeedCheckSuccessful) failing.push(I.preparationTimeoutDiskSpeed);
      if (!facts.imagesAvailable) failing.push(I.preparationTimeoutImageAvailability);
      return {
        ok: true,
        info: truncateInfo(I.preparationTimeout.replace('$FAILING_CONDITIONS', failing.join('\n'))),
      };
    }
    case 'wrong-boot-order':
      return wrongBootOrderInfo(host);
  }
}

function eventReason(event: HostEvent): string {
  if (event.type === 'CancelInstallation') return event.reason ?? I.cancelledByUser;
  if (event.type === 'HostInstallationFailed') return event.reason ?? I.installationCommandFailed;
  return '';
}

function mediaDisconnectInfo(host: HostRecord): string {
  if (host.status !== H.Error) return I.mediaDisconnected;
  // The installer reports its own failure: add the diagnosis to it once.
  const reason = `${HostStage.Failed} - ${I.mediaDisconnected}`;
  if (host.statusInfo.includes(reason)) return host.statusInfo;
  return `${reason}. ${host.statusInfo}`;
}

function wrongBootOrderInfo(host: HostRecord): InfoOutcome {
  const path = host.installationDiskId ?? '';
  if (path === '' || host.inventory === undefined) {
    return {
      ok: false,
      httpStatus: 400,
      reason: `PostRegisterDuringReboot host ${host.id} doesn't have installation_disk_path or inventory`,
    };
  }
  const disk = installationDisk(host);
  if (disk === undefined) {
    return {
      ok: false,
      httpStatus: 400,
      reason: `PostRegisterDuringReboot Could not find installation disk ${path} for host ${host.id}`,
    };
  }
  const parts: string[] = [I.wrongBootOrder];
  if (disk.model !== undefined && disk.model !== '') parts.push(disk.model);
  if (disk.serial !== undefined && disk.serial !== '') parts.push(disk.serial);
  parts.push(diskLabel(disk));
  return { ok: true, info: parts.join(' ') };
}

function resetEffects(reset: HostReset | undefined): Partial<HostTransitionOk> {
  switch (reset) {
    case undefined:
      return {};
    case 'progress':
      return { progress: {} };
    case 'discovery':
      return { progress: {}, clearInventory: true, bootstrap: false };
    case 'unbind':
      return {
        progress: {},
        clearInventory: true,
        bootstrap: false,
        unbind: true,
        role: HostRole.AutoAssign,
      };
  }
}

function run(
  source: HostSource,
  host: HostRecord,
  event: HostEvent,
  ctx: HostMachineContext,
  extra: Partial<HostTransitionOk> = {},
): HostTransitionResult {
  const facts = hostFacts(host, ctx);
  const row = findHostTransition(event.type, source, facts);
  if (row === undefined) return noTransition(event.type);
  if (row.refusal !== undefined) {
    return {
      ok: false,
      httpStatus: row.refusal.httpStatus,
      reason: row.refusal.reason.replace('$INSTALLATION_PATH', host.installationDiskId ?? ''),
    };
  }
  const info = statusInfoFor(row, host, event, facts, ctx);
  if (!info.ok) return info;
  const touched =
    row.touchStageUpdatedAt === true &&
    elapsedMs(host.progress.stageUpdatedAt, ctx.now) >= MINUTE_MS
      ? { progress: { ...host.progress, stageUpdatedAt: ctx.now.toISOString() } }
      : {};
  return {
    ok: true,
    status: row.to,
    statusInfo: info.info,
    changed: row.to !== host.status || info.info !== host.statusInfo,
    statusChanged: row.to !== host.status,
    rule: row.name,
    ...extra,
    ...touched,
    ...resetEffects(row.resets),
    ...(row.resetClusterPreparation === true ? { resetClusterPreparation: true } : {}),
  };
}

/**
 * A host registers for the first time: `discovering` when bound, `discovering-unbound` when
 * not. Its role: `worker` for day-2, `master` (and bootstrap) in a single-node cluster,
 * otherwise `auto-assign` (upstream V2RegisterHost).
 */
export function registerNewHost(ctx: HostMachineContext): HostTransitionOk {
  let role: HostRole = HostRole.AutoAssign;
  let bootstrap = false;
  if (ctx.bound && ctx.day2) role = HostRole.Worker;
  else if (ctx.bound && ctx.sno) {
    role = HostRole.Master;
    bootstrap = true;
  }
  const facts = hostFacts(newHostPlaceholder(ctx), ctx);
  const row = findHostTransition('RegisterHost', NEW_HOST, facts)!;
  return {
    ok: true,
    status: row.to,
    statusInfo: I.discovering,
    changed: true,
    statusChanged: true,
    rule: row.name,
    role,
    bootstrap,
    progress: {},
  };
}

function newHostPlaceholder(ctx: HostMachineContext): HostRecord {
  const now = ctx.now.toISOString();
  return {
    id: '',
    namespace: '',
    infraEnvName: '',
    infraEnvId: '',
    status: H.Discovering,
    statusInfo: '',
    statusUpdatedAt: now,
    role: HostRole.AutoAssign,
    suggestedRole: HostRole.AutoAssign,
    bootstrap: false,
    approved: false,
    registeredAt: now,
    checkedInAt: now,
    validationsInfo: {},
    progress: {},
    stepResults: {},
  };
}

const PROGRESS_STATUSES: readonly HostStatus[] = [
  H.Installing,
  H.InstallingInProgress,
  H.InstallingPendingUserAction,
];

/** A progress report (upstream `host.go` UpdateInstallProgress, then the HostProgress rows). */
function applyProgress(
  host: HostRecord,
  event: Extract<HostEvent, { type: 'HostProgress' }>,
  ctx: HostMachineContext,
): HostTransitionResult {
  const now = ctx.now.toISOString();
  const previous = host.progress;
  const info = event.progressInfo ?? '';
  if (previous.currentStage === event.stage) {
    // Same stage: only the info and its time move, whatever the status.
    if ((previous.progressInfo ?? '') === info) {
      return {
        ok: true,
        status: host.status,
        statusInfo: host.statusInfo,
        changed: false,
        statusChanged: false,
        rule: 'same stage',
      };
    }
    return {
      ok: true,
      status: host.status,
      statusInfo: host.statusInfo,
      changed: false,
      statusChanged: false,
      rule: 'same stage, new progress info',
      progress: { ...previous, progressInfo: info, stageUpdatedAt: now },
    };
  }
  if (!PROGRESS_STATUSES.includes(host.status)) {
    return {
      ok: false,
      httpStatus: 409,
      reason: `Can't set progress <${event.stage}> to host in status <${host.status}>`,
    };
  }
  if (event.stage === HostStage.Failed) {
    // The host fails where it stands: progress is kept, no HostProgress row runs.
    const statusInfo = info === '' ? HostStage.Failed : `${HostStage.Failed} - ${info}`;
    return {
      ok: true,
      status: H.Error,
      statusInfo,
      changed: true,
      statusChanged: host.status !== H.Error,
      rule: 'progress Failed',
    };
  }
  const stages = stagesFor(host.role, host.bootstrap, ctx.sno);
  const previousStage = previous.currentStage;
  if (previousStage !== undefined) {
    const index = stages.indexOf(event.stage);
    if (index === -1) {
      return {
        ok: false,
        httpStatus: 409,
        reason: `Stages ${event.stage} isn't available for host role ${host.role} bootstrap ${String(host.bootstrap)}`,
      };
    }
    if (index < stages.indexOf(previousStage)) {
      return {
        ok: false,
        httpStatus: 409,
        reason: `Can't assign lower stage "${event.stage}" after host has been in stage "${previousStage}"`,
      };
    }
  }
  const progress: HostProgress = {
    currentStage: event.stage,
    progressInfo: info,
    stageStartedAt: now,
    stageUpdatedAt: now,
    installationPercentage: installationPercentage(event.stage, stages),
  };
  return run(host.status, { ...host, progress }, event, ctx, { progress });
}

/**
 * Applies one event to a host already on record. Never throws: every event in every status is
 * either a transition or a refusal with upstream's HTTP status and wording. A refused Refresh
 * means the host stays as it is (upstream's monitor logs it and moves on), e.g. a host in
 * preparing-failed while its cluster is still preparing.
 */
export function applyHostEvent(
  host: HostRecord,
  event: HostEvent,
  ctx: HostMachineContext,
): HostTransitionResult {
  if (event.type === 'HostProgress') return applyProgress(host, event, ctx);
  return run(host.status, host, event, ctx);
}
