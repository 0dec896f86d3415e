/**
 * YAML 1.1 look-alikes: plain scalars such as `yes`, `on` or `1_000` that SiteForge's reader
 * (YAML 1.2) takes for the strings they look like, while Go's readers (sigs.k8s.io/yaml in
 * kubectl, Argo CD and the API server: YAML 1.1) take them for booleans or numbers. A label
 * `env: yes` is then `"true"` once the SiteConfig operator has rendered it, or the object is
 * refused; the file means one thing to SiteForge and another to Kubernetes. The reader notes
 * these scalars as it goes (SourceDocument.lookalikes), so a normal file costs nothing here.
 */
import type { LookalikeReading, YamlLookalike } from '../shared/source-yaml.js';
import type { DocRef, IssueSink } from './issue-collector.js';
import { reportRule } from './rules/rule.js';
import type { Rule } from './rules/rule.js';

type Path = readonly (string | number)[];

/**
 * Reports every look-alike of a document at its `file:line:column`, with a hint to quote it.
 * `rule` says at which severity (rules/yaml.ts): an error in ClusterInstance files, which
 * Kubernetes itself reads; a warning in SiteConfigs, which SiteForge and siteconfig-generator read
 * as strings.
 * @returns how many issues were reported.
 */
export function checkYamlLookalikes(
  doc: DocRef,
  lookalikes: readonly YamlLookalike[],
  rule: Rule,
  report: IssueSink,
): number {
  if (lookalikes.length === 0) return 0;
  const paths = containerPaths(doc.root, new Set(lookalikes.map((entry) => entry.container)));
  let count = 0;
  for (const { container, key, role, text, reading } of lookalikes) {
    const path = paths.get(container);
    // A look-alike no longer where it was read (its entry replaced by a later key) is not reported.
    if (path === undefined || !Object.hasOwn(container, key)) continue;
    if (role === 'value' && (container as Record<string | number, unknown>)[key] !== text) continue;
    reportRule(
      report,
      doc,
      rule,
      [...path, key],
      `${role} ${text} is a string here but Kubernetes' YAML readers (YAML 1.1) read it as ${goValue(text, reading)}`,
      `quote it: "${text}"`,
      role,
    );
    count++;
  }
  return count;
}

/** What Go makes of the text, in words. */
function goValue(text: string, reading: LookalikeReading): string {
  switch (reading) {
    case 'bool':
      return `a boolean ${String(/^(?:y|yes|on|true)$/i.test(text))}`;
    case 'int':
      return 'an integer';
    case 'float':
      return 'a floating-point number';
    case 'null':
      return 'null';
  }
}

/**
 * The paths of the `wanted` maps and sequences below `root`, found by walking the document
 * (only for a document that has look-alikes); the walk stops once every one is found.
 */
function containerPaths(root: unknown, wanted: ReadonlySet<object>): Map<object, Path> {
  const found = new Map<object, Path>();
  const stack: { value: unknown; path: Path }[] = [{ value: root, path: [] }];
  // Aliases may share a value between several places: each object is walked once.
  const seen = new Set<object>();
  while (stack.length > 0 && found.size < wanted.size) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (wanted.has(value)) found.set(value, path);
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => stack.push({ value: item, path: [...path, index] }));
    } else {
      for (const [key, item] of Object.entries(value))
        stack.push({ value: item, path: [...path, key] });
    }
  }
  return found;
}
