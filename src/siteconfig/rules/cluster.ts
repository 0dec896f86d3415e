/**
 * Cluster fields: the JSON carried in strings (install-config overrides, Ignition overrides,
 * installer arguments), the proxy and NTP sources of the InfraEnv, and fields that are ignored,
 * deprecated or only generated for one apiVersion.
 */
import { quote } from '../../shared/errors.js';
import { parseIp } from '../../shared/ip.js';
import type { Path } from '../issue-collector.js';
import { isDnsSubdomain, parseJsonField } from './predicates.js';
import { defineRule, isPlainObject, reportRule } from './rule.js';
import type { ClusterCheck, ClusterContext, NodeCheck, Rule, SiteCheck } from './rule.js';

export const INSTALL_CONFIG_OVERRIDES_INVALID = defineRule({
  code: 'INSTALL_CONFIG_OVERRIDES_INVALID',
  severity: 'error',
  upstream: 'refuses',
  why: 'assisted-service refuses install-config overrides that are no JSON object',
});

export const IGNITION_OVERRIDE_INVALID = defineRule({
  code: 'IGNITION_OVERRIDE_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'assisted-service refuses an ignition override that is no Ignition 3 config: the install does not start',
});

export const INSTALLER_ARGS_INVALID = defineRule({
  code: 'INSTALLER_ARGS_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'assisted-service refuses installer args that are no JSON list of strings: the install does not start',
});

export const PROXY_URL_INVALID = defineRule({
  code: 'PROXY_URL_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'assisted-service refuses the InfraEnv proxy: no discovery image',
});

export const NTP_SOURCE_INVALID = defineRule({
  code: 'NTP_SOURCE_INVALID',
  severity: 'error',
  upstream: 'takes it',
  why: 'assisted-service refuses the InfraEnv NTP sources: no discovery image',
});

export const IGNORED_FIELD = defineRule({
  code: 'IGNORED_FIELD',
  severity: 'warning',
  upstream:
    'ignores `clusters[].baseDomain`, `manifestsConfig` and `hardwareProfile`; uses `extraManifests.searchPaths` over `extraManifestPath`',
  why: 'the field is ignored here too',
});

export const DEPRECATED_FIELD = defineRule({
  code: 'DEPRECATED_FIELD',
  severity: 'warning',
  upstream:
    'takes `apiVIP`/`ingressVIP`, `cpuset` and `extraManifestPath`, annotating the objects of the last two as deprecated',
  why: 'they still work: SiteForge writes the same objects and annotations, and says what replaces them',
});

export const V2_ONLY_FIELD = defineRule({
  code: 'V2_ONLY_FIELD',
  severity: 'warning',
  upstream: 'no such field upstream in v1',
  why: "SiteForge's own field: `siteConfigMap` is generated for ran.openshift.io/v2 only, and ignored in a v1 file",
});

/** The rules of this topic, for the registry. */
export const clusterRules: readonly Rule[] = [
  INSTALL_CONFIG_OVERRIDES_INVALID,
  IGNITION_OVERRIDE_INVALID,
  INSTALLER_ARGS_INVALID,
  PROXY_URL_INVALID,
  NTP_SOURCE_INVALID,
  IGNORED_FIELD,
  DEPRECATED_FIELD,
  V2_ONLY_FIELD,
];

/** Cluster fields in the upstream CRD that no generator uses. */
export const ignoredClusterFieldsCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'ignored cluster fields',
  rules: [IGNORED_FIELD],
  check(c) {
    for (const field of ['baseDomain', 'manifestsConfig'] as const) {
      if ((c.cluster as unknown as Record<string, unknown>)[field] !== undefined) {
        c.report(
          IGNORED_FIELD,
          [...c.at, field],
          `clusters[].${field} is in the upstream CRD but no generator uses it`,
          field === 'baseDomain' ? 'set baseDomain once in spec' : 'remove it',
          'key',
        );
      }
    }
  },
};

function checkIgnition(c: ClusterContext, path: Path, text: string): void {
  const parsed = parseJsonField(text);
  if ('problem' in parsed || !isPlainObject(parsed.value)) {
    c.report(
      IGNITION_OVERRIDE_INVALID,
      path,
      `ignitionConfigOverride is not a JSON object${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
      `write an Ignition config as a JSON string, e.g. '{"ignition":{"version":"3.2.0"},"storage":{...}}'`,
    );
    return;
  }
  const version = (parsed.value as { ignition?: { version?: unknown } }).ignition?.version;
  if (typeof version !== 'string' || !/^3\.[0-9]+\.[0-9]+$/.test(version)) {
    c.report(
      IGNITION_OVERRIDE_INVALID,
      path,
      'ignitionConfigOverride has no "ignition": {"version": "3.x.y"}',
      'assisted-service merges only Ignition spec 3 configs; add "ignition":{"version":"3.2.0"}',
    );
  }
}

/** The cluster's JSON fields: install-config overrides and its Ignition override. */
export const clusterJsonFieldsCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'cluster JSON fields',
  rules: [INSTALL_CONFIG_OVERRIDES_INVALID, IGNITION_OVERRIDE_INVALID],
  check(c) {
    const { cluster, at } = c;
    if (cluster.installConfigOverrides !== undefined && c.sound('installConfigOverrides')) {
      const parsed = parseJsonField(cluster.installConfigOverrides);
      if ('problem' in parsed || !isPlainObject(parsed.value)) {
        c.report(
          INSTALL_CONFIG_OVERRIDES_INVALID,
          [...at, 'installConfigOverrides'],
          `installConfigOverrides is not a JSON object${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
          `write a JSON object in a string, e.g. '{"capabilities":{"baselineCapabilitySet":"None"}}'`,
        );
      }
    }
    if (cluster.ignitionConfigOverride !== undefined && c.sound('ignitionConfigOverride'))
      checkIgnition(c, [...at, 'ignitionConfigOverride'], cluster.ignitionConfigOverride);
  },
};

/** The InfraEnv's proxy URLs. */
export const proxyCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'proxy',
  rules: [PROXY_URL_INVALID],
  check(c) {
    for (const field of ['httpProxy', 'httpsProxy'] as const) {
      const url = c.cluster.proxy?.[field];
      if (url === undefined || url === '' || !c.sound('proxy', field)) continue;
      let ok = false;
      try {
        const parsed = new URL(url);
        ok =
          (parsed.protocol === 'http:' ||
            (field === 'httpsProxy' && parsed.protocol === 'https:')) &&
          parsed.hostname !== '';
      } catch {
        ok = false;
      }
      if (!ok)
        c.report(
          PROXY_URL_INVALID,
          [...c.at, 'proxy', field],
          `${field} ${quote(url)} is not an http${field === 'httpsProxy' ? '(s)' : ''}:// URL`,
          'write it as http://user:pass@proxy.example.com:3128',
        );
    }
  },
};

/** The InfraEnv's additional NTP sources. */
export const ntpCheck: ClusterCheck = {
  scope: 'cluster',
  name: 'NTP sources',
  rules: [NTP_SOURCE_INVALID],
  check(c) {
    if (!c.sound('additionalNTPSources')) return;
    (c.cluster.additionalNTPSources ?? []).forEach((source, index) => {
      if (!parseIp(source) && !isDnsSubdomain(source.toLowerCase())) {
        c.report(
          NTP_SOURCE_INVALID,
          [...c.at, 'additionalNTPSources', index],
          `NTP source ${quote(source)} is neither an IP address nor a host name`,
          'list IP addresses or DNS names of NTP servers',
        );
      }
    });
  },
};

/** A node's hardwareProfile, in the upstream CRD but used by no generator. */
export const hardwareProfileCheck: NodeCheck = {
  scope: 'node',
  name: 'hardware profile',
  rules: [IGNORED_FIELD],
  check(c, { node, at }) {
    if (node.hardwareProfile !== undefined) {
      c.report(
        IGNORED_FIELD,
        [...at, 'hardwareProfile'],
        'hardwareProfile is in the upstream CRD but no generator uses it',
        'remove it',
        'key',
      );
    }
  },
};

/** A node's installer arguments: a JSON list of strings in a string. */
export const installerArgsCheck: NodeCheck = {
  scope: 'node',
  name: 'installer args',
  rules: [INSTALLER_ARGS_INVALID],
  check(c, { node, at, sound }) {
    if (node.installerArgs === undefined || !sound('installerArgs')) return;
    const parsed = parseJsonField(node.installerArgs);
    if (
      'problem' in parsed ||
      !Array.isArray(parsed.value) ||
      !parsed.value.every((arg) => typeof arg === 'string')
    ) {
      c.report(
        INSTALLER_ARGS_INVALID,
        [...at, 'installerArgs'],
        `installerArgs is not a JSON array of strings${'problem' in parsed ? `: ${parsed.problem}` : ''}`,
        `write it as a string holding a JSON list, e.g. '["--append-karg","nameserver=8.8.8.8"]'`,
      );
    }
  },
};

/** A node's Ignition override. */
export const nodeIgnitionCheck: NodeCheck = {
  scope: 'node',
  name: 'node ignition override',
  rules: [IGNITION_OVERRIDE_INVALID],
  check(c, { node, at, sound }) {
    if (node.ignitionConfigOverride !== undefined && sound('ignitionConfigOverride'))
      checkIgnition(c, [...at, 'ignitionConfigOverride'], node.ignitionConfigOverride);
  },
};

/** siteConfigMap in a v1 file, where only v2 generates it. */
export const v2OnlyFieldsCheck: SiteCheck = {
  scope: 'site',
  name: 'v2-only fields',
  rules: [V2_ONLY_FIELD],
  check({ doc, site, clusters, sink }) {
    if (clusters === undefined || site.apiVersion !== 'ran.openshift.io/v1') return;
    (clusters as readonly ({ siteConfigMap?: unknown } | null)[]).forEach((cluster, index) => {
      if (cluster?.siteConfigMap !== undefined) {
        reportRule(
          sink,
          doc,
          V2_ONLY_FIELD,
          ['spec', 'clusters', index, 'siteConfigMap'],
          'siteConfigMap is only generated for ran.openshift.io/v2',
          'change apiVersion to ran.openshift.io/v2, or remove siteConfigMap',
          'key',
        );
      }
    });
  },
};
