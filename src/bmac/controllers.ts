/**
 * Which controllers run in each mode. The reconcilers are not written yet: this is where they
 * are listed, so that main.ts hands the runtime manager whatever this returns.
 */
import type { KubeClient } from '../kube/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { ControllerMode } from './mode.js';
import type { Controller } from './runtime/contract.js';

/** What the reconcilers are built from: ports and settings, never adapters' internals. */
export interface ControllerDeps {
  readonly kube: KubeClient;
  readonly clock: Clock;
  /** The controller's logger; each reconciler takes a child with `{ controller }`. */
  readonly log: Logger;
  /** Namespaces watched; empty for all. */
  readonly namespaces: readonly string[];
  /** Base URL at which BMCs download images from the image server, when given. */
  readonly imageServerUrl?: string;
}

/**
 * The controllers of `mode`. In redfish mode SiteForge boots the hosts itself (BareMetalHost
 * through Redfish, plus the images); in metal3 mode the Bare Metal Operator does, and SiteForge
 * serves its PreprovisioningImages.
 */
export function controllersFor(
  mode: ControllerMode,
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the reconcilers will take their ports from here
  deps: ControllerDeps,
): readonly Controller[] {
  switch (mode) {
    case ControllerMode.Redfish:
      return [];
    case ControllerMode.Metal3:
      return [];
  }
}
