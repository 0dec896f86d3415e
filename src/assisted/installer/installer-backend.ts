/**
 * The port between install orchestration and what turns an install-config into the ignition a
 * host installs with: `openshift-install` for real clusters, a simulation for the fleet bench.
 * Upstream assisted-service runs `openshift-install create ignition-configs` (or
 * `single-node-ignition-config`) in a work directory; these backends do the same job behind one
 * interface, so the cluster controller never knows which one it has.
 */
import { SiteForgeError } from '../../shared/errors.js';

/** An Ignition v3 config, as JSON. */
export interface IgnitionV3 {
  readonly ignition: { readonly version: string; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

/** The ignition of each role. A single-node cluster has `bootstrap` only (bootstrap-in-place). */
export interface InstallerIgnitions {
  readonly bootstrap: IgnitionV3;
  readonly master?: IgnitionV3;
  readonly worker?: IgnitionV3;
}

/** What a backend produced for one cluster. */
export interface InstallerOutput {
  readonly ignitions: InstallerIgnitions;
  /** The admin kubeconfig (YAML). */
  readonly kubeconfig: string;
  readonly kubeadminPassword: string;
  /** The OpenShift cluster id (`metadata.json` clusterID). */
  readonly clusterId: string;
  /** The infrastructure id (`metadata.json` infraID). */
  readonly infraId: string;
}

/** A manifest to add to the installer's `openshift/` directory. */
export interface InstallerManifest {
  readonly fileName: string;
  readonly content: string;
}

/** Whether a backend can run now, and what the user should read about it. */
export type InstallerAvailability =
  | { readonly available: true; readonly description: string }
  | { readonly available: false; readonly reason: string };

/** How to generate. */
export interface GenerateOptions {
  /** A single-node cluster: bootstrap-in-place ignition. */
  readonly singleNode: boolean;
  /** The cluster's OpenShift release image (the ClusterImageSet's). @default the installer's own */
  readonly releaseImage?: string;
  /** Aborts a running generation (shutdown, lost leadership). */
  readonly signal?: AbortSignal;
}

/** Turns an install-config into ignition and credentials. */
export interface InstallerBackend {
  /** `openshift-install` or `simulated`. */
  readonly name: string;
  /** Checked before an installation starts; an unavailable backend makes the cluster wait. */
  availability(): Promise<InstallerAvailability>;
  /**
   * Generates the ignition for `installConfig` (the install-config.yaml text).
   * @param workDir an empty directory the backend may use and leaves for the caller to remove
   * @throws InstallerError when generation fails (its message is shown to the user)
   */
  generate(
    installConfig: string,
    manifests: readonly InstallerManifest[],
    workDir: string,
    options: GenerateOptions,
  ): Promise<InstallerOutput>;
}

/** Generation failed: the message says why, without secrets. */
export class InstallerError extends SiteForgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INSTALLER_FAILED', message, options);
  }
}
