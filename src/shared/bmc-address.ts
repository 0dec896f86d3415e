/**
 * BareMetalHost `spec.bmc.address` parsing, as the baremetal-operator does it
 * (`pkg/hardwareutils/bmc/access.go GetParsedURL`). Shared by the SiteConfig validator, which
 * only needs the scheme and host, and the Redfish client, which also needs the port and path.
 */
import { quote } from './errors.js';

/**
 * BMC URL schemes the baremetal-operator understands, each with whether it boots through
 * virtual media (which ZTP needs: there is no provisioning network at an edge site).
 */
export const BMC_SCHEMES: Readonly<Record<string, { virtualMedia: boolean }>> = {
  'redfish-virtualmedia': { virtualMedia: true },
  'ilo5-virtualmedia': { virtualMedia: true },
  'idrac-virtualmedia': { virtualMedia: true },
  'redfish-uefihttp': { virtualMedia: true },
  redfish: { virtualMedia: false },
  'ilo5-redfish': { virtualMedia: false },
  'idrac-redfish': { virtualMedia: false },
  ipmi: { virtualMedia: false },
  libvirt: { virtualMedia: false },
};

/** A parsed BMC address. */
export interface BmcAddress {
  readonly scheme: string;
  readonly transport: 'http' | 'https';
  /** Lower-cased DNS name or IPv4 literal, or an IPv6 literal in brackets. */
  readonly host: string;
  readonly virtualMedia: boolean;
}

/** A parsed BMC address with where on the host it points. */
export interface BmcLocation extends BmcAddress {
  /** @default - none: the transport's default port */
  readonly port: number | undefined;
  /** The URL path, `''` when there is none. The query string is ignored, as BMO does. */
  readonly path: string;
}

/** Why an address cannot be used, and how to fix it. */
export interface BmcAddressProblem {
  readonly problem: string;
  readonly hint: string;
}

// The usual `scheme[+transport]://host[:port]/path` needs no URL parser (costly per host).
const SIMPLE_BMC_URL =
  /^([a-z0-9-]+)(?:\+(https?))?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?(\/[^\s?#]*)?$/;

/** Parses a BareMetalHost `bmc.address`; returns a problem description when it is not valid. */
export function parseBmcAddress(address: string): BmcAddress | BmcAddressProblem {
  const parsed = parseBmcLocation(address);
  if ('problem' in parsed) return parsed;
  const { scheme, transport, host, virtualMedia } = parsed;
  return { scheme, transport, host, virtualMedia };
}

/** Like {@link parseBmcAddress}, and also returns the port and path the address names. */
export function parseBmcLocation(address: string): BmcLocation | BmcAddressProblem {
  const simple = SIMPLE_BMC_URL.exec(address);
  const simpleEntry = simple ? BMC_SCHEMES[simple[1]!] : undefined;
  if (simple && simpleEntry) {
    const host = simple[3]!.startsWith('[') ? simple[3]! : simple[3]!.toLowerCase();
    const port = simple[4] === undefined ? undefined : Number(simple[4]);
    if (port === undefined || port <= 65535)
      return {
        scheme: simple[1]!,
        transport: simple[2] === 'http' ? 'http' : 'https',
        host,
        virtualMedia: simpleEntry.virtualMedia,
        port,
        path: simple[5] ?? '',
      };
  }
  const known = Object.keys(BMC_SCHEMES).join(', ');
  let text = address;
  const opaque = /^([a-z0-9+-]+):(?!\/\/)/.exec(text);
  if (opaque) text = `${opaque[1]}://${text.slice(opaque[0].length)}`;
  if (!text.includes('://')) text = `ipmi://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      problem: `${quote(address)} is not a URL`,
      hint: 'write it as scheme://host[:port]/path',
    };
  }
  const fullScheme = url.protocol.slice(0, -1);
  const [scheme = '', transport = 'https'] = fullScheme.split('+');
  const entry = BMC_SCHEMES[scheme];
  if (!entry || (transport !== 'http' && transport !== 'https')) {
    return {
      problem: `unknown BMC scheme ${quote(fullScheme)}`,
      hint: `use one of ${known} (optionally +http or +https)`,
    };
  }
  const host = url.hostname;
  if (host === '')
    return {
      problem: `${quote(address)} has no host`,
      hint: 'put the BMC IP or DNS name after the scheme',
    };
  return {
    scheme,
    transport,
    host,
    virtualMedia: entry.virtualMedia,
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname === '/' ? '' : url.pathname,
  };
}
