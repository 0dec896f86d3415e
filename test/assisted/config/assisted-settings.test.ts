import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentApiTls } from '../../../src/assisted/config/agent-api-tls.js';
import { resolveAssistedSettings } from '../../../src/assisted/config/assisted-settings.js';
import { OsImagesError } from '../../../src/assisted/config/os-images.js';
import { parseControllerArgs } from '../../../src/plugins/cli/controller-command.js';
import type { ControllerOptions } from '../../../src/bmac/main.js';
import { UsageError } from '../../../src/shared/errors.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-assisted-settings-'));

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (...args: unknown[]) => void lines.push(`info ${String(args.at(-1))}`),
      warn: (...args: unknown[]) => void lines.push(`warn ${String(args.at(-1))}`),
    },
  };
}

function options(...argv: string[]): ControllerOptions {
  const parsed = parseControllerArgs(argv);
  if ('help' in parsed) throw new Error('help');
  return parsed;
}

describe('the assisted settings of a controller start', () => {
  it('with only defaults: the pod’s URL, a CA and key of its own, no images, each warned', async () => {
    const { log, lines } = recorder();
    const settings = await resolveAssistedSettings(options(), {
      env: { POD_IP: '10.128.0.7', PATH: '' },
      log,
    });
    expect(settings).toMatchObject({
      agentApiBindAddress: { host: '', port: 8090 },
      agentApiUrl: 'https://10.128.0.7:8090',
      osImages: [],
      installer: 'openshift-install',
      openshiftInstallPath: 'openshift-install',
      discoveryIsoType: 'minimal-iso',
    });
    expect(new X509Certificate(settings.tls.cert).checkIP('10.128.0.7')).toBe('10.128.0.7');
    expect(settings.tokenKey.generated).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(/^warn no --agent-token-key-file: /),
      expect.stringMatching(/^warn no --os-images-file: /),
      expect.stringMatching(/^warn no --agent-api-tls-cert-file: /),
    ]);
  });

  it('with every file given: reads them all, and finds openshift-install on PATH', async () => {
    const made = await agentApiTls({ hosts: ['agents.hub.example.com'] });
    writeFileSync(join(dir, 'tls.crt'), made.cert + made.caBundle);
    writeFileSync(join(dir, 'tls.key'), made.key);
    execFileSync('openssl', [
      'genpkey',
      '-algorithm',
      'EC',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-out',
      join(dir, 'token.pem'),
    ]);
    writeFileSync(
      join(dir, 'os-images.yaml'),
      'osImages:\n  - {openshiftVersion: "4.16", version: "416", url: "https://m.example.com/4.16.iso"}\n',
    );
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'openshift-install'), '#!/bin/sh\n', { mode: 0o755 });
    const { log, lines } = recorder();
    const settings = await resolveAssistedSettings(
      options(
        '--agent-api-url=https://agents.hub.example.com/',
        `--agent-api-tls-cert-file=${join(dir, 'tls.crt')}`,
        `--agent-api-tls-key-file=${join(dir, 'tls.key')}`,
        `--agent-token-key-file=${join(dir, 'token.pem')}`,
        `--os-images-file=${join(dir, 'os-images.yaml')}`,
      ),
      { env: { PATH: bin }, log },
    );
    expect(settings.agentApiUrl).toBe('https://agents.hub.example.com');
    expect(settings.tls.generated).toBe(false);
    expect(settings.tls.caBundle).toBe(made.cert + made.caBundle);
    expect(settings.tokenKey.generated).toBe(false);
    expect(settings.osImages).toHaveLength(1);
    expect(settings.openshiftInstallPath).toBe(join(bin, 'openshift-install'));
    expect(lines).toEqual([]);
  });

  it('shares a generated CA through the hub when agents have a stable URL', async () => {
    const hub = new FakeApiServer();
    const tlsSecret = { client: hub, namespace: 'siteforge', name: 'edge-agent-api-tls' };
    const flags = options('--agent-api-url=https://agents.hub.example.com');
    const a = await resolveAssistedSettings(flags, { env: {}, log: recorder().log, tlsSecret });
    const b = await resolveAssistedSettings(flags, { env: {}, log: recorder().log, tlsSecret });
    expect(b.tls.caBundle).toBe(a.tls.caBundle);
    // Without a stable URL a pod's address changes with the pod: nothing is shared.
    const own = await resolveAssistedSettings(options(), {
      env: { POD_IP: '10.128.0.7' },
      log: recorder().log,
      tlsSecret,
    });
    expect(own.tls.caBundle).not.toBe(a.tls.caBundle);
  });

  it('warns that the simulated installer installs nothing', async () => {
    const { log, lines } = recorder();
    await resolveAssistedSettings(options('--installer=simulated'), {
      env: { POD_IP: '10.0.0.1' },
      log,
    });
    expect(lines).toContainEqual(expect.stringMatching(/^warn --installer simulated: /));
  });

  it('fails the start on a bad file, naming it', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'osImages: []\n');
    await expect(
      resolveAssistedSettings(options(`--os-images-file=${join(dir, 'bad.yaml')}`), {
        env: { POD_IP: '10.0.0.1' },
        log: recorder().log,
      }),
    ).rejects.toThrow(OsImagesError);
    await expect(
      resolveAssistedSettings(options(`--agent-token-key-file=${join(dir, 'none.pem')}`), {
        env: { POD_IP: '10.0.0.1' },
        log: recorder().log,
      }),
    ).rejects.toThrow(UsageError);
    await expect(
      resolveAssistedSettings(options(), { env: {}, log: recorder().log }),
    ).rejects.toThrow('pass --agent-api-url URL');
  });
});
