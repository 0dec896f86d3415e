/**
 * Which controllers run in each mode, chosen as assisted-service chooses its flows:
 * - redfish (no Bare Metal Operator on the hub): the BMAC in the non-converged flow points each
 *   BareMetalHost at its InfraEnv's ISO (`spec.image`, `online: true`), and SiteForge's own
 *   Redfish provisioner boots it through the image server's short URL;
 * - metal3 (the Bare Metal Operator boots hosts): the BMAC in the converged flow sets
 *   `spec.customDeploy`, and the PreprovisioningImage controller serves BMO the InfraEnv's image.
 */
import type { SpokeClientFactory } from './reconcilers/bmac/index.js';
import { createBmacController } from './reconcilers/bmac/index.js';
import type {
  InfraEnvBackend,
  IronicEndpoints,
} from './reconcilers/preprovisioning-image/preprovisioning-image-controller.js';
import { PreprovisioningImageController } from './reconcilers/preprovisioning-image/preprovisioning-image-controller.js';
import { createRedfishHostController } from './reconcilers/redfish-host/index.js';
import type { ImageUrls, RedfishCallMetric } from './reconcilers/redfish-host/index.js';
import { ControllerMode } from './mode.js';
import type { Controller, Request } from './runtime/contract.js';

/** Name of the redfish-mode BareMetalHost provisioner, in logs, metrics and Events. */
export const REDFISH_HOST_CONTROLLER = 'redfish-host';

/** Settings of the PreprovisioningImage controller (metal3 mode). */
export interface IronicSettings {
  readonly endpoints: IronicEndpoints;
  readonly agentImage: string;
  readonly backend: InfraEnvBackend;
}

/** What the reconcilers are built from: ports and settings, never adapters' internals. */
export interface ControllerDeps {
  /** Clients on spoke clusters (day-2 hosts, drains). */
  readonly spokeClients: SpokeClientFactory;
  /** redfish mode: the image server's short URLs. */
  readonly images?: ImageUrls;
  /** redfish mode: BMC operations at once. @default the provisioner's own */
  readonly bmcConcurrency?: number;
  /** redfish mode: counts Redfish calls by vendor and outcome. */
  readonly redfishCall?: RedfishCallMetric;
  /**
   * Asks a controller to look at an object now (a BMC operation ended off the workers);
   * `urgent` ahead of its backlog.
   */
  readonly wake?: (controller: string, request: Request, urgent: boolean) => void;
  /** metal3 mode: where the ironic agent reports to, and the InfraEnv records. */
  readonly ironic?: IronicSettings;
}

/** The controllers of `mode`. @throws Error when a setting the mode needs is missing */
export function controllersFor(mode: ControllerMode, deps: ControllerDeps): readonly Controller[] {
  switch (mode) {
    case ControllerMode.Redfish: {
      if (deps.images === undefined) throw new Error('redfish mode needs the image server');
      const { wake } = deps;
      return [
        createBmacController({ converged: false, spokeClients: deps.spokeClients }),
        createRedfishHostController({
          images: deps.images,
          ...(deps.redfishCall && { redfishCall: deps.redfishCall }),
          ...(deps.bmcConcurrency !== undefined && { concurrency: deps.bmcConcurrency }),
          ...(wake && {
            wake: (request: Request, urgent: boolean) => {
              wake(REDFISH_HOST_CONTROLLER, request, urgent);
            },
          }),
        }),
      ];
    }
    case ControllerMode.Metal3: {
      if (deps.ironic === undefined) throw new Error('metal3 mode needs the ironic settings');
      return [
        createBmacController({ converged: true, spokeClients: deps.spokeClients }),
        new PreprovisioningImageController({
          backend: deps.ironic.backend,
          ironic: deps.ironic.endpoints,
          ironicAgentImage: deps.ironic.agentImage,
        }),
      ];
    }
  }
}
