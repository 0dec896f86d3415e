/**
 * The settings of the assisted core that `siteforge controller` takes as flags, their values
 * and defaults, and the URL agents are told to call.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../../shared/errors.js';

/** Where a cluster's install ignition comes from. */
export const InstallerBackend = {
  /** The real `openshift-install` binary (`create ignition-configs`). */
  OpenshiftInstall: 'openshift-install',
  /** Valid Ignition and a kubeconfig of a fresh CA, for fleet simulations; never the default. */
  Simulated: 'simulated',
} as const;
export type InstallerBackend = (typeof InstallerBackend)[keyof typeof InstallerBackend];

/** The discovery ISO kinds (AS `models.ImageType`). */
export const DiscoveryIsoType = {
  /** The ISO without its rootfs, which the host downloads at boot (`coreos.live.rootfs_url`). */
  MinimalIso: 'minimal-iso',
  FullIso: 'full-iso',
} as const;
export type DiscoveryIsoType = (typeof DiscoveryIsoType)[keyof typeof DiscoveryIsoType];

/**
 * What the assisted flags default to. The ISO type is kube-api's `ISO_IMAGE_TYPE` default
 * (the REST API's is full-iso); s390x InfraEnvs get a full ISO whatever this says.
 */
export const ASSISTED_DEFAULTS = {
  assisted: true,
  agentApiPort: 8090,
  installer: InstallerBackend.OpenshiftInstall,
  /** Looked up on PATH. */
  openshiftInstallPath: 'openshift-install',
  discoveryIsoType: DiscoveryIsoType.MinimalIso,
} as const;

/** Hosts that listen on every interface: no address an agent could be given. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The base URL agents are told to call: `--agent-api-url`; else, when the agent API listens on
 * every interface, `https://$POD_IP:PORT` (the pod's own address, from the downward API); else
 * its listening address over https.
 * @throws UsageError when it listens on every interface and neither is set
 */
export function agentApiPublicUrl(
  options: {
    readonly agentApiUrl?: string;
    readonly agentApiBindAddress?: { readonly host: string; readonly port: number };
  },
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (options.agentApiUrl !== undefined) return options.agentApiUrl.replace(/\/+$/, '');
  const { host, port } = options.agentApiBindAddress ?? {
    host: '',
    port: ASSISTED_DEFAULTS.agentApiPort,
  };
  const podIp = env['POD_IP']?.trim();
  const address = WILDCARD_HOSTS.has(host) ? podIp : host;
  if (address === undefined || address === '')
    throw new UsageError(
      `the agent API listens on every interface (--agent-api-bind-address :${String(port)}), which is no address a discovery host can reach: pass --agent-api-url URL (or set POD_IP to the pod's address)`,
    );
  return `https://${address.includes(':') ? `[${address}]` : address}:${String(port)}`;
}

/**
 * The absolute path of an executable named by a flag: a path with a `/` as given (made
 * absolute), a bare name looked up on `$PATH` as a shell does. A name not found is returned as
 * given, so that whoever runs it says it is missing (the openshift-install backend's
 * availability does, and the cluster waits).
 */
export function executableOnPath(
  nameOrPath: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (nameOrPath.includes('/')) return isAbsolute(nameOrPath) ? nameOrPath : resolve(nameOrPath);
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, nameOrPath);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return nameOrPath;
}
