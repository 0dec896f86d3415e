import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { InputIssue } from '../../src/shared/errors.js';
import { filesFromMap, loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { LoadOptions, SiteFiles, SourceFile } from '../../src/siteconfig/index.js';
import type { Rule } from '../../src/siteconfig/rules/index.js';
import { repoRoot } from './sites.js';

/** Input files with the load options they need (the files a site refers to, its secrets). */
export interface LoadCase {
  readonly input: string | readonly SourceFile[];
  readonly options: LoadOptions;
}

/** Input for a rule case: one document's text (as sites/site.yaml), several files, or either with load options. */
export type RuleInput = string | readonly SourceFile[] | LoadCase;

function issuesOf(input: RuleInput): InputIssue[] {
  const { input: given, options } =
    typeof input === 'object' && 'options' in input ? input : { input, options: {} };
  const files = typeof given === 'string' ? [{ path: 'sites/site.yaml', text: given }] : given;
  return loadSiteConfigs(files, options).issues;
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

/** The shipped default extra-manifest sets, as the edges hand them over. */
export function defaultExtraManifests(): { files: SiteFiles; dir: string } {
  return {
    files: filesFromMap(folderFiles(join(repoRoot, 'extra-manifests'), 'extra-manifests')),
    dir: 'extra-manifests',
  };
}

/** Every file below `dir`, keyed `<prefix>/<relative path>`. */
export function folderFiles(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, folderFiles(path, `${prefix}/${name}`));
    else out[`${prefix}/${name}`] = readFileSync(path, 'utf8');
  }
  return out;
}

/**
 * A site compiled with its extra manifests: `input` (sites/site.yaml) with `files` beside it
 * (keys relative to sites/) and the default sets.
 */
export function withExtraManifests(
  input: string,
  files: Readonly<Record<string, string>> | SiteFiles = {},
): LoadCase {
  const siteFiles =
    'readText' in files
      ? (files as SiteFiles)
      : filesFromMap(Object.fromEntries(Object.entries(files).map(([k, v]) => [`sites/${k}`, v])));
  return { input, options: { files: siteFiles, defaultExtraManifests: defaultExtraManifests() } };
}
