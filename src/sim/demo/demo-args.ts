/**
 * The command line of `npm run demo`. Bad input is a UsageError naming the flag, what was
 * expected and how to fix it; nothing starts before the arguments parse.
 */
import { UsageError } from '../../shared/errors.js';
import { parseFaultRule } from '../faults.js';
import type { FaultRule } from '../faults.js';

export const DEMO_USAGE = `Usage: npm run demo -- [options]

Provisions a simulated fleet end to end on this machine: starts a local hub (etcd,
kube-apiserver), \`siteforge controller\` (redfish mode, simulated installer) with its image
server, and a simulated BMC and discovery host per BareMetalHost; applies the compiled
SiteConfigs wave by wave as Argo CD would; shows progress until every site is installed or
stuck; ends with a table of every site. Exit 0 only when every site installed (a cluster whose
SiteConfig holds the installation counts as held, not failed).

Options:
  --sites-dir DIR         SiteConfigs to provision; repeatable (default examples/sites)
  --sites N               also N synthetic single-node sites (0 to 10000)
  --stage-seconds S       time of each install stage, compressed (default 2)
  --fault TARGET=KIND[:STAGE]
                          make a host misbehave; TARGET is a cluster (all its hosts) or a
                          BareMetalHost name; KIND is bmc-errors, bmc-flaky, never-boots,
                          disconnect, stage-timeout (both after STAGE, default
                          "Writing image to disk"), wrong-mac or too-small; repeatable
  --summary FILE          also write the final table as JSON: {sites: [{name, state,
                          seconds, message}], totals}
  --keep                  leave everything running at the end (kubectl, the controller's
                          metrics) until Ctrl-C
  --timeout SECONDS       give up after this long (default 1800)
  --idle-seconds S        give up when no site changed state for this long (default 240)
  --post-seconds S        from power-on to booting the ISO (POST) (default 5)
  --reboot-seconds S      from the installer's Rebooting report to the server picking its
                          boot device again (assisted-installer's shutdown -r +1, then POST;
                          the controller must eject the ISO meanwhile) (default 60)
  --poll-seconds S        most a discovery agent waits between two polls (default 5)
  --seed N                seed of every random choice of the simulation (default 1)
  -h, --help              show this help

Ctrl-C stops everything the demo started.
`;

/** What the demo runs with. */
export interface DemoOptions {
  readonly sitesDirs: readonly string[];
  readonly syntheticSites: number;
  readonly stageSeconds: number;
  readonly faults: readonly FaultRule[];
  readonly summaryFile: string | undefined;
  readonly keep: boolean;
  readonly timeoutSeconds: number;
  readonly idleSeconds: number;
  readonly postSeconds: number;
  readonly rebootSeconds: number;
  readonly pollSeconds: number;
  readonly seed: number;
}

const VALUED = new Set([
  '--sites-dir',
  '--sites',
  '--stage-seconds',
  '--fault',
  '--summary',
  '--timeout',
  '--idle-seconds',
  '--post-seconds',
  '--reboot-seconds',
  '--poll-seconds',
  '--seed',
]);

/** A number of seconds in [min, max] (fractions allowed). */
function seconds(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max)
    throw new UsageError(
      `${flag} must be a number of seconds from ${String(min)} to ${String(max)}, not "${text}"`,
    );
  return value;
}

function whole(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new UsageError(
      `${flag} must be a whole number from ${String(min)} to ${String(max)}, not "${text}"`,
    );
  return value;
}

/**
 * Parses the demo's arguments (after `--`).
 * @returns the options, or `help` for -h/--help
 * @throws UsageError naming the bad flag
 */
export function parseDemoArgs(argv: readonly string[]): DemoOptions | 'help' {
  const dirs: string[] = [];
  const faults: FaultRule[] = [];
  const values = new Map<string, string>();
  let keep = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--keep') {
      keep = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.has(name)) {
      throw new UsageError(
        arg.startsWith('-')
          ? `unknown demo option ${name} (see npm run demo -- --help)`
          : `the demo takes no arguments, got "${arg}"; use --sites-dir ${arg}`,
      );
    }
    const value = eq > 0 && name !== arg ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    if (name === '--sites-dir') dirs.push(value);
    else if (name === '--fault') faults.push(parseFaultRule(value));
    else values.set(name, value);
  }
  const get = (flag: string, fallback: string): string => values.get(flag) ?? fallback;
  return {
    sitesDirs: dirs,
    syntheticSites: whole('--sites', get('--sites', '0'), 0, 10_000),
    stageSeconds: seconds('--stage-seconds', get('--stage-seconds', '2'), 0.1, 3600),
    faults,
    summaryFile: values.get('--summary'),
    keep,
    timeoutSeconds: seconds('--timeout', get('--timeout', '1800'), 10, 7 * 24 * 3600),
    idleSeconds: seconds('--idle-seconds', get('--idle-seconds', '240'), 10, 24 * 3600),
    postSeconds: seconds('--post-seconds', get('--post-seconds', '5'), 0, 3600),
    rebootSeconds: seconds('--reboot-seconds', get('--reboot-seconds', '60'), 0, 3600),
    pollSeconds: seconds('--poll-seconds', get('--poll-seconds', '5'), 0.1, 600),
    seed: whole('--seed', get('--seed', '1'), 0, 2 ** 31),
  };
}
