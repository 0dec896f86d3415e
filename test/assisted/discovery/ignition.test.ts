import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ADDITIONAL_TRUST_BUNDLE_PATH,
  DEFAULT_AGENT_IMAGE,
  DiscoveryIgnitionError,
  HOST_CA_CERT_PATH,
  discoveryIgnition,
  ignitionPayload,
  mergeIgnition,
  staticNetworkRamdisk,
} from '../../../src/assisted/discovery/index.js';
import type { DiscoveryIgnitionInput } from '../../../src/assisted/discovery/index.js';

const ID = '7b1c5a0e-58b2-4c1f-9a55-0f3a1b2c3d4e';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';

interface File {
  path: string;
  mode: number;
  contents: { source: string };
}
interface Unit {
  name: string;
  enabled?: boolean;
  contents?: string;
}
interface Config {
  ignition: { version: string; proxy?: Record<string, unknown> };
  passwd: { users: { name: string; sshAuthorizedKeys?: string[]; groups?: string[] }[] };
  systemd: { units: Unit[] };
  storage: { files: File[] };
}

function build(extra: Partial<DiscoveryIgnitionInput> = {}): Config {
  return JSON.parse(
    discoveryIgnition({
      infraEnvId: ID,
      serviceBaseUrl: 'https://hub.example:8090 ',
      agentToken: 'eyJ.token.sig',
      pullSecret: PULL_SECRET,
      ...extra,
    }),
  ) as Config;
}

function fileText(config: Config, path: string): string | undefined {
  const file = config.storage.files.find((f) => f.path === path);
  if (file === undefined) return undefined;
  const [, data] = /^data:[^,]*;base64,(.*)$/.exec(file.contents.source)!;
  return Buffer.from(data!, 'base64').toString();
}

const unit = (config: Config, name: string) => config.systemd.units.find((u) => u.name === name);

describe('discovery ignition', () => {
  it('starts the agent against the service with the InfraEnv id and its token', () => {
    const config = build();
    expect(config.ignition.version).toBe('3.1.0');
    const agent = unit(config, 'agent.service')!;
    expect(agent.enabled).toBe(true);
    expect(agent.contents).toContain('Environment=PULL_SECRET_TOKEN=eyJ.token.sig\n');
    expect(agent.contents).toContain('TimeoutStartSec=600\n');
    expect(agent.contents).toContain(
      `ExecStart=/usr/local/bin/agent --url https://hub.example:8090 --infra-env-id ${ID} --agent-version ${DEFAULT_AGENT_IMAGE} --insecure=false\n`,
    );
    expect(agent.contents).toMatch(
      /\[Unit\]\nWants=network-online.target\nAfter=network-online.target\n/,
    );
    expect(agent.contents).toMatch(/\[Install\]\nWantedBy=multi-user.target\n$/);
    expect(fileText(config, '/root/.docker/config.json')).toBe(PULL_SECRET);
    expect(config.passwd.users).toEqual([]);
    expect(unit(config, 'add-ntp-sources.service')).toBeUndefined();
    expect(unit(config, 'pre-network-manager-config.service')).toBeUndefined();
    expect(config.ignition.proxy).toBeUndefined();
  });

  it('gives the agent the service CA, and writes the trust bundle', () => {
    const config = build({
      serviceCaCert: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
      additionalTrustBundle: '-----BEGIN CERTIFICATE-----\nEXTRA\n-----END CERTIFICATE-----\n',
    });
    expect(unit(config, 'agent.service')!.contents).toContain(
      `--insecure=false --cacert ${HOST_CA_CERT_PATH}\n`,
    );
    expect(fileText(config, HOST_CA_CERT_PATH)).toContain('CA');
    expect(fileText(config, ADDITIONAL_TRUST_BUNDLE_PATH)).toContain('EXTRA');
  });

  it('lets user core log in with each SSH key of the InfraEnv', () => {
    const config = build({ sshAuthorizedKey: 'ssh-ed25519 AAAA one\n\nssh-rsa BBBB two\n' });
    expect(config.passwd.users).toEqual([
      {
        name: 'core',
        passwordHash: '!',
        sshAuthorizedKeys: ['ssh-ed25519 AAAA one', 'ssh-rsa BBBB two'],
        groups: ['sudo'],
      },
    ]);
  });

  it('sets the proxy for Ignition, the agent and login shells', () => {
    const config = build({
      proxy: {
        httpProxy: 'http://proxy:3128',
        httpsProxy: 'http://p%41ss@proxy:3129',
        noProxy: '.lab, 10.0.0.0/8',
      },
    });
    expect(config.ignition.proxy).toEqual({
      httpProxy: 'http://proxy:3128',
      httpsProxy: 'http://p%41ss@proxy:3129',
      noProxy: ['.lab', '10.0.0.0/8'],
    });
    const agent = unit(config, 'agent.service')!.contents!;
    expect(agent).toContain('Environment=HTTPS_PROXY=http://p%%41ss@proxy:3129\n');
    expect(agent).toContain('Environment=no_proxy=.lab, 10.0.0.0/8\n');
    expect(fileText(config, '/etc/profile.d/proxy.sh')).toContain(
      'export HTTP_PROXY="http://proxy:3128"',
    );
  });

  it('adds the NTP sources before chrony starts', () => {
    const config = build({ ntpSources: ['ntp1.lab', 'ntp2.lab'] });
    expect(unit(config, 'add-ntp-sources.service')!.contents).toContain('Before=chronyd.service');
    const script = fileText(config, '/usr/local/bin/add-ntp-sources.sh')!;
    expect(script).toContain('server ntp1.lab iburst');
    expect(script).toContain('server ntp2.lab iburst');
  });

  it('carries the static network of the full ISO in the ignition, and of the minimal ISO in its ramdisk', () => {
    const staticNetwork = [
      {
        networkYaml: 'interfaces:\n- name: eth0\n  type: ethernet\n',
        macInterfaceMap: [
          { macAddress: '52:54:00:00:00:02', logicalNicName: 'eth1' },
          { macAddress: '52:54:00:00:00:01', logicalNicName: 'eth0' },
        ],
      },
    ];
    const full = build({ staticNetwork, imageType: 'full-iso' });
    expect(unit(full, 'pre-network-manager-config.service')!.enabled).toBe(true);
    expect(fileText(full, '/etc/assisted/network/host0/mac_interface.ini')).toBe(
      '52:54:00:00:00:01=eth0\n52:54:00:00:00:02=eth1',
    );
    expect(fileText(full, '/etc/assisted/network/host0/ymlFile0.yml')).toContain('name: eth0');
    expect(full.storage.files.find((f) => f.path.endsWith('ymlFile0.yml'))!.mode).toBe(0o600);

    const minimal = build({ staticNetwork, imageType: 'minimal-iso' });
    expect(unit(minimal, 'pre-network-manager-config.service')).toBeUndefined();
    expect(minimal.storage.files.some((f) => f.path.startsWith('/etc/assisted/network'))).toBe(
      false,
    );
    expect(staticNetworkRamdisk(staticNetwork).map((f) => f.path)).toEqual([
      'etc/assisted/network/host0/mac_interface.ini',
      'etc/assisted/network/host0/ymlFile0.yml',
      'usr/local/bin/pre-network-manager-config.sh',
      'usr/local/bin/common_network_script.sh',
    ]);
    expect(staticNetworkRamdisk([])).toEqual([]);
  });

  it('merges the internal override, then the user override: files by path, units and users by name', () => {
    const internal = JSON.stringify({
      ignition: { version: '3.1.0' },
      systemd: { units: [{ name: 'ironic-agent.service', enabled: true, contents: '[Unit]\n' }] },
    });
    const user = JSON.stringify({
      ignition: { version: '3.2.0' },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 CCCC three'] }] },
      storage: {
        files: [
          { path: '/etc/motd', contents: { source: 'data:,hello' } },
          { path: '/etc/extra.conf', mode: 420, contents: { source: 'data:,x' } },
        ],
      },
    });
    const config = build({
      sshAuthorizedKey: 'ssh-ed25519 AAAA one',
      internalIgnitionConfigOverride: internal,
      ignitionConfigOverride: user,
    });
    expect(config.ignition.version).toBe('3.2.0');
    // The internal override runs the ironic agent instead: agent.service stays disabled.
    expect(unit(config, 'agent.service')!.enabled).toBe(false);
    expect(unit(config, 'ironic-agent.service')!.enabled).toBe(true);
    expect(config.passwd.users).toHaveLength(1);
    expect(config.passwd.users[0]!.sshAuthorizedKeys).toEqual([
      'ssh-ed25519 AAAA one',
      'ssh-ed25519 CCCC three',
    ]);
    expect(config.passwd.users[0]!.groups).toEqual(['sudo']);
    const motd = config.storage.files.filter((f) => f.path === '/etc/motd');
    expect(motd).toHaveLength(1);
    expect(motd[0]!.contents.source).toBe('data:,hello');
    expect(motd[0]!.mode).toBe(0o644);
    expect(config.storage.files.at(-1)!.path).toBe('/etc/extra.conf');
  });

  it('refuses an override that is not Ignition 3.1 or 3.2, saying why', () => {
    const cases: [string, RegExp][] = [
      [
        '{"passwd": hunter2}',
        /^error parsing ignition: config is not valid, error report: invalid JSON$/,
      ],
      [
        '{"a":\n1',
        /^error parsing ignition: config is not valid, error report: error at line 2 col 2/,
      ],
      ['[]', /^error parsing ignition: config is not valid/],
      ['{"ignition":{"version":"2.2.0"}}', /^error parsing ignition: unsupported config version/],
      ['{"ignition":{"version":"3.4.0"}}', /^error parsing ignition: unsupported config version/],
      ['{"ignition":{}}', /^error parsing ignition: invalid config version \(couldn't parse\)/],
    ];
    for (const [override, message] of cases) {
      let error: unknown;
      try {
        build({ ignitionConfigOverride: override });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DiscoveryIgnitionError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('packs config.ign into the embed payload, refusing one larger than the area', () => {
    const ignition = discoveryIgnition({
      infraEnvId: ID,
      serviceBaseUrl: 'https://h',
      pullSecret: PULL_SECRET,
    });
    const payload = ignitionPayload(ignition, 262_144);
    expect(gunzipSync(payload).toString('latin1')).toContain(`config.ign\0`);
    expect(() => ignitionPayload(ignition, 100)).toThrow(
      new DiscoveryIgnitionError(
        `content length (${String(payload.length)}) exceeds embed area size (100)`,
      ),
    );
  });

  it('merges nested objects field by field and the override wins on scalars', () => {
    expect(
      mergeIgnition(
        { ignition: { version: '3.1.0', timeouts: { httpTotal: 10 } }, storage: { files: [] } },
        { ignition: { version: '3.1.0', timeouts: { httpResponseHeaders: 5 } } },
      ),
    ).toEqual({
      ignition: { version: '3.1.0', timeouts: { httpTotal: 10, httpResponseHeaders: 5 } },
      storage: { files: [] },
    });
  });
});
