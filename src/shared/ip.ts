/**
 * IPv4/IPv6 address and CIDR arithmetic on bigints, enough for network validation:
 * parse, contain, overlap. No DNS, no I/O.
 */

/** Address family: 4 or 6. */
export type IpFamily = 4 | 6;

/** A parsed IP address. `value` is the address as an unsigned integer of 32 or 128 bits. */
export interface IpAddress {
  readonly family: IpFamily;
  readonly value: bigint;
  readonly text: string;
}

/** A parsed CIDR. `network` is the address with host bits cleared. */
export interface Cidr {
  readonly family: IpFamily;
  readonly network: bigint;
  readonly prefix: number;
  /** True when the text had host bits set (e.g. `10.0.0.1/24`). */
  readonly hostBitsSet: boolean;
  readonly text: string;
}

/** Parses dotted-quad IPv4 (no leading zeros, as Go's net.ParseIP); hot in fleet validation. */
function parseIpv4(text: string): bigint | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return undefined; // leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return undefined;
    } else {
      return undefined;
    }
  }
  if (dots !== 3 || digits === 0) return undefined;
  return BigInt(value * 256 + octet);
}

function parseIpv6(text: string): bigint | undefined {
  if (text.includes('%')) return undefined; // zone ids are not valid in manifests
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const left = toGroups(halves[0] ?? '');
  const right = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  return value;
}

/** Parses an IPv4 or IPv6 address; undefined when the text is not one. */
export function parseIp(text: string): IpAddress | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { family: 6, value, text };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { family: 4, value, text };
}

/** Bits of an address of the family. */
export function familyBits(family: IpFamily): number {
  return family === 4 ? 32 : 128;
}

function hostMask(family: IpFamily, prefix: number): bigint {
  return (1n << BigInt(familyBits(family) - prefix)) - 1n;
}

/** Parses `address/prefix`; undefined when it is not a CIDR. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const prefixText = text.slice(slash + 1);
  if (!/^(?:0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  const address = parseIp(text.slice(0, slash));
  if (!address) return undefined;
  const prefix = Number(prefixText);
  if (prefix > familyBits(address.family)) return undefined;
  const mask = hostMask(address.family, prefix);
  return {
    family: address.family,
    network: address.value & ~mask,
    prefix,
    hostBitsSet: (address.value & mask) !== 0n,
    text,
  };
}

/** True when the address lies inside the CIDR. */
export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  return (address.value & ~hostMask(cidr.family, cidr.prefix)) === cidr.network;
}

/** True when the two CIDRs share at least one address. */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  const prefix = Math.min(a.prefix, b.prefix);
  const mask = ~hostMask(a.family, prefix);
  return (a.network & mask) === (b.network & mask);
}

/** The network address of a CIDR, formatted (`10.0.0.0/24` for `10.0.0.7/24`). */
export function formatCidrNetwork(cidr: Cidr): string {
  return `${formatIp(cidr.family, cidr.network)}/${String(cidr.prefix)}`;
}

/** Formats an address value in canonical text (RFC 5952 for IPv6). */
export function formatIp(family: IpFamily, value: bigint): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (g: number[]): string => g.map((n) => n.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}
