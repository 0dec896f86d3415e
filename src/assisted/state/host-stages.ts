/**
 * Install progress stages per role, their timeouts and the percentage a stage stands for
 * (assisted.md §4.3). Upstream: `internal/host/common.go` (stage lists, FindMatchingStages),
 * `internal/host/config.go` (hostStageTimeoutDefaults), `internal/host/host.go`
 * (singleNodeRebootTimeout, WrongBootOrderIgnoreTimeoutStages, UpdateInstallProgress).
 */
import { HostRole, HostStage } from '../model.js';

const S = HostStage;

/** The bootstrap host of a multi-node cluster. */
export const BOOTSTRAP_STAGES: readonly HostStage[] = [
  S.StartingInstallation,
  S.Installing,
  S.WritingImageToDisk,
  S.CopyingRegistryData,
  S.WaitingForControlPlane,
  S.WaitingForBootkube,
  S.WaitingForController,
  S.Rebooting,
  S.Configuring,
  S.Joined,
  S.Done,
];

/** Control plane hosts that are not the bootstrap, and arbiters (same flow upstream). */
export const MASTER_STAGES: readonly HostStage[] = [
  S.StartingInstallation,
  S.Installing,
  S.WritingImageToDisk,
  S.CopyingRegistryData,
  S.Rebooting,
  S.Configuring,
  S.Joined,
  S.Done,
];

/** Worker hosts: they wait for the control plane, then for their ignition after rebooting. */
export const WORKER_STAGES: readonly HostStage[] = [
  S.StartingInstallation,
  S.Installing,
  S.WritingImageToDisk,
  S.WaitingForControlPlane,
  S.Rebooting,
  S.WaitingForIgnition,
  S.Configuring,
  S.Joined,
  S.Done,
];

/** The one host of a single-node cluster (it is its own bootstrap). */
export const SNO_STAGES: readonly HostStage[] = [
  S.StartingInstallation,
  S.Installing,
  S.WaitingForBootkube,
  S.WritingImageToDisk,
  S.CopyingRegistryData,
  S.Rebooting,
  S.Joined,
  S.Done,
];

/**
 * The stages a host walks through. Bootstrap wins over the role; an `auto-assign` host has no
 * stages (upstream FindMatchingStages). Day-2 hosts keep the full list in kube-api mode.
 */
export function stagesFor(role: HostRole, bootstrap: boolean, sno: boolean): readonly HostStage[] {
  if (bootstrap || role === HostRole.Bootstrap) return sno ? SNO_STAGES : BOOTSTRAP_STAGES;
  if (role === HostRole.Master || role === HostRole.Arbiter) return MASTER_STAGES;
  if (role === HostRole.Worker) return WORKER_STAGES;
  return [];
}

/**
 * `installationPercentage` for `stage`: (index + 1) / stages × 100, truncated to a whole number
 * (upstream computes a float64 and stores it in an int64 column; its tests expect truncation).
 * A stage outside the list gives 0.
 */
export function installationPercentage(stage: HostStage, stages: readonly HostStage[]): number {
  if (stages.length === 0) return 0;
  return Math.trunc(((stages.indexOf(stage) + 1) / stages.length) * 100);
}

const MINUTE_MS = 60_000;

/** Per-stage timeouts (`hostStageTimeoutDefaults`); a stage not listed gets 60 minutes. */
export const HOST_STAGE_TIMEOUTS_MS: Readonly<Partial<Record<HostStage, number>>> = {
  [S.StartingInstallation]: 30 * MINUTE_MS,
  [S.WaitingForControlPlane]: 60 * MINUTE_MS,
  [S.WaitingForController]: 60 * MINUTE_MS,
  [S.WaitingForBootkube]: 60 * MINUTE_MS,
  [S.Installing]: 60 * MINUTE_MS,
  [S.Joined]: 60 * MINUTE_MS,
  [S.WritingImageToDisk]: 30 * MINUTE_MS,
  [S.CopyingRegistryData]: 90 * MINUTE_MS,
  [S.Rebooting]: 40 * MINUTE_MS,
  [S.Configuring]: 60 * MINUTE_MS,
  [S.WaitingForIgnition]: 24 * 60 * MINUTE_MS,
};

/** `hostStageTimeoutDefault`. */
export const DEFAULT_HOST_STAGE_TIMEOUT_MS = 60 * MINUTE_MS;

/** `singleNodeRebootTimeout`: a single-node host gets longer to come back from its reboot. */
export const SNO_REBOOT_TIMEOUT_MS = 80 * MINUTE_MS;

/** The timeout of `stage` as configured (what `$MAX_TIME` shows, even for SNO reboots). */
export function hostStageTimeoutMs(stage: HostStage | undefined): number {
  if (stage === undefined) return DEFAULT_HOST_STAGE_TIMEOUT_MS;
  return HOST_STAGE_TIMEOUTS_MS[stage] ?? DEFAULT_HOST_STAGE_TIMEOUT_MS;
}

/**
 * Stages whose timeout is not enforced while the cluster waits for a user to fix a boot order
 * (`WrongBootOrderIgnoreTimeoutStages`).
 */
export const WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES: readonly HostStage[] = [
  S.WaitingForControlPlane,
  S.WaitingForController,
  S.WaitingForBootkube,
  S.Rebooting,
];

/**
 * Whether the host has not yet rebooted into the installed system: no stage yet, or a stage
 * before `Rebooting` in the bootstrap list. Disconnection only counts then (upstream
 * `validator.go` isConnected).
 */
export function isPreReboot(stage: HostStage | undefined): boolean {
  if (stage === undefined) return true;
  const reboot = BOOTSTRAP_STAGES.indexOf(S.Rebooting);
  return BOOTSTRAP_STAGES.slice(0, reboot).includes(stage);
}

/**
 * A duration as Go's `time.Duration.String()` prints whole seconds (`30m0s`, `1h30m0s`,
 * `24h0m0s`): the form upstream puts in `$MAX_TIME`.
 */
export function goDuration(ms: number): string {
  const totalSeconds = Math.floor(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${String(h)}h${String(m)}m${String(s)}s`;
  if (m > 0) return `${String(m)}m${String(s)}s`;
  return `${String(s)}s`;
}
