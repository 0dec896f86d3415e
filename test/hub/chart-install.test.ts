/**
 * The siteforge-controller chart installed with the real helm on the test hub: what `helm
 * template` cannot show, because Helm's `lookup` only sees a cluster on install and upgrade.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN_KEY_FILE, IMAGE_KEY_FILE } from '../../src/bmac/chart/controller-chart.js';
import { hubClient, hubKubeconfig, useNamespace } from '../support/hub.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const chartDir = join(repoRoot, 'charts', 'siteforge-controller');

interface HelmResult {
  readonly status: number | null;
  readonly output: string;
}

let helm: string;

/** Runs helm on the hub, asynchronously so the test process stays responsive. */
function runHelm(args: readonly string[]): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(helm, [...args, '--kubeconfig', hubKubeconfig()], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (status) => {
      resolve({ status, output });
    });
  });
}

const namespace = useNamespace('chart');
// The release names the ClusterRole, so it is unique on the hub like the namespace.
const release = (): string => namespace.name;

async function secretKey(suffix: string, key: string): Promise<string | undefined> {
  const secret = await hubClient().get({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: namespace.name,
    name: `${release()}${suffix}`,
  });
  return (secret?.['data'] as Record<string, string> | undefined)?.[key];
}

const imageKey = (): Promise<string | undefined> => secretKey('-image-key', IMAGE_KEY_FILE);
/** The agent token key: hosts booted before an upgrade keep tokens it signed. */
const tokenKey = (): Promise<string | undefined> =>
  secretKey('-agent-token-key', AGENT_TOKEN_KEY_FILE);

beforeAll(() => {
  const ensured = spawnSync(
    process.execPath,
    [join(repoRoot, 'scripts', 'tools', 'ensure-tools.mjs'), 'helm'],
    { encoding: 'utf8', timeout: 20 * 60_000, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (ensured.status !== 0)
    throw new Error('helm could not be installed: see ensure-tools on stderr');
  helm = (JSON.parse(ensured.stdout) as { helm: string }).helm;
}, 20 * 60_000);

afterAll(async () => {
  // Its ClusterRole and ClusterRoleBinding outlive the namespace otherwise.
  await runHelm(['uninstall', release(), '--namespace', namespace.name]);
}, 60_000);

describe('the siteforge-controller chart on a hub', () => {
  it('keeps the image URL key and the agent token key of its Secrets across helm upgrade', async () => {
    // No pods: the hub has no scheduler, and the Secret is what this is about.
    const common = ['--namespace', namespace.name, '--set', 'replicas=0'];
    const installed = await runHelm(['install', release(), chartDir, ...common]);
    expect(installed.status, installed.output).toBe(0);
    const key = await imageKey();
    expect(key, 'the Secret made at install').toBeDefined();
    expect(Buffer.from(key!, 'base64').length).toBeGreaterThanOrEqual(32);
    const token = await tokenKey();
    expect(Buffer.from(token!, 'base64').toString()).toContain('-----BEGIN EC PRIVATE KEY-----');

    const upgraded = await runHelm([
      'upgrade',
      release(),
      chartDir,
      ...common,
      '--set',
      'workers=8',
    ]);
    expect(upgraded.status, upgraded.output).toBe(0);
    expect(await imageKey()).toBe(key);
    expect(await tokenKey()).toBe(token);

    const deployment = await hubClient().get({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: namespace.name,
      name: release(),
    });
    const args = (
      deployment?.['spec'] as { template: { spec: { containers: { args: string[] }[] } } }
    ).template.spec.containers[0]!.args;
    expect(args, 'the upgrade applied').toContain('--workers=8');
  }, 120_000);
});
