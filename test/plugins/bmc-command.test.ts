import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENERIC, startSimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import type { SimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import { runCli } from '../../src/plugins/cli/main.js';
import { repoRoot } from '../support/sites.js';

const PASSWORD = 'bmc-cli-Secret-77';
const ISO = 'http://10.0.0.1/images/cli.iso';

async function cli(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    cwd,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { status, stdout, stderr };
}

describe('siteforge bmc', () => {
  let bmc: SimulatedBmc;
  let dir: string;
  let auth: string[];

  beforeEach(async () => {
    bmc = await startSimulatedBmc({
      personality: { ...GENERIC, powerDelayMs: 0 },
      power: 'Off',
      credentials: { username: 'operator', password: PASSWORD },
    });
    dir = mkdtempSync(join(tmpdir(), 'siteforge-bmc-cli-'));
    writeFileSync(join(dir, 'username'), 'operator\n');
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
    auth = ['--address', bmc.address, '--username-file', 'username', '--password-file', 'password'];
  });
  afterEach(async () => {
    await bmc.stop();
  });

  it('prints what the BMC has, as JSON, without the credentials', async () => {
    const { status, stdout, stderr } = await cli(['bmc', 'info', ...auth], dir);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const info = JSON.parse(stdout) as { system: { powerState: string }; slots: { id: string }[] };
    expect(info.system.powerState).toBe('Off');
    expect(info.slots.map((s) => s.id)).toEqual(['CD1']);
    expect(stdout + stderr).not.toContain(PASSWORD);
  });

  it('powers the host on and reports the state', async () => {
    const on = await cli(['bmc', 'power', 'on', ...auth], dir);
    expect(on.status).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ powerState: 'On' });
    expect(bmc.state().power).toBe('On');
    const status = await cli(['bmc', 'power', 'status', ...auth], dir);
    expect(JSON.parse(status.stdout)).toEqual({ powerState: 'On' });
  });

  it('boots the host from an ISO with the controller’s workflow, then ejects it', async () => {
    const boot = await cli(['bmc', 'boot-iso', '--image', ISO, ...auth], dir);
    expect(boot.status).toBe(0);
    expect(boot.stderr.trim().split('\n')).toEqual([
      'siteforge bmc: PowerOff',
      'siteforge bmc: Eject',
      'siteforge bmc: BootMode',
      'siteforge bmc: Insert',
      'siteforge bmc: BootOverride',
      'siteforge bmc: PowerOn',
      'siteforge bmc: Done',
    ]);
    expect(bmc.state().bootedImage).toBe(ISO);
    const eject = await cli(['bmc', 'eject', ...auth], dir);
    expect(eject.status).toBe(0);
    expect(bmc.state().slots[0]?.inserted).toBe(false);
  });

  it('reports a refused login without echoing the password', async () => {
    writeFileSync(join(dir, 'password'), 'wrong-Password-1');
    const { status, stderr } = await cli(['bmc', 'info', ...auth], dir);
    expect(status).toBe(1);
    expect(stderr).toMatch(/401/);
    expect(stderr).not.toContain('wrong-Password-1');
  });

  it('exits 3 when the BMC cannot be reached', async () => {
    await bmc.stop();
    const { status, stderr } = await cli(['bmc', 'info', ...auth], dir);
    expect(status).toBe(3);
    expect(stderr).toMatch(/ECONNREFUSED/);
  });

  it.each([
    [['bmc', 'info'], /--address/],
    [['bmc', 'reboot', '--address', 'redfish://h'], /unknown bmc command "reboot"/],
    [['bmc', 'power', 'sideways', '--address', 'redfish://h'], /on, off, restart, status/],
    [['bmc', 'boot-iso', '--address', 'redfish://h'], /--image URL/],
    [
      [
        'bmc',
        'info',
        '--address',
        'redfish://h',
        '--username-file',
        'nope',
        '--password-file',
        'password',
      ],
      /--username-file nope: ENOENT/,
    ],
    [
      [
        'bmc',
        'info',
        ...['--address', 'redfish://h', '--username-file', 'username'],
        ...['--password-file', 'password', '--ca', 'no-such-ca.pem'],
      ],
      /--ca no-such-ca.pem: ENOENT/,
    ],
    [['bmc', 'info', '--password', 'x'], /unknown bmc option --password/],
  ])('refuses %j with a usage error', async (args, message) => {
    const { status, stderr } = await cli(args, dir);
    expect(status).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('runs the same code path from the real binary', async () => {
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'bin', 'siteforge.js'), 'bmc', 'power', 'status', ...auth],
      {
        cwd: dir,
      },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ powerState: 'Off' });
  });
});
