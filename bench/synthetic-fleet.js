// The synthetic fleet of single-node sites lives in src/sim (the demo's --sites N uses it too).
export { siteConfigText, writeSyntheticFleet } from '../build/src/sim/synthetic-sites.js';
