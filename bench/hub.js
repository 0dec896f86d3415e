// `npm run bench:hub`: the figures of the loopback hub, so that later benchmarks that run
// against it can subtract them. Cold build times come from the binary cache's build-info.json
// (the cache is never wiped here; on a machine without it, this run builds and measures).
// Then BENCH_HUB_REPEATS warm starts in a scratch directory, each timed to every readiness
// step, and the resident memory of each process once the hub has settled.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureHubBinaries } from '../scripts/hub/build.mjs';
import { hubStatus, startHub } from '../scripts/hub/hub.mjs';

const repeats = Number(process.env.BENCH_HUB_REPEATS ?? 3);
const SETTLE_MS = 5_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (kib) => (kib === undefined ? '?' : (kib / 1024).toFixed(0));

const bins = await ensureHubBinaries();
console.log('hub binaries, cold build (from the cache metadata; Go build cache shared in order):');
let coldTotal = 0;
for (const [label, bin] of [
  ['kube-apiserver', bins.kubeApiserver],
  ['kube-controller-manager', bins.kubeControllerManager],
  ['etcd', bins.etcd],
]) {
  if (bin.buildSeconds === undefined) {
    console.log(`  ${label.padEnd(24)} ${bin.version.padEnd(8)} not built: ${bin.source}`);
  } else {
    coldTotal += bin.buildSeconds;
    console.log(
      `  ${label.padEnd(24)} ${bin.version.padEnd(8)} ${bin.buildSeconds.toFixed(1).padStart(6)} s`,
    );
  }
}
console.log(`  ${'total'.padEnd(33)} ${coldTotal.toFixed(1).padStart(6)} s`);

const runs = [];
for (let i = 0; i < repeats; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-bench-hub-'));
  const hub = await startHub({ dir });
  try {
    await sleep(SETTLE_MS);
    const { rssKiB } = await hubStatus({ dir });
    runs.push({ ...hub.timings, rss: rssKiB });
  } finally {
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const step = (key) => median(runs.map((r) => r[key])).toFixed(1);
console.log(`\nwarm start (binaries cached), median of ${repeats}, seconds from start:`);
console.log(`  etcd /health                    ${step('etcd')}`);
console.log(`  kube-apiserver /readyz          ${step('apiserver')}`);
console.log(`  14 CRDs established             ${step('crds')}`);
console.log(`  controller-manager working      ${step('controllerManager')}  (hub ready)`);

const rss = (key) => median(runs.map((r) => r.rss?.[key] ?? 0));
const total = rss('etcd') + rss('apiserver') + rss('controllerManager');
console.log(`\nresident memory ${SETTLE_MS / 1000} s after ready, median (MB):`);
console.log(`  etcd                     ${mb(rss('etcd'))}`);
console.log(`  kube-apiserver           ${mb(rss('apiserver'))}`);
console.log(`  kube-controller-manager  ${mb(rss('controllerManager'))}`);
console.log(`  total                    ${mb(total)}`);
