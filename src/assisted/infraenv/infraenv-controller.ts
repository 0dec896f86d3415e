/**
 * The InfraEnv controller (assisted-service's `InfraEnvReconciler`; assisted.md §3.1, §6, §8):
 * for each InfraEnv, its discovery ignition (agent token, pull secret, SSH key, proxy, NTP,
 * the matching NMStateConfigs, the overrides) laid over the base ISO of its OpenShift version
 * and architecture, and the status a user and the BMAC read: `isoDownloadURL` and
 * `createdTime` (moved only when the URL changes), `agentLabelSelector`, `bootArtifacts`,
 * `debugInfo` and the `ImageCreated` condition with assisted-service's reasons and messages.
 * A change of the InfraEnv, of an NMStateConfig it selects or of its ClusterDeployment wakes it.
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { stringify as toYaml } from 'yaml';
import type { KubeObject } from '../../kube/index.js';
import { Gvk, Label } from '../../bmac/api.js';
import { ImageSourceError } from '../../bmac/images/image-source.js';
import { INTERNAL_IGNITION_ANNOTATION } from '../../bmac/infraenv-backend.js';
import { readWatchedSecret, watchedSecrets } from '../../bmac/watched-secrets.js';
import {
  findCondition,
  setCondition,
} from '../../bmac/reconcilers/preprovisioning-image/conditions.js';
import type { Condition } from '../../bmac/reconcilers/preprovisioning-image/conditions.js';
import { requestKey, requestOf } from '../../bmac/runtime/contract.js';
import type {
  Controller,
  ReconcileContext,
  ReconcileResult,
  Request,
  Watch,
} from '../../bmac/runtime/contract.js';
import { verifyAgentToken } from '../agent-api/auth.js';
import {
  DEFAULT_CPU_ARCHITECTURE,
  OsImageNotFoundError,
  normalizeCpuArchitecture,
  osImageOrLatest,
} from '../config/os-images.js';
import type { OsImage } from '../config/os-images.js';
import { signAgentToken } from '../discovery/agent-token.js';
import { DiscoveryImageNotReadyError } from '../discovery/discovery-isos.js';
import type { DiscoveryIsoStore } from '../discovery/discovery-isos.js';
import {
  DiscoveryIgnitionError,
  ImageType,
  discoveryIgnition,
  staticNetworkRamdisk,
} from '../discovery/ignition.js';
import type { HostStaticNetworkConfig } from '../discovery/ignition.js';
import { IsoLayoutError } from '../discovery/iso9660.js';
import { labelSelectorMatches } from './label-selector.js';

/** The NMStateConfig kind. */
export const NMStateConfigGvk = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'NMStateConfig',
} as const;

/** The InfraEnv controller's finalizer (assisted.md §8). */
export const INFRAENV_FINALIZER = 'infraenv.agent-install.openshift.io/ai-deprovision';

/** The InfraEnv condition type, reasons and messages (assisted.md §3.1). */
export const ImageCreatedCondition = {
  Type: 'ImageCreated',
  InfraEnvAvailableReason: 'InfraEnvAvailable',
  ImageCreationErrorReason: 'ImageCreationError',
  MissingClusterDeploymentReason: 'MissingClusterDeployment',
  ImageCreatedReason: 'ImageCreated',
  ImageCreatedMessage: 'Image has been created',
  InfraEnvAvailableMessage: 'InfraEnv is available: Image has been created',
  FailedToCreate: 'Failed to create image',
  MissingClusterDeployment: 'ClusterDeployment is missing',
} as const;

/** When a failure the controller can recover from is looked at again (2 × 10 s, as upstream). */
export const RECOVERABLE_ERROR_REQUEUE_MS = 20_000;

/** The last image built for an InfraEnv: its inputs (the pull secret as a digest), its URL. */
interface BuiltImage {
  readonly inputs: string;
  readonly url: string;
}

/** Options of {@link InfraEnvController}. */
export interface InfraEnvControllerProps {
  /** Signs the agent tokens (ES256, P-256): the private key of the agent token key pair. */
  readonly privateKey: KeyObject;
  /** Where ISO URLs come from (the image server). */
  readonly isos: DiscoveryIsoStore;
  /** The base images (AgentServiceConfig `osImages`). */
  readonly osImages: readonly OsImage[];
  /** The agent API's base URL, given to the agent and used in the status URLs (`SERVICE_BASE_URL`). */
  readonly serviceBaseUrl: string;
  /** The base URL of kernel, rootfs and initrd (`IMAGE_SERVICE_BASE_URL`). @default serviceBaseUrl */
  readonly imageServiceBaseUrl?: string;
  /** The agent API's CA (PEM), written on the host and passed as `--cacert`. @default none */
  readonly serviceCaCert?: string;
  /** @default DEFAULT_AGENT_IMAGE */
  readonly agentImage?: string;
  /** The agent skips TLS verification (`SKIP_CERT_VERIFICATION`). @default false */
  readonly skipCertVerification?: boolean;
  /** The image type of InfraEnvs that name none (`ISO_IMAGE_TYPE`). @default 'minimal-iso' */
  readonly defaultImageType?: ImageType;
}

type Json = Record<string, unknown>;

/** A failure that becomes the ImageCreated condition. */
class ImageCreationFailure extends Error {
  constructor(
    message: string,
    /** 4xx: said as `Failed to create image: …`; otherwise `… due to an internal error: …`. */
    readonly clientError: boolean,
    /** Whether to look again later. @default !clientError */
    readonly retry = !clientError,
  ) {
    super(message);
  }
}

/** assisted-service's InfraEnv controller. */
export class InfraEnvController implements Controller {
  readonly name = 'infraenv';
  readonly for = Gvk.InfraEnv;
  readonly watches: readonly Watch[] = [
    {
      // An NMStateConfig came, went or changed: the InfraEnvs of its namespace that select it.
      gvk: NMStateConfigGvk,
      map: (config, reader) =>
        reader
          .list(Gvk.InfraEnv, namespaced(config.metadata.namespace))
          .filter((infraEnv) => {
            const selector = record(record(infraEnv['spec'])['nmStateConfigLabelSelector']);
            return selects(selector, config.metadata.labels ?? {});
          })
          .map(requestOf),
    },
    {
      // The ClusterDeployment an InfraEnv is bound to came, went or changed: the InfraEnvs that
      // name it, as their last passes saw them (a fleet's every InfraEnv is not read per event).
      gvk: Gvk.ClusterDeployment,
      map: (cd) =>
        [
          ...(this.byClusterDeployment.get(`${cd.metadata.namespace ?? ''}/${cd.metadata.name}`) ??
            []),
        ].map(requestOfKey),
    },
    // A pull secret changed: the InfraEnvs of its namespace that name it (a new image).
    watchedSecrets((secret, reader) =>
      reader
        .list(Gvk.InfraEnv, namespaced(secret.metadata.namespace))
        .filter(
          (infraEnv) =>
            record(record(infraEnv['spec'])['pullSecretRef'])['name'] === secret.metadata.name,
        )
        .map(requestOf),
    ),
  ];
  private readonly imageServiceBaseUrl: string;
  private readonly serviceBaseUrl: string;
  /** Checks the tokens already handed out, as the agent API does. */
  private readonly publicKey: KeyObject;
  /** By request key: what {@link createImage} last built, to skip rebuilding the same image. */
  private readonly built = new Map<string, BuiltImage>();
  /**
   * The InfraEnvs naming each ClusterDeployment (`namespace/name` → InfraEnv keys), as of their
   * last pass. A pass records its InfraEnv before it reads the ClusterDeployment, so a
   * ClusterDeployment event after that read finds it, and one before it is seen by the read.
   */
  private readonly byClusterDeployment = new Map<string, Set<string>>();
  private readonly clusterDeploymentOf = new Map<string, string>();

  /** @throws Error when the service URL is empty */
  constructor(private readonly props: InfraEnvControllerProps) {
    if (props.serviceBaseUrl.trim() === '')
      throw new Error('InfraEnv controller: the service base URL is required');
    this.serviceBaseUrl = props.serviceBaseUrl.trim().replace(/\/+$/, '');
    this.imageServiceBaseUrl = (props.imageServiceBaseUrl ?? this.serviceBaseUrl).replace(
      /\/+$/,
      '',
    );
    this.publicKey = createPublicKey(props.privateKey);
  }

  async reconcile(request: Request, ctx: ReconcileContext): Promise<ReconcileResult> {
    const found = ctx.reader.get({ ...Gvk.InfraEnv, ...request });
    this.remember(requestKey(request), found);
    if (found === undefined || found.metadata['deletionTimestamp'] !== undefined)
      this.built.delete(requestKey(request));
    if (found === undefined) return {};
    const finalizers = strings(found.metadata['finalizers']);
    if (found.metadata['deletionTimestamp'] !== undefined) {
      // Nothing is held outside the cluster for an InfraEnv: its ISO is an overlay reference
      // that expires with its URL, and its Agents go with it (owner references).
      if (finalizers.includes(INFRAENV_FINALIZER))
        await ctx.writer.update({
          ...found,
          metadata: {
            ...found.metadata,
            finalizers: finalizers.filter((f) => f !== INFRAENV_FINALIZER),
          },
        });
      return {};
    }
    const infraEnv = finalizers.includes(INFRAENV_FINALIZER)
      ? found
      : await ctx.writer.update({
          ...found,
          metadata: { ...found.metadata, finalizers: [...finalizers, INFRAENV_FINALIZER] },
        });

    const status = { ...record(infraEnv['status']) };
    status['agentLabelSelector'] = { matchLabels: { [Label.InfraEnv]: infraEnv.metadata.name } };

    const missing = this.missingClusterDeployment(infraEnv, ctx);
    if (missing !== undefined) {
      status['conditions'] = setCondition(
        conditionsOf(status),
        {
          type: ImageCreatedCondition.Type,
          status: 'Unknown',
          reason: ImageCreatedCondition.MissingClusterDeploymentReason,
          message: `${ImageCreatedCondition.MissingClusterDeployment}: ${missing}`,
        },
        ctx.clock.now(),
      );
      await writeStatus(infraEnv, status, ctx);
      return {};
    }

    const id = str(infraEnv.metadata['uid']);
    const token = await this.agentToken(id, status, new Date(ctx.clock.now()));
    try {
      await this.createImage(infraEnv, id, token, status, ctx);
    } catch (error) {
      if (error instanceof DiscoveryImageNotReadyError) {
        // As assisted-service on a 409: the image is on its way; an error shown stays shown.
        if (
          findCondition(conditionsOf(status), ImageCreatedCondition.Type)?.reason !==
          ImageCreatedCondition.ImageCreationErrorReason
        )
          status['conditions'] = setCondition(
            conditionsOf(status),
            {
              type: ImageCreatedCondition.Type,
              status: 'True',
              reason: ImageCreatedCondition.ImageCreatedReason,
              message: ImageCreatedCondition.ImageCreatedMessage,
            },
            ctx.clock.now(),
          );
        await writeStatus(infraEnv, status, ctx);
        return { requeueAfterMs: RECOVERABLE_ERROR_REQUEUE_MS };
      }
      const failure = asFailure(error);
      ctx.log.warn({ err: failure.message }, 'could not create the InfraEnv image');
      status['conditions'] = setCondition(
        conditionsOf(status),
        {
          type: ImageCreatedCondition.Type,
          status: 'False',
          reason: ImageCreatedCondition.ImageCreationErrorReason,
          message: failure.clientError
            ? `${ImageCreatedCondition.FailedToCreate}: ${failure.message}`
            : `${ImageCreatedCondition.FailedToCreate} due to an internal error: ${failure.message}`,
        },
        ctx.clock.now(),
      );
      delete status['isoDownloadURL'];
      delete status['createdTime'];
      status['debugInfo'] = {
        ...record(status['debugInfo']),
        eventsURL: this.eventsUrl(id, token),
      };
      await writeStatus(infraEnv, status, ctx);
      return failure.retry ? { requeueAfterMs: RECOVERABLE_ERROR_REQUEUE_MS } : {};
    }
    await writeStatus(infraEnv, status, ctx);
    return {};
  }

  /** Builds the ISO and fills `status` with its URL, boot artifacts and debug URLs. */
  private async createImage(
    infraEnv: KubeObject,
    id: string,
    token: string,
    status: Json,
    ctx: ReconcileContext,
  ): Promise<void> {
    const spec = record(infraEnv['spec']);
    const arch = normalizeCpuArchitecture(str(spec['cpuArchitecture'])) || DEFAULT_CPU_ARCHITECTURE;
    let osImage: OsImage;
    try {
      osImage = osImageOrLatest(this.props.osImages, str(spec['osImageVersion']), arch);
    } catch (error) {
      if (error instanceof OsImageNotFoundError)
        throw new ImageCreationFailure(error.message, true);
      throw error;
    }
    const requested =
      imageTypeOf(str(spec['imageType'])) ?? this.props.defaultImageType ?? ImageType.MinimalIso;
    const staticNetwork = this.staticNetwork(infraEnv, ctx);
    // s390x boots only the full ISO. A minimal ISO needs a template (the store's), a rootfs URL
    // to fetch, and, with static networking, nmstate in its initrd to bring the network up
    // before that fetch, which SiteForge's template lacks: then the full ISO is served.
    const imageType =
      requested === ImageType.MinimalIso &&
      arch !== 's390x' &&
      this.props.isos.minimalIso &&
      osImage.rootFSUrl !== undefined &&
      osImage.rootFSUrl !== '' &&
      staticNetwork.length === 0
        ? ImageType.MinimalIso
        : ImageType.FullIso;
    const key = requestKey(requestOf(infraEnv));
    const internalOverride = infraEnv.metadata.annotations?.[INTERNAL_IGNITION_ANNOTATION] ?? '';
    const pullSecret = await this.pullSecret(infraEnv, ctx);
    const inputs = JSON.stringify([
      id,
      token,
      spec,
      internalOverride,
      staticNetwork,
      osImage,
      imageType,
      createHash('sha256').update(pullSecret).digest('base64'),
    ]);
    const built = this.built.get(key);
    const reuse = built?.inputs === inputs && built.url === status['isoDownloadURL'];
    const url = reuse
      ? built.url
      : await this.buildImage(infraEnv, token, osImage, imageType, staticNetwork, pullSecret);
    if (!reuse) this.built.set(key, { inputs, url });

    if (status['isoDownloadURL'] !== url) {
      ctx.log.info('the InfraEnv image changed');
      status['isoDownloadURL'] = url;
      status['createdTime'] = rfc3339(ctx.clock.now());
    }
    const query = `arch=${encodeURIComponent(arch)}&version=${encodeURIComponent(osImage.openshiftVersion)}`;
    const files = `${this.serviceBaseUrl}/api/assisted-install/v2/infra-envs/${id}/downloads/files`;
    const ipxeType =
      str(spec['ipxeScriptType']) === 'BootOrderControl'
        ? '&ipxe_script_type=boot-order-control'
        : '';
    status['bootArtifacts'] = {
      kernel: `${this.imageServiceBaseUrl}/boot-artifacts/kernel?${query}`,
      rootfs: `${this.imageServiceBaseUrl}/boot-artifacts/rootfs?${query}`,
      initrd: `${this.imageServiceBaseUrl}/images/${id}/pxe-initrd?${query}&api_key=${token}`,
      ipxeScript: `${files}?file_name=ipxe-script${ipxeType}&api_key=${token}`,
      discoveryIgnitionURL: `${files}?file_name=discovery.ign&api_key=${token}`,
    };
    status['debugInfo'] = {
      eventsURL: this.eventsUrl(id, token),
      ...(staticNetwork.length > 0 && {
        staticNetworkDownloadURL: `${files}?file_name=static-network-config&api_key=${token}`,
      }),
    };
    status['conditions'] = setCondition(
      conditionsOf(status),
      {
        type: ImageCreatedCondition.Type,
        status: 'True',
        reason: ImageCreatedCondition.InfraEnvAvailableReason,
        message: ImageCreatedCondition.InfraEnvAvailableMessage,
      },
      ctx.clock.now(),
    );
  }

  /** Builds the discovery ISO and returns its URL. */
  private async buildImage(
    infraEnv: KubeObject,
    token: string,
    osImage: OsImage,
    imageType: ImageType,
    staticNetwork: HostStaticNetworkConfig[],
    pullSecret: string,
  ): Promise<string> {
    const spec = record(infraEnv['spec']);
    const id = str(infraEnv.metadata['uid']);
    const proxy = record(spec['proxy']);
    const ntp =
      strings(spec['ntpSources']).length > 0
        ? strings(spec['ntpSources'])
        : strings(spec['additionalNTPSources']);
    const ignition = discoveryIgnition({
      infraEnvId: id,
      serviceBaseUrl: this.serviceBaseUrl,
      agentToken: token,
      pullSecret,
      sshAuthorizedKey: str(spec['sshAuthorizedKey']),
      proxy: {
        httpProxy: str(proxy['httpProxy']),
        httpsProxy: str(proxy['httpsProxy']),
        noProxy: str(proxy['noProxy']),
      },
      ntpSources: ntp,
      additionalTrustBundle: str(spec['additionalTrustBundle']).trim(),
      ...(this.props.serviceCaCert !== undefined && { serviceCaCert: this.props.serviceCaCert }),
      ...(this.props.agentImage !== undefined && { agentImage: this.props.agentImage }),
      skipCertVerification: this.props.skipCertVerification ?? false,
      imageType,
      staticNetwork,
      internalIgnitionConfigOverride:
        infraEnv.metadata.annotations?.[INTERNAL_IGNITION_ANNOTATION] ?? '',
      ignitionConfigOverride: str(spec['ignitionConfigOverride']),
    });
    const kernelArguments: string[] = [];
    for (const arg of records(spec['kernelArguments'])) {
      const operation = str(arg['operation']) || 'append';
      if (operation !== 'append')
        throw new ImageCreationFailure(
          `kernel argument operation ${operation} is not supported for discovery images, only append`,
          true,
        );
      if (str(arg['value']) !== '') kernelArguments.push(str(arg['value']));
    }
    return this.props.isos.isoUrl({
      osImage,
      imageType,
      ignition,
      ...(imageType === ImageType.MinimalIso && {
        initrdFiles: staticNetworkRamdisk(staticNetwork),
      }),
      kernelArguments,
    });
  }

  private eventsUrl(id: string, token: string): string {
    return `${this.serviceBaseUrl}/api/assisted-install/v2/events?infra_env_id=${id}&api_key=${token}`;
  }

  /**
   * The InfraEnv's agent token: the one its status URLs already carry when it is still valid
   * for this InfraEnv (ES256 signatures are randomised: a new one would change the ISO on every
   * pass), else a new one.
   */
  private async agentToken(id: string, status: Json, now: Date): Promise<string> {
    const known = /[?&]api_key=([^&]+)/.exec(
      str(record(status['bootArtifacts'])['discoveryIgnitionURL']),
    )?.[1];
    if (known !== undefined && (await verifyAgentToken(known, this.publicKey, now)) === id)
      return known;
    return signAgentToken(id, this.props.privateKey);
  }

  /** Keeps {@link byClusterDeployment} up to date with the InfraEnv `key` as read now. */
  private remember(key: string, infraEnv: KubeObject | undefined): void {
    const ref = record(record(infraEnv?.['spec'])['clusterRef']);
    const cd =
      infraEnv === undefined || Object.keys(ref).length === 0
        ? undefined
        : `${str(ref['namespace'])}/${str(ref['name'])}`;
    const before = this.clusterDeploymentOf.get(key);
    if (before === cd) return;
    if (before !== undefined) {
      const keys = this.byClusterDeployment.get(before);
      keys?.delete(key);
      if (keys?.size === 0) this.byClusterDeployment.delete(before);
    }
    if (cd === undefined) {
      this.clusterDeploymentOf.delete(key);
      return;
    }
    this.clusterDeploymentOf.set(key, cd);
    let keys = this.byClusterDeployment.get(cd);
    if (keys === undefined) this.byClusterDeployment.set(cd, (keys = new Set()));
    keys.add(key);
  }

  /** Why the InfraEnv's ClusterDeployment cannot be used, or undefined when it can (or none is named). */
  private missingClusterDeployment(
    infraEnv: KubeObject,
    ctx: ReconcileContext,
  ): string | undefined {
    const ref = record(record(infraEnv['spec'])['clusterRef']);
    if (Object.keys(ref).length === 0) return undefined;
    const name = str(ref['name']);
    const namespace = str(ref['namespace']);
    const cd = ctx.reader.get({ ...Gvk.ClusterDeployment, namespace, name });
    if (cd === undefined)
      return `failed to get clusterDeployment with name ${name} in namespace ${namespace}: clusterdeployments.hive.openshift.io "${name}" not found`;
    if (Object.keys(record(record(cd['spec'])['clusterInstallRef'])).length === 0)
      return `cluster does not exist: ${name}, AgentClusterInstall is not defined in ClusterDeployment`;
    return undefined;
  }

  /** The pull secret's `.dockerconfigjson` (src/bmac/watched-secrets.ts: cached once labelled). */
  private async pullSecret(infraEnv: KubeObject, ctx: ReconcileContext): Promise<string> {
    const name = str(record(record(infraEnv['spec'])['pullSecretRef'])['name']);
    const namespace = infraEnv.metadata.namespace ?? '';
    if (name === '' || namespace === '')
      throw new ImageCreationFailure('Missing reference to pull secret', true);
    const secret = await readWatchedSecret(ctx.reader, ctx.writer, { namespace, name });
    if (secret === undefined)
      throw new ImageCreationFailure(
        `failed to find secret ${name}: secrets "${name}" not found`,
        false,
      );
    const data = record(secret['data'])['.dockerconfigjson'];
    if (typeof data !== 'string')
      throw new ImageCreationFailure(`secret ${name} did not contain key .dockerconfigjson`, false);
    const text = Buffer.from(data, 'base64').toString('utf8');
    try {
      const auths = (JSON.parse(text) as { auths?: unknown }).auths;
      if (auths === null || typeof auths !== 'object') throw new Error('no auths');
    } catch {
      throw new ImageCreationFailure(
        `invalid pull secret data in secret ${name}: the pull secret is not a docker config JSON with "auths"`,
        true,
      );
    }
    return text;
  }

  /** The NMStateConfigs the InfraEnv selects, as static network configs in a stable order. */
  private staticNetwork(infraEnv: KubeObject, ctx: ReconcileContext): HostStaticNetworkConfig[] {
    const selector = record(record(infraEnv['spec'])['nmStateConfigLabelSelector']);
    if (Object.keys(selector).length === 0) return [];
    return ctx.reader
      .list(NMStateConfigGvk, namespaced(infraEnv.metadata.namespace))
      .filter((c) => selects(selector, c.metadata.labels ?? {}))
      .map((c) => {
        const spec = record(c['spec']);
        const config = spec['config'];
        return {
          networkYaml: typeof config === 'string' ? config : toYaml(config ?? {}),
          macInterfaceMap: records(spec['interfaces']).map((i) => ({
            macAddress: str(i['macAddress']),
            logicalNicName: str(i['name']),
          })),
        };
      })
      .sort((a, b) =>
        a.networkYaml === b.networkYaml
          ? JSON.stringify(a.macInterfaceMap) < JSON.stringify(b.macInterfaceMap)
            ? -1
            : 1
          : a.networkYaml < b.networkYaml
            ? -1
            : 1,
      );
  }
}

function asFailure(error: unknown): ImageCreationFailure {
  if (error instanceof ImageCreationFailure) return error;
  // What the user can fix (their override, their content's size, the configured image) is a
  // client error; a source that does not answer may come back.
  if (error instanceof DiscoveryIgnitionError || error instanceof IsoLayoutError)
    return new ImageCreationFailure(error.message, true);
  // The configured base image is missing or its server does not answer: said as the user's
  // problem (their osImages), looked at again in case the server comes back.
  if (error instanceof ImageSourceError) return new ImageCreationFailure(error.message, true, true);
  return new ImageCreationFailure(error instanceof Error ? error.message : String(error), false);
}

/** Writes `status` when it differs from the stored one. */
async function writeStatus(
  infraEnv: KubeObject,
  status: Json,
  ctx: ReconcileContext,
): Promise<void> {
  if (isDeepStrictEqual(status, record(infraEnv['status']))) return;
  await ctx.writer.updateStatus({ ...infraEnv, status });
}

function selects(selector: Json, labels: Readonly<Record<string, string>>): boolean {
  if (Object.keys(selector).length === 0) return false; // no selector: no NMStateConfig
  return labelSelectorMatches(selector, labels);
}

function imageTypeOf(value: string): ImageType | undefined {
  return value === ImageType.FullIso || value === ImageType.MinimalIso ? value : undefined;
}

/** The Request of a queue key (`namespace/name`). */
function requestOfKey(key: string): Request {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function namespaced(namespace: string | undefined): { namespace?: string } {
  return namespace === undefined ? {} : { namespace };
}

function conditionsOf(status: Json): Condition[] {
  return Array.isArray(status['conditions']) ? (status['conditions'] as Condition[]) : [];
}

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function record(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
