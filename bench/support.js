// What the benches share: free ports, bounded concurrency, Prometheus text sums.
import { createServer } from 'node:net';

/** A free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs `task(i)` for i in [0, n) with at most `width` at once. */
export async function pool(n, width, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** Sums the samples of a Prometheus counter family, optionally filtered by a label predicate. */
export function metricSum(text, name, keep = () => true) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (keep(labels)) sum += Number(m[4]);
  }
  return sum;
}

/** The API request counters of a controller's /metrics as [`verb resource code`, count], largest first. */
export function apiRequestBreakdown(text) {
  const rows = [];
  for (const line of text.split('\n')) {
    const m = /^siteforge_api_requests_total\{([^}]*)\}\s+(\S+)/.exec(line);
    if (m === null) continue;
    const labels = Object.fromEntries(
      [...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    rows.push([`${labels.verb} ${labels.resource ?? '-'} ${labels.code}`, Number(m[2])]);
  }
  return rows.sort((a, b) => b[1] - a[1]);
}
