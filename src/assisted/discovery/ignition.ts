/**
 * The discovery ignition of an InfraEnv (assisted.md §6.1): Ignition spec 3.1.0 that starts the
 * discovery agent against the service with the InfraEnv's id and token, and carries the pull
 * secret, the SSH key, proxy, NTP sources, the matching NMStateConfigs as static networking
 * (full ISO; the minimal ISO takes them in its ramdisk) and the CA bundles; then the internal
 * override and the user's `spec.ignitionConfigOverride`, merged the way Ignition merges configs.
 * The scripts and units are SiteForge's own; their names and paths are assisted-service's.
 */
import { SiteForgeError } from '../../shared/errors.js';
import { compressedCpio } from './cpio.js';
import type { CpioFile } from './cpio.js';

/** An ignition override that is not an Ignition config we accept, or a payload too large. */
export class DiscoveryIgnitionError extends SiteForgeError {
  constructor(message: string) {
    super('DISCOVERY_IGNITION', message);
  }
}

/** The two ISO types of assisted-service (`disconnected-iso` is not served). */
export const ImageType = { FullIso: 'full-iso', MinimalIso: 'minimal-iso' } as const;
export type ImageType = (typeof ImageType)[keyof typeof ImageType];

/** The agent image assisted-service runs by default (`AGENT_DOCKER_IMAGE`). */
export const DEFAULT_AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';
/** Where the service CA lands on the host, passed to the agent as `--cacert`. */
export const HOST_CA_CERT_PATH = '/etc/assisted-service/service-ca-cert.crt';
/** Where the InfraEnv's additional trust bundle lands. */
export const ADDITIONAL_TRUST_BUNDLE_PATH =
  '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem';
/** The directory of the static network configuration on the host. */
export const STATIC_NETWORK_DIR = '/etc/assisted/network';

/** An InfraEnv's proxy (`spec.proxy`). */
export interface ProxySettings {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  /** Comma-separated, as in the InfraEnv. */
  readonly noProxy?: string;
}

/** One host's static network configuration: an NMStateConfig. */
export interface HostStaticNetworkConfig {
  /** nmstate YAML (`spec.config`). */
  readonly networkYaml: string;
  /** `spec.interfaces`. */
  readonly macInterfaceMap: readonly {
    readonly macAddress: string;
    readonly logicalNicName: string;
  }[];
}

/** What the discovery ignition is made of. */
export interface DiscoveryIgnitionInput {
  /** The InfraEnv id (its `metadata.uid`). */
  readonly infraEnvId: string;
  /** The agent API's base URL, e.g. `https://hub.example:8090`. */
  readonly serviceBaseUrl: string;
  /** `PULL_SECRET_TOKEN` of the agent; absent when the service does not authenticate agents. */
  readonly agentToken?: string;
  /** The pull secret (a docker config JSON), written to `/root/.docker/config.json`. */
  readonly pullSecret: string;
  /** `spec.sshAuthorizedKey`: one key a line. */
  readonly sshAuthorizedKey?: string;
  readonly proxy?: ProxySettings;
  /** `spec.additionalNTPSources`. */
  readonly ntpSources?: readonly string[];
  /** `spec.additionalTrustBundle` (PEM). */
  readonly additionalTrustBundle?: string;
  /** The service's CA (PEM): written to {@link HOST_CA_CERT_PATH} and given to the agent. */
  readonly serviceCaCert?: string;
  /** @default false */
  readonly skipCertVerification?: boolean;
  /** @default DEFAULT_AGENT_IMAGE */
  readonly agentImage?: string;
  /** `TimeoutStartSec` of agent.service. @default 600 */
  readonly agentTimeoutStartSec?: number;
  /** @default 'full-iso' */
  readonly imageType?: ImageType;
  /** The matching NMStateConfigs, in a stable order. */
  readonly staticNetwork?: readonly HostStaticNetworkConfig[];
  /** The InfraEnv's internal override (ironic agent); when set, agent.service is not enabled. */
  readonly internalIgnitionConfigOverride?: string;
  /** `spec.ignitionConfigOverride`. */
  readonly ignitionConfigOverride?: string;
}

/** A JSON value. */
type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object (an Ignition config or part of one). */
interface JsonObject {
  [key: string]: Json;
}

/**
 * The discovery ignition of an InfraEnv, as JSON text.
 * @throws DiscoveryIgnitionError when an override is not an Ignition config we accept
 */
export function discoveryIgnition(input: DiscoveryIgnitionInput): string {
  let config = baseIgnition(input);
  if (input.internalIgnitionConfigOverride)
    config = mergeIgnition(config, parseIgnition(input.internalIgnitionConfigOverride));
  if (input.ignitionConfigOverride)
    config = mergeIgnition(config, parseIgnition(input.ignitionConfigOverride));
  return JSON.stringify(config);
}

/**
 * The bytes for a live ISO's ignition embed area: a gzip-compressed cpio with `config.ign`
 * (and `extra` files, e.g. the minimal ISO's static network), padded to 4 bytes.
 * @throws DiscoveryIgnitionError `content length (N) exceeds embed area size (M)`
 */
export function ignitionPayload(
  ignition: string,
  areaLength: number,
  extra: readonly CpioFile[] = [],
): Buffer {
  const payload = compressedCpio([
    { path: 'config.ign', contents: ignition, mode: 0o644 },
    ...extra,
  ]);
  if (payload.length > areaLength)
    throw new DiscoveryIgnitionError(
      `content length (${String(payload.length)}) exceeds embed area size (${String(areaLength)})`,
    );
  return payload;
}

/**
 * The static network files of the minimal ISO's ramdisk (assisted-service serves them as the
 * `minimal-initrd`): the hosts' configurations and the script that picks the host's own.
 */
export function staticNetworkRamdisk(hosts: readonly HostStaticNetworkConfig[]): CpioFile[] {
  if (hosts.length === 0) return [];
  return [
    ...staticNetworkFiles(hosts).map((f) => ({
      path: f.path.slice(1),
      contents: f.contents,
      mode: 0o600,
    })),
    {
      path: 'usr/local/bin/pre-network-manager-config.sh',
      contents: PRE_NETWORK_SCRIPT,
      mode: 0o755,
    },
    {
      path: 'usr/local/bin/common_network_script.sh',
      contents: COMMON_NETWORK_SCRIPT,
      mode: 0o755,
    },
  ];
}

/**
 * Parses an ignition override the way assisted-service accepts it: JSON, Ignition spec 3.1.0
 * or 3.2.0.
 * @throws DiscoveryIgnitionError `error parsing ignition: …`
 */
export function parseIgnition(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new DiscoveryIgnitionError(
      `error parsing ignition: config is not valid, error report: ${jsonErrorAt(text, err)}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new DiscoveryIgnitionError(
      'error parsing ignition: config is not valid, error report: not a JSON object',
    );
  const version = ((value as JsonObject)['ignition'] as JsonObject | undefined)?.['version'];
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+(-experimental)?$/.test(version))
    throw new DiscoveryIgnitionError(
      "error parsing ignition: invalid config version (couldn't parse), error report: ",
    );
  if (version !== '3.1.0' && version !== '3.2.0')
    throw new DiscoveryIgnitionError(
      'error parsing ignition: unsupported config version, error report: ',
    );
  return value as JsonObject;
}

/**
 * Where JSON.parse stopped, as `error at line L col C: invalid JSON` when V8 says where (else
 * `invalid JSON`): never the text itself
 * (V8 quotes it, and an override may carry secrets into conditions and logs).
 */
function jsonErrorAt(text: string, err: unknown): string {
  const position = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (!position) return 'invalid JSON';
  const before = text.slice(0, Number(position[1])).split('\n');
  return `error at line ${String(before.length)} col ${String(before.at(-1)!.length + 1)}: invalid JSON`;
}

/** List fields Ignition merges item by item, and the key of their items. */
const KEYED_LISTS: Record<string, string> = {
  files: 'path',
  directories: 'path',
  links: 'path',
  units: 'name',
  dropins: 'name',
  users: 'name',
  groups: 'name',
  disks: 'device',
  partitions: 'label',
  raid: 'name',
  filesystems: 'device',
  luks: 'name',
  trees: 'local',
  merge: 'source',
  certificateAuthorities: 'source',
};

/**
 * `override` merged into `base` as Ignition merges a child config into its parent: objects
 * field by field, the child's scalars winning; lists of keyed items (files and directories by
 * path, units and users by name, …) item by item, new items appended; other lists appended
 * without duplicates.
 */
export function mergeIgnition(base: JsonObject, override: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [field, value] of Object.entries(override)) {
    const current = out[field];
    const key = KEYED_LISTS[field];
    if (Array.isArray(value) && Array.isArray(current)) {
      out[field] =
        key === undefined ? appendUnique(current, value) : mergeKeyed(current, value, key);
    } else if (isObject(value) && isObject(current)) {
      out[field] = mergeIgnition(current, value);
    } else {
      out[field] = value;
    }
  }
  return out;
}

function mergeKeyed(base: Json[], override: Json[], key: string): Json[] {
  const out = [...base];
  for (const item of override) {
    const index = isObject(item)
      ? out.findIndex((o) => isObject(o) && o[key] !== undefined && o[key] === item[key])
      : -1;
    if (index >= 0 && isObject(item)) out[index] = mergeIgnition(out[index] as JsonObject, item);
    else out.push(item);
  }
  return out;
}

function appendUnique(base: Json[], extra: Json[]): Json[] {
  const seen = new Set(base.map((v) => JSON.stringify(v)));
  return [...base, ...extra.filter((v) => !seen.has(JSON.stringify(v)))];
}

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function baseIgnition(input: DiscoveryIgnitionInput): JsonObject {
  const agentImage = input.agentImage ?? DEFAULT_AGENT_IMAGE;
  const proxy = input.proxy ?? {};
  const hasProxy = [proxy.httpProxy, proxy.httpsProxy, proxy.noProxy].some(
    (v) => v !== undefined && v !== '',
  );
  const ntp = (input.ntpSources ?? []).filter((s) => s !== '');
  const staticNetwork =
    (input.imageType ?? ImageType.FullIso) === ImageType.FullIso ? (input.staticNetwork ?? []) : [];
  const keys = (input.sshAuthorizedKey ?? '')
    .split('\n')
    .map((k) => k.trim())
    .filter((k) => k !== '');

  const units: JsonObject[] = [
    {
      name: 'agent.service',
      enabled: !input.internalIgnitionConfigOverride,
      contents: agentService(input, agentImage),
    },
    { name: 'selinux.service', enabled: true, contents: SELINUX_SERVICE },
    { name: 'multipathd.service', enabled: true },
    { name: 'iscsistart.service', enabled: true, contents: ISCSISTART_SERVICE },
    { name: 'oci-eval-user-data.service', enabled: true, contents: OCI_USER_DATA_SERVICE },
  ];
  if (staticNetwork.length > 0)
    units.push({
      name: 'pre-network-manager-config.service',
      enabled: true,
      contents: PRE_NETWORK_SERVICE,
    });
  if (ntp.length > 0)
    units.push({ name: 'add-ntp-sources.service', enabled: true, contents: ADD_NTP_SERVICE });

  const files: JsonObject[] = [
    file('/usr/local/bin/agent-fix-bz1964591', 0o755, AGENT_FIX_SCRIPT),
    file('/usr/local/bin/agent-pull-image', 0o755, AGENT_PULL_SCRIPT),
    file('/etc/motd', 0o644, MOTD),
    file('/etc/multipath.conf', 0o644, MULTIPATH_CONF),
    file('/usr/local/bin/oci-eval-user-data.sh', 0o755, OCI_USER_DATA_SCRIPT, false),
    file('/etc/NetworkManager/conf.d/01-ipv6.conf', 0o644, IPV6_CONF),
    file('/root/.docker/config.json', 0o644, input.pullSecret),
    file('/root/assisted.te', 0o644, SELINUX_POLICY),
  ];
  if (input.serviceCaCert) files.push(file(HOST_CA_CERT_PATH, 0o644, input.serviceCaCert));
  if (input.additionalTrustBundle)
    files.push(file(ADDITIONAL_TRUST_BUNDLE_PATH, 0o644, input.additionalTrustBundle));
  if (staticNetwork.length > 0) {
    files.push(file('/usr/local/bin/pre-network-manager-config.sh', 0o755, PRE_NETWORK_SCRIPT));
    files.push(file('/usr/local/bin/common_network_script.sh', 0o755, COMMON_NETWORK_SCRIPT));
    for (const f of staticNetworkFiles(staticNetwork)) files.push(file(f.path, 0o600, f.contents));
  }
  if (hasProxy) files.push(file('/etc/profile.d/proxy.sh', 0o644, profileProxy(proxy), false));
  if (ntp.length > 0)
    files.push(file('/usr/local/bin/add-ntp-sources.sh', 0o755, addNtpScript(ntp), false));

  const ignition: JsonObject = { version: '3.1.0' };
  if (hasProxy)
    ignition['proxy'] = {
      ...(proxy.httpProxy && { httpProxy: proxy.httpProxy }),
      ...(proxy.httpsProxy && { httpsProxy: proxy.httpsProxy }),
      ...(proxy.noProxy && {
        noProxy: proxy.noProxy
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      }),
    };
  return {
    ignition,
    passwd: {
      users:
        keys.length === 0
          ? []
          : [{ name: 'core', passwordHash: '!', sshAuthorizedKeys: keys, groups: ['sudo'] }],
    },
    systemd: { units },
    storage: { files },
  };
}

function agentService(input: DiscoveryIgnitionInput, image: string): string {
  // systemd reads `%` as a specifier: a proxy URL's escapes are doubled.
  const http = (input.proxy?.httpProxy ?? '').replaceAll('%', '%%');
  const https = (input.proxy?.httpsProxy ?? '').replaceAll('%', '%%');
  const no = input.proxy?.noProxy ?? '';
  const lines = [
    '[Service]',
    'Type=simple',
    'Restart=always',
    'RestartSec=3',
    'StartLimitInterval=0',
    `Environment=HTTP_PROXY=${http}`,
    `Environment=http_proxy=${http}`,
    `Environment=HTTPS_PROXY=${https}`,
    `Environment=https_proxy=${https}`,
    `Environment=NO_PROXY=${no}`,
    `Environment=no_proxy=${no}`,
    ...(input.agentToken ? [`Environment=PULL_SECRET_TOKEN=${input.agentToken}`] : []),
    `TimeoutStartSec=${String(input.agentTimeoutStartSec ?? 600)}`,
    `ExecStartPre=/usr/local/bin/agent-fix-bz1964591 ${image}`,
    `ExecStartPre=/usr/local/bin/agent-pull-image ${image}`,
    `ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin ${image} cp /usr/bin/agent /hostbin`,
    `ExecStart=/usr/local/bin/agent --url ${input.serviceBaseUrl.trim()} --infra-env-id ${input.infraEnvId} --agent-version ${image} --insecure=${String(input.skipCertVerification ?? false)}` +
      (input.serviceCaCert ? ` --cacert ${HOST_CA_CERT_PATH}` : ''),
    '',
    '[Unit]',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  ];
  return `${lines.join('\n')}\n`;
}

function file(path: string, mode: number, contents: string, overwrite = true): JsonObject {
  return {
    ...(overwrite && { overwrite: true }),
    path,
    mode,
    user: { name: 'root' },
    contents: {
      source: `data:text/plain;charset=utf-8;base64,${Buffer.from(contents).toString('base64')}`,
    },
  };
}

/** `host<i>/mac_interface.ini` and `host<i>/ymlFile<i>.yml` per host, as assisted-service names them. */
function staticNetworkFiles(
  hosts: readonly HostStaticNetworkConfig[],
): { path: string; contents: string }[] {
  return hosts.flatMap((host, i) => [
    {
      path: `${STATIC_NETWORK_DIR}/host${String(i)}/mac_interface.ini`,
      contents: host.macInterfaceMap
        .map((m) => `${m.macAddress}=${m.logicalNicName}`)
        .sort()
        .join('\n'),
    },
    {
      path: `${STATIC_NETWORK_DIR}/host${String(i)}/ymlFile${String(i)}.yml`,
      contents: host.networkYaml,
    },
  ]);
}

function profileProxy(proxy: ProxySettings): string {
  const lines: string[] = [];
  for (const [names, value] of [
    [['HTTP_PROXY', 'http_proxy'], proxy.httpProxy],
    [['HTTPS_PROXY', 'https_proxy'], proxy.httpsProxy],
    [['NO_PROXY', 'no_proxy'], proxy.noProxy],
  ] as const)
    if (value) for (const name of names) lines.push(`export ${name}="${value}"`);
  return `${lines.join('\n')}\n`;
}

function addNtpScript(sources: readonly string[]): string {
  return [
    '#!/bin/bash',
    "# Adds the InfraEnv's NTP sources to chrony before it starts.",
    'set -euo pipefail',
    ...sources.map(
      (s) =>
        `grep -q '^server ${s} ' /etc/chrony.conf || echo 'server ${s} iburst' >> /etc/chrony.conf`,
    ),
    '',
  ].join('\n');
}

const SELINUX_SERVICE = `[Unit]
Description=Loads the SELinux module the discovery agent needs
ConditionPathExists=/root/assisted.te

[Service]
Type=oneshot
ExecStart=/bin/bash -c 'checkmodule -M -m -o /root/assisted.mod /root/assisted.te && semodule_package -o /root/assisted.pp -m /root/assisted.mod && semodule -i /root/assisted.pp'
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
`;

const ISCSISTART_SERVICE = `[Unit]
Description=Brings up iSCSI sessions from the firmware (iBFT) before discovery
ConditionPathExists=/sys/firmware/ibft
Before=agent.service

[Service]
Type=oneshot
ExecStart=/usr/sbin/iscsistart -b
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
`;

const OCI_USER_DATA_SERVICE = `[Unit]
Description=Runs the user data of an Oracle Cloud instance, when there is some
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
ExecStart=/usr/local/bin/oci-eval-user-data.sh

[Install]
WantedBy=multi-user.target
`;

const OCI_USER_DATA_SCRIPT = `#!/bin/bash
# Only on Oracle Cloud: fetch the instance's user data and run it if it is a script.
[ "$(cat /sys/class/dmi/id/chassis_asset_tag 2>/dev/null)" = "OracleCloud.com" ] || exit 0
data=$(curl -sf -H 'Authorization: Bearer Oracle' http://169.254.169.254/opc/v2/instance/metadata/user_data | base64 -d) || exit 0
case "$data" in '#!'*) bash -c "$data" ;; esac
`;

const PRE_NETWORK_SERVICE = `[Unit]
Description=Picks this host's static network configuration before NetworkManager starts
Before=NetworkManager.service
DefaultDependencies=no

[Service]
Type=oneshot
TimeoutSec=60
ExecStart=/bin/bash /usr/local/bin/pre-network-manager-config.sh
PrivateTmp=true

[Install]
WantedBy=multi-user.target
`;

const COMMON_NETWORK_SCRIPT = `#!/bin/bash
# Helpers of pre-network-manager-config.sh.
mac_of() { cat "/sys/class/net/$1/address" 2>/dev/null; }
local_macs() { for nic in /sys/class/net/*; do mac_of "$(basename "$nic")"; done; }
`;

const PRE_NETWORK_SCRIPT = `#!/bin/bash
# Applies the static network configuration whose MAC addresses are this host's.
set -euo pipefail
. /usr/local/bin/common_network_script.sh
dir=${STATIC_NETWORK_DIR}
macs=$(local_macs | tr 'A-F' 'a-f')
for host in "$dir"/host*; do
  [ -f "$host/mac_interface.ini" ] || continue
  while IFS='=' read -r mac _; do
    if grep -qix "$mac" <<<"$macs"; then
      for yml in "$host"/*.yml; do nmstatectl apply --no-commit --memory-only "$yml" || nmstatectl gc "$yml" -o /etc/NetworkManager/system-connections; done
      exit 0
    fi
  done < "$host/mac_interface.ini"
done
`;

const ADD_NTP_SERVICE = `[Unit]
Description=Adds the InfraEnv's NTP sources
Before=chronyd.service

[Service]
Type=oneshot
ExecStart=/bin/bash -c 'for s in /usr/local/bin/add-ntp-sources.sh /var/usrlocal/bin/add-ntp-sources.sh; do [ -f "$s" ] && exec "$s"; done; echo "add-ntp-sources.sh is missing"; exit 1'

[Install]
WantedBy=multi-user.target
`;

const AGENT_FIX_SCRIPT = `#!/bin/bash
# Removes a half-pulled agent image left by an interrupted pull, so the next pull starts clean.
image="$1"
if podman image exists "$image" && ! podman image inspect "$image" >/dev/null 2>&1; then
  podman rmi -f "$image" || true
fi
`;

const AGENT_PULL_SCRIPT = `#!/bin/bash
# Pulls the agent image, retrying until it is there.
image="$1"
until podman image exists "$image" || podman pull "$image"; do
  echo "pulling $image failed, retrying in 5 s"
  sleep 5
done
`;

const MOTD = `This is a host being discovered for an OpenShift installation.
Its discovery agent reports to the installation service; see 'journalctl -u agent.service'.
`;

const MULTIPATH_CONF = `defaults {
    user_friendly_names yes
    find_multipaths yes
}
`;

const IPV6_CONF = `[connection]
ipv6.dhcp-duid=ll
ipv6.dhcp-iaid=mac
`;

const SELINUX_POLICY = `module assisted 1.0;
require {
    type chronyd_t;
    type container_file_t;
    class dir search;
}
allow chronyd_t container_file_t:dir search;
`;
