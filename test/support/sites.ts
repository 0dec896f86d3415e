import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSiteConfigs } from '../../src/siteconfig/index.js';
import type { LoadResult, SourceFile } from '../../src/siteconfig/index.js';

/** Absolute path of the repository root. */
export const repoRoot = join(import.meta.dirname, '..', '..');

/** The example site files, as the CLI would read them. */
export function exampleFiles(): SourceFile[] {
  const dir = join(repoRoot, 'examples', 'sites');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: `examples/sites/${f}`, text: readFileSync(join(dir, f), 'utf8') }));
}

/** Loads YAML text given inline, as file `site.yaml`. */
export function loadText(text: string, path = 'site.yaml'): LoadResult {
  return loadSiteConfigs([{ path, text }]);
}

/** A minimal valid single-node SiteConfig; `extra` lines are appended to its cluster. */
export function snoSite(
  options: {
    apiVersion?: string;
    cluster?: string;
    node?: string;
    name?: string;
    mac?: string;
  } = {},
): string {
  const name = options.name ?? 'sno1';
  return `apiVersion: ${options.apiVersion ?? 'ran.openshift.io/v1'}
kind: SiteConfig
metadata:
  name: site-${name}
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull-secret
  clusterImageSetNameRef: openshift-4.18
  sshPublicKey: ssh-ed25519 AAAA
  clusters:
    - clusterName: ${name}
      machineNetwork:
        - cidr: 10.0.0.0/24
${options.cluster ?? ''}      nodes:
        - hostName: ${name}-node
          bmcAddress: redfish-virtualmedia://10.0.1.1/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${name}-bmc
          bootMACAddress: "${options.mac ?? 'aa:bb:cc:00:00:01'}"
${options.node ?? ''}`;
}
