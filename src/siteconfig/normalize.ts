/**
 * Normalizing a validated SiteConfig: a plain copy of the parsed data (no source-location
 * tables), with label and annotation values as the strings a Go YAML reader would give.
 */
import { scalarText } from './rules/labels.js';
import type { SiteConfig } from './types.js';

/** A deep copy of parsed YAML data without the source-location tables. */
export function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toPlain((value as Record<string, unknown>)[key]);
  return out;
}

/**
 * Copies a validated SiteConfig into plain data (no location tables), with label and annotation
 * values as the strings a Go YAML reader would have read.
 */
export function normalize(site: SiteConfig): SiteConfig {
  const strings = (
    map: Readonly<Record<string, unknown>> | undefined,
  ): Record<string, string> | undefined => {
    if (map === undefined) return undefined;
    return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, scalarText(map, k, v)]));
  };
  const withAnnotations = <
    T extends {
      crAnnotations?: { add?: Readonly<Record<string, Readonly<Record<string, unknown>>>> };
    },
  >(
    plain: T,
    source: T,
  ): T => {
    const add = source.crAnnotations?.add;
    if (add === undefined) return plain;
    return {
      ...plain,
      crAnnotations: {
        add: Object.fromEntries(
          Object.entries(add).map(([kind, map]) => [kind, strings(map) ?? {}]),
        ),
      },
    };
  };
  const plain = toPlain(site) as SiteConfig;
  return {
    ...plain,
    spec: {
      ...withAnnotations(plain.spec, site.spec),
      clusters: plain.spec.clusters.map((cluster, c) => {
        const source = site.spec.clusters[c]!;
        return {
          ...withAnnotations(cluster, source),
          ...(source.clusterLabels ? { clusterLabels: strings(source.clusterLabels) } : {}),
          nodes: cluster.nodes.map((node, n) => {
            const nodeSource = source.nodes[n]!;
            return {
              ...withAnnotations(node, nodeSource),
              ...(nodeSource.nodeLabels ? { nodeLabels: strings(nodeSource.nodeLabels) } : {}),
            };
          }),
        };
      }),
    },
  };
}

export { normalize as normalizeSiteConfig };
