import { expect } from 'vitest';
import type { InputIssue } from '../../src/shared/errors.js';
import { loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { SourceFile } from '../../src/siteconfig/index.js';
import type { Rule } from '../../src/siteconfig/rules/index.js';

/** Input for a rule case: one SiteConfig text (as site.yaml), or several files. */
export type RuleInput = string | readonly SourceFile[];

function issuesOf(input: RuleInput): InputIssue[] {
  const files = typeof input === 'string' ? [{ path: 'site.yaml', text: input }] : input;
  return loadSiteConfigs(files).issues;
}

/**
 * Asserts that `failing` reports `rule` (its code at its severity, at `path` when given) and
 * `passing` does not report its code at that severity. Returns the issues of `failing`.
 */
export function expectRule(
  rule: Rule,
  failing: RuleInput,
  passing: RuleInput,
  path?: string,
): InputIssue[] {
  const found = issuesOf(failing);
  const hits = found.filter(
    (issue) =>
      issue.code === rule.code &&
      issue.severity === rule.severity &&
      (path === undefined || issue.path === path),
  );
  expect(hits, `${rule.code} in ${JSON.stringify(found.map((i) => i.code))}`).not.toEqual([]);
  const clean = issuesOf(passing).filter(
    (issue) => issue.code === rule.code && issue.severity === rule.severity,
  );
  expect(clean).toEqual([]);
  return found;
}

/** A second node for `snoSite` text: a worker `host` with MAC `mac`, appended to the nodes. */
export function worker(host: string, mac: string, extra = ''): string {
  return `        - hostName: ${host}
          role: worker
          bmcAddress: redfish-virtualmedia://10.0.1.9/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${host}-bmc
          bootMACAddress: "${mac}"
${extra}`;
}

/**
 * A valid compact cluster (3 control-plane nodes, VIPs in 10.0.0.0/24); `cluster` lines replace
 * the VIPs, `node` lines go into the first node, `workers` are appended.
 */
export function compactSite(
  options: { cluster?: string; node?: string; masters?: number; workers?: string } = {},
): string {
  const masters = Array.from({ length: options.masters ?? 3 }, (_, i) => {
    const n = String(i);
    return `        - hostName: m${n}
          bmcAddress: redfish-virtualmedia://10.0.1.1${n}/redfish/v1/Systems/1
          bmcCredentialsName:
            name: m${n}-bmc
          bootMACAddress: "aa:bb:cc:00:01:0${n}"
${i === 0 ? (options.node ?? '') : ''}`;
  }).join('');
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-c
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.18
  clusters:
    - clusterName: compact
      machineNetwork:
        - cidr: 10.0.0.0/24
${options.cluster ?? '      apiVIPs: ["10.0.0.5"]\n      ingressVIPs: ["10.0.0.6"]\n'}      nodes:
${masters}${options.workers ?? ''}`;
}
