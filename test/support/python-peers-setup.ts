import { ensureMockupWheels } from '../../scripts/hub/mockups.mjs';
import { ensureSushy } from '../../scripts/hub/sushy.mjs';

/**
 * Installs the Python Redfish peers (the sushy-tools virtualenv and the wheels whose captured
 * vendor trees sushy-static serves) once, before any test file starts: several test files use
 * them, and two workers installing into the same directory at once would break each other.
 */
export default async function setup(): Promise<void> {
  await ensureSushy();
  await ensureMockupWheels();
}
