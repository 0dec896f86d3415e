import { describe, expect, it } from 'vitest';
import { parseRedfishAddress, RedfishError } from '../../../src/bmac/redfish/index.js';
import { parseBmcLocation } from '../../../src/shared/bmc-address.js';

describe('BareMetalHost BMC addresses, mapped as BMO maps them for ironic', () => {
  it.each([
    [
      'redfish-virtualmedia://192.168.122.1/redfish/v1/Systems/1',
      'https://192.168.122.1',
      '/redfish/v1/Systems/1',
    ],
    [
      'redfish-virtualmedia+http://192.168.111.1:8000/redfish/v1/Systems/27946b59-9e44',
      'http://192.168.111.1:8000',
      '/redfish/v1/Systems/27946b59-9e44',
    ],
    [
      'idrac-virtualmedia+https://[fe80::1]:8080/redfish/v1/Systems/System.Embedded.1',
      'https://[fe80::1]:8080',
      '/redfish/v1/Systems/System.Embedded.1',
    ],
    [
      'ilo5-virtualmedia://BMC.Example.com/redfish/v1/Systems/1',
      'https://bmc.example.com',
      '/redfish/v1/Systems/1',
    ],
    ['redfish://192.168.122.1/redfish/v1', 'https://192.168.122.1', undefined],
    ['redfish://192.168.122.1/redfish/v1/', 'https://192.168.122.1', undefined],
    ['redfish-uefihttp+http://10.0.0.5:8000', 'http://10.0.0.5:8000', undefined],
    ['redfish:1.2.3.4', 'https://1.2.3.4', undefined],
    [
      'idrac-redfish://10.1.1.1/redfish/v1/Systems/System.Embedded.1?x=1',
      'https://10.1.1.1',
      '/redfish/v1/Systems/System.Embedded.1',
    ],
  ])('%s → %s %s', (address, origin, systemPath) => {
    expect(parseRedfishAddress(address)).toMatchObject({ origin, systemPath });
  });

  it('knows which schemes boot through virtual media', () => {
    expect(parseRedfishAddress('redfish-virtualmedia://10.0.0.1').virtualMedia).toBe(true);
    expect(parseRedfishAddress('ilo5-redfish://10.0.0.1').virtualMedia).toBe(false);
  });

  it('refuses IPMI and libvirt, which are not Redfish', () => {
    expect(() => parseRedfishAddress('ipmi://10.0.0.1:623')).toThrow(/not Redfish/);
    expect(() => parseRedfishAddress('10.0.0.9')).toThrow(/not Redfish/);
    expect(() => parseRedfishAddress('libvirt://10.0.0.1')).toThrow(RedfishError);
  });

  it('refuses a Manager path: the address must name a System (bmo#896)', () => {
    expect(() =>
      parseRedfishAddress('redfish-virtualmedia://10.0.0.1/redfish/v1/Managers/iDRAC.Embedded.1'),
    ).toThrow(/is not a System/);
  });

  it('explains broken addresses with the REDFISH_ADDRESS code', () => {
    try {
      parseRedfishAddress('redfish-virtualmedia+ftp://10.0.0.1/');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RedfishError);
      expect((err as RedfishError).code).toBe('REDFISH_ADDRESS');
      expect((err as RedfishError).message).toMatch(
        /unknown BMC scheme "redfish-virtualmedia\+ftp"/,
      );
    }
  });

  it('reads the port and path through the slow path too', () => {
    expect(parseBmcLocation('redfish+http://[::1]:8000/redfish/v1/Systems/a%20b')).toMatchObject({
      host: '[::1]',
      port: 8000,
      path: '/redfish/v1/Systems/a%20b',
    });
    expect(parseBmcLocation('redfish://h:99999/')).toHaveProperty('problem');
  });
});
