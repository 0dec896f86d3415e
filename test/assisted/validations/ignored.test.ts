import { describe, expect, it } from 'vitest';
import type { ValidationsInfo } from '../../../src/assisted/model.js';
import {
  conditionMessages,
  failingMessages,
  IGNORED_CLUSTER_VALIDATIONS_ANNOTATION,
  IGNORED_HOST_VALIDATIONS_ANNOTATION,
  ignoredValidationsProblems,
  IgnoredValidationsError,
  parseIgnoredValidations,
  validateCluster,
  validateHost,
  validationPassed,
} from '../../../src/assisted/validations/index.js';
import { cluster, host, inventory, NOW } from './fixtures.js';

describe('ignore annotations', () => {
  it('has upstream names', () => {
    expect(IGNORED_CLUSTER_VALIDATIONS_ANNOTATION).toBe(
      'agent-install.openshift.io/ignored-cluster-validations',
    );
    expect(IGNORED_HOST_VALIDATIONS_ANNOTATION).toBe(
      'agent-install.openshift.io/ignored-host-validations',
    );
  });

  it('reads a comma list, trimmed and without duplicates; present but empty is an empty list', () => {
    expect(parseIgnoredValidations(undefined)).toBeUndefined();
    expect(parseIgnoredValidations('')).toEqual([]);
    expect(parseIgnoredValidations('  ')).toEqual([]);
    expect(
      parseIgnoredValidations('dns-domain-defined, ntp-server-configured,dns-domain-defined'),
    ).toEqual(['dns-domain-defined', 'ntp-server-configured']);
  });

  it('refuses an empty item with upstream text, or skips it when asked', () => {
    expect(parseIgnoredValidations('a,,b', 'skip')).toEqual(['a', 'b']);
    expect(() => parseIgnoredValidations('a,,b')).toThrow(IgnoredValidationsError);
    expect(() => parseIgnoredValidations('a,,b')).toThrow(
      "failed to parse comma-separated validation IDs: empty ignored validation ID found in 'a,,b'",
    );
  });

  it('splits a JSON array like any value, as upstream, so its ids are unknown', () => {
    const ids = parseIgnoredValidations('["ntp-synced"]')!;
    expect(ids).toEqual(['["ntp-synced"]']);
    expect(ignoredValidationsProblems(ids, 'host')).toEqual([
      `Validation ID '["ntp-synced"]' is not a known host validation`,
    ]);
  });

  it('reports unknown ids and ids that cannot be ignored', () => {
    expect(ignoredValidationsProblems(['ntp-server-configured', 'all'], 'cluster')).toEqual([]);
    expect(ignoredValidationsProblems(['pull-secret-set', 'nope'], 'cluster')).toEqual([
      "Validation ID 'nope' is not a known cluster validation",
      'unable to ignore the following cluster validations (pull-secret-set)',
    ]);
    expect(
      ignoredValidationsProblems(['hostname-valid', 'has-cpu-cores-for-role'], 'host'),
    ).toEqual(['unable to ignore the following host validations (hostname-valid)']);
  });
});

describe('validationPassed and failingMessages', () => {
  const weak = host({
    inventory: inventory('192.168.111.20', { cpu: { count: 2, architecture: 'x86_64' } }),
    requestedHostname: 'localhost',
    stepResults: { ntp: { ntp_sources: [{ source_name: 'ntp1', source_state: 'synced' }] } },
  });
  const info = validateHost(weak, {
    cluster: cluster(),
    clusterHosts: [weak],
    now: NOW,
    connected: true,
  });

  it('counts an ignored validation as passing, but never a non-ignorable one', () => {
    expect(validationPassed(info, 'has-cpu-cores-for-role')).toBe(false);
    expect(validationPassed(info, 'has-cpu-cores-for-role', ['has-cpu-cores-for-role'])).toBe(true);
    expect(validationPassed(info, 'has-cpu-cores-for-role', ['all'])).toBe(true);
    expect(validationPassed(info, 'hostname-valid', ['hostname-valid', 'all'])).toBe(false);
    expect(validationPassed(info, 'has-inventory')).toBe(true);
    expect(validationPassed(info, 'ignition-downloadable')).toBe(true);
    expect(validationPassed(info, 'no-such-validation')).toBe(false);
  });

  it('tells host ids from cluster ids: machine-cidr-defined may be ignored only on a cluster', () => {
    const failingHost: ValidationsInfo = {
      network: [{ id: 'machine-cidr-defined', status: 'failure', message: 'm' }],
      hardware: [],
    };
    expect(validationPassed(failingHost, 'machine-cidr-defined', ['all'])).toBe(false);
    const c = validateCluster(cluster({ machineNetworks: [] }), [host()], { now: NOW });
    expect(validationPassed(c, 'machine-cidr-defined')).toBe(false);
    expect(validationPassed(c, 'machine-cidr-defined', ['machine-cidr-defined'])).toBe(true);
    expect(validationPassed(c, 'pull-secret-set', ['all'])).toBe(true);
    const noSecret = validateCluster(cluster({ pullSecretSet: false }), [host()], { now: NOW });
    expect(validationPassed(noSecret, 'pull-secret-set', ['all'])).toBe(false);
  });

  it('lists failing messages sorted, leaving out the ignored ones', () => {
    expect(failingMessages(info)).toEqual([
      'Require at least 4 CPU cores for master role, found only 2',
      'The host name localhost is forbidden',
    ]);
    expect(failingMessages(info, ['has-cpu-cores-for-role'])).toEqual([
      'The host name localhost is forbidden',
    ]);
  });
});

describe('conditionMessages', () => {
  it('lists what the Validated condition shows: pending and errors too, not disabled on an Agent', () => {
    const info: ValidationsInfo = {
      network: [
        { id: 'ntp-synced', status: 'disabled', message: 'Validation disabled by configuration' },
        { id: 'connected', status: 'success', message: 'Host is connected' },
        { id: 'belongs-to-majority-group', status: 'pending', message: 'p' },
      ],
      hardware: [{ id: 'has-min-memory', status: 'failure', message: 'f' }],
    };
    expect(conditionMessages(info)).toEqual(['f', 'p']);
    const clusterInfo: ValidationsInfo = {
      'hosts-data': [{ id: 'sufficient-masters-count', status: 'disabled', message: 'd' }],
      network: [{ id: 'ntp-server-configured', status: 'error', message: 'e' }],
    };
    expect(conditionMessages(clusterInfo)).toEqual(['d', 'e']);
  });
});
