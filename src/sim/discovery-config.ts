/**
 * What a booted discovery host takes from its ignition config, as the live system does:
 * agent.service's ExecStart (service URL, InfraEnv id), its PULL_SECRET_TOKEN, the CA file its
 * `--cacert` names, and the static network configuration that pre-network-manager-config.sh
 * would apply (the `host<i>/` directory whose mac_interface.ini lists one of this host's MACs).
 */
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { SiteForgeError } from '../shared/errors.js';

/** The ignition does not start a discovery agent the way SiteForge writes it. */
export class DiscoveryConfigError extends SiteForgeError {
  constructor(message: string) {
    super('SIM_DISCOVERY_CONFIG', message);
  }
}

/** What the discovery agent is started with. */
export interface Discovery {
  /** `--url` of agent.service. */
  readonly url: string;
  /** `--infra-env-id`. */
  readonly infraEnvId: string;
  /** `PULL_SECRET_TOKEN`. */
  readonly token: string;
  /** `--agent-version`, when given. */
  readonly agentVersion: string | undefined;
  /** The CA at `--cacert`, when the ignition carries one. */
  readonly ca: string | undefined;
  /** The whole ignition config. */
  readonly ignition: Record<string, unknown>;
}

/** One NIC as the static network configuration sets it up. */
export interface StaticNic {
  readonly mac: string;
  /** The interface name mac_interface.ini gives the MAC. */
  readonly name: string;
  /** Addresses with prefix (`10.0.0.5/24`, `fd00::5/64`). */
  readonly addresses: readonly string[];
}

/** A host's static network configuration, from its ISO. */
export interface StaticNetwork {
  readonly nics: readonly StaticNic[];
  /** The default gateway (IPv4 first), if a route sets one. */
  readonly gateway: string | undefined;
  readonly dnsServers: readonly string[];
}

interface IgnitionFile {
  readonly path: string;
  readonly contents?: { readonly source?: string; readonly compression?: string };
}

/** The agent's settings from a discovery ignition. */
export function discoveryOf(ignition: Record<string, unknown>): Discovery {
  const units = (
    (ignition['systemd'] as { units?: { name: string; contents?: string }[] } | undefined)?.units ??
    []
  ).filter((unit) => typeof unit.name === 'string');
  const agent = units.find((unit) => unit.name === 'agent.service')?.contents ?? '';
  const exec = /^ExecStart=.*$/m.exec(agent)?.[0] ?? '';
  const url = /--url (\S+)/.exec(exec)?.[1];
  const infraEnvId = /--infra-env-id (\S+)/.exec(exec)?.[1];
  const token = /^Environment=PULL_SECRET_TOKEN=(\S+)$/m.exec(agent)?.[1];
  const caPath = /--cacert (\S+)/.exec(exec)?.[1];
  if (url === undefined || infraEnvId === undefined || token === undefined)
    throw new DiscoveryConfigError(
      'the ignition has no agent.service with --url, --infra-env-id and PULL_SECRET_TOKEN',
    );
  const ca = caPath === undefined ? undefined : fileText(ignition, caPath);
  return {
    url,
    infraEnvId,
    token,
    agentVersion: /--agent-version (\S+)/.exec(exec)?.[1],
    ca,
    ignition,
  };
}

/** The text of the file at `path` in the ignition's storage, or undefined. */
export function fileText(ignition: Record<string, unknown>, path: string): string | undefined {
  const file = filesOf(ignition).find((f) => f.path === path);
  const source = file?.contents?.source;
  if (source === undefined) return undefined;
  const bytes = decodeDataUrl(source);
  return (file?.contents?.compression === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
}

function filesOf(ignition: Record<string, unknown>): IgnitionFile[] {
  const files = (ignition['storage'] as { files?: unknown } | undefined)?.files;
  return Array.isArray(files)
    ? (files as IgnitionFile[]).filter((f) => typeof f.path === 'string')
    : [];
}

function decodeDataUrl(source: string): Buffer {
  if (!source.startsWith('data:')) return Buffer.alloc(0);
  const comma = source.indexOf(',');
  const head = source.slice(0, comma);
  const body = source.slice(comma + 1);
  return head.endsWith(';base64')
    ? Buffer.from(body, 'base64')
    : Buffer.from(decodeURIComponent(body), 'utf8');
}

const NETWORK_DIR = /^\/etc\/assisted\/network\/([^/]+)\/mac_interface\.ini$/;

/**
 * The static network configuration of the host with `macs`, as pre-network-manager-config.sh
 * picks it: the first host directory whose mac_interface.ini lists one of them. Undefined when
 * none does (the host then takes DHCP).
 */
export function staticNetworkOf(
  ignition: Record<string, unknown>,
  macs: readonly string[],
): StaticNetwork | undefined {
  const own = new Set(macs.map((mac) => mac.toLowerCase()));
  for (const file of filesOf(ignition)) {
    const dir = NETWORK_DIR.exec(file.path)?.[1];
    if (dir === undefined) continue;
    const map = (fileText(ignition, file.path) ?? '')
      .split('\n')
      .map((line) => line.trim().split('='))
      .filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== '')
      .map(([mac, name]) => ({ mac: mac.toLowerCase(), name }));
    if (!map.some((entry) => own.has(entry.mac))) continue;
    const yamlFile = filesOf(ignition).find(
      (f) => f.path.startsWith(`/etc/assisted/network/${dir}/`) && f.path.endsWith('.yml'),
    );
    const state = parseYaml(
      yamlFile === undefined ? '' : (fileText(ignition, yamlFile.path) ?? ''),
    ) as NmState | null;
    return fromNmState(state ?? {}, map);
  }
  return undefined;
}

interface NmState {
  readonly interfaces?: readonly {
    readonly name?: string;
    readonly ipv4?: NmAddressFamily;
    readonly ipv6?: NmAddressFamily;
  }[];
  readonly routes?: { readonly config?: readonly { readonly 'next-hop-address'?: string }[] };
  readonly 'dns-resolver'?: { readonly config?: { readonly server?: readonly string[] } };
}

interface NmAddressFamily {
  readonly enabled?: boolean;
  readonly address?: readonly { readonly ip?: string; readonly 'prefix-length'?: number }[];
}

function fromNmState(
  state: NmState,
  map: readonly { readonly mac: string; readonly name: string }[],
): StaticNetwork {
  const nics = map.map(({ mac, name }) => {
    const config = (state.interfaces ?? []).find((i) => i.name === name);
    const addresses = [config?.ipv4, config?.ipv6].flatMap((family) =>
      family?.enabled === false
        ? []
        : (family?.address ?? []).flatMap((a) =>
            a.ip === undefined ? [] : [`${a.ip}/${String(a['prefix-length'] ?? 24)}`],
          ),
    );
    return { mac, name, addresses };
  });
  const hops = (state.routes?.config ?? []).flatMap((r) => r['next-hop-address'] ?? []);
  return {
    nics,
    gateway: hops.find((hop) => !hop.includes(':')) ?? hops[0],
    dnsServers: state['dns-resolver']?.config?.server ?? [],
  };
}
