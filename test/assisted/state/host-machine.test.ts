import { describe, expect, it } from 'vitest';
import { ClusterStatus, HostRole, HostStage, HostStatus } from '../../../src/assisted/model.js';
import type { HostRecord } from '../../../src/assisted/model.js';
import {
  HostStatusInfo,
  applyHostEvent,
  hostTransitions,
  registerNewHost,
} from '../../../src/assisted/state/index.js';
import type {
  HostEvent,
  HostMachineContext,
  HostTransitionResult,
} from '../../../src/assisted/state/index.js';
import {
  INSTALL_DISK_ID,
  MINUTE,
  NOW,
  ago,
  host,
  hostCtx,
  hostsIn,
  validations,
} from './records.js';

const H = HostStatus;
const I = HostStatusInfo;

type Expected =
  | { readonly status: HostStatus; readonly statusInfo: string }
  | { readonly refused: 400 | 409; readonly reason: string };

interface Scenario {
  /** The upstream rule expected to decide. */
  readonly rule: string;
  readonly story: string;
  readonly host: Partial<HostRecord>;
  readonly ctx?: Partial<HostMachineContext>;
  readonly event: HostEvent;
  readonly expect: Expected;
}

const REFRESH: HostEvent = { type: 'Refresh' };
const REGISTER: HostEvent = { type: 'RegisterHost' };
const inStage = (stage: HostStage, updatedAgoMs = 1 * MINUTE) => ({
  progress: {
    currentStage: stage,
    stageStartedAt: ago(updatedAgoMs),
    stageUpdatedAt: ago(updatedAgoMs),
  },
});
const diskLabel = `(sda, ${INSTALL_DISK_ID})`;
const cpuFailure =
  'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1';
const memoryFailure =
  'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB';
const cidrFailure =
  'Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs';
const diskSpeedFailure =
  'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient';
const imageFailure =
  'Failed to fetch container images needed for installation from quay.io/openshift-release-dev/ocp-release. This may be due to a network hiccup.';

/** One scenario (at least) per row of the host table, with exact upstream texts. */
const scenarios: readonly Scenario[] = [
  // ---- HostProgress ----
  {
    rule: 'host progress installing-in-progress on rebooting in kube-api mode',
    story: 'a day-2 worker reports Rebooting and stays installing-in-progress',
    host: {
      status: H.InstallingInProgress,
      role: HostRole.Worker,
      ...inStage(HostStage.WaitingForControlPlane),
    },
    ctx: { day2: true, clusterStatus: ClusterStatus.AddingHosts },
    event: { type: 'HostProgress', stage: HostStage.Rebooting },
    expect: { status: H.InstallingInProgress, statusInfo: 'Rebooting' },
  },
  {
    rule: 'host progress changed to added-to-existing-cluster for day2 host',
    story: 'a day-2 worker reaching Done is added to the existing cluster',
    host: { status: H.InstallingInProgress, role: HostRole.Worker, ...inStage(HostStage.Joined) },
    ctx: { day2: true, clusterStatus: ClusterStatus.AddingHosts },
    event: { type: 'HostProgress', stage: HostStage.Done },
    expect: { status: H.AddedToExistingCluster, statusInfo: 'Done' },
  },
  {
    rule: 'host progress changed to installed',
    story: 'a day-1 master reaching Done is installed',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.Joined) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: { type: 'HostProgress', stage: HostStage.Done },
    expect: { status: H.Installed, statusInfo: 'Done' },
  },
  {
    rule: 'default host progress changed',
    story: 'the first stage moves an installing host to installing-in-progress',
    host: { status: H.Installing },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: { type: 'HostProgress', stage: HostStage.StartingInstallation },
    expect: { status: H.InstallingInProgress, statusInfo: 'Starting installation' },
  },
  // ---- RegisterHost ----
  {
    rule: 'Re-registration during preparation',
    story: 'a host rebooting while the cluster prepares is known again',
    host: { status: H.PreparingSuccessful },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation },
    event: REGISTER,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  {
    rule: 'Re-registration',
    story: 'an insufficient host registering again is discovered anew',
    host: { status: H.Insufficient },
    event: REGISTER,
    expect: { status: H.Discovering, statusInfo: 'Waiting for host to send hardware details' },
  },
  {
    rule: 'Ignore register while rebooting host in resetting',
    story: 'a resetting host that was rebooting keeps resetting',
    host: { status: H.Resetting, ...inStage(HostStage.Rebooting) },
    event: REGISTER,
    expect: { status: H.Resetting, statusInfo: 'previous info' },
  },
  {
    rule: 'Register non-rebooting host in resetting',
    story: 'a resetting host not in reboot is discovered anew',
    host: { status: H.Resetting, ...inStage(HostStage.Installing) },
    event: REGISTER,
    expect: { status: H.Discovering, statusInfo: 'Waiting for host to send hardware details' },
  },
  {
    rule: 'Wrong boot order detection (already pending user action)',
    story: 'a host already told to fix its boot order is refused again',
    host: { status: H.InstallingPendingUserAction, ...inStage(HostStage.Rebooting) },
    event: REGISTER,
    expect: { refused: 400, reason: `Host is required to be booted from disk ${INSTALL_DISK_ID}` },
  },
  {
    rule: 'Wrong boot order detection',
    story: 'a host that booted the discovery image after Rebooting must fix its boot order',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.Rebooting) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REGISTER,
    expect: {
      status: H.InstallingPendingUserAction,
      statusInfo: `Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk PERC H740P S3Z9NB0K ${diskLabel}`,
    },
  },
  {
    rule: 'Register during installation',
    story: 'a host restarting mid-install fails',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.WritingImageToDisk) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REGISTER,
    expect: {
      status: H.Error,
      statusInfo: 'The host unexpectedly restarted during the installation',
    },
  },
  {
    rule: 'Register during error',
    story: 'a failed host may register without change',
    host: { status: H.Error, statusInfo: 'Failed - boom' },
    event: REGISTER,
    expect: { status: H.Error, statusInfo: 'Failed - boom' },
  },
  {
    rule: 'Register post-installation',
    story: 'an installed host booting the ISO is asked to go away',
    host: { status: H.Installed },
    event: REGISTER,
    expect: {
      refused: 409,
      reason:
        'Host is trying to register after the cluster has already been installed. That most probably means that the host is booting from the installation ISO, and therefore not effectively joining the cluster. The request will be ignored. Fix the boot order and reboot the host.',
    },
  },
  // ---- Installation failed / cancel / install / reset ----
  {
    rule: 'Installation failed while host is installing',
    story: 'the install command failing puts the host in error',
    host: { status: H.Installing },
    event: { type: 'HostInstallationFailed' },
    expect: { status: H.Error, statusInfo: 'installation command failed' },
  },
  {
    rule: 'Installation canceled while host is installing',
    story: 'cancelling an installing host',
    host: { status: H.InstallingInProgress },
    event: { type: 'CancelInstallation' },
    expect: { status: H.Cancelled, statusInfo: 'Installation was cancelled by user' },
  },
  {
    rule: 'Cancel while preparing',
    story: 'cancelling a preparing host makes it known again with the reason',
    host: { status: H.PreparingForInstallation },
    event: { type: 'CancelInstallation', reason: 'stop' },
    expect: { status: H.Known, statusInfo: 'stop' },
  },
  {
    rule: 'Cancel while known',
    story: 'cancelling a known host changes nothing',
    host: { status: H.Known },
    event: { type: 'CancelInstallation' },
    expect: { status: H.Known, statusInfo: 'previous info' },
  },
  {
    rule: 'Install known host',
    story: 'a known day-2 host is installed on request',
    host: { status: H.Known, role: HostRole.Worker },
    ctx: { day2: true, clusterStatus: ClusterStatus.AddingHosts },
    event: { type: 'InstallHost' },
    expect: { status: H.Installing, statusInfo: 'Installation is in progress' },
  },
  {
    rule: 'Reset pending user action all states',
    story: 'a cluster reset asks for the host to boot the discovery image',
    host: { status: H.Installed },
    event: { type: 'ResetPendingUserAction' },
    expect: {
      status: H.ResettingPendingUserAction,
      statusInfo:
        'Host requires booting into the discovery image to complete resetting the installation',
    },
  },
  // ---- Unbind / reclaim ----
  {
    rule: 'Unbind pre-installation',
    story: 'unbinding a known host',
    host: { status: H.Known },
    event: { type: 'UnbindHost' },
    expect: { status: H.Unbinding, statusInfo: 'Host is waiting to be unbound from the cluster' },
  },
  {
    rule: 'Unbind during or after installation',
    story: 'unbinding an installed host needs the user',
    host: { status: H.Installed },
    event: { type: 'UnbindHost' },
    expect: {
      status: H.UnbindingPendingUserAction,
      statusInfo: 'Host is waiting to be unbound from the cluster',
    },
  },
  {
    rule: 'Reclaim successful host',
    story: 'reclaiming an installed host',
    host: { status: H.Installed },
    event: { type: 'ReclaimHost' },
    expect: { status: H.Reclaiming, statusInfo: 'Host is waiting to be unbound from the cluster' },
  },
  {
    rule: 'Rebooting for reclaim reclaiming host',
    story: 'a reclaimed host reboots into the discovery image',
    host: { status: H.Reclaiming },
    event: { type: 'RebootingForReclaim' },
    expect: {
      status: H.ReclaimingRebooting,
      statusInfo: 'Host is rebooting into the discovery image',
    },
  },
  {
    rule: 'Reclaim failure for reclaiming host',
    story: 'a failed reclaim needs the user',
    host: { status: H.ReclaimingRebooting },
    event: { type: 'ReclaimFailed' },
    expect: {
      status: H.UnbindingPendingUserAction,
      statusInfo: 'Host is waiting to be unbound from the cluster',
    },
  },
  {
    rule: 'Refresh reclaiming host',
    story: 'a reclaim that takes over an hour needs the user',
    host: { status: H.Reclaiming, statusUpdatedAt: ago(61 * MINUTE) },
    event: REFRESH,
    expect: {
      status: H.UnbindingPendingUserAction,
      statusInfo: 'Host is waiting to be unbound from the cluster',
    },
  },
  {
    rule: 'Reclaim pre-installation',
    story: 'reclaiming a host before install is an unbind',
    host: { status: H.Insufficient },
    event: { type: 'ReclaimHost' },
    expect: { status: H.Unbinding, statusInfo: 'Host is waiting to be unbound from the cluster' },
  },
  {
    rule: 'Reclaim failed host',
    story: 'reclaiming a failed host needs the user',
    host: { status: H.Error },
    event: { type: 'ReclaimHost' },
    expect: {
      status: H.UnbindingPendingUserAction,
      statusInfo: 'Host is waiting to be unbound from the cluster',
    },
  },
  // ---- Preparation ----
  {
    rule: 'Refresh known host in preparing cluster',
    story: 'a known master starts preparing with its cluster',
    host: { status: H.Known },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation },
    event: REFRESH,
    expect: {
      status: H.PreparingForInstallation,
      statusInfo: 'Host finished successfully to prepare for installation',
    },
  },
  {
    rule: 'Refresh successfully preparing host',
    story: 'disk speed and images checked: preparing succeeded',
    host: { status: H.PreparingForInstallation },
    ctx: {
      clusterStatus: ClusterStatus.PreparingForInstallation,
      installationDiskSpeedCheckSuccessful: true,
      containerImagesAvailable: true,
    },
    event: REFRESH,
    expect: {
      status: H.PreparingSuccessful,
      statusInfo: 'Host finished successfully to prepare for installation',
    },
  },
  {
    rule: 'Stay in preparing successful',
    story: 'a prepared host waits for its cluster',
    host: { status: H.PreparingSuccessful },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation },
    event: REFRESH,
    expect: { status: H.PreparingSuccessful, statusInfo: 'previous info' },
  },
  {
    rule: 'Move successfully prepared host to installing',
    story: 'a prepared host installs with its cluster',
    host: { status: H.PreparingSuccessful },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: { status: H.Installing, statusInfo: 'Installation is in progress' },
  },
  {
    rule: 'Move preparing host to known when cluster stops preparing',
    story: 'the cluster stopped preparing',
    host: { status: H.PreparingForInstallation },
    ctx: { clusterStatus: ClusterStatus.Ready },
    event: REFRESH,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  {
    rule: 'Preparing failed disk speed host move to insufficient',
    story: 'a too slow installation disk makes the host insufficient',
    host: { status: H.PreparingForInstallation },
    ctx: {
      clusterStatus: ClusterStatus.PreparingForInstallation,
      validations: validations({
        'sufficient-installation-disk-speed': ['failure', diskSpeedFailure],
      }),
    },
    event: REFRESH,
    expect: {
      status: H.Insufficient,
      statusInfo: `Host cannot be installed due to following failing validation(s): ${diskSpeedFailure}`,
    },
  },
  {
    rule: 'Preparing timed out host move to known',
    story: 'the disk speed check did not finish in 8 minutes',
    host: { status: H.PreparingForInstallation, statusUpdatedAt: ago(9 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation, containerImagesAvailable: true },
    event: REFRESH,
    expect: {
      status: H.PreparingFailed,
      statusInfo:
        'The host has encountered a preparation timeout, the following conditions failed: the installation disk speed check did not complete within the timeout.',
    },
  },
  {
    rule: 'Preparing failed image pull host move to preparing failed',
    story: 'images could not be pulled',
    host: { status: H.PreparingForInstallation },
    ctx: {
      clusterStatus: ClusterStatus.PreparingForInstallation,
      validations: validations({ 'container-images-available': ['failure', imageFailure] }),
    },
    event: REFRESH,
    expect: {
      status: H.PreparingFailed,
      statusInfo: `Host failed to prepare for installation due to following failing validation(s): ${imageFailure}`,
    },
  },
  {
    rule: 'Stay in preparing for installation',
    story: 'checks still running within the timeout',
    host: { status: H.PreparingForInstallation, statusUpdatedAt: ago(2 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation },
    event: REFRESH,
    expect: { status: H.PreparingForInstallation, statusInfo: 'previous info' },
  },
  {
    rule: 'Failed preparing to known when cluster is no longer preparing',
    story: 'a failed preparation ends with the cluster back to ready',
    host: { status: H.PreparingFailed },
    ctx: { clusterStatus: ClusterStatus.Ready },
    event: REFRESH,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  {
    rule: 'Successful preparing to known when cluster is no longer preparing',
    story: 'a prepared host whose cluster went back to ready',
    host: { status: H.PreparingSuccessful },
    ctx: { clusterStatus: ClusterStatus.Ready },
    event: REFRESH,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  {
    rule: 'Move host to disconnected when connected times out',
    story: 'a known host stops checking in',
    host: { status: H.Known },
    ctx: { connected: false },
    event: REFRESH,
    expect: {
      status: H.Disconnected,
      statusInfo: 'Host has stopped communicating with the installation service',
    },
  },
  // ---- Media ----
  {
    rule: 'Move to disconnected when virtual media disconnects pre-installation',
    story: 'the virtual media drops before install',
    host: { status: H.Known },
    event: { type: 'MediaDisconnect' },
    expect: { status: H.Disconnected, statusInfo: I.mediaDisconnected },
  },
  {
    rule: 'Move to error when virtual media disconnects post-installation',
    story: 'the virtual media drops during install of a failed host: diagnosis added once',
    host: { status: H.Error, statusInfo: 'Failed - disk write error' },
    event: { type: 'MediaDisconnect' },
    expect: {
      status: H.Error,
      statusInfo: `Failed - ${I.mediaDisconnected}. Failed - disk write error`,
    },
  },
  // ---- Installing ----
  {
    rule: 'Move host to error when cluster is in error',
    story: 'the cluster failed',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.Installing) },
    ctx: { clusterStatus: ClusterStatus.Error },
    event: REFRESH,
    expect: { status: H.Error, statusInfo: 'Host is part of a cluster that failed to install' },
  },
  {
    rule: 'Move host to error when installation times out',
    story: 'the host never started installing in 20 minutes',
    host: { status: H.Installing, statusUpdatedAt: ago(21 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo: 'Host failed to install due to timeout while starting installation',
    },
  },
  {
    rule: 'Move preparing host to disconnected when connection times out',
    story: 'a preparing host stops checking in',
    host: { status: H.PreparingSuccessful },
    ctx: { clusterStatus: ClusterStatus.PreparingForInstallation, connected: false },
    event: REFRESH,
    expect: {
      status: H.Disconnected,
      statusInfo:
        'Host failed to install due to timeout while connecting to host during the preparation phase.',
    },
  },
  {
    rule: 'Move installing host to error when connection times out',
    story: 'an installing host stops checking in before its reboot',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.WritingImageToDisk) },
    ctx: { clusterStatus: ClusterStatus.Installing, connected: false },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo:
        'Host failed to install due to timeout while connecting to host during the installation phase.',
    },
  },
  {
    rule: 'Ignore timeout if host is in particular installation in progress stages',
    story: 'a late control plane is forgiven while the cluster waits for a user',
    host: {
      status: H.InstallingInProgress,
      ...inStage(HostStage.WaitingForControlPlane, 3 * 60 * MINUTE),
    },
    ctx: { clusterStatus: ClusterStatus.InstallingPendingUserAction },
    event: REFRESH,
    expect: { status: H.InstallingInProgress, statusInfo: 'previous info' },
  },
  {
    rule: 'Move to error on timeout if host is in particular installation in progress stages other than [writing-image-to-disk, copying-registry-data-to-disk, rebooting]',
    story: 'Installing took over an hour',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.Installing, 61 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Installing took longer than expected 1h0m0s',
    },
  },
  {
    rule: 'Move to error on timeout if host is in particular installation in progress stage writing-image-to-disk',
    story: 'writing the image made no progress for 30 minutes',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.WritingImageToDisk, 31 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Writing image to disk did not sufficiently progress in the last 30m0s.',
    },
  },
  {
    rule: 'Move to error on timeout if host is in particular installation in progress stage copying-registry-data-to-disk',
    story: 'copying registry data made no progress for 90 minutes',
    host: {
      status: H.InstallingInProgress,
      ...inStage(HostStage.CopyingRegistryData, 91 * MINUTE),
    },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo:
        'Host failed to install because its installation stage Copying registry data to disk did not sufficiently progress in the last 1h30m0s.',
    },
  },
  {
    rule: 'Tell user about boot order wen reboot takes too long',
    story: 'a reboot longer than 40 minutes asks the user to check the boot disk',
    host: { status: H.InstallingInProgress, ...inStage(HostStage.Rebooting, 41 * MINUTE) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: {
      status: H.InstallingPendingUserAction,
      statusInfo: `Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk ${diskLabel} and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API`,
    },
  },
  {
    rule: 'Host pending user action timeout with cluster viability check (day1 only)',
    story: 'a worker stuck for an hour is given up when the cluster succeeds without it',
    host: {
      id: 'w9',
      status: H.InstallingPendingUserAction,
      role: HostRole.Worker,
      statusUpdatedAt: ago(61 * MINUTE),
    },
    ctx: {
      clusterStatus: ClusterStatus.InstallingPendingUserAction,
      cluster: {
        controlPlaneAgents: 3,
        arbiterAgents: 0,
        hosts: [
          ...hostsIn(H.Installed, 3, 2),
          host({ id: 'w9', status: H.InstallingPendingUserAction, role: HostRole.Worker }),
        ],
      },
    },
    event: REFRESH,
    expect: {
      status: H.Error,
      statusInfo: 'Host failed to boot from the installation disk within the expected time.',
    },
  },
  ...[
    H.Installing,
    H.InstallingInProgress,
    H.Installed,
    H.InstallingPendingUserAction,
    H.ResettingPendingUserAction,
  ].map((s): Scenario => ({
    rule: `Refresh during ${s} state without cluster error should stay in ${s} state`,
    story: `${s} stays while the cluster is fine`,
    host: { status: s, ...inStage(HostStage.Installing) },
    ctx: { clusterStatus: ClusterStatus.Installing },
    event: REFRESH,
    expect: { status: s, statusInfo: 'previous info' },
  })),
  // ---- Discovery ----
  {
    rule: 'Host reconnected without inventory',
    story: 'a reconnected host without inventory is discovering',
    host: { status: H.Disconnected },
    ctx: { validations: validations({ 'has-inventory': 'failure' }) },
    event: REFRESH,
    expect: { status: H.Discovering, statusInfo: 'Waiting for host to send hardware details' },
  },
  {
    rule: 'Host has insufficient hardware',
    story: 'too few cores and too little memory: both messages, sorted, joined',
    host: { status: H.Discovering },
    ctx: {
      validations: validations({
        'has-min-memory': ['failure', memoryFailure],
        'has-min-cpu-cores': ['failure', cpuFailure],
        'has-inventory': 'success',
      }),
    },
    event: REFRESH,
    expect: {
      status: H.Insufficient,
      statusInfo: `Host does not meet the minimum hardware requirements: ${cpuFailure} ; ${memoryFailure}`,
    },
  },
  {
    rule: 'Host pending input',
    story: 'no machine network yet',
    host: { status: H.Insufficient },
    ctx: { validations: validations({ 'machine-cidr-defined': ['failure', cidrFailure] }) },
    event: REFRESH,
    expect: { status: H.PendingForInput, statusInfo: `Waiting for user input: ${cidrFailure}` },
  },
  {
    rule: 'Host not ready',
    story: 'a duplicate hostname keeps the host insufficient',
    host: { status: H.Known },
    ctx: {
      validations: validations({
        'hostname-unique': ['failure', 'Hostname worker-0 is not unique in cluster'],
      }),
    },
    event: REFRESH,
    expect: {
      status: H.Insufficient,
      statusInfo:
        'Host cannot be installed due to following failing validation(s): Hostname worker-0 is not unique in cluster',
    },
  },
  {
    rule: 'Host ready',
    story: 'all required validations pass',
    host: { status: H.Insufficient },
    ctx: { validations: validations({ 'has-inventory': 'success', 'ntp-synced': 'failure' }) },
    event: REFRESH,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  {
    rule: 'Host stay ready',
    story: 'a known host stays known',
    host: { status: H.Known, statusInfo: 'Host is ready to be installed' },
    event: REFRESH,
    expect: { status: H.Known, statusInfo: 'Host is ready to be installed' },
  },
  ...[H.Error, H.Cancelled, H.Resetting].map((s): Scenario => ({
    rule: `Refresh during ${s} should stay in ${s}`,
    story: `${s} stays`,
    host: { status: s },
    event: REFRESH,
    expect: { status: s, statusInfo: 'previous info' },
  })),
  {
    rule: 'Day 2 hosts should stay in added state',
    story: 'an added day-2 host stays added',
    host: { status: H.AddedToExistingCluster },
    ctx: { day2: true, clusterStatus: ClusterStatus.AddingHosts },
    event: REFRESH,
    expect: { status: H.AddedToExistingCluster, statusInfo: 'previous info' },
  },
  ...[H.Reclaiming, H.ReclaimingRebooting].map((s): Scenario => ({
    rule: `Refresh without timeout during ${s} should stay in ${s}`,
    story: `${s} within the hour stays`,
    host: { status: s },
    event: REFRESH,
    expect: { status: s, statusInfo: 'previous info' },
  })),
  // ---- Unbound (pool) ----
  {
    rule: 'Re-registration (unbound)',
    story: 'an unbound host registering again is discovered anew',
    host: { status: H.KnownUnbound, clusterId: undefined },
    ctx: { bound: false },
    event: REGISTER,
    expect: {
      status: H.DiscoveringUnbound,
      statusInfo: 'Waiting for host to send hardware details',
    },
  },
  {
    rule: 'Bind host',
    story: 'binding a ready unbound host',
    host: { status: H.KnownUnbound },
    event: { type: 'BindHost' },
    expect: { status: H.Binding, statusInfo: 'Host is waiting to be bound to the cluster' },
  },
  {
    rule: 'Move host to disconnected when connected times out (unbound)',
    story: 'an unbound host stops checking in',
    host: { status: H.KnownUnbound },
    ctx: { bound: false, connected: false },
    event: REFRESH,
    expect: {
      status: H.DisconnectedUnbound,
      statusInfo: 'Host has stopped communicating with the installation service',
    },
  },
  {
    rule: 'Move to disconnected when virtual media disconnects pre-installation (unbound)',
    story: 'the virtual media of an unbound host drops',
    host: { status: H.KnownUnbound },
    ctx: { bound: false },
    event: { type: 'MediaDisconnect' },
    expect: { status: H.DisconnectedUnbound, statusInfo: I.mediaDisconnected },
  },
  {
    rule: 'Host reconnected without inventory (unbound)',
    story: 'an unbound host without inventory is discovering',
    host: { status: H.DiscoveringUnbound },
    ctx: { bound: false, validations: validations({ 'inventory-not-fully-truncated': 'failure' }) },
    event: REFRESH,
    expect: {
      status: H.DiscoveringUnbound,
      statusInfo: 'Waiting for host to send hardware details',
    },
  },
  {
    rule: 'Host has insufficient hardware (unbound)',
    story: 'an unbound host with too few cores',
    host: { status: H.DiscoveringUnbound },
    ctx: {
      bound: false,
      validations: validations({ 'has-min-cpu-cores': ['failure', cpuFailure] }),
    },
    event: REFRESH,
    expect: {
      status: H.InsufficientUnbound,
      statusInfo: `Host does not meet the minimum hardware requirements: ${cpuFailure}`,
    },
  },
  ...[H.Binding, H.Unbinding].map((s): Scenario => ({
    rule: `Refresh during ${s} should stay in ${s}`,
    story: `${s} stays`,
    host: { status: s },
    ctx: { bound: s === H.Binding },
    event: REFRESH,
    expect: { status: s, statusInfo: 'previous info' },
  })),
  {
    rule: 'Host ready (unbound)',
    story: 'an unbound host with enough hardware is ready to be bound',
    host: { status: H.InsufficientUnbound },
    ctx: { bound: false, validations: validations({ 'machine-cidr-defined': 'failure' }) },
    event: REFRESH,
    expect: { status: H.KnownUnbound, statusInfo: 'Host is ready to be bound to a cluster' },
  },
];

/** Rows no event can reach, and why. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  'Initial registration': 'reached through registerNewHost (tested below)',
  'Initial registration (unbound)': 'reached through registerNewHost (tested below)',
  'Host progress change during installed state should stay in installed state':
    'progress is refused outside the installing statuses before the table runs',
  'Host progress change during resetting-pending-user-action state should stay in resetting-pending-user-action state':
    'progress is refused outside the installing statuses before the table runs',
  'Host progress change during installing-pending-user-action state should stay in installing-pending-user-action state':
    'the default progress row (listed first) already takes installing-pending-user-action',
};

function expectOutcome(result: HostTransitionResult, expected: Expected): void {
  if ('refused' in expected) {
    expect(result).toMatchObject({
      ok: false,
      httpStatus: expected.refused,
      reason: expected.reason,
    });
  } else {
    expect(result).toMatchObject({
      ok: true,
      status: expected.status,
      statusInfo: expected.statusInfo,
    });
  }
}

describe('host transitions, one story per upstream rule', () => {
  it.each(scenarios.map((s) => [s.story, s] as const))('%s', (_story, s) => {
    const result = applyHostEvent(host(s.host), s.event, hostCtx(s.ctx));
    expectOutcome(result, s.expect);
    if (result.ok) expect(result.rule).toBe(s.rule);
  });

  it('has a story for every row of the table, or says why the row cannot be reached', () => {
    const told = new Set(scenarios.map((s) => s.rule));
    const untold = hostTransitions
      .map((row) => row.name)
      .filter((name) => !told.has(name) && !(name in UNREACHABLE));
    expect(untold).toEqual([]);
  });
});

describe('registering a new host', () => {
  it('starts a bound host in discovering with the auto-assign role', () => {
    expect(registerNewHost(hostCtx())).toMatchObject({
      status: H.Discovering,
      statusInfo: 'Waiting for host to send hardware details',
      role: HostRole.AutoAssign,
      bootstrap: false,
    });
  });

  it('makes the host of a single-node cluster its master and bootstrap', () => {
    expect(registerNewHost(hostCtx({ sno: true }))).toMatchObject({
      role: HostRole.Master,
      bootstrap: true,
    });
  });

  it('makes a day-2 host a worker', () => {
    expect(registerNewHost(hostCtx({ day2: true }))).toMatchObject({ role: HostRole.Worker });
  });

  it('starts an unbound host in discovering-unbound', () => {
    expect(registerNewHost(hostCtx({ bound: false }))).toMatchObject({
      status: H.DiscoveringUnbound,
      statusInfo: 'Waiting for host to send hardware details',
      rule: 'Initial registration (unbound)',
    });
  });
});

describe('what else changes with a transition', () => {
  it('forgets inventory, progress and bootstrap when a host registers again', () => {
    const result = applyHostEvent(
      host({ status: H.Known, bootstrap: true, ...inStage(HostStage.Installing) }),
      REGISTER,
      hostCtx(),
    );
    expect(result).toMatchObject({
      ok: true,
      progress: {},
      clearInventory: true,
      bootstrap: false,
    });
  });

  it('keeps inventory and bootstrap but resets the cluster preparation when a preparing host registers again', () => {
    const result = applyHostEvent(
      host({ status: H.PreparingForInstallation, bootstrap: true }),
      REGISTER,
      hostCtx(),
    );
    expect(result).toMatchObject({ ok: true, progress: {}, resetClusterPreparation: true });
    expect(result).not.toHaveProperty('clearInventory');
    expect(result).not.toHaveProperty('bootstrap');
  });

  it('drops the cluster binding and role on unbind', () => {
    const result = applyHostEvent(host({ status: H.Known }), { type: 'UnbindHost' }, hostCtx());
    expect(result).toMatchObject({
      ok: true,
      unbind: true,
      role: HostRole.AutoAssign,
      clearInventory: true,
    });
  });

  it('says a status or text change happened only when one did', () => {
    const stays = applyHostEvent(host({ status: H.Error }), REFRESH, hostCtx());
    expect(stays).toMatchObject({ ok: true, changed: false });
    const moves = applyHostEvent(host({ status: H.Known }), REFRESH, hostCtx({ connected: false }));
    expect(moves).toMatchObject({ ok: true, changed: true, statusChanged: true });
    const newText = applyHostEvent(host({ status: H.Known }), REFRESH, hostCtx());
    expect(newText).toMatchObject({ ok: true, changed: true, statusChanged: false });
  });

  it('refreshes the stage update time once a minute while a stage timeout is forgiven', () => {
    const old = applyHostEvent(
      host({ status: H.InstallingInProgress, ...inStage(HostStage.Rebooting, 2 * 60 * MINUTE) }),
      REFRESH,
      hostCtx({ clusterStatus: ClusterStatus.InstallingPendingUserAction }),
    );
    expect(old).toMatchObject({ ok: true, progress: { stageUpdatedAt: NOW.toISOString() } });
    const fresh = applyHostEvent(
      host({ status: H.InstallingInProgress, ...inStage(HostStage.Rebooting, 30_000) }),
      REFRESH,
      hostCtx({ clusterStatus: ClusterStatus.InstallingPendingUserAction }),
    );
    expect(fresh).not.toHaveProperty('progress');
  });
});

describe('refusals', () => {
  it('refuses to install a day-1 host directly (it installs through its cluster)', () => {
    expect(applyHostEvent(host({ status: H.Known }), { type: 'InstallHost' }, hostCtx())).toEqual({
      ok: false,
      httpStatus: 409,
      reason: 'no condition found to run transition',
    });
  });

  it('answers an unexpected registration with 400', () => {
    expect(applyHostEvent(host({ status: H.Cancelled }), REGISTER, hostCtx())).toMatchObject({
      ok: false,
      httpStatus: 400,
    });
  });

  it('refuses the wrong-boot-order transition when the host has no known installation disk', () => {
    const result = applyHostEvent(
      host({
        status: H.InstallingInProgress,
        installationDiskId: '/dev/nvme9n1',
        ...inStage(HostStage.Rebooting),
      }),
      REGISTER,
      hostCtx(),
    );
    expect(result).toMatchObject({
      ok: false,
      httpStatus: 400,
      reason: `PostRegisterDuringReboot Could not find installation disk /dev/nvme9n1 for host ${host().id}`,
    });
  });
});

describe('validations and ignores', () => {
  it('counts an ignored validation as passing', () => {
    const ctx = hostCtx({
      validations: validations({
        'belongs-to-majority-group': [
          'failure',
          'No connectivity to the majority of hosts in the cluster',
        ],
      }),
    });
    expect(applyHostEvent(host({ status: H.Insufficient }), REFRESH, ctx)).toMatchObject({
      status: H.Insufficient,
    });
    expect(
      applyHostEvent(host({ status: H.Insufficient }), REFRESH, {
        ...ctx,
        ignoredValidations: ['belongs-to-majority-group'],
      }),
    ).toMatchObject({ status: H.Known });
    expect(
      applyHostEvent(host({ status: H.Insufficient }), REFRESH, {
        ...ctx,
        ignoredValidations: ['all'],
      }),
    ).toMatchObject({ status: H.Known });
  });

  it('never ignores a non-ignorable validation, even with all', () => {
    const ctx = hostCtx({
      validations: validations({
        'hostname-unique': ['failure', 'Hostname a is not unique in cluster'],
      }),
      ignoredValidations: ['all', 'hostname-unique'],
    });
    expect(applyHostEvent(host({ status: H.Known }), REFRESH, ctx)).toMatchObject({
      status: H.Insufficient,
    });
  });

  it('counts a pending required validation as failing but leaves it out of the message', () => {
    const ctx = hostCtx({
      validations: validations({
        'belongs-to-majority-group': [
          'pending',
          'Not enough hosts in cluster to calculate connectivity groups',
        ],
        'has-default-route': ['failure', 'Host has not yet been configured with a default route.'],
      }),
    });
    expect(applyHostEvent(host({ status: H.Known }), REFRESH, ctx)).toMatchObject({
      status: H.Insufficient,
      statusInfo:
        'Host cannot be installed due to following failing validation(s): Host has not yet been configured with a default route.',
    });
  });

  it('keeps a host without inventory discovering even when no validation was reported', () => {
    const result = applyHostEvent(
      host({ status: H.Discovering, inventory: undefined }),
      REFRESH,
      hostCtx(),
    );
    expect(result).toMatchObject({
      ok: true,
      status: H.Discovering,
      rule: 'Host reconnected without inventory',
    });
  });

  it('does not count a disconnection after the host rebooted into its disk', () => {
    const result = applyHostEvent(
      host({ status: H.InstallingInProgress, ...inStage(HostStage.Configuring) }),
      REFRESH,
      hostCtx({ connected: false, clusterStatus: ClusterStatus.Installing }),
    );
    expect(result).toMatchObject({ ok: true, status: H.InstallingInProgress });
  });
});
