// `npm run bench:dashboard`: what the fleet status model and the dashboard feed cost at fleet
// scale, on objects the controller really writes (the single-node fixtures captured from a hub
// run, test/fixtures/fleet/, copied under 3,500 site names): the initial list, one change at a
// time (each flushed, as the feed does at most twice a second), and the page's snapshot.
// Needs `npm run build`. Timing lives here, never in tests.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { FleetModel } = await import(join(root, 'build', 'src', 'fleet', 'index.js'));
const { FleetFeed } = await import(join(root, 'build', 'src', 'dashboard', 'fleet-feed.js'));
const sites = Number(process.env.BENCH_SITES ?? 3500);
const updates = Number(process.env.BENCH_UPDATES ?? 20_000);

const fixture = (name) =>
  JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'fleet', `${name}.json`), 'utf8'));
const kinds = ['sno-validating', 'sno-installing', 'sno-installed', 'sno-insufficient'];
const templates = kinds.map(fixture);

/** The objects of a fixture site renamed to `name` (namespace, names and references). */
function renamed(objects, name) {
  const from = objects.find((o) => o.kind === 'ClusterDeployment').metadata.name;
  return JSON.parse(JSON.stringify(objects).replaceAll(from, name));
}

const names = Array.from({ length: sites }, (_, i) => `sno-${String(i).padStart(4, '0')}`);
const fleet = names.map((name, i) => renamed(templates[i % templates.length], name));
const agents = fleet.map((objects) => objects.find((o) => o.kind === 'Agent'));

const heapBefore = process.memoryUsage().heapUsed;
let started = performance.now();
const model = new FleetModel();
// The feed's timer never fires here: the bench flushes itself after each change.
const clock = {
  now: () => Date.now(),
  sleep: () => Promise.resolve(),
  setTimer: () => () => undefined,
};
const feed = new FleetFeed({ clock, model });
for (const objects of fleet) for (const object of objects) feed.apply({ type: 'add', object });
model.flush();
const loadMs = performance.now() - started;
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

// One Agent changes at a time (a stage reported), and is flushed alone.
started = performance.now();
for (let i = 0; i < updates; i++) {
  const agent = agents[i % sites];
  const next = {
    ...agent,
    metadata: { ...agent.metadata, resourceVersion: String(1e6 + i) },
    status: {
      ...agent.status,
      progress: { ...agent.status.progress, stageUpdateTime: new Date(i * 1000).toISOString() },
    },
  };
  feed.apply({ type: 'update', object: next });
  model.flush();
}
const perUpdateUs = ((performance.now() - started) * 1000) / updates;

started = performance.now();
const snapshot = JSON.stringify(feed.snapshot());
const snapshotMs = performance.now() - started;
const gzipped = gzipSync(snapshot).length;

const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
console.log(
  `fleet status model, ${String(sites)} single-node sites (${String(fleet.flat().length)} objects), load average ${load}`,
);
console.log(
  `  initial list: ${loadMs.toFixed(0)} ms (${((loadMs * 1000) / sites).toFixed(0)} µs/site), heap +${heapMb.toFixed(0)} MB`,
);
console.log(
  `  one change, applied and flushed: ${perUpdateUs.toFixed(0)} µs (${String(updates)} changes)`,
);
console.log(
  `  page snapshot: ${snapshotMs.toFixed(0)} ms, ${(snapshot.length / 1e6).toFixed(2)} MB JSON, ${(gzipped / 1e3).toFixed(0)} kB gzipped`,
);
console.log(`  totals: ${JSON.stringify(model.totals().byState)}`);
