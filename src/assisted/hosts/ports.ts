/**
 * What the host side of the assisted core needs from the other parts of it: the host state
 * machine (transitions and next-step plans), the host validations, the agent API's instruction
 * builder and the cluster side's records. The HostService sees only these interfaces, so each
 * part can be written, tested and replaced on its own.
 */
import type { Instruction } from '../agent-api/backend.js';
import type {
  ClusterRecord,
  HostRecord,
  HostRole,
  HostStage,
  StepType,
  ValidationsInfo,
} from '../model.js';

/** The events that move a host between statuses (assisted.md §4.2). */
export type HostEvent =
  | { readonly type: 'RegisterHost'; readonly discoveryAgentVersion?: string }
  /** The monitor's periodic re-evaluation, with fresh validations. */
  | { readonly type: 'Refresh' }
  | {
      readonly type: 'BindHost';
      readonly clusterId: string;
      readonly clusterDeploymentName: string;
    }
  | { readonly type: 'UnbindHost' }
  | { readonly type: 'InstallHost' }
  | {
      readonly type: 'HostProgressChanged';
      readonly currentStage: HostStage;
      readonly progressInfo?: string;
    }
  | { readonly type: 'HostInstallationFailed'; readonly reason: string }
  | { readonly type: 'MediaDisconnect' }
  | { readonly type: 'CancelInstallation'; readonly reason: string }
  | { readonly type: 'ResetHost'; readonly reason: string }
  | { readonly type: 'PrepareForInstallation' };

/** What a transition may read besides the host itself. */
export interface HostMachineContext {
  readonly now: Date;
  /** The cluster the host is bound to, when it is bound and the cluster side knows it. */
  readonly cluster?: ClusterRecord;
  /** The host's validations as of now (Refresh decides from them). */
  readonly validations: ValidationsInfo;
  /** Whether the agent checked in recently enough (assisted.md §4.2 last line). */
  readonly connected: boolean;
  /** The host joins an installed cluster (Agent `status.kind` AddToExistingClusterHost). */
  readonly day2: boolean;
  /** Every host bound to the same cluster (the host itself included). */
  readonly clusterHosts: readonly HostRecord[];
}

/** A refused event or call, with the status code the API answers with. */
export interface HostRefusal {
  readonly ok: false;
  readonly httpStatus: 400 | 404 | 409;
  readonly reason: string;
}

/** The host after an event, or why the event was refused. */
export type HostEventOutcome = { readonly ok: true; readonly host: HostRecord } | HostRefusal;

/** The plan of `GET …/instructions` for a host in its status (assisted.md §4.5). */
export interface StepPlan {
  readonly stepTypes: readonly StepType[];
  readonly nextInstructionSeconds: number;
  readonly postStepAction: 'continue' | 'exit';
}

/** The host state machine as data (src/assisted/state). */
export interface HostMachine {
  /** The host after `event`; unchanged fields are kept. A no-op event returns the same host. */
  apply(host: HostRecord, event: HostEvent, context: HostMachineContext): HostEventOutcome;
  /** The steps the agent runs next. */
  nextSteps(host: HostRecord, context: HostMachineContext): StepPlan;
  /** The install stages of the host's role, in order (assisted.md §4.3). */
  progressStages?(host: HostRecord, cluster: ClusterRecord | undefined): readonly HostStage[];
}

/** What validations may read besides the host itself. */
export interface HostValidationContext {
  readonly now: Date;
  readonly cluster?: ClusterRecord;
  /** Every host bound to the same cluster (connectivity majority, hostname uniqueness). */
  readonly clusterHosts: readonly HostRecord[];
  /** Whether the agent checked in recently enough. */
  readonly connected: boolean;
  /** The agent's clock (Unix seconds) at its last check-in, when it said. */
  readonly agentTimestamp?: number;
  /** `disconnected` once a step failed with the media-disconnected exit code. */
  readonly mediaStatus?: 'connected' | 'disconnected';
}

/** The host validations (src/assisted/validations). */
export interface HostValidator {
  /**
   * Must depend on nothing but the record (not its `checkedInAt`), the cluster's record and
   * hosts, `connected`, `mediaStatus`, and `now` only through the agent clock's standing
   * (agentClockState): the HostService reuses the last result while these stay the same.
   */
  validate(host: HostRecord, context: HostValidationContext): ValidationsInfo;
  /** The installation disks the host may use, most preferred first: disk ids (assisted.md §5). */
  validDisks(host: HostRecord, cluster: ClusterRecord | undefined): readonly string[];
}

/** What an instruction's arguments are made from. */
export interface InstructionContext {
  readonly host: HostRecord;
  readonly cluster?: ClusterRecord;
  readonly clusterHosts: readonly HostRecord[];
}

/** Builds one next-step instruction with its arguments (src/assisted/agent-api/steps.ts). */
export interface InstructionBuilder {
  /** The instruction, or undefined where upstream sends no such step to this host now. */
  build(type: StepType, context: InstructionContext): Instruction | undefined;
}

/** The cluster side's records (src/assisted/clusters), as the host side reads them. */
export interface ClusterDirectory {
  /** The cluster whose ClusterDeployment `metadata.uid` is `id`. */
  byId(id: string): ClusterRecord | undefined;
  /** The cluster of the ClusterDeployment `namespace/name`. */
  byDeployment(namespace: string, name: string): ClusterRecord | undefined;
  /**
   * Why the cluster takes no new host (`AcceptRegistration`: e.g. installing), answered 409;
   * undefined when it does.
   */
  registrationRefusal(cluster: ClusterRecord): string | undefined;
}

/** A role chosen for a host by the cluster side (auto-assign, bootstrap selection). */
export interface RoleAssignment {
  readonly role?: HostRole;
  readonly suggestedRole?: HostRole;
  readonly bootstrap?: boolean;
}
