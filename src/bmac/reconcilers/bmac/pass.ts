/**
 * What every step of a BMAC reconcile pass shares: the drafts of the BareMetalHost and its Agent
 * (sent back once at the end of the pass), the InfraEnv, the options and the runtime context; and
 * what a step tells the pass (go on, stop here, or stop and look again later).
 */
import type { ReconcileContext } from '../../runtime/contract.js';
import type { Agent, BareMetalHost, InfraEnv } from './model.js';
import type { SpokeClientFactory } from './spoke.js';

/** Options of the BMAC. */
export interface BmacOptions {
  /**
   * The converged flow: the Bare Metal Operator boots the PreprovisioningImage and the BMAC sets
   * `spec.customDeploy`; otherwise the BMAC points the host at the InfraEnv ISO itself. Upstream
   * enables it when BMO supports it; SiteForge's redfish mode (no BMO) sets false.
   */
  readonly converged: boolean;
  /** Pause a BareMetalHost (and keep its status in an annotation) once it is detached. @default true */
  readonly pauseProvisionedBmhs?: boolean;
  /** Clients on spoke clusters, for day-2 hosts and node drains. @default none: day-2 steps fail */
  readonly spokeClients?: SpokeClientFactory;
}

/** The state of one pass. Steps edit `bmh` and `agent` in place. */
export interface Pass {
  readonly bmh: BareMetalHost;
  readonly agent: Agent | undefined;
  readonly infraEnv: InfraEnv | undefined;
  readonly ctx: ReconcileContext;
  readonly converged: boolean;
  readonly pauseProvisionedBmhs: boolean;
  readonly spokeClients: SpokeClientFactory | undefined;
  /** Set when a step deleted the Agent, so its draft is not written back. */
  agentDeleted: boolean;
}

/** What a step tells the pass. */
export interface StepResult {
  /** End the pass after this step. */
  readonly stop: boolean;
  /** Look at the host again after this long (implies stop). */
  readonly requeueAfterMs?: number;
}

/** Go on with the next step. */
export const CONTINUE: StepResult = { stop: false };
/** End the pass here. */
export const STOP: StepResult = { stop: true };
/** End the pass and look again after `ms`. */
export function requeueAfter(ms: number): StepResult {
  return { stop: true, requeueAfterMs: ms };
}
