/**
 * The assisted core's flags of `siteforge controller`: each parses in both spellings, has its
 * default, and a bad value is a usage error (exit 2) that says what is wanted.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentApiPublicUrl, executableOnPath } from '../../../src/assisted/config/options.js';
import { parseControllerArgs } from '../../../src/plugins/cli/controller-command.js';
import type { ControllerOptions } from '../../../src/bmac/main.js';
import { runCli } from '../../../src/plugins/cli/main.js';
import { UsageError } from '../../../src/shared/errors.js';

function parse(...argv: string[]): ControllerOptions {
  const parsed = parseControllerArgs(argv);
  if ('help' in parsed) throw new Error('help');
  return parsed;
}

async function exitOf(...argv: string[]) {
  let stderr = '';
  let stdout = '';
  const status = await runCli(['controller', ...argv], {
    cwd: process.cwd(),
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
  });
  return { status, stderr, stdout };
}

describe('the assisted flags of siteforge controller', () => {
  it('default to the assisted core on, its API on :8090, openshift-install and the minimal ISO', () => {
    const options = parse();
    expect(options).toMatchObject({
      assisted: true,
      agentApiBindAddress: { host: '', port: 8090 },
      installer: 'openshift-install',
      openshiftInstallPath: 'openshift-install',
      discoveryIsoType: 'minimal-iso',
    });
    for (const absent of [
      'agentApiUrl',
      'agentApiTlsCertFile',
      'agentApiTlsKeyFile',
      'agentTokenKeyFile',
      'osImagesFile',
    ])
      expect(options).not.toHaveProperty(absent);
  });

  it('take each value as --flag VALUE or --flag=VALUE', () => {
    const spaced = parse(
      '--assisted=false',
      '--agent-api-bind-address',
      '127.0.0.1:9443',
      '--agent-api-url',
      'https://agents.hub.example.com:9443',
      '--agent-api-tls-cert-file',
      '/etc/tls/tls.crt',
      '--agent-api-tls-key-file',
      '/etc/tls/tls.key',
      '--agent-token-key-file',
      '/etc/token/key.pem',
      '--os-images-file',
      '/etc/os-images/os-images.yaml',
      '--installer',
      'simulated',
      '--openshift-install-path',
      '/usr/local/bin/openshift-install-4.16',
      '--discovery-iso-type',
      'full-iso',
    );
    const expected = {
      assisted: false,
      agentApiBindAddress: { host: '127.0.0.1', port: 9443 },
      agentApiUrl: 'https://agents.hub.example.com:9443',
      agentApiTlsCertFile: '/etc/tls/tls.crt',
      agentApiTlsKeyFile: '/etc/tls/tls.key',
      agentTokenKeyFile: '/etc/token/key.pem',
      osImagesFile: '/etc/os-images/os-images.yaml',
      installer: 'simulated',
      openshiftInstallPath: '/usr/local/bin/openshift-install-4.16',
      discoveryIsoType: 'full-iso',
    };
    expect(spaced).toMatchObject(expected);
    const joined = parse(
      '--assisted=false',
      '--agent-api-bind-address=127.0.0.1:9443',
      '--agent-api-url=https://agents.hub.example.com:9443',
      '--agent-api-tls-cert-file=/etc/tls/tls.crt',
      '--agent-api-tls-key-file=/etc/tls/tls.key',
      '--agent-token-key-file=/etc/token/key.pem',
      '--os-images-file=/etc/os-images/os-images.yaml',
      '--installer=simulated',
      '--openshift-install-path=/usr/local/bin/openshift-install-4.16',
      '--discovery-iso-type=full-iso',
    );
    expect(joined).toMatchObject(expected);
    expect(parse('--assisted').assisted).toBe(true);
    expect(parse('--assisted=true').assisted).toBe(true);
    expect(parse('--agent-api-bind-address=[::1]:8090').agentApiBindAddress).toEqual({
      host: '::1',
      port: 8090,
    });
  });

  it.each([
    [['--assisted=no'], '--assisted takes =true or =false, not "no"'],
    [
      ['--agent-api-bind-address', '8090'],
      '--agent-api-bind-address must be HOST:PORT such as :8080, 127.0.0.1:8080 or [::1]:8080; not "8090"',
    ],
    [
      ['--agent-api-bind-address', '0'],
      '--agent-api-bind-address cannot be turned off; give HOST:PORT',
    ],
    [
      ['--agent-api-url', 'http://agents.hub.example.com'],
      '--agent-api-url must be an https URL, not "http://agents.hub.example.com"',
    ],
    [['--agent-api-url', 'agents.hub'], '--agent-api-url must be an https URL, not "agents.hub"'],
    [
      ['--agent-api-tls-cert-file', '/etc/tls/tls.crt'],
      '--agent-api-tls-cert-file needs --agent-api-tls-key-file: give both, or neither (a CA and certificate are then made at start-up)',
    ],
    [
      ['--agent-api-tls-key-file=/etc/tls/tls.key'],
      '--agent-api-tls-key-file needs --agent-api-tls-cert-file: give both, or neither',
    ],
    [
      ['--installer', 'ansible'],
      '--installer must be openshift-install or simulated, not "ansible"',
    ],
    [
      ['--discovery-iso-type=iso'],
      '--discovery-iso-type must be minimal-iso or full-iso, not "iso"',
    ],
    [['--os-images-file'], '--os-images-file needs a value'],
    [['--agent-token-key-file', '--installer=simulated'], '--agent-token-key-file needs a value'],
    [['--openshift-install-path='], '--openshift-install-path needs a value'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseControllerArgs(argv)).toThrow(UsageError);
    expect(() => parseControllerArgs(argv)).toThrow(message);
  });

  it('exits 2 with the message on a bad value, before connecting to anything', async () => {
    const result = await exitOf('--installer=ansible');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--installer must be openshift-install or simulated');
  });

  it('are listed in --help', async () => {
    const { stdout } = await exitOf('--help');
    for (const flag of [
      '--assisted=true|false',
      '--agent-api-bind-address HOST:PORT',
      '--agent-api-url URL',
      '--agent-api-tls-cert-file FILE',
      '--agent-api-tls-key-file FILE',
      '--agent-token-key-file FILE',
      '--os-images-file FILE',
      '--installer openshift-install|simulated',
      '--openshift-install-path PATH',
      '--discovery-iso-type minimal-iso|full-iso',
    ])
      expect(stdout).toContain(flag);
  });
});

describe('the URL agents are given', () => {
  it('is --agent-api-url, without a trailing slash', () => {
    expect(agentApiPublicUrl({ agentApiUrl: 'https://agents.hub.example.com/' }, {})).toBe(
      'https://agents.hub.example.com',
    );
  });

  it('is the pod’s address over https when the API listens on every interface', () => {
    const bind = { host: '', port: 8090 };
    expect(agentApiPublicUrl({ agentApiBindAddress: bind }, { POD_IP: '10.128.0.7' })).toBe(
      'https://10.128.0.7:8090',
    );
    expect(agentApiPublicUrl({ agentApiBindAddress: bind }, { POD_IP: 'fd01::7' })).toBe(
      'https://[fd01::7]:8090',
    );
    expect(() => agentApiPublicUrl({ agentApiBindAddress: bind }, {})).toThrow(
      "the agent API listens on every interface (--agent-api-bind-address :8090), which is no address a discovery host can reach: pass --agent-api-url URL (or set POD_IP to the pod's address)",
    );
  });

  it('is the listening address when it names one', () => {
    expect(
      agentApiPublicUrl({ agentApiBindAddress: { host: '192.168.111.1', port: 9443 } }, {}),
    ).toBe('https://192.168.111.1:9443');
  });
});

describe('the openshift-install binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-path-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'openshift-install'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(dir, 'openshift-install'), 'not executable\n', { mode: 0o644 });

  it('is looked up on PATH when named bare, skipping what is not executable', () => {
    expect(executableOnPath('openshift-install', { PATH: `${dir}:${bin}` })).toBe(
      join(bin, 'openshift-install'),
    );
  });

  it('is the name itself when PATH has none, for the backend to report missing', () => {
    expect(executableOnPath('openshift-install', { PATH: dir })).toBe('openshift-install');
    expect(executableOnPath('openshift-install', {})).toBe('openshift-install');
  });

  it('is a path as given, made absolute', () => {
    expect(executableOnPath('/opt/oi/openshift-install', { PATH: bin })).toBe(
      '/opt/oi/openshift-install',
    );
    expect(executableOnPath('./oi/openshift-install', {})).toBe(
      join(process.cwd(), 'oi', 'openshift-install'),
    );
  });
});
