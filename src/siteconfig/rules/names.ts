/**
 * Names: cluster names (they name the namespace and the hub objects), host names (they name the
 * BareMetalHost and what is named after it) and the base domain.
 */
import { quote } from '../../shared/errors.js';
import { FleetIndex, RELATED } from '../issue-collector.js';
import type { DocRef, IssueSink, Path } from '../issue-collector.js';
import type { SiteConfigCluster } from '../types.js';
import { baseDomainProblem, DNS_LABEL, isDnsSubdomain } from './predicates.js';
import { defineRule, reportRule } from './rule.js';
import type { ClusterCheck, NodeCheck, Rule } from './rule.js';

export const CLUSTER_NAME_DUPLICATE = defineRule({
  code: 'CLUSTER_NAME_DUPLICATE',
  severity: 'error',
  upstream: 'refuses within a site',
  why: 'across sites the two clusters share a namespace and objects on the hub',
});

export const CLUSTER_NAME_INVALID = defineRule({
  code: 'CLUSTER_NAME_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the hub rejects the Namespace',
});

export const CLUSTER_NAME_RESERVED = defineRule({
  code: 'CLUSTER_NAME_RESERVED',
  severity: 'warning',
  was: 'error',
  upstream: 'takes it',
  why: 'the hub takes the namespace; a `ztp` prefix only risks meeting the ZTP policy namespaces (`ztp-common`, `ztp-site`, ...)',
});

export const HOSTNAME_INVALID = defineRule({
  code: 'HOSTNAME_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the hub rejects the BareMetalHost name; install: `hostname-valid`. Also host names too long for what is named after them: `<hostName>-bmc-secret` (253), and in a ClusterInstance the per-host label values of the default templates (63)',
});

export const HOSTNAME_DUPLICATE = defineRule({
  code: 'HOSTNAME_DUPLICATE',
  severity: 'error',
  upstream: 'takes it',
  why: 'the two nodes would share one BareMetalHost name in the cluster namespace; install: `hostname-unique`',
});

export const BASE_DOMAIN_INVALID = defineRule({
  code: 'BASE_DOMAIN_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'the hub, or the install, refuses a `baseDomain` that is no DNS domain (letters, digits and `-` between dots, labels of at most 63 characters, 253 in all)',
});

/** The rules of this topic, for the registry. */
export const nameRules: readonly Rule[] = [
  CLUSTER_NAME_DUPLICATE,
  CLUSTER_NAME_INVALID,
  CLUSTER_NAME_RESERVED,
  HOSTNAME_INVALID,
  HOSTNAME_DUPLICATE,
  BASE_DOMAIN_INVALID,
];

/** Checks the base domain, which every cluster's API and ingress names end in. */
export function checkBaseDomain(doc: DocRef, report: IssueSink, path: Path, domain: unknown): void {
  if (typeof domain !== 'string') return;
  const problem = baseDomainProblem(domain);
  if (problem)
    reportRule(
      report,
      doc,
      BASE_DOMAIN_INVALID,
      path,
      `baseDomain ${quote(domain)} is not a DNS domain: ${problem}`,
      'write the domain the clusters live under, e.g. edge.example.com',
    );
}

/** Checks a cluster's name, and records it in `fleet`: no two clusters of a run share one. */
export function checkClusterName(
  doc: DocRef,
  cluster: SiteConfigCluster,
  at: Path,
  report: IssueSink,
  fleet: FleetIndex,
): void {
  const name = cluster.clusterName;
  if (typeof name !== 'string') return;
  const path = [...at, 'clusterName'];
  if (!DNS_LABEL.test(name) || name.length > 63) {
    reportRule(
      report,
      doc,
      CLUSTER_NAME_INVALID,
      path,
      `clusterName ${quote(name)} is not a valid namespace name`,
      'use at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit',
    );
  }
  if (name.startsWith('ztp')) {
    // siteconfig-generator and the hub take the name; it only risks the ZTP policy namespaces.
    reportRule(
      report,
      doc,
      CLUSTER_NAME_RESERVED,
      path,
      `clusterName ${quote(name)} starts with "ztp"`,
      'namespaces starting with "ztp" are reserved for the ZTP policies; rename the cluster',
    );
  }
  const first = fleet.clusterNames.get(name);
  if (first !== undefined) {
    reportRule(
      report,
      doc,
      CLUSTER_NAME_DUPLICATE,
      path,
      `clusterName ${quote(name)} is already used at ${RELATED}`,
      'every cluster needs its own name: it names the namespace and the hub objects',
      'value',
      first,
    );
  } else {
    fleet.clusterNames.set(name, FleetIndex.place(doc, path));
  }
}

/** The cluster's name: a namespace name, not reserved, unique across the run. */
export const clusterNameCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'cluster name',
  rules: [CLUSTER_NAME_INVALID, CLUSTER_NAME_RESERVED, CLUSTER_NAME_DUPLICATE],
  check(c) {
    if (c.sound('clusterName')) checkClusterName(c.doc, c.cluster, c.at, c.sink, c.fleet);
  },
};

/** A node's host name: a DNS name, short enough for its BMC Secret, unique in its cluster. */
export const hostNameCheck: NodeCheck = {
  scope: 'node',
  name: 'host name',
  rules: [HOSTNAME_INVALID, HOSTNAME_DUPLICATE],
  check(c, { node, index, at, sound }) {
    if (!sound('hostName')) return;
    const first = c.hostNames.get(node.hostName);
    if (!isDnsSubdomain(node.hostName)) {
      c.report(
        HOSTNAME_INVALID,
        [...at, 'hostName'],
        `hostName ${quote(node.hostName)} is not a valid DNS name`,
        'use lowercase letters, digits, "-" and ".", each label starting and ending with a letter or digit',
      );
    }
    const secretName = `${node.hostName}-bmc-secret`;
    if (
      node.bmcCredentials !== undefined &&
      node.bmcCredentialsName === undefined &&
      secretName.length > 253 &&
      node.hostName.length <= 253
    ) {
      c.report(
        HOSTNAME_INVALID,
        [...at, 'hostName'],
        `hostName has ${String(node.hostName.length)} characters: the BMC Secret named after it (<hostName>-bmc-secret) would exceed Kubernetes' 253`,
        'use a host name of at most 242 characters, or name the Secret with bmcCredentialsName',
      );
    }
    if (first !== undefined) {
      c.report(
        HOSTNAME_DUPLICATE,
        [...at, 'hostName'],
        `hostName ${quote(node.hostName)} is already used by node ${String(first)} of this cluster`,
        'each node needs its own hostName: it names the BareMetalHost',
      );
    } else {
      c.hostNames.set(node.hostName, index);
    }
  },
};
