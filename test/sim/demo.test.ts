/**
 * `npm run demo` as a user runs it (node scripts/demo.mjs, its own hub, output to a pipe as
 * in CI): a small fleet with a fault ends with the summary JSON and exit 1; Ctrl-C stops every
 * process the demo started.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDemoArgs } from '../../src/sim/demo/demo-args.js';
import { runDemo } from '../../src/sim/demo/demo.js';
import type { DemoHub } from '../../src/sim/demo/demo.js';
import { siteConfigText } from '../../src/sim/synthetic-sites.js';
import type { DemoSummary } from '../../src/sim/demo/demo-report.js';
import { repoRoot } from '../support/sites.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-demo-test-'));
const prefix = `dm${Math.random().toString(36).slice(2, 6)}`;
const healthy = `${prefix}-00001`;
const broken = `${prefix}-00002`;
const sites = join(dir, 'sites');

beforeAll(() => {
  mkdirSync(sites, { recursive: true });
  writeFileSync(join(sites, 'a.yaml'), siteConfigText(1, { prefix, extraManifests: 'none' }));
  writeFileSync(join(sites, 'b.yaml'), siteConfigText(2, { prefix, extraManifests: 'none' }));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the demo; `onOutput` sees stdout and stderr as they come (and may signal the child). */
function demo(args: string[], onOutput?: (text: string, kill: () => void) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    // In a process group of its own, as a shell runs a command in a terminal.
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs'), ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, INIT_CWD: dir },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    // Ctrl-C: the terminal signals the whole foreground process group.
    const kill = (): void => {
      process.kill(-child.pid!, 'SIGINT');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onOutput?.(stdout + stderr, kill);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onOutput?.(stdout + stderr, kill);
    });
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`the demo did not end within 8 min:\n${stdout}\n${stderr}`));
    }, 480_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every pid the demo said it started (hub processes, simulator, controller). */
function pidsOf(text: string): number[] {
  return [...text.matchAll(/\bpids? (\d+(?:, \d+)*)/g)].flatMap((m) =>
    m[1]!.split(', ').map(Number),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run demo', () => {
  it('provisions a small fleet, reports the faulty site with its BMC error and exits 1', async () => {
    const summaryFile = join(dir, 'summary.json');
    const run = await demo([
      ...['--sites-dir', 'sites', '--summary', 'summary.json'],
      ...['--stage-seconds', '0.5', '--poll-seconds', '1', '--post-seconds', '1'],
      ...['--reboot-seconds', '20'],
      // Sites wait 60 s for their ISO to settle before the first boot: idle is longer.
      ...['--idle-seconds', '100', '--fault', `${broken}=bmc-errors`],
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as DemoSummary;
    const byName = Object.fromEntries(summary.sites.map((s) => [s.name, s]));
    expect(byName[healthy]).toMatchObject({ state: 'installed', message: '' });
    expect(byName[healthy]!.seconds).toBeGreaterThan(0);
    expect(byName[broken]!.state).not.toBe('installed');
    expect(byName[broken]!.message).toMatch(/500|Internal/);
    expect(summary.totals).toMatchObject({ sites: 2, installed: 1, unfinished: 1, ended: 'idle' });
    // Not a terminal: plain progress lines, no escape sequences, and the final table.
    expect(run.stdout).not.toContain('\x1b[');
    expect(run.stdout).toMatch(/^\[\s*\d+(s|m\d\ds)\] .* of 2 · /m);
    expect(run.stdout).toMatch(new RegExp(`^${healthy}\\s+installed\\s+\\d`, 'm'));
    expect(run.stdout).toContain('1/2 sites installed, 1 not finished');
    for (const pid of pidsOf(run.stdout + run.stderr))
      expect(alive(pid), `pid ${String(pid)}`).toBe(false);
  }, 600_000);

  it('stops everything it started on Ctrl-C', async () => {
    let interrupted = false;
    const run = await demo(
      ['--sites-dir', 'sites', '--stage-seconds', '0.5', '--poll-seconds', '1'],
      (text, kill) => {
        if (!interrupted && text.includes('Applying')) {
          interrupted = true;
          kill();
        }
      },
    );
    expect(interrupted).toBe(true);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted; stopping everything it started');
    // The simulators and the controller got the Ctrl-C too: that is no failure to report.
    expect(run.stderr).not.toContain('exited');
    const pids = pidsOf(run.stdout + run.stderr);
    // The hub's three processes, the simulator and the controller.
    expect(pids.length).toBeGreaterThanOrEqual(5);
    for (const pid of pids) expect(alive(pid), `pid ${String(pid)}`).toBe(false);
    const work = /its log: (\S+)\/controller\.log/.exec(run.stdout)?.[1];
    expect(work).toBeDefined();
    expect(existsSync(work!)).toBe(false);
  }, 300_000);
});

describe('the demo starting up', () => {
  /** runDemo with a scripted hub and fleet: what each was asked, in order. */
  async function start(hub: () => Promise<DemoHub>): Promise<{ events: string[]; stderr: string }> {
    const events: string[] = [];
    let stderr = '';
    const options = parseDemoArgs(['--sites-dir', 'sites']);
    if (options === 'help') throw new Error('help');
    await runDemo(
      options,
      {
        repoRoot,
        startHub: async () => {
          events.push('hub starting');
          const up = await hub();
          events.push('hub up');
          return up;
        },
        stopHub: () => Promise.resolve(),
        ensureXorriso: () => Promise.reject(new Error('no xorriso in this test')),
        startFleet: () => {
          events.push('fleet starting');
          return Promise.reject(new Error('the fleet stops here'));
        },
      },
      {
        stdout: () => undefined,
        stderr: (text) => (stderr += text),
        isTTY: false,
        columns: 80,
        cwd: dir,
        signal: new AbortController().signal,
        env: {},
      },
    ).catch((err: unknown) => events.push(`ended: ${(err as Error).message}`));
    return { events, stderr };
  }

  // The hub binds the ports it picked only as etcd and kube-apiserver start: a BMC binding
  // port 0 meanwhile could take one (seen at thousands of sites).
  it('starts the simulated BMCs only once the hub listens', async () => {
    const { events } = await start(async () => {
      await new Promise((r) => setTimeout(r, 50));
      return { kubeconfig: '/nowhere', server: 'https://127.0.0.1:1' };
    });
    expect(events).toEqual([
      'hub starting',
      'hub up',
      'fleet starting',
      'ended: the fleet stops here',
    ]);
  });

  it('says in one line that a --sites-dir does not exist, and starts nothing', async () => {
    const run = await demo(['--sites-dir', 'no-such-dir']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`demo: ${join(dir, 'no-such-dir')}: no such file or directory\n`);
    expect(run.stdout).toBe('');
  });

  it('starts no simulator when the hub fails', async () => {
    const { events, stderr } = await start(() => Promise.reject(new Error('etcd exited (1)')));
    expect(events).toEqual(['hub starting']);
    expect(stderr).toContain('demo: the hub did not start: etcd exited (1)');
  });
});
