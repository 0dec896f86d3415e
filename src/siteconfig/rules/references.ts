/**
 * References: the names of the objects a site refers to (Secrets, ClusterImageSets, secret
 * stores) or emits (the site ConfigMap), and the annotations it adds to them per kind.
 */
import { quote } from '../../shared/errors.js';
import type { DocRef, IssueSink, Path } from '../issue-collector.js';
import { checkAnnotationMaps } from './labels.js';
import { ANNOTATION_INVALID } from './labels.js';
import { checkBaseDomain, BASE_DOMAIN_INVALID } from './names.js';
import { namespaceNameProblem, objectNameProblem } from './predicates.js';
import { defineRule, isPlainObject, reportRule } from './rule.js';
import type { ClusterCheck, Rule, SiteCheck } from './rule.js';

export const REFERENCE_NAME_INVALID = defineRule({
  code: 'REFERENCE_NAME_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: "the hub rejects or never finds the object: names of the Secrets (pull secret, SSH key, BMC credentials), ClusterImageSets and secret stores a SiteConfig refers to, of the site ConfigMap and its namespace, and a ClusterInstance's `templateRefs`, `hostRef`, `extraManifestsRefs` and `caBundleRef` are RFC 1123 names of at most 253 (namespaces 63) characters",
});

export const IMAGE_SET_MISSING = defineRule({
  code: 'IMAGE_SET_MISSING',
  severity: 'error',
  upstream: 'refuses',
  why: 'the AgentClusterInstall needs a ClusterImageSet to install from',
});

/** The rules of this topic, for the registry. */
export const referenceRules: readonly Rule[] = [REFERENCE_NAME_INVALID, IMAGE_SET_MISSING];

/** Field `key` of a structurally unchecked value, or undefined when it is no map or lacks it. */
function fieldOf(value: unknown, key: string): unknown {
  return isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * Checks a name that another object refers to or that names an emitted object (a Secret, a
 * ClusterImageSet, a SecretStore): the hub rejects or never finds a name Kubernetes cannot hold.
 * `path` is built only for a report (this runs for every site of a fleet).
 */
export function checkObjectName(
  doc: DocRef,
  report: IssueSink,
  name: unknown,
  what: string,
  path: () => Path,
  namespace = false,
): void {
  if (typeof name !== 'string') return;
  const problem = namespace ? namespaceNameProblem(name) : objectNameProblem(name);
  if (problem)
    reportRule(
      report,
      doc,
      REFERENCE_NAME_INVALID,
      path(),
      `${what} ${quote(name)} is not a valid ${namespace ? 'namespace' : 'object'} name: ${problem}`,
      'Kubernetes names are lowercase RFC 1123 names; use the exact name of the object on the hub',
    );
}

/** The site's own fields: base domain, the names it refers to, its annotations. */
export const siteFieldsCheck: SiteCheck = {
  scope: 'site',
  name: 'site fields',
  rules: [BASE_DOMAIN_INVALID, REFERENCE_NAME_INVALID, ANNOTATION_INVALID],
  check({ doc, spec, sink }) {
    checkBaseDomain(doc, sink, ['spec', 'baseDomain'], spec['baseDomain']);
    checkObjectName(doc, sink, fieldOf(spec['pullSecretRef'], 'name'), 'pull secret Secret', () => [
      'spec',
      'pullSecretRef',
      'name',
    ]);
    checkObjectName(
      doc,
      sink,
      fieldOf(spec['sshPrivateKeySecretRef'], 'name'),
      'SSH private key Secret',
      () => ['spec', 'sshPrivateKeySecretRef', 'name'],
    );
    checkObjectName(doc, sink, spec['clusterImageSetNameRef'], 'ClusterImageSet', () => [
      'spec',
      'clusterImageSetNameRef',
    ]);
    checkObjectName(
      doc,
      sink,
      fieldOf(fieldOf(fieldOf(spec['pullSecret'], 'externalSecret'), 'storeRef'), 'name'),
      'secret store',
      () => ['spec', 'pullSecret', 'externalSecret', 'storeRef', 'name'],
    );
    if (isPlainObject(spec['crAnnotations']))
      checkAnnotationMaps(doc, sink, spec['crAnnotations']['add'], () => [
        'spec',
        'crAnnotations',
        'add',
      ]);
  },
};

/** An image set, at the cluster or once for the site. */
export const imageSetCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'image set',
  rules: [IMAGE_SET_MISSING],
  check(c) {
    if (
      c.cluster.clusterImageSetNameRef === undefined &&
      c.site.spec.clusterImageSetNameRef === undefined
    ) {
      c.report(
        IMAGE_SET_MISSING,
        [...c.at, 'clusterName'],
        `cluster ${quote(c.cluster.clusterName)} names no ClusterImageSet`,
        'set clusterImageSetNameRef on the cluster or once for the whole site in spec',
      );
    }
  },
};

/** Names of objects the cluster and its nodes refer to or emit, and the annotations they add. */
export const clusterReferencesCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'cluster references',
  rules: [REFERENCE_NAME_INVALID, ANNOTATION_INVALID],
  check(c) {
    const { cluster, at, doc, sink } = c;
    checkObjectName(doc, sink, cluster.clusterImageSetNameRef, 'ClusterImageSet', () => [
      ...at,
      'clusterImageSetNameRef',
    ]);
    const map = cluster.siteConfigMap;
    if (map?.name !== undefined && map.name !== '')
      checkObjectName(doc, sink, map.name, 'site ConfigMap', () => [
        ...at,
        'siteConfigMap',
        'name',
      ]);
    checkObjectName(
      doc,
      sink,
      map?.namespace,
      'site ConfigMap namespace',
      () => [...at, 'siteConfigMap', 'namespace'],
      true,
    );
    checkAnnotationMaps(doc, sink, cluster.crAnnotations?.add, () => [
      ...at,
      'crAnnotations',
      'add',
    ]);
    cluster.nodes.forEach((node, index) => {
      const nodeAt = (): Path => [...at, 'nodes', index];
      if (
        !c.sound('nodes', index, 'bmcCredentialsName') ||
        !c.sound('nodes', index, 'bmcCredentials')
      )
        return;
      checkObjectName(doc, sink, node.bmcCredentialsName?.name, 'BMC credentials Secret', () => [
        ...nodeAt(),
        'bmcCredentialsName',
        'name',
      ]);
      checkObjectName(
        doc,
        sink,
        node.bmcCredentials?.externalSecret?.storeRef.name,
        'secret store',
        () => [...nodeAt(), 'bmcCredentials', 'externalSecret', 'storeRef', 'name'],
      );
      checkAnnotationMaps(doc, sink, node.crAnnotations?.add, () => [
        ...nodeAt(),
        'crAnnotations',
        'add',
      ]);
    });
  },
};
