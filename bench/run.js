// `npm run bench`: prints the compiler's figures. Each run is a whole `siteforge generate DIR`
// process (start-up included), timed and measured for peak RSS by a Python parent through
// getrusage(RUSAGE_CHILDREN); the `memory:` lines compare the peak RSS of the smallest and the
// largest fleet. Timing lives here, never in tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureKustomizeStart } from './kustomize-start.js';
import { writeSyntheticFleet } from './synthetic-fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'siteforge.js');
const sizes = (process.env.BENCH_SITES ?? '1000,3500').split(',').map(Number);
const repeats = Number(process.env.BENCH_REPEATS ?? 5);

const MEASURE = `
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
if done.returncode != 0:
    sys.stderr.write(done.stderr.decode()); sys.exit(done.returncode)
print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
`;

/** Runs one command `repeats` times; returns the median wall time (s) and the peak RSS (MB). */
function measure(args) {
  const walls = [];
  let rss = 0;
  for (let i = 0; i < repeats; i++) {
    const [wall, maxRssKb] = execFileSync('python3', ['-c', MEASURE, ...args], { encoding: 'utf8' })
      .trim()
      .split(' ')
      .map(Number);
    walls.push(wall);
    rss = Math.max(rss, maxRssKb / 1024);
  }
  walls.sort((a, b) => a - b);
  return { wall: walls[Math.floor(walls.length / 2)], rss };
}

const work = mkdtempSync(join(tmpdir(), 'siteforge-bench-'));
try {
  const startup = measure([process.execPath, cli, '--version']);
  console.log(
    `node + siteforge start-up: ${startup.wall.toFixed(3)} s, peak RSS ${startup.rss.toFixed(0)} MB`,
  );
  // The drop-in for kustomize `generators:`: one process per SiteConfig.
  const execs = Number(process.env.BENCH_KUSTOMIZE_EXECS ?? 20);
  const kustomize = measureKustomizeStart(
    cli,
    join(root, 'examples', 'sites', 'sno-du-ipv4.yaml'),
    execs,
  );
  console.log(
    `kustomize: ${execs} execs, ${kustomize.perExec.toFixed(0)} ms per exec, node -e 0 ${kustomize.bareNode.toFixed(0)} ms`,
  );
  // Two variants: the shipped default extra manifests in every cluster's ConfigMap (what
  // siteconfig-generator users get), and none (extraManifests.defaultSet: none).
  for (const extra of ['default', 'none']) {
    console.log(
      `\nsiteforge generate DIR (SNO sites with nodeNetwork, one SiteConfig file each; extra manifests: ${extra === 'default' ? 'default set' : 'none'})`,
    );
    console.log('sites  objects  output   wall (median of ' + repeats + ')  sites/s   peak RSS');
    const rows = [];
    for (const n of sizes) {
      const dir = writeSyntheticFleet(join(work, `fleet-${extra}-${n}`), n, {
        extraManifests: extra,
      });
      const output = execFileSync(process.execPath, [cli, 'generate', dir], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      const objects = output.split('\n---\n').length;
      const { wall, rss } = measure([process.execPath, cli, 'generate', dir]);
      rows.push({ n, wall, rss });
      console.log(
        `${String(n).padStart(5)}  ${String(objects).padStart(7)}  ${(output.length / 1e6).toFixed(0).padStart(4)} MB  ${wall.toFixed(3).padStart(8)} s          ${String(Math.round(n / wall)).padStart(6)}   ${rss.toFixed(0)} MB`,
      );
    }
    if (rows.length >= 2) {
      const [a, b] = [rows[0], rows[rows.length - 1]];
      const marginal = (b.wall - a.wall) / (b.n - a.n);
      console.log(
        `marginal cost ${(marginal * 1000).toFixed(3)} ms/site between ${a.n} and ${b.n} sites (linear if the per-site cost of each size is close to it)`,
      );
      // generate streams (validate every site, then render and write one cluster at a time):
      // memory should hardly grow with the fleet.
      console.log(
        `memory: peak RSS ${b.rss.toFixed(0)} MB at ${b.n} sites, ${a.rss.toFixed(0)} MB at ${a.n} sites, ratio ${(b.rss / a.rss).toFixed(2)}; time ${b.wall.toFixed(3)} s and ${a.wall.toFixed(3)} s  [target <= 150 MB at 3,500 sites, ratio <= 1.3]`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
await (await import('./cmp.js')).runCmpBench(); // the Argo CD plugin's figures (bench/cmp.js)
(await import('./rollout.js')).runRolloutBench(); // rollout plan over git history (bench/rollout.js)
await (await import('./rollout-run.js')).runRolloutRunBench(); // a 3,500-site rollout, simulated installs (bench/rollout-run.js)
await (await import('./redfish.js')).runRedfishBench(); // the Redfish client's figures (bench/redfish.js)
await (await import('./images.js')).runImageBench(); // the image server's figures (bench/images.js)
await (await import('./assisted.js')).runAssistedBench(); // the assisted core's figures (bench/assisted.js)
await (await import('./fleet.js')).runFleetBench(); // the whole fleet from apply to installed (bench/fleet.js)
