/**
 * Which steps the agent is given per host status (assisted.md §4.5), as upstream's three maps in
 * `internal/host/hostcommands/instruction_manager.go`: day-1 hosts, day-2 hosts, unbound hosts.
 * The step types are the candidates: each step's builder may still give nothing (a
 * connectivity check with a single host, DHCP leases without VIP DHCP allocation, logs already
 * collected, free addresses in kube-api mode), as upstream's command getters do.
 */
import { HostStatus, StepType } from '../model.js';
import type { HostRecord } from '../model.js';

/** What the agent does after running the steps: keep polling, or exit (binding, unbinding). */
export type PostStepAction = 'continue' | 'exit';

export interface NextStepPlan {
  readonly stepTypes: readonly StepType[];
  readonly nextInstructionSeconds: number;
  readonly postStepAction: PostStepAction;
}

export interface NextStepContext {
  /** The host is bound to a cluster. */
  readonly bound: boolean;
  /** The host joins an installed cluster. */
  readonly day2: boolean;
}

/** `defaultNextInstructionInSec`. */
export const DEFAULT_NEXT_INSTRUCTION_SECONDS = 60;
/** `defaultBackedOffInstructionInSec`. */
export const BACKED_OFF_NEXT_INSTRUCTION_SECONDS = 120;

const H = HostStatus;
const T = StepType;
const DEFAULT = DEFAULT_NEXT_INSTRUCTION_SECONDS;
const BACKED_OFF = BACKED_OFF_NEXT_INSTRUCTION_SECONDS;

function plan(
  stepTypes: readonly StepType[],
  nextInstructionSeconds: number,
  postStepAction: PostStepAction = 'continue',
): NextStepPlan {
  return { stepTypes, nextInstructionSeconds, postStepAction };
}

type StepTable = Readonly<Partial<Record<HostStatus, NextStepPlan>>>;

/** `installingClusterStateToSteps`: hosts of a day-1 cluster. */
export const DAY1_NEXT_STEPS: StepTable = {
  [H.Known]: plan(
    [
      T.ConnectivityCheck,
      T.TangConnectivityCheck,
      T.FreeNetworkAddresses,
      T.DhcpLeaseAllocate,
      T.Inventory,
      T.NtpSynchronizer,
      T.DomainResolution,
      T.VerifyVips,
    ],
    DEFAULT,
  ),
  [H.Insufficient]: plan(
    [
      T.Inventory,
      T.ConnectivityCheck,
      T.TangConnectivityCheck,
      T.FreeNetworkAddresses,
      T.DhcpLeaseAllocate,
      T.NtpSynchronizer,
      T.DomainResolution,
      T.VerifyVips,
    ],
    DEFAULT,
  ),
  [H.Disconnected]: plan([T.Inventory], BACKED_OFF),
  [H.Discovering]: plan([T.Inventory], DEFAULT),
  [H.PendingForInput]: plan(
    [
      T.Inventory,
      T.ConnectivityCheck,
      T.TangConnectivityCheck,
      T.FreeNetworkAddresses,
      T.DhcpLeaseAllocate,
      T.NtpSynchronizer,
      T.DomainResolution,
      T.VerifyVips,
    ],
    DEFAULT,
  ),
  [H.Installing]: plan([T.Install, T.DhcpLeaseAllocate], DEFAULT),
  [H.InstallingInProgress]: plan([T.DhcpLeaseAllocate], DEFAULT),
  [H.PreparingForInstallation]: plan(
    [T.DhcpLeaseAllocate, T.InstallationDiskSpeedCheck, T.ContainerImageAvailability],
    DEFAULT,
  ),
  [H.Disabled]: plan([], BACKED_OFF),
  [H.Resetting]: plan([], BACKED_OFF),
  [H.Error]: plan([T.LogsGather, T.StopInstallation], BACKED_OFF),
  [H.Cancelled]: plan([T.LogsGather, T.StopInstallation], BACKED_OFF),
  [H.Binding]: plan([], 0, 'exit'),
};

/** `addHostsClusterToSteps`: hosts joining an installed cluster. */
export const DAY2_NEXT_STEPS: StepTable = {
  [H.Known]: plan(
    [
      T.ConnectivityCheck,
      T.ApiVipConnectivityCheck,
      T.TangConnectivityCheck,
      T.Inventory,
      T.NtpSynchronizer,
      T.DomainResolution,
    ],
    DEFAULT,
  ),
  [H.Insufficient]: plan(
    [
      T.Inventory,
      T.ConnectivityCheck,
      T.ApiVipConnectivityCheck,
      T.TangConnectivityCheck,
      T.NtpSynchronizer,
      T.DomainResolution,
    ],
    DEFAULT,
  ),
  [H.Disconnected]: plan([T.Inventory], BACKED_OFF),
  [H.Discovering]: plan([T.Inventory, T.NtpSynchronizer, T.DomainResolution], DEFAULT),
  [H.PendingForInput]: plan(
    [T.Inventory, T.ConnectivityCheck, T.ApiVipConnectivityCheck, T.TangConnectivityCheck],
    DEFAULT,
  ),
  [H.Installing]: plan([T.Install], DEFAULT),
  [H.InstallingInProgress]: plan([], DEFAULT),
  [H.Disabled]: plan([], BACKED_OFF),
  [H.Resetting]: plan([], BACKED_OFF),
  [H.Error]: plan([T.LogsGather, T.StopInstallation], BACKED_OFF),
  [H.Cancelled]: plan([T.LogsGather, T.StopInstallation], BACKED_OFF),
};

/** `poolHostToSteps`: hosts not bound to a cluster. */
export const UNBOUND_NEXT_STEPS: StepTable = {
  [H.DiscoveringUnbound]: plan([T.Inventory, T.NtpSynchronizer], DEFAULT),
  [H.DisconnectedUnbound]: plan([T.Inventory], BACKED_OFF),
  [H.DisabledUnbound]: plan([], BACKED_OFF),
  [H.InsufficientUnbound]: plan([T.Inventory, T.NtpSynchronizer], DEFAULT),
  [H.KnownUnbound]: plan([T.Inventory, T.NtpSynchronizer], DEFAULT),
  [H.Unbinding]: plan([], 0, 'exit'),
  [H.UnbindingPendingUserAction]: plan([], 0, 'exit'),
  [H.Reclaiming]: plan([T.DownloadBootArtifacts], DEFAULT),
  [H.ReclaimingRebooting]: plan([T.RebootForReclaim], BACKED_OFF, 'exit'),
};

/** A status no map lists: nothing to run, ask again in a minute. */
const NOTHING = plan([], DEFAULT);

/**
 * The steps for `host` in its status: unbound hosts by the pool map, day-2 hosts by the
 * add-hosts map, others by the day-1 map; a status the map does not list gets no steps and the
 * default 60 s.
 */
export function nextStepPlan(host: Pick<HostRecord, 'status'>, ctx: NextStepContext): NextStepPlan {
  let table = DAY1_NEXT_STEPS;
  if (ctx.day2) table = DAY2_NEXT_STEPS;
  if (!ctx.bound) table = UNBOUND_NEXT_STEPS;
  return table[host.status] ?? NOTHING;
}
