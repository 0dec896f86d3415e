/**
 * The cluster rules now run on clusters with structural errors, skipping only what reads a
 * broken value. Attack that: put a wrong-typed value at every field of real example sites and
 * ClusterInstances and check that validation answers with errors, never with a crash.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { clusterInstanceNode, snoClusterInstance } from '../support/cluster-instances.js';
import { loadText, repoRoot } from '../support/sites.js';

/** Every path to a value deeper than `depth` keys (maps and lists included). */
function clusterPaths(
  value: unknown,
  at: (string | number)[] = [],
  depth = 2,
): (string | number)[][] {
  const here = at.length > depth ? [at] : [];
  if (Array.isArray(value))
    return [...here, ...value.flatMap((item, i) => clusterPaths(item, [...at, i], depth))];
  if (value !== null && typeof value === 'object')
    return [
      ...here,
      ...Object.entries(value).flatMap(([key, item]) => clusterPaths(item, [...at, key], depth)),
    ];
  return here;
}

function replaced(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

/** Values no field of a SiteConfig cluster takes in every position. */
const WRONG: readonly unknown[] = [['a', 1], { a: { b: 1 } }, 12345, null, 'UEFISecure'];

describe.each(['compact-3node.yaml', 'standard-3plus2.yaml', 'sno-dualstack-proxy.yaml'])(
  'every field of examples/sites/%s replaced by a wrong value',
  (file) => {
    const site = parse(readFileSync(join(repoRoot, 'examples', 'sites', file), 'utf8')) as {
      spec: { clusters: unknown };
    };
    const paths = clusterPaths(site.spec.clusters, ['spec', 'clusters']);

    it('is refused with errors, and the validator never throws', () => {
      expect(paths.length).toBeGreaterThan(40);
      let refused = 0;
      for (const path of paths) {
        for (const wrong of WRONG) {
          const text = stringify(replaced(site, path, wrong));
          const result = loadText(text);
          if (result.issues.some((issue) => issue.severity === 'error')) refused++;
        }
      }
      // Some replacements are valid (a string for a string field): most are not.
      expect(refused).toBeGreaterThan(paths.length);
    });
  },
);

/** A ClusterInstance with three control-plane nodes, one of them an arbiter, and VIPs. */
const arbiterClusterInstance = snoClusterInstance({
  cluster: '  apiVIPs:\n    - 10.16.0.5\n  ingressVIPs:\n    - 10.16.0.6\n',
})
  .replace('clusterType: SNO', 'clusterType: HighlyAvailableArbiter')
  .concat(clusterInstanceNode(1, 'master'), clusterInstanceNode(2, 'arbiter'));

describe.each([
  [
    'examples/clusterinstance/clusterinstance-sno.yaml',
    readFileSync(join(repoRoot, 'examples', 'clusterinstance', 'clusterinstance-sno.yaml'), 'utf8'),
  ],
  ['an arbiter ClusterInstance', arbiterClusterInstance],
])('every field of %s replaced by a wrong value', (_, source) => {
  const ci = parse(source) as unknown;
  // Every value below metadata and spec, and those two themselves.
  const paths = clusterPaths(ci, [], 0).filter((p) => p[0] === 'metadata' || p[0] === 'spec');

  it('starts from a ClusterInstance that loads', () => {
    const result = loadText(source);
    expect(result.issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(result.clusterInstances).toHaveLength(1);
  });

  it('is refused with errors, and the validator never throws', () => {
    expect(paths.length).toBeGreaterThan(40);
    let refused = 0;
    for (const path of paths) {
      for (const wrong of WRONG) {
        const result = loadText(stringify(replaced(ci, path, wrong)));
        if (result.issues.some((issue) => issue.severity === 'error')) {
          refused++;
          expect(result.clusterInstances, path.join('.')).toEqual([]);
        }
      }
    }
    // Some replacements are valid (a string for a string field): most are not.
    expect(refused).toBeGreaterThan(paths.length);
  });
});
