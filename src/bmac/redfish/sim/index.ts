export { mulberry32, startBmcFleet } from './bmc-fleet.js';
export type { BmcFleet, BmcFleetOptions } from './bmc-fleet.js';
export {
  ASROCKRACK,
  ASYNC_TASKS,
  GENERIC,
  IDRAC10,
  IDRAC9,
  ILO6,
  LENOVO_XCC,
  PERSONALITIES,
  SUPERMICRO,
} from './personalities.js';
export type { Personality, SlotSpec } from './personalities.js';
export { errorBody, startSimulatedBmc } from './simulated-bmc.js';
export type {
  BootEvent,
  FaultConfig,
  HostEvent,
  ScriptedFault,
  SimulatedBmc,
  SimulatedBmcOptions,
} from './simulated-bmc.js';
