import { describe, expect, it } from 'vitest';
import {
  cidrContains,
  cidrsOverlap,
  formatCidrNetwork,
  formatIp,
  parseCidr,
  parseIp,
} from '../../src/shared/ip.js';

describe('IP addresses', () => {
  it('parses IPv4 dotted quads and rejects near misses', () => {
    expect(parseIp('10.16.231.20')).toMatchObject({ family: 4, value: 0x0a10e714n });
    expect(parseIp('0.0.0.0')?.value).toBe(0n);
    expect(parseIp('255.255.255.255')?.value).toBe(0xffffffffn);
    for (const bad of [
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1..2.3',
      '1.2.3.',
      'a.b.c.d',
      '',
      '1.2.3.4/24',
      ' 1.2.3.4',
    ]) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it('parses IPv6 in every textual form', () => {
    expect(parseIp('fd00:1:2::20')).toMatchObject({ family: 6 });
    expect(parseIp('::')?.value).toBe(0n);
    expect(parseIp('::1')?.value).toBe(1n);
    expect(parseIp('::ffff:10.0.0.1')?.value).toBe(0xffff0a000001n);
    expect(parseIp('1:2:3:4:5:6:7:8')).toBeDefined();
    for (const bad of [
      '1:2:3:4:5:6:7:8:9',
      'fd00:::1',
      '1::2::3',
      'g::1',
      'fe80::1%eth0',
      '12345::1',
    ]) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it('formats addresses canonically (RFC 5952 for IPv6)', () => {
    expect(formatIp(6, parseIp('fd00:0:0:0:0:0:0:1')!.value)).toBe('fd00::1');
    expect(formatIp(6, parseIp('1:0:0:2:0:0:0:3')!.value)).toBe('1:0:0:2::3');
    expect(formatIp(4, parseIp('10.1.2.3')!.value)).toBe('10.1.2.3');
  });
});

describe('CIDRs', () => {
  it('parses prefixes, notices host bits and gives the network address', () => {
    expect(parseCidr('10.0.0.0/24')).toMatchObject({ family: 4, prefix: 24, hostBitsSet: false });
    const withHost = parseCidr('10.0.0.7/24')!;
    expect(withHost.hostBitsSet).toBe(true);
    expect(formatCidrNetwork(withHost)).toBe('10.0.0.0/24');
    expect(formatCidrNetwork(parseCidr('fd00:1:2::5/64')!)).toBe('fd00:1:2::/64');
    for (const bad of [
      '10.0.0.0',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/024',
      '10.0.0.0/-1',
      'x/8',
    ])
      expect(parseCidr(bad), bad).toBeUndefined();
  });

  it('tells containment and overlap, never across families', () => {
    const net = parseCidr('10.16.0.0/16')!;
    expect(cidrContains(net, parseIp('10.16.231.1')!)).toBe(true);
    expect(cidrContains(net, parseIp('10.17.0.1')!)).toBe(false);
    expect(cidrsOverlap(net, parseCidr('10.16.231.0/24')!)).toBe(true);
    expect(cidrsOverlap(net, parseCidr('10.17.0.0/16')!)).toBe(false);
    expect(cidrsOverlap(parseCidr('::/0')!, net)).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0')!, parseIp('192.168.1.1')!)).toBe(true);
  });
});
