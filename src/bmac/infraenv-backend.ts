/**
 * The InfraEnv records the PreprovisioningImage controller reads and writes, kept on the
 * InfraEnv itself until the assisted core (which owns them in assisted-service's database)
 * runs in this process: the internal ignition override in an annotation of SiteForge's own,
 * whether the image carries static networking from `spec.nmStateConfigLabelSelector`. Writing
 * the override is a server-side apply of that one annotation, so it never races other fields.
 */
import type { KubeClient } from '../kube/index.js';
import { Gvk } from './api.js';
import type {
  BackendInfraEnv,
  InfraEnvBackend,
} from './reconcilers/preprovisioning-image/preprovisioning-image-controller.js';
import type { Request } from './runtime/contract.js';

/** Annotation holding an InfraEnv's internal ignition override (assisted-service keeps it in its database). */
export const INTERNAL_IGNITION_ANNOTATION = 'siteforge.io/internal-ignition-config-override';

const FIELD_MANAGER = 'siteforge-controller';

/** InfraEnvBackend on the InfraEnv objects of the hub. */
export class AnnotationInfraEnvBackend implements InfraEnvBackend {
  constructor(private readonly kube: KubeClient) {}

  async get(infraEnv: Request): Promise<BackendInfraEnv | undefined> {
    const object = await this.kube.get({ ...Gvk.InfraEnv, ...infraEnv });
    if (object === undefined) return undefined;
    const spec = (object['spec'] ?? {}) as Record<string, unknown>;
    const selector = spec['nmStateConfigLabelSelector'] as Record<string, unknown> | undefined;
    const matchLabels = selector?.['matchLabels'];
    return {
      internalIgnitionConfigOverride:
        object.metadata.annotations?.[INTERNAL_IGNITION_ANNOTATION] ?? '',
      staticNetworkConfig:
        typeof matchLabels === 'object' &&
        matchLabels !== null &&
        Object.keys(matchLabels).length > 0,
    };
  }

  async setInternalIgnitionConfigOverride(infraEnv: Request, ignition: string): Promise<void> {
    await this.kube.apply(
      {
        ...Gvk.InfraEnv,
        metadata: {
          name: infraEnv.name,
          ...(infraEnv.namespace !== undefined && { namespace: infraEnv.namespace }),
          annotations: { [INTERNAL_IGNITION_ANNOTATION]: ignition },
        },
      },
      { fieldManager: FIELD_MANAGER },
    );
  }
}
