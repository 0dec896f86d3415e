/**
 * Which installer backend a controller uses. `openshift-install` is the default; `simulated` is
 * only ever chosen by asking for it by name (the fleet simulation does).
 */
import { UsageError } from '../../shared/errors.js';
import type { InstallerBackend } from './installer-backend.js';
import { OPENSHIFT_INSTALL_BACKEND, OpenshiftInstallBackend } from './openshift-install-backend.js';
import type { OpenshiftInstallBackendOptions } from './openshift-install-backend.js';
import { SIMULATED_BACKEND, SimulatedInstallerBackend } from './simulated-backend.js';

/** The backends by name. */
export const INSTALLER_BACKENDS = [OPENSHIFT_INSTALL_BACKEND, SIMULATED_BACKEND] as const;
/** A backend's name. */
export type InstallerBackendName = (typeof INSTALLER_BACKENDS)[number];

/** Configuration of {@link selectInstallerBackend}. */
export interface InstallerBackendConfig extends OpenshiftInstallBackendOptions {
  /** @default 'openshift-install' */
  readonly backend?: string;
}

/**
 * The backend `config` names.
 * @throws UsageError for an unknown name, listing the known ones
 */
export function selectInstallerBackend(config: InstallerBackendConfig = {}): InstallerBackend {
  const name = config.backend ?? OPENSHIFT_INSTALL_BACKEND;
  switch (name) {
    case OPENSHIFT_INSTALL_BACKEND:
      return new OpenshiftInstallBackend(config);
    case SIMULATED_BACKEND:
      return new SimulatedInstallerBackend();
    default:
      throw new UsageError(
        `unknown installer backend ${JSON.stringify(name)}: expected one of ${INSTALLER_BACKENDS.join(', ')}`,
      );
  }
}
