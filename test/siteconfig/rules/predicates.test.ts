import { describe, expect, it } from 'vitest';
import {
  closest,
  labelKeyProblem,
  labelValueProblem,
  parseBmcAddress,
} from '../../../src/siteconfig/rules/predicates.js';

describe('BMC addresses as the baremetal-operator reads them', () => {
  it('accepts the virtual-media schemes, with or without a transport', () => {
    expect(parseBmcAddress('redfish-virtualmedia://192.168.122.1/redfish/v1/Systems/1')).toEqual({
      scheme: 'redfish-virtualmedia',
      transport: 'https',
      host: '192.168.122.1',
      virtualMedia: true,
    });
    expect(
      parseBmcAddress('redfish-virtualmedia+http://192.168.111.1:8000/redfish/v1/Systems/27946b59'),
    ).toMatchObject({ transport: 'http', host: '192.168.111.1' });
    expect(
      parseBmcAddress(
        'idrac-virtualmedia+https://[fe80::1]:8080/redfish/v1/Systems/System.Embedded.1',
      ),
    ).toMatchObject({ scheme: 'idrac-virtualmedia', host: '[fe80::1]' });
    expect(
      parseBmcAddress('ilo5-virtualmedia://BMC.example.com/redfish/v1/Systems/1'),
    ).toMatchObject({ host: 'bmc.example.com', virtualMedia: true });
  });

  it('knows which schemes need a provisioning network', () => {
    expect(parseBmcAddress('redfish://192.168.122.1/redfish/v1')).toMatchObject({
      scheme: 'redfish',
      virtualMedia: false,
    });
    expect(parseBmcAddress('ipmi://10.0.0.1:623')).toMatchObject({
      scheme: 'ipmi',
      virtualMedia: false,
    });
  });

  it('reads the opaque and scheme-less forms like the operator does', () => {
    expect(parseBmcAddress('redfish:1.2.3.4')).toMatchObject({
      scheme: 'redfish',
      host: '1.2.3.4',
    });
    expect(parseBmcAddress('10.0.0.9')).toMatchObject({ scheme: 'ipmi', host: '10.0.0.9' });
  });

  it('explains unknown schemes and broken URLs', () => {
    expect(parseBmcAddress('redfishvm://10.0.0.1/redfish/v1/Systems/1')).toMatchObject({
      problem: 'unknown BMC scheme "redfishvm"',
    });
    expect(parseBmcAddress('redfish-virtualmedia+ftp://10.0.0.1/')).toMatchObject({
      problem: 'unknown BMC scheme "redfish-virtualmedia+ftp"',
    });
    expect(parseBmcAddress('redfish-virtualmedia://[::1/x')).toHaveProperty('problem');
  });
});

describe('Kubernetes label syntax', () => {
  it('accepts prefixed keys and empty values, rejects what the API server would', () => {
    expect(labelKeyProblem('node-role.kubernetes.io/infra')).toBeUndefined();
    expect(labelKeyProblem('Example_Key.1')).toBeUndefined();
    expect(labelKeyProblem('bad key')).toBeDefined();
    expect(labelKeyProblem('UPPER.example.com/x')).toBeDefined();
    expect(labelKeyProblem('a'.repeat(64))).toBeDefined();
    expect(labelValueProblem('')).toBeUndefined();
    expect(labelValueProblem('4.18')).toBeUndefined();
    expect(labelValueProblem('-leading')).toBeDefined();
    expect(labelValueProblem('a'.repeat(64))).toBeDefined();
  });
});

describe('typo suggestions', () => {
  it('suggests the nearest known name, and nothing for unrelated words', () => {
    expect(closest('bootMacAddress', ['bootMACAddress', 'bmcAddress'])).toBe('bootMACAddress');
    expect(closest('clustername', ['clusterName', 'clusterLabels'])).toBe('clusterName');
    expect(closest('zzz', ['clusterName'])).toBeUndefined();
  });
});
