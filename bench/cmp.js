// The Argo CD plugin's figures: `generate` of plugin.yaml for an app of 1,000 SNO sites, run the
// way argocd-cmp-server runs it (cwd = the app directory, the ARGOCD_* build environment,
// `siteforge` found on PATH). Wall time includes process start; peak RSS comes from
// getrusage(RUSAGE_CHILDREN) in a Python parent. Also the whole request as the sidecar serves
// it: tar+gzip of the repository, unpack, generate. Targets: <= 1.5 s wall, <= 300 MB RSS.
// Run alone with `node bench/cmp.js`, or as the last part of `npm run bench`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { writeSyntheticFleet } from './synthetic-fleet.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const MEASURE = `
import os, resource, subprocess, sys, time
cwd, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
if done.returncode != 0:
    sys.stderr.write(done.stderr.decode()); sys.exit(done.returncode)
print(wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
`;

// The request as the sidecar serves it: pack, unpack into a fresh dir, generate in the app dir.
const REQUEST = `
set -eu
rm -rf "$WORK/unpacked" && mkdir "$WORK/unpacked"
tar -czf "$WORK/repo.tgz" --exclude=./.git -C "$WORK/repo" .
tar -xzf "$WORK/repo.tgz" -C "$WORK/unpacked"
cd "$WORK/unpacked/sites" && exec "$@" > /dev/null
`;

export function runCmpBench({
  sites = 1000,
  repeats = Number(process.env.BENCH_REPEATS ?? 5),
} = {}) {
  const plugin = parse(readFileSync(join(root, 'src', 'plugins', 'argocd', 'plugin.yaml'), 'utf8'));
  const argv = [...plugin.spec.generate.command, ...(plugin.spec.generate.args ?? [])];
  const work = mkdtempSync(join(tmpdir(), 'siteforge-cmp-bench-'));
  try {
    const app = writeSyntheticFleet(join(work, 'repo', 'sites'), sites);
    mkdirSync(join(work, 'bin'));
    symlinkSync(join(root, 'bin', 'siteforge.js'), join(work, 'bin', argv[0]));
    const env = {
      PATH: [join(work, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: work,
      WORK: work,
      ARGOCD_APP_NAME: 'sites',
      ARGOCD_APP_SOURCE_PATH: 'sites',
      ARGOCD_APP_PARAMETERS: 'null',
    };
    const walls = [];
    let rss = 0;
    for (let i = 0; i < repeats; i++) {
      const [wall, maxRssKb] = execFileSync('python3', ['-c', MEASURE, app, ...argv], {
        encoding: 'utf8',
        env,
      })
        .trim()
        .split(' ')
        .map(Number);
      walls.push(wall);
      rss = Math.max(rss, maxRssKb / 1024);
    }
    const requests = [];
    for (let i = 0; i < repeats; i++) {
      const start = process.hrtime.bigint();
      execFileSync('/bin/sh', ['-c', REQUEST, 'request', ...argv], { env, stdio: 'ignore' });
      requests.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const result = { sites, wall: median(walls), rss, request: median(requests) };
    console.log(
      `\nArgo CD plugin: plugin.yaml generate (\`${argv.join(' ')}\`) in an app of ${sites} SNO sites`,
    );
    console.log(
      `  generate: ${result.wall.toFixed(3)} s wall (median of ${repeats}, process start included), peak RSS ${rss.toFixed(0)} MB  [target <= 1.5 s, <= 300 MB]`,
    );
    console.log(
      `  whole request (tar+gzip, unpack, generate): ${result.request.toFixed(3)} s  [Argo CD deadline 60 s]`,
    );
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runCmpBench();
