/**
 * The port between the agent API (HTTP, wire JSON, authentication) and the assisted core that
 * answers it (host records, state machines, validations). The API authenticates first, then
 * calls the backend with an InfraEnv it has proved the caller may speak for; the backend never
 * sees a token, the API never changes a record itself.
 */
import type { HostProgress, HostRecord, HostStage, StepType } from '../model.js';

/** An InfraEnv the agent API may serve: its `metadata.uid` is the InfraEnv id of the wire. */
export interface InfraEnvRef {
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
}

/** One instruction of `GET …/instructions` (wire: `{step_type, step_id, args}`). */
export interface Instruction {
  readonly stepType: StepType;
  /** `<step_type>-<8 hex>`. */
  readonly stepId: string;
  readonly args: readonly string[];
}

/** The answer to `GET …/instructions` (wire: `steps`). */
export interface Steps {
  readonly nextInstructionSeconds: number;
  readonly postStepAction: 'continue' | 'exit';
  readonly instructions: readonly Instruction[];
}

/** A step reply (wire: `step-reply{step_type, step_id, exit_code, output, error}`). */
export interface StepReply {
  readonly stepType: StepType;
  readonly stepId: string;
  readonly exitCode: number;
  /** The step's JSON output, as a string (inventory, ntp, connectivity, …). */
  readonly output: string;
  readonly error: string;
}

/** A refusal the API turns into the upstream status code and `error{code, reason}` body. */
export interface Refusal {
  readonly ok: false;
  /** 503 means "not yet": the API adds Retry-After and the agent retries. */
  readonly httpStatus: 400 | 404 | 409 | 503;
  readonly reason: string;
}

export type Outcome<T> = { readonly ok: true; readonly value: T } | Refusal;

/** What the agent API asks of the assisted core. `now` is the request's arrival. */
export interface AgentApiBackend {
  /** The InfraEnv with this id when it exists and is not being deleted. */
  infraEnv(id: string): InfraEnvRef | undefined;
  /** `POST /v2/infra-envs/{id}/hosts`: creates or re-registers the host (and its Agent). */
  registerHost(
    infraEnv: InfraEnvRef,
    hostId: string,
    discoveryAgentVersion: string | undefined,
    now: Date,
  ): Promise<Outcome<HostRecord>>;
  /** `GET …/hosts/{host_id}/instructions`: also the host's check-in. */
  nextSteps(infraEnv: InfraEnvRef, hostId: string, now: Date): Promise<Outcome<Steps>>;
  /** `POST …/hosts/{host_id}/instructions`. */
  postStepReply(
    infraEnv: InfraEnvRef,
    hostId: string,
    reply: StepReply,
    now: Date,
  ): Promise<Outcome<undefined>>;
  /** `PUT …/hosts/{host_id}/progress`: 409 when the stage is not allowed (assisted.md §4.3). */
  updateProgress(
    infraEnv: InfraEnvRef,
    hostId: string,
    progress: Pick<HostProgress, 'currentStage' | 'progressInfo'>,
    now: Date,
  ): Promise<Outcome<HostRecord>>;
  /** The host as `GET …/hosts/{host_id}` shows it. */
  host(infraEnv: InfraEnvRef, hostId: string): HostRecord | undefined;
  /** `POST /v2/clusters/{id}/logs?host_id=…&logs_type=host`: the upload has been stored. */
  logsUploaded(infraEnv: InfraEnvRef, hostId: string, now: Date): Promise<Outcome<undefined>>;
}

// ---- Appended by the agent API: optional capabilities a backend may offer ----------------

/** swagger `logs_state`: the host's log collection as the agent's logs_sender reports it. */
export type LogsState = 'requested' | 'collecting' | 'completed' | 'timeout' | '';

/**
 * What the agent API passes on when the backend implements it (each member optional, so every
 * AgentApiBackend is one). Without `updateLogsProgress`, `PUT …/logs-progress` answers 204 for
 * a known host and 404 otherwise.
 */
export interface AgentApiBackendExtras {
  /** `PUT …/hosts/{host_id}/logs-progress`. */
  updateLogsProgress?(
    infraEnv: InfraEnvRef,
    hostId: string,
    logsState: LogsState,
    now: Date,
  ): Promise<Outcome<undefined>>;
  /**
   * Each `GET …/instructions` before nextSteps: the `discovery_agent_version` header and the
   * host's clock (`timestamp` query, Unix seconds), which upstream stores on the host.
   */
  agentCheckIn?(
    infraEnv: InfraEnvRef,
    hostId: string,
    checkIn: { readonly discoveryAgentVersion?: string; readonly hostTimestamp?: number },
    now: Date,
  ): void;
  /**
   * What `models.Host` shows beyond the record (register response and `GET …/hosts/{host_id}`):
   * the log collection and the stages of the host's role.
   */
  hostView?(infraEnv: InfraEnvRef, hostId: string): AgentHostView | undefined;
}

/** The parts of `models.Host` the backend keeps beside the host record. */
export interface AgentHostView {
  /** `logs_info`: the last `logs_state` reported. */
  readonly logsInfo?: LogsState;
  /** `logs_started_at`: when the agent last reported `requested`. */
  readonly logsStartedAt?: string;
  /** `progress_stages`: the stages of the host's role. */
  readonly progressStages?: readonly HostStage[];
}
