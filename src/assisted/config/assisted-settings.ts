/**
 * From the assisted flags of `siteforge controller` to what the assisted core runs with: the
 * URL agents are given, the agent API's TLS, the agent token key, the OS images and the
 * installer. Everything a flag names is read and checked here, before anything listens, so a bad
 * file is a usage error at start-up rather than a failure at the first host.
 */
import type { Logger } from '../../shared/logger.js';
import { agentApiTls, hostOfUrl } from './agent-api-tls.js';
import type { AgentApiTls } from './agent-api-tls.js';
import { agentTokenKey } from './agent-token-key.js';
import type { AgentTokenKeyPair } from './agent-token-key.js';
import { loadOsImagesFile } from './os-images.js';
import type { OsImage } from './os-images.js';
import {
  ASSISTED_DEFAULTS,
  InstallerBackend,
  agentApiPublicUrl,
  executableOnPath,
} from './options.js';
import type { DiscoveryIsoType } from './options.js';
import { sharedAgentApiTls } from './shared-agent-api-tls.js';
import type { SecretClient } from './shared-agent-api-tls.js';

/** The assisted flags, as ControllerOptions carries them (all optional, with their defaults). */
export interface AssistedFlags {
  readonly agentApiBindAddress?: { readonly host: string; readonly port: number };
  readonly agentApiUrl?: string;
  readonly agentApiTlsCertFile?: string;
  readonly agentApiTlsKeyFile?: string;
  readonly agentTokenKeyFile?: string;
  readonly osImagesFile?: string;
  readonly installer?: InstallerBackend;
  readonly openshiftInstallPath?: string;
  readonly discoveryIsoType?: DiscoveryIsoType;
}

/** What the assisted core runs with. */
export interface AssistedSettings {
  /** Where the agent API listens; host '' is every interface. */
  readonly agentApiBindAddress: { readonly host: string; readonly port: number };
  /** The https base URL agents are given, without a trailing slash. */
  readonly agentApiUrl: string;
  readonly tls: AgentApiTls;
  readonly tokenKey: AgentTokenKeyPair;
  /** Empty without `--os-images-file`: InfraEnvs then get no ISO (warned at start-up). */
  readonly osImages: readonly OsImage[];
  readonly installer: InstallerBackend;
  /** Absolute when found on PATH; as given otherwise (the backend reports it missing). */
  readonly openshiftInstallPath: string;
  readonly discoveryIsoType: DiscoveryIsoType;
}

/** Where the generated TLS is shared, when it can be (see sharedAgentApiTls). */
export interface TlsSecretRef {
  readonly client: SecretClient;
  readonly namespace: string;
  readonly name: string;
}

/** What resolveAssistedSettings takes from its process. */
export interface AssistedSettingsHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Pick<Logger, 'info' | 'warn'>;
  /**
   * Where to share a generated CA among replicas. Used only with `--agent-api-url` and no
   * certificate files (a pod address changes with the pod). @default - not shared
   */
  readonly tlsSecret?: TlsSecretRef;
}

/**
 * Reads and checks everything the assisted flags name.
 * @throws UsageError for a file that cannot be read or holds the wrong thing, or an agent API
 *   URL that cannot be worked out; OsImagesError for a bad osImages file
 */
export async function resolveAssistedSettings(
  flags: AssistedFlags,
  host: AssistedSettingsHost,
): Promise<AssistedSettings> {
  const { env, log } = host;
  const agentApiBindAddress = flags.agentApiBindAddress ?? {
    host: '',
    port: ASSISTED_DEFAULTS.agentApiPort,
  };
  const agentApiUrl = agentApiPublicUrl({ ...flags, agentApiBindAddress }, env);
  const tokenKey = agentTokenKey(flags.agentTokenKeyFile, log);
  const osImages = flags.osImagesFile === undefined ? [] : loadOsImagesFile(flags.osImagesFile);
  if (osImages.length === 0)
    log.warn(
      'no --os-images-file: InfraEnvs get no discovery ISO until the controller is given base images',
    );

  const hosts = [hostOfUrl(agentApiUrl)];
  let tls: AgentApiTls;
  if (flags.agentApiTlsCertFile !== undefined || flags.agentApiTlsKeyFile !== undefined) {
    tls = await agentApiTls({
      ...(flags.agentApiTlsCertFile !== undefined && { certFile: flags.agentApiTlsCertFile }),
      ...(flags.agentApiTlsKeyFile !== undefined && { keyFile: flags.agentApiTlsKeyFile }),
      hosts,
    });
  } else if (flags.agentApiUrl !== undefined && host.tlsSecret !== undefined) {
    const { client, namespace, name } = host.tlsSecret;
    tls = await sharedAgentApiTls(client, { namespace, name, hosts });
    log.info(
      { secret: `${namespace}/${name}` },
      'the agent API serves the generated certificate shared by every replica',
    );
  } else {
    tls = await agentApiTls({ hosts });
    log.warn(
      'no --agent-api-tls-cert-file: the agent API serves a CA made by this process; discovery ISOs made now stop working after a restart or failover',
    );
  }

  const installer = flags.installer ?? ASSISTED_DEFAULTS.installer;
  if (installer === InstallerBackend.Simulated)
    log.warn(
      '--installer simulated: clusters get fake ignition and a kubeconfig of a made-up CA; nothing is really installed',
    );
  return {
    agentApiBindAddress,
    agentApiUrl,
    tls,
    tokenKey,
    osImages,
    installer,
    openshiftInstallPath: executableOnPath(
      flags.openshiftInstallPath ?? ASSISTED_DEFAULTS.openshiftInstallPath,
      env,
    ),
    discoveryIsoType: flags.discoveryIsoType ?? ASSISTED_DEFAULTS.discoveryIsoType,
  };
}
