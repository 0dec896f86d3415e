import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Options of one site of a scripted fleet. */
export interface FleetSiteOptions {
  /** Cluster name. @default sno-NNNN */
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Lines added to the cluster, indented six spaces. */
  readonly cluster?: string;
}

/** A single-node SiteConfig with its own name, networks, BMC and MAC, numbered `i`. */
export function fleetSite(i: number, options: FleetSiteOptions = {}): string {
  const id = String(i).padStart(4, '0');
  const name = options.name ?? `sno-${id}`;
  const b = (i >> 8) & 0xff;
  const c = i & 0xff;
  const mac = `0c:42:a1:${b.toString(16).padStart(2, '0')}:${c.toString(16).padStart(2, '0')}:01`;
  const labels = Object.entries(options.labels ?? {})
    .map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`)
    .join('');
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${id}
  namespace: site-${id}
spec:
  baseDomain: edge.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
  clusterImageSetNameRef: openshift-4.18.12
  sshPublicKey: ssh-ed25519 AAAA
  clusters:
    - clusterName: ${name}
      machineNetwork:
        - cidr: 10.${String(b)}.${String(c)}.0/24
${labels === '' ? '' : `      clusterLabels:\n${labels}`}${options.cluster ?? ''}      nodes:
        - hostName: ${name}.edge.example.com
          bmcAddress: redfish-virtualmedia+https://10.${String(b)}.${String(c)}.2/redfish/v1/Systems/1
          bmcCredentialsName:
            name: ${name}-bmc
          bootMACAddress: "${mac}"
`;
}

/** A git repository in a temporary folder, changed and committed by a test script. */
export class ScriptedRepo {
  readonly dir = mkdtempSync(join(tmpdir(), 'siteforge-rollout-'));

  constructor() {
    this.git('init', '--quiet', '--initial-branch=main');
  }

  git(...args: string[]): string {
    return execFileSync(
      'git',
      ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args],
      { cwd: this.dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  }

  write(path: string, text: string): this {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true });
    writeFileSync(join(this.dir, path), text);
    return this;
  }

  remove(path: string): this {
    rmSync(join(this.dir, path), { recursive: true });
    return this;
  }

  /** Commits everything; returns the commit id. */
  commit(message: string): string {
    this.git('add', '--all');
    this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD').trim();
  }

  /** Removes the folder. */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
