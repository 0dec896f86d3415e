// The scripted discovery agent lives in src/sim (the fleet simulation runs it too).
export * from '../../src/sim/agent-client.js';
