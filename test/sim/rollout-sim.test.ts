/**
 * Rollouts of simulated edge sites: `siteforge rollout run` (apply target) releases the sites
 * of a git repository wave by wave to the test hub, where `siteforge controller` (redfish mode,
 * assisted core, simulated installer) boots each simulated server through its simulated BMC,
 * and the server's agent discovers and installs it. The gates read what the controller writes.
 * Two rollouts run at once: one whose sites install, one whose canary is a server too small to
 * install, which stops it with the validation message, its second wave never applied.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/index.js';
import { RolloutStore } from '../../src/rollout/rollout-store.js';
import { compileSiteConfig } from '../../src/siteconfig/index.js';
import { faultsFor, parseFaultRule } from '../../src/sim/faults.js';
import { clusterImageSetObject } from '../../src/sim/fleet-objects.js';
import { startSimFleet } from '../../src/sim/sim-fleet.js';
import type { SimFleet } from '../../src/sim/sim-fleet.js';
import { hostsOfManifests } from '../../src/sim/site-hosts.js';
import {
  ACI,
  CLUSTER_DEPLOYMENT,
  assistedEnvironment,
  startAssistedController,
  uniqueName,
  updateWith,
} from '../support/assisted-hub.js';
import type { AssistedEnvironment } from '../support/assisted-hub.js';
import { AGENT, field, hubRuntimeClient } from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import { hubKubeconfig, useNamespace } from '../support/hub.js';
import type { RunResult } from '../support/hub.js';
import { loadText, repoRoot } from '../support/sites.js';

const client = hubRuntimeClient();
const ns = useNamespace('rollout-sim');
const [canary, a, b, bad, never] = ['rsc', 'rsa', 'rsb', 'rsx', 'rsy'].map(uniqueName) as [
  string,
  string,
  string,
  string,
  string,
];
const sites = [canary, a, b, bad, never];
const IMAGE_SET = 'openshift-4.18.12';

/** A single-node site with a static address; its BMC and credentials as given. */
function siteText(
  name: string,
  octet: number,
  bmc: { address: string; credentials: string },
): string {
  const mac = `0c:42:a2:00:${octet.toString(16).padStart(2, '0')}:01`;
  return `apiVersion: ran.openshift.io/v1
kind: SiteConfig
metadata:
  name: site-${name}
  namespace: ${name}
spec:
  baseDomain: sim.example.com
  pullSecretRef:
    name: assisted-deployment-pull-secret
${bmc.credentials.startsWith('bmcCredentials:') ? '  pullSecret:\n    fromDirectory: pull-secret\n' : ''}  clusterImageSetNameRef: ${IMAGE_SET}
  sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly000000000000000000000 test@example.com'
  clusters:
    - clusterName: ${name}
      machineNetwork:
        - cidr: 10.78.${String(octet)}.0/24
      nodes:
        - hostName: ${name}-node
          role: master
          bmcAddress: ${bmc.address}
          ${bmc.credentials}
          bootMACAddress: '${mac}'
          rootDeviceHints:
            deviceName: /dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:0:0
          nodeNetwork:
            interfaces:
              - name: eno1
                macAddress: '${mac}'
            config:
              interfaces:
                - name: eno1
                  type: ethernet
                  state: up
                  ipv4:
                    enabled: true
                    dhcp: false
                    address:
                      - ip: 10.78.${String(octet)}.20
                        prefix-length: 24
              routes:
                config:
                  - destination: 0.0.0.0/0
                    next-hop-interface: eno1
                    next-hop-address: 10.78.${String(octet)}.1
`;
}

const placeholder = (octet: number) => ({
  address: `idrac-virtualmedia+https://10.78.${String(octet)}.2/redfish/v1/Systems/System.Embedded.1`,
  credentials: 'bmcCredentialsName: {name: placeholder}',
});

let env: AssistedEnvironment | undefined;
let controller: InProcessController | undefined;
let fleet: SimFleet | undefined;
let repo: string;
let secrets: string;
let from: string;
let to: string;

function git(...args: string[]): string {
  const done = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (done.status !== 0) throw new Error(`git ${args.join(' ')}: ${done.stderr}`);
  return done.stdout.trim();
}

beforeAll(async () => {
  // The servers: from the sites compiled once with placeholder BMCs.
  const compiled = sites.flatMap((name, i) => {
    const { sites: loaded, issues } = loadText(siteText(name, 20 + i, placeholder(20 + i)));
    if (loaded[0] === undefined) throw new Error(JSON.stringify(issues));
    return compileSiteConfig(loaded[0].siteConfig, loaded[0].resources).flatMap(
      (c) => c.manifests as unknown as KubeObject[],
    );
  });
  const rules = [parseFaultRule(`${bad}=too-small`)];
  fleet = await startSimFleet({
    hosts: hostsOfManifests(compiled, (host) => faultsFor(rules, host)),
    // As the simulated fleet test: the controller ejects the ISO during the reboot.
    timings: { stageMs: 300, pollMs: 500, postMs: 300, rebootMs: 20_000 },
  });
  // The repository: an empty fleet, then the five sites with their simulated BMCs; the BMC
  // credentials and the pull secret come from a secrets directory, as on a hub without a vault.
  repo = mkdtempSync(join(tmpdir(), 'siteforge-rollout-sim-'));
  secrets = mkdtempSync(join(tmpdir(), 'siteforge-rollout-sim-secrets-'));
  mkdirSync(join(repo, 'sites'));
  writeFileSync(join(repo, 'sites', 'README.md'), 'sites\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'no sites yet');
  from = git('rev-parse', 'HEAD');
  mkdirSync(join(secrets, 'pull-secret'));
  writeFileSync(
    join(secrets, 'pull-secret', '.dockerconfigjson'),
    '{"auths":{"quay.io":{"auth":"dGVzdDp0ZXN0"}}}',
  );
  sites.forEach((name, i) => {
    const bmc = fleet!.bmcs.find((x) => x.key === `${name}/${name}-node`);
    if (bmc === undefined) throw new Error(`no simulated BMC for ${name}`);
    mkdirSync(join(secrets, `${name}-bmc`));
    writeFileSync(join(secrets, `${name}-bmc`, 'username'), bmc.username);
    writeFileSync(join(secrets, `${name}-bmc`, 'password'), bmc.password);
    writeFileSync(
      join(repo, 'sites', `${name}.yaml`),
      siteText(name, 20 + i, {
        address: bmc.address,
        credentials: `bmcCredentials: {fromDirectory: ${name}-bmc}`,
      }),
    );
  });
  git('add', '.');
  git('commit', '-qm', 'five sites');
  to = git('rev-parse', 'HEAD');
  if (
    (await client.get({
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      name: IMAGE_SET,
    })) === undefined
  )
    await client.create(clusterImageSetObject(IMAGE_SET));
  env = await assistedEnvironment();
  controller = await startAssistedController(env, sites);
}, 240_000);

afterAll(async () => {
  await controller?.stop();
  await fleet?.stop();
  for (const namespace of sites) {
    for (const gvk of [AGENT, ACI, CLUSTER_DEPLOYMENT])
      for (const item of (await client.list(gvk, { namespace })).items) {
        const ref = { ...gvk, namespace, name: item.metadata.name };
        await client.delete(ref);
        await updateWith(client, ref, (live) => ({
          ...live,
          metadata: { ...live.metadata, finalizers: [] },
        }));
      }
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
    await client.delete({
      apiVersion: 'cluster.open-cluster-management.io/v1',
      kind: 'ManagedCluster',
      name: namespace,
    });
  }
  await env?.close();
  rmSync(repo, { recursive: true, force: true });
  rmSync(secrets, { recursive: true, force: true });
}, 120_000);

/** A plan (siteforge rollout plan --json) of added sites: a canary, then one wave. */
function plan(file: string, waves: string[][], timeoutSeconds: number): string {
  const path = join(repo, '..', `${file}-${String(process.pid)}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'siteforge.io/v1alpha1',
      kind: 'RolloutPlan',
      from: { revision: 'main~1', commit: from },
      to: { revision: 'main', commit: to },
      path: 'sites',
      waves: waves.map((s, i) => ({
        name: i === 0 ? 'canary' : `wave-${String(i)}`,
        type: i === 0 ? 'canary' : 'rollout',
        action: 'apply',
        sites: s,
        gate: { minSucceededPercent: 100, maxFailures: 0, timeoutSeconds },
        pacing: { sitesPerHour: 3600, maxInFlight: 2 },
      })),
      sites: waves.flat().map((name) => ({
        name,
        site: `site-${name}`,
        change: 'added',
        impact: 'safe',
        wave: null,
        held: null,
        file: `sites/${name}.yaml`,
      })),
    }),
  );
  return path;
}

function run(planFile: string, name: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'siteforge.js'),
        'rollout',
        'run',
        planFile,
        '--name',
        name,
        '-n',
        ns.name,
        '--target',
        'apply',
        '--secrets-dir',
        secrets,
        '--kubeconfig',
        hubKubeconfig(),
        '--poll-interval',
        '1',
      ],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 400_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const installed = async (site: string): Promise<boolean> =>
  field(
    await client.get({ ...CLUSTER_DEPLOYMENT, namespace: site, name: site }),
    'spec',
    'installed',
  ) === true;

describe('rollouts of simulated sites', () => {
  it('installs wave after wave, and stops at a canary that cannot install', async () => {
    const [good, stopped] = await Promise.all([
      run(plan('good', [[canary], [a, b]], 300), 'sim-good'),
      run(plan('bad', [[bad], [never]], 90), 'sim-bad'),
    ]);

    expect(good.stderr).toContain('wave canary: passed');
    expect(good.status, good.stderr).toBe(0);
    for (const site of [canary, a, b]) expect(await installed(site)).toBe(true);

    expect(stopped.status, stopped.stderr).toBe(1);
    expect(stopped.stderr).toContain('timed out after 90s');
    expect(stopped.stderr).toMatch(
      new RegExp(
        `site ${bad} \\(insufficient\\): Agent ${bad}/\\S+ Validated ValidationsFailing: The agent's validations are failing: .*(CPU cores|memory)`,
      ),
    );
    expect(
      await client.get({ ...CLUSTER_DEPLOYMENT, namespace: never, name: never }),
    ).toBeUndefined();

    const rollouts = new RolloutStore(client);
    const r = await rollouts.get(ns.name, 'sim-good');
    // The canary's install ended before the wave's first release.
    expect(Date.parse(r!.status!.waves[0]!.finishedAt!)).toBeLessThanOrEqual(
      Date.parse(r!.status!.waves[1]!.startedAt!),
    );
    expect(r?.status?.waves.map((w) => [w.phase, w.installed])).toEqual([
      ['Passed', 1],
      ['Passed', 2],
    ]);
  }, 600_000);
});
