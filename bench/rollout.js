// `siteforge rollout plan` on a sites repository of 3,500 SNO sites with 50 commits of history:
// the first commit holds 3,010 sites and the policy, each of the 49 after it adds 10 sites and
// relabels 5, and the plan spans all of them (490 sites added, up to 245 changed, compiled at
// both revisions; the other 3,000 validated at the target revision). Wall time of the whole
// process, start-up included, median of BENCH_REPEATS runs; peak RSS from getrusage in a Python
// parent. Target: <= 2 s. Run alone with `node bench/rollout.js`, or as part of `npm run bench`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siteConfigText } from './synthetic-fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'siteforge.js');

const MEASURE = `
import resource, subprocess, sys, time
cwd, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
if done.returncode not in (0, 3):
    sys.stderr.write(done.stderr.decode()); sys.exit(done.returncode)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
`;

const POLICY = `apiVersion: siteforge.io/v1alpha1
kind: RolloutPolicy
spec:
  canary:
    sites: [sno-03010]
  waves:
    - name: region
      groupBy: [region]
`;

/** Site i, labelled with one of four regions and, from `generation` on, a generation label. */
function site(i, generation) {
  const labels = `        region: r${String(i % 4)}\n${generation === undefined ? '' : `        generation: g${String(generation)}\n`}`;
  return siteConfigText(i).replace('        common: true\n', `        common: true\n${labels}`);
}

/**
 * Runs the command `repeats` times: the median wall time and CPU time (user + system, git
 * included) in seconds, every wall time, the peak RSS (MB). On a shared, loaded machine the CPU
 * time says more than the wall time.
 */
function measure(cwd, argv, repeats) {
  const walls = [];
  const cpus = [];
  let rss = 0;
  for (let i = 0; i < repeats; i++) {
    const [wall, maxRssKb, cpu] = execFileSync('python3', ['-c', MEASURE, cwd, ...argv], {
      encoding: 'utf8',
    })
      .trim()
      .split(' ')
      .map(Number);
    walls.push(wall);
    cpus.push(cpu);
    rss = Math.max(rss, maxRssKb / 1024);
  }
  walls.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  const middle = Math.floor(walls.length / 2);
  return { wall: walls[middle], cpu: cpus[middle], rss, walls };
}

export function runRolloutBench({
  base = 3010,
  commits = 50,
  addedPerCommit = 10,
  changedPerCommit = 5,
  repeats = Number(process.env.BENCH_REPEATS ?? 5),
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'siteforge-bench-rollout-'));
  try {
    const repo = join(work, 'repo');
    const sites = join(repo, 'sites');
    mkdirSync(sites, { recursive: true });
    const git = (...args) =>
      execFileSync(
        'git',
        ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args],
        {
          cwd: repo,
          encoding: 'utf8',
        },
      );
    git('init', '--quiet', '--initial-branch=main');
    const file = (i) => join(sites, `site-${String(i).padStart(5, '0')}.yaml`);
    writeFileSync(join(sites, 'rollout-policy.yaml'), POLICY);
    for (let i = 0; i < base; i++) writeFileSync(file(i), site(i));
    git('add', '--all');
    git('commit', '--quiet', '-m', 'base');
    const first = git('rev-parse', 'HEAD').trim();
    let next = base;
    for (let c = 1; c < commits; c++) {
      for (let k = 0; k < addedPerCommit; k++, next++) writeFileSync(file(next), site(next));
      for (let k = 0; k < changedPerCommit; k++) {
        const i = (c * 97 + k * 613) % base;
        writeFileSync(file(i), site(i, c));
      }
      git('add', '--all');
      git('commit', '--quiet', '-m', `commit ${String(c + 1)}`);
    }
    const args = [
      process.execPath,
      cli,
      'rollout',
      'plan',
      '--from',
      first,
      '--to',
      'HEAD',
      'sites',
    ];
    const plan = JSON.parse(
      execFileSync(process.execPath, [...args.slice(1), '--json'], { cwd: repo, encoding: 'utf8' }),
    );
    const { summary } = plan;
    console.log('');
    let result;
    // As planned by default, then validating every site of the target revision as well (what a
    // repository whose every site reads crTemplates or extra-manifest folders costs at most).
    for (const extra of [[], ['--validate-all']]) {
      const { wall, cpu, rss, walls } = measure(repo, [...args, ...extra], repeats);
      const load = loadavg()
        .map((l) => l.toFixed(2))
        .join(', ');
      console.log(
        `rollout: plan of ${String(summary.fleet)} sites over ${String(commits)} commits in ${wall.toFixed(3)} s${extra.length > 0 ? ` (${extra.join(' ')})` : ''}`,
      );
      console.log(
        `  (${String(summary.added)} added, ${String(summary.changed)} changed, ${String(summary.waves)} waves; median of ${String(repeats)}, CPU ${cpu.toFixed(3)} s, min ${walls[0].toFixed(3)} s, max ${walls[walls.length - 1].toFixed(3)} s; peak RSS ${rss.toFixed(0)} MB; load average ${load})${extra.length > 0 ? '' : '  [target <= 2 s]'}`,
      );
      result ??= { wall, rss, summary };
    }
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) runRolloutBench();
