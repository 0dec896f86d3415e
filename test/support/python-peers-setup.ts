import { ensureCoreosInstaller } from '../../scripts/hub/coreos-installer.mjs';
import { ensureMockupWheels } from '../../scripts/hub/mockups.mjs';
import { ensureSushy } from '../../scripts/hub/sushy.mjs';
import { ensureProtocolValidator, ensureRedfishCsdl } from './redfish-validator.js';

/**
 * Installs the Python Redfish peers (the sushy-tools virtualenv, the wheels whose captured
 * vendor trees sushy-static serves, DMTF's validators and the CSDL schemas the Service
 * Validator reads) once, before any test file starts: several test files use them, and two
 * workers installing into the same directory at once would break each other.
 */
export default async function setup(): Promise<void> {
  await ensureSushy();
  await ensureMockupWheels();
  await ensureProtocolValidator();
  // Needs cargo: without it only the Service Validator's test file fails (it fetches the
  // schemas again, alone, and says why), not every test run.
  await ensureRedfishCsdl().catch(() => undefined);
  // coreos-installer reads back the discovery ISOs (test/assisted/discovery). Built with cargo
  // once; without cargo only those tests fail, saying why.
  await ensureCoreosInstaller().catch(() => undefined);
}
