/**
 * The host side of the assisted core: the HostService behind the agent API, the Agent
 * controller that persists each host in its Agent, the host monitor, and the adapters onto the
 * core's state machine, validations and step builder.
 */
export * from './ports.js';
export * from './agent-names.js';
export {
  computeAgentConditions,
  failingValidationMessages,
  mergeConditions,
} from './agent-conditions.js';
export type { AgentConditionEntry, SpecSyncError } from './agent-conditions.js';
export type { StoredHost } from './agent-projection.js';
export {
  BOOTSTRAP_EXTRA_DISCONNECTION_MS,
  HOST_MAX_DISCONNECTION_MS,
  HostService,
  NEW_HOST_STATUS,
  bareInstruction,
  recordChanged,
} from './host-service.js';
export type { HostListener, HostServiceOptions } from './host-service.js';
export { AGENT_CONTROLLER_NAME, agentController } from './agent-controller.js';
export type { AgentControllerOptions } from './agent-controller.js';
export { HOST_MONITOR_INTERVAL_MS, HostMonitor } from './host-monitor.js';
export type { HostMonitorOptions, MonitorRound } from './host-monitor.js';
export {
  CoreHostValidator,
  CoreInstructionBuilder,
  StateMachineHostMachine,
} from './core-adapters.js';
export type { StepSettingsContext } from './core-adapters.js';
export { agentInventory, inventoryLabels, normalizeInventory } from './inventory.js';
