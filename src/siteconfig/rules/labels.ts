/**
 * Labels and annotations, as the API server checks them: keys are qualified names, label values
 * short names, and one object's annotations at most 256 KiB.
 */
import { quote } from '../../shared/errors.js';
import { rawText } from '../../shared/source-yaml.js';
import type { DocRef, IssueSink, Path } from '../issue-collector.js';
import {
  ANNOTATIONS_TOTAL_LIMIT,
  annotationKeyProblem,
  annotationsBytes,
  labelKeyProblem,
  labelValueProblem,
} from './predicates.js';
import { defineRule, isPlainObject, reportRule } from './rule.js';
import type { ClusterCheck, NodeCheck, Rule } from './rule.js';

export const LABEL_INVALID = defineRule({
  code: 'LABEL_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: "the API server rejects the object: label keys and values (`clusterLabels`, `nodeLabels`, a ClusterInstance's `extraLabels`) must be qualified names, values of at most 63 characters",
});

export const ANNOTATION_INVALID = defineRule({
  code: 'ANNOTATION_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the API server rejects the object: annotation keys of `crAnnotations.add` and `extraAnnotations` must be qualified names (checked lower-cased as the API server does), and one kind takes at most 256 KiB of annotations',
});

/** The rules of this topic, for the registry. */
export const labelRules: readonly Rule[] = [LABEL_INVALID, ANNOTATION_INVALID];

/** The text of a scalar map value as a Go YAML reader would give it to a string field. */
export function scalarText(container: unknown, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  const raw = rawText(container, key);
  if (raw !== undefined) return value === null ? '' : raw;
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/**
 * Checks annotations a SiteConfig adds per kind (`crAnnotations.add`, or a ClusterInstance's
 * `extraAnnotations`): keys as the API server checks them, and their total size.
 */
export function checkAnnotationMaps(
  doc: DocRef,
  report: IssueSink,
  byKind: unknown,
  path: () => Path,
): void {
  if (!isPlainObject(byKind)) return;
  const at = path();
  for (const [kind, annotations] of Object.entries(byKind)) {
    if (!isPlainObject(annotations)) continue;
    for (const key of Object.keys(annotations)) {
      const problem = annotationKeyProblem(key);
      if (problem)
        reportRule(
          report,
          doc,
          ANNOTATION_INVALID,
          [...at, kind, key],
          `annotation key ${quote(key)} is invalid: ${problem}`,
          `Kubernetes would reject the ${kind}; rename the annotation`,
          'key',
        );
    }
    const bytes = annotationsBytes(annotations);
    if (bytes > ANNOTATIONS_TOTAL_LIMIT)
      reportRule(
        report,
        doc,
        ANNOTATION_INVALID,
        [...at, kind],
        `the annotations for ${kind} have ${String(bytes)} bytes; Kubernetes takes at most ${String(ANNOTATIONS_TOTAL_LIMIT)} per object`,
        'keep large data in a ConfigMap and annotate a reference to it',
        'key',
      );
  }
}

/** `clusterLabels`, which label the ManagedCluster. */
export const clusterLabelsCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'cluster labels',
  rules: [LABEL_INVALID],
  check(c) {
    if (!c.sound('clusterLabels')) return;
    const labels = c.cluster.clusterLabels ?? {};
    for (const [key, value] of Object.entries(labels)) {
      const path = [...c.at, 'clusterLabels', key];
      const keyProblem = labelKeyProblem(key);
      if (keyProblem)
        c.report(
          LABEL_INVALID,
          path,
          `label key ${quote(key)} is invalid: ${keyProblem}`,
          'Kubernetes would reject the ManagedCluster; rename the label',
          'key',
        );
      const text = scalarText(labels, key, value);
      const valueProblem = labelValueProblem(text);
      if (valueProblem)
        c.report(
          LABEL_INVALID,
          path,
          `label value ${quote(text)} of ${quote(key)} is invalid: ${valueProblem}`,
          'Kubernetes would reject the ManagedCluster; shorten or simplify the value',
        );
    }
  },
};

/** `nodeLabels`, which label the Node object. */
export const nodeLabelsCheck: NodeCheck = {
  scope: 'node',
  name: 'node labels',
  rules: [LABEL_INVALID],
  check(c, { node, at, sound }) {
    const nodeLabels = sound('nodeLabels') ? (node.nodeLabels ?? {}) : {};
    for (const [key, value] of Object.entries(nodeLabels)) {
      const problem = labelKeyProblem(key);
      if (problem)
        c.report(
          LABEL_INVALID,
          [...at, 'nodeLabels', key],
          `node label key ${quote(key)} is invalid: ${problem}`,
          'the label is applied to the Node object; rename it',
          'key',
        );
      const text = scalarText(nodeLabels, key, value);
      const valueProblem = labelValueProblem(text);
      if (valueProblem)
        c.report(
          LABEL_INVALID,
          [...at, 'nodeLabels', key],
          `node label value ${quote(text)} of ${quote(key)} is invalid: ${valueProblem}`,
          'the label is applied to the Node object; shorten or simplify the value',
        );
    }
  },
};
