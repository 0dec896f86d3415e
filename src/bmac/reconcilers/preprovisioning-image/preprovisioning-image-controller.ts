/**
 * The PreprovisioningImage controller of the converged flow (assisted-service's
 * `PreprovisioningImageReconciler`; reference assisted.md §2, §8). The Bare Metal Operator asks
 * for an image that boots a host into the ironic agent by creating a PreprovisioningImage (PPI)
 * named and labelled like its BareMetalHost; this controller answers with the image of the
 * InfraEnv the PPI's label names, after making sure that image also runs the ironic agent.
 *
 * Every outcome is in the PPI's status: `Ready` and `Error` conditions with the reasons and
 * messages assisted-service writes, and on success the image's URL, format and architecture
 * (kernel URL and kernel parameters for initrd). The PPI keeps a finalizer of ours while its
 * host may still need the image to clean its disks on deprovisioning.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ObjectRef } from '../../../kube/index.js';
import { SiteForgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/logger.js';
import {
  BmhAnnotation,
  BmhProvisioningState,
  CLEANING_MODE_DISABLED,
  FORCE_REBOOT_VALUE,
  Finalizer,
  Gvk,
  INFRAENV_IMAGE_COOLDOWN_MS,
  InfraEnvAnnotation,
  Label,
} from '../../api.js';
import { requestOf } from '../../runtime/contract.js';
import type {
  Controller,
  ReconcileContext,
  ReconcileResult,
  Request,
  Watch,
} from '../../runtime/contract.js';
import { ConditionStatus, findCondition, setCondition } from './conditions.js';
import type { Condition, ConditionUpdate } from './conditions.js';
import { ironicAgentIgnition } from './ironic-ignition.js';

/** Condition types of a PreprovisioningImage (BMO `ConditionImageReady`, `ConditionImageError`). */
export const ImageCondition = { Ready: 'Ready', Error: 'Error' } as const;

/** Reasons of the conditions this controller writes when it cannot give an image. */
export const ImageConditionReason = {
  UnsupportedImageFormat: 'UnsupportedImageFormat',
  InfraEnvNotAvailable: 'InfraEnvNotAvailable',
  InfraEnvArchMismatch: 'InfraEnvArchMismatch',
  IronicAgentIgnitionUpdateFailure: 'IronicAgentIgnitionUpdateFailure',
  WaitingForInfraEnvImageToBeCreated: 'WaitingForInfraEnvImageToBeCreated',
  WaitingForInfraEnvImageToCoolDown: 'WaitingForInfraEnvImageToCoolDown',
} as const;

/** The InfraEnv condition whose status, reason and message a served image carries. */
const IMAGE_CREATED = 'ImageCreated';
/** The ImageCreated reason that makes the PPI's Error condition True. */
const IMAGE_CREATION_ERROR = 'ImageCreationError';

/** Image formats of `spec.acceptFormats` / `status.format`. */
export const ImageFormat = { Iso: 'iso', Initrd: 'initrd' } as const;

/**
 * How long a deleting PPI waits before it looks at its host again, besides the host's own
 * events: the host may take minutes to deprovision (as the BMAC's wait for `deleting`).
 */
export const DELETION_RECHECK_MS = 10_000;

/** Address families of the hosts an InfraEnv's image boots. */
export interface AddressFamilies {
  readonly v4: boolean;
  readonly v6: boolean;
}

/** What the assisted core (assisted-service: its database) holds about an InfraEnv. */
export interface BackendInfraEnv {
  /** The ignition merged into the discovery ignition before the user's override; `''` if none. */
  readonly internalIgnitionConfigOverride: string;
  /** Whether the image carries a static network config (from NMStateConfigs). */
  readonly staticNetworkConfig: boolean;
  /** Families of the bound cluster's networks; absent while the InfraEnv is not bound. */
  readonly clusterAddressFamilies?: AddressFamilies;
}

/**
 * The assisted core's InfraEnv records, as far as this controller needs them. Setting the
 * internal ignition override regenerates the InfraEnv's image, which shows as a new
 * `status.createdTime` on the InfraEnv.
 */
export interface InfraEnvBackend {
  /** @returns undefined when the core has no record of the InfraEnv */
  get(infraEnv: Request): Promise<BackendInfraEnv | undefined>;
  setInternalIgnitionConfigOverride(infraEnv: Request, ignition: string): Promise<void>;
}

/** Where the ironic agent reports to. */
export interface IronicEndpoints {
  /** Ironic API base URL, e.g. `https://10.0.0.5` (port 6385 is added when missing). */
  readonly ironicUrl: string;
  /** Ironic inspector base URL (port 5050 and `/v1/continue` are added when missing). */
  readonly inspectorUrl: string;
}

/** Options of {@link PreprovisioningImageController}. */
export interface PreprovisioningImageControllerProps {
  readonly backend: InfraEnvBackend;
  /** Ironic on the hub's primary address (IPv4 on a dual-stack hub). */
  readonly ironic: IronicEndpoints;
  /**
   * Ironic on the hub's IPv6 address, on a dual-stack hub: used for InfraEnvs whose hosts are
   * IPv6 only (the ip-family annotation, else the bound cluster's networks).
   * @default none: `ironic` for every InfraEnv
   */
  readonly ironicIpv6?: IronicEndpoints;
  /** The ironic agent image (assisted-service's `IRONIC_AGENT_IMAGE`). */
  readonly ironicAgentImage: string;
  /** The ironic agent image for arm64 InfraEnvs (`IRONIC_AGENT_IMAGE_ARM`). @default ironicAgentImage */
  readonly ironicAgentImageArm?: string;
}

/** A PPI cannot be served for a reason the runtime should retry. */
export class PreprovisioningImageError extends SiteForgeError {
  constructor(message: string) {
    super('PREPROVISIONING_IMAGE', message);
  }
}

type Status = Record<string, unknown>;

/** The fields of a PPI's status that describe the image; cleared whenever there is none. */
const IMAGE_FIELDS = ['imageUrl', 'kernelUrl', 'extraKernelParams', 'format', 'architecture'];

/** assisted-service's PreprovisioningImage controller. */
export class PreprovisioningImageController implements Controller {
  readonly name = 'preprovisioningimage';
  readonly for = Gvk.PreprovisioningImage;
  readonly watches: readonly Watch[] = [
    {
      // An InfraEnv's image or ironic config changed: every PPI that names it.
      gvk: Gvk.InfraEnv,
      map: (infraEnv, reader) =>
        reader
          .list(Gvk.PreprovisioningImage, {
            ...(infraEnv.metadata.namespace !== undefined && {
              namespace: infraEnv.metadata.namespace,
            }),
            labels: { [Label.InfraEnv]: infraEnv.metadata.name },
          })
          .map(requestOf),
    },
    {
      // The BMO names a host's PPI after the host; its state decides when the finalizer goes.
      gvk: Gvk.BareMetalHost,
      map: (bmh) => [requestOf(bmh)],
    },
  ];

  /** @throws Error when an ironic URL or an agent image is empty */
  constructor(private readonly props: PreprovisioningImageControllerProps) {
    const endpoints = [props.ironic, ...(props.ironicIpv6 ? [props.ironicIpv6] : [])];
    if (endpoints.some((e) => e.ironicUrl === '' || e.inspectorUrl === ''))
      throw new Error(
        'PreprovisioningImage controller: the ironic and inspector URLs are required',
      );
    if (props.ironicAgentImage === '' || props.ironicAgentImageArm === '')
      throw new Error('PreprovisioningImage controller: the ironic agent image is required');
  }

  async reconcile(request: Request, ctx: ReconcileContext): Promise<ReconcileResult> {
    const found = ctx.reader.get({ ...Gvk.PreprovisioningImage, ...request });
    if (found === undefined) return {};
    if (found.metadata['deletionTimestamp'] !== undefined) return this.finalize(found, ctx);

    const image = await this.ensureMetadata(found, ctx);
    const spec = record(image['spec']);
    const formats = strings(spec['acceptFormats']);
    const infraEnvName = image.metadata.labels?.[Label.InfraEnv] ?? '';
    const namespace = image.metadata.namespace ?? '';

    if (!formats.includes(ImageFormat.Iso) && !formats.includes(ImageFormat.Initrd)) {
      ctx.log.info({ acceptFormats: formats }, 'unsupported image format');
      await failure(
        ctx,
        image,
        ImageConditionReason.UnsupportedImageFormat,
        'Unsupported image format',
        true,
      );
      return {};
    }

    const infraEnv =
      infraEnvName === ''
        ? undefined
        : ctx.reader.get({ ...Gvk.InfraEnv, namespace, name: infraEnvName });
    if (infraEnv === undefined || infraEnv.metadata['deletionTimestamp'] !== undefined) {
      ctx.log.warn({ infraEnv: infraEnvName }, 'InfraEnv is not found or is being deleted');
      await failure(
        ctx,
        image,
        ImageConditionReason.InfraEnvNotAvailable,
        `InfraEnv ${infraEnvName}/${namespace} is not found or is being deleted`,
        false,
      );
      return {};
    }

    const infraEnvSpec = record(infraEnv['spec']);
    const imageArch = normalizeArch(str(spec['architecture']));
    const infraArch = normalizeArch(str(infraEnvSpec['cpuArchitecture']));
    if (imageArch !== infraArch) {
      await failure(
        ctx,
        image,
        ImageConditionReason.InfraEnvArchMismatch,
        `PreprovisioningImage CPU architecture (${imageArch}) does not match InfraEnv CPU architecture (${infraArch})`,
        true,
      );
      return {};
    }

    let regenerating: boolean;
    try {
      regenerating = await this.addIronicAgent(infraEnv, infraArch, ctx);
    } catch (error) {
      await failure(
        ctx,
        image,
        ImageConditionReason.IronicAgentIgnitionUpdateFailure,
        `Could not add ironic agent to image: ${messageOf(error)}`,
        true,
      );
      throw error;
    }
    // The InfraEnv's image is being rebuilt; its new createdTime wakes us through the watch.
    if (regenerating) return {};

    const infraEnvStatus = record(infraEnv['status']);
    const createdTime = str(infraEnvStatus['createdTime']);
    const imageCreated = findCondition(conditionsOf(infraEnvStatus), IMAGE_CREATED);
    if (createdTime === '' || imageCreated === undefined) {
      await failure(
        ctx,
        image,
        ImageConditionReason.WaitingForInfraEnvImageToBeCreated,
        'Waiting for InfraEnv image to be created',
        false,
      );
      return {};
    }
    const coolDownEnd = Date.parse(createdTime) + INFRAENV_IMAGE_COOLDOWN_MS;
    if (coolDownEnd > ctx.clock.now()) {
      await failure(
        ctx,
        image,
        ImageConditionReason.WaitingForInfraEnvImageToCoolDown,
        'Waiting for InfraEnv image to cool down',
        false,
      );
      return { requeueAfterMs: coolDownEnd - ctx.clock.now() };
    }

    await this.serveImage(image, infraEnv, imageCreated, ctx);
    return {};
  }

  /** Adds our finalizer and the velero exclusion label, in one write when either is missing. */
  private async ensureMetadata(image: KubeObject, ctx: ReconcileContext): Promise<KubeObject> {
    const finalizers = strings(image.metadata['finalizers']);
    const hasFinalizer = finalizers.includes(Finalizer.PreprovisioningImage);
    const hasLabel = image.metadata.labels?.[Label.VeleroExclude] === 'true';
    if (hasFinalizer && hasLabel) return image;
    return ctx.writer.update({
      ...image,
      metadata: {
        ...image.metadata,
        finalizers: hasFinalizer ? finalizers : [...finalizers, Finalizer.PreprovisioningImage],
        labels: { ...image.metadata.labels, [Label.VeleroExclude]: 'true' },
      },
    });
  }

  /**
   * A deleting PPI keeps our finalizer while its host may still boot the image to clean its
   * disks: until the host itself is being deleted and past deprovisioning, unless it never cleans.
   */
  private async finalize(image: KubeObject, ctx: ReconcileContext): Promise<ReconcileResult> {
    const finalizers = strings(image.metadata['finalizers']);
    if (!finalizers.includes(Finalizer.PreprovisioningImage)) return {};
    const owner = ownerBmh(image);
    const bmh = owner === undefined ? undefined : ctx.reader.get(owner);
    if (bmh !== undefined) {
      const cleaning = str(record(bmh['spec'])['automatedCleaningMode']);
      if (cleaning !== CLEANING_MODE_DISABLED) {
        const state = provisioningState(bmh);
        if (bmh.metadata['deletionTimestamp'] === undefined) {
          ctx.log.info(
            { automatedCleaningMode: cleaning },
            'keeping the image: its host cleans disks and is not being deleted',
          );
          return { requeueAfterMs: DELETION_RECHECK_MS };
        }
        if (
          state !== BmhProvisioningState.PoweringOffBeforeDelete &&
          state !== BmhProvisioningState.Deleting
        ) {
          ctx.log.info({ state }, 'keeping the image: its host has not finished deprovisioning');
          return { requeueAfterMs: DELETION_RECHECK_MS };
        }
      }
    } else {
      ctx.log.info('the image has no host: removing the finalizer');
    }
    await ctx.writer.update({
      ...image,
      metadata: {
        ...image.metadata,
        finalizers: finalizers.filter((f) => f !== Finalizer.PreprovisioningImage),
      },
    });
    return {};
  }

  /**
   * Makes the InfraEnv's image run the ironic agent: stores the ironic ignition as the
   * InfraEnv's internal ignition override when it differs, and marks the InfraEnv.
   * @returns true when the override changed (the image is being regenerated)
   */
  private async addIronicAgent(
    infraEnv: KubeObject,
    arch: string,
    ctx: ReconcileContext,
  ): Promise<boolean> {
    const ref = requestOf(infraEnv);
    const backend = await this.props.backend.get(ref);
    if (backend === undefined)
      throw new PreprovisioningImageError(
        `InfraEnv ${ref.namespace ?? ''}/${ref.name} is not registered with the assisted service`,
      );
    const endpoints = this.endpointsFor(infraEnv, backend, ctx.log);
    const annotations = infraEnv.metadata.annotations ?? {};
    const override = annotations[InfraEnvAnnotation.IronicAgentImageOverride] ?? '';
    const agentImage =
      override !== ''
        ? override
        : arch === 'arm64'
          ? (this.props.ironicAgentImageArm ?? this.props.ironicAgentImage)
          : this.props.ironicAgentImage;
    const proxy = record(record(infraEnv['spec'])['proxy']);
    const ignition = ironicAgentIgnition({
      ...endpoints,
      agentImage,
      proxy: {
        httpProxy: str(proxy['httpProxy']),
        httpsProxy: str(proxy['httpsProxy']),
        noProxy: str(proxy['noProxy']),
      },
      staticNetwork: backend.staticNetworkConfig,
    });

    let changed = false;
    if (ignition !== backend.internalIgnitionConfigOverride) {
      ctx.log.info({ agentImage, ...endpoints }, 'updating the InfraEnv ironic agent config');
      await this.props.backend.setInternalIgnitionConfigOverride(ref, ignition);
      changed = true;
    }
    if (!(InfraEnvAnnotation.EnableIronicAgent in annotations)) {
      try {
        await ctx.writer.update({
          ...infraEnv,
          metadata: {
            ...infraEnv.metadata,
            annotations: { ...annotations, [InfraEnvAnnotation.EnableIronicAgent]: 'true' },
          },
        });
      } catch (error) {
        // Informational only: the next pass tries again.
        ctx.log.warn({ err: messageOf(error) }, 'could not annotate the InfraEnv');
      }
    }
    return changed;
  }

  /** The IPv6 endpoints for an IPv6-only InfraEnv on a dual-stack hub, else the primary ones. */
  private endpointsFor(
    infraEnv: KubeObject,
    backend: BackendInfraEnv,
    log: Logger,
  ): IronicEndpoints {
    const ipv6 = this.props.ironicIpv6;
    if (ipv6 === undefined) return this.props.ironic;
    const annotation = infraEnv.metadata.annotations?.[InfraEnvAnnotation.IpFamily] ?? '';
    let families = backend.clusterAddressFamilies;
    if (annotation !== '') {
      const listed = annotation.split(',');
      families = { v4: listed.includes('v4'), v6: listed.includes('v6') };
    }
    if (families === undefined) {
      log.warn('cannot find address family for non-bound infraEnv: using the primary ironic URLs');
      return this.props.ironic;
    }
    return !families.v4 && families.v6 ? ipv6 : this.props.ironic;
  }

  /** Puts the InfraEnv's image in the PPI's status; reboots the host onto a changed image. */
  private async serveImage(
    image: KubeObject,
    infraEnv: KubeObject,
    imageCreated: Condition,
    ctx: ReconcileContext,
  ): Promise<void> {
    const owner = ownerBmh(image);
    if (owner === undefined)
      throw new PreprovisioningImageError('failed to find BMH owner for preprovisioningimage');
    const bmh = ctx.reader.get(owner);
    if (bmh === undefined)
      throw new PreprovisioningImageError(
        `failed to get owning bmh ${owner.namespace ?? ''}/${owner.name}: baremetalhosts.metal3.io "${owner.name}" not found`,
      );

    const formats = strings(record(image['spec'])['acceptFormats']);
    const infraEnvStatus = record(infraEnv['status']);
    const artifacts = record(infraEnvStatus['bootArtifacts']);
    const served: Status = { architecture: str(record(infraEnv['spec'])['cpuArchitecture']) };
    if (formats.includes(ImageFormat.Iso)) {
      served['format'] = ImageFormat.Iso;
      served['imageUrl'] = str(infraEnvStatus['isoDownloadURL']);
    } else {
      served['format'] = ImageFormat.Initrd;
      served['imageUrl'] = str(artifacts['initrd']);
      served['kernelUrl'] = str(artifacts['kernel']);
      served['extraKernelParams'] = initrdKernelParams(infraEnv);
    }
    const previousUrl = str(record(image['status'])['imageUrl']);
    const changed = previousUrl !== '' && previousUrl !== served['imageUrl'];

    const ready: ConditionUpdate = {
      type: ImageCondition.Ready,
      status: imageCreated.status,
      reason: imageCreated.reason,
      message: imageCreated.message,
    };
    const errorStatus =
      imageCreated.reason === IMAGE_CREATION_ERROR ? ConditionStatus.True : ConditionStatus.False;
    await writeStatus(ctx, image, served, [
      ready,
      { ...ready, type: ImageCondition.Error, status: errorStatus },
    ]);

    if (changed && provisioningState(bmh) !== BmhProvisioningState.Provisioned) {
      ctx.log.info({ bmh: bmh.metadata.name }, 'the image changed: rebooting the host onto it');
      await ctx.writer.update({
        ...bmh,
        metadata: {
          ...bmh.metadata,
          annotations: { ...bmh.metadata.annotations, [BmhAnnotation.Reboot]: FORCE_REBOOT_VALUE },
        },
      });
    }
  }
}

/** Clears the image fields and sets Ready False and Error `error` with `reason` and `message`. */
async function failure(
  ctx: ReconcileContext,
  image: KubeObject,
  reason: string,
  message: string,
  error: boolean,
): Promise<void> {
  const ready = { type: ImageCondition.Ready, status: ConditionStatus.False, reason, message };
  const errorStatus = error ? ConditionStatus.True : ConditionStatus.False;
  await writeStatus(ctx, image, {}, [
    ready,
    { ...ready, type: ImageCondition.Error, status: errorStatus },
  ]);
}

/**
 * Writes the PPI's status with the image fields replaced by `fields` (empty values left out, as
 * Go's omitempty does) and `conditions` set, unless that is what the status already says.
 */
async function writeStatus(
  ctx: ReconcileContext,
  image: KubeObject,
  fields: Status,
  conditions: readonly ConditionUpdate[],
): Promise<void> {
  const before = record(image['status']);
  const status: Status = { ...before };
  for (const field of IMAGE_FIELDS) Reflect.deleteProperty(status, field);
  for (const [field, value] of Object.entries(fields)) if (value !== '') status[field] = value;
  const generation = Number(image.metadata['generation'] ?? 0);
  let list = conditionsOf(before);
  for (const c of conditions)
    list = setCondition(list, { ...c, observedGeneration: generation }, ctx.clock.now());
  status['conditions'] = list;
  if (isDeepStrictEqual(status, before)) return;
  await ctx.writer.updateStatus({ ...image, status });
}

/** `coreos.live.rootfs_url=<rootfs> rd.bootif=0` and the InfraEnv's appended kernel arguments. */
function initrdKernelParams(infraEnv: KubeObject): string {
  const rootfs = str(record(record(infraEnv['status'])['bootArtifacts'])['rootfs']);
  const params = [`coreos.live.rootfs_url=${rootfs} rd.bootif=0`];
  const args = record(infraEnv['spec'])['kernelArguments'];
  for (const arg of Array.isArray(args) ? (args as unknown[]) : []) {
    const { operation, value } = record(arg);
    if (operation === 'append') params.push(str(value));
  }
  return params.join(' ');
}

/** The BareMetalHost among the PPI's owners (the last one, as assisted-service reads them). */
function ownerBmh(image: KubeObject): ObjectRef | undefined {
  const owners = image.metadata['ownerReferences'];
  let name: string | undefined;
  for (const owner of Array.isArray(owners) ? (owners as unknown[]) : []) {
    const o = record(owner);
    if (o['kind'] === Gvk.BareMetalHost.kind && typeof o['name'] === 'string') name = o['name'];
  }
  if (name === undefined) return undefined;
  return {
    ...Gvk.BareMetalHost,
    name,
    ...(image.metadata.namespace !== undefined && { namespace: image.metadata.namespace }),
  };
}

function provisioningState(bmh: KubeObject): string {
  return str(record(record(bmh['status'])['provisioning'])['state']);
}

/** assisted-service's NormalizeCPUArchitecture. */
function normalizeArch(arch: string): string {
  if (arch === 'amd64') return 'x86_64';
  if (arch === 'aarch64') return 'arm64';
  return arch;
}

function conditionsOf(status: Status): Condition[] {
  const list = status['conditions'];
  return Array.isArray(list) ? (list as Condition[]) : [];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
