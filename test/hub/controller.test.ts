import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { detectMode, ModeDetectionError } from '../../src/bmac/mode.js';
import { ClientNodeKubeClient, ClientNodeLeaseClient } from '../../src/kube/index.js';
import type { KubeObject, ObjectRef } from '../../src/kube/index.js';
import {
  hubClient,
  hubKubeconfig,
  siteforgeAsync,
  useNamespace,
  waitUntil,
} from '../support/hub.js';
import { repoRoot } from '../support/sites.js';

// One file for every test that runs `--mode auto`: a Bare Metal Operator Deployment made by
// one test would change what the others detect, so they run in this order, one at a time.

const manager = { fieldManager: 'siteforge-test' };

function deployment(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'manager', image: 'quay.io/metal3-io/baremetal-operator' }] },
      },
    },
  };
}

/** A kubeconfig for the hub as a user that RBAC grants nothing (admin impersonating it). */
function nobodyKubeconfig(): string {
  const config = parse(readFileSync(hubKubeconfig(), 'utf8')) as {
    users: { user: Record<string, unknown> }[];
  };
  for (const entry of config.users) entry.user['as'] = 'siteforge-test-nobody';
  const file = join(mkdtempSync(join(tmpdir(), 'siteforge-nobody-')), 'kubeconfig');
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}

/** The first JSON log line for which `match` holds, read as the child writes them. */
interface Child {
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

function startController(args: readonly string[]): Child {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'siteforge.js'), 'controller', ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve(status);
    });
  });
  return { lines, exited, kill: (signal) => child.kill(signal) };
}

describe('siteforge controller on the hub', () => {
  const ns = useNamespace('controller');
  const made: ObjectRef[] = [];

  afterAll(async () => {
    for (const ref of made) await hubClient().delete(ref);
  });

  async function make(object: KubeObject): Promise<void> {
    const client = hubClient();
    const namespace = object.metadata.namespace!;
    await client.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      manager,
    );
    await client.apply(object, manager);
    made.push({ apiVersion: 'apps/v1', kind: 'Deployment', name: object.metadata.name, namespace });
  }

  async function unmake(): Promise<void> {
    for (const ref of made.splice(0)) await hubClient().delete(ref);
  }

  it('boots hosts through Redfish on a hub without the Bare Metal Operator', async () => {
    expect(await detectMode(hubClient())).toEqual({
      mode: 'redfish',
      reason:
        'no Bare Metal Operator Deployment in openshift-machine-api/metal3-baremetal-operator, ' +
        'openshift-machine-api/metal3, baremetal-operator-system/baremetal-operator-controller-manager ' +
        'nor one labelled webhook=metal3-io-v1alpha1-baremetalhost or ' +
        'baremetal.openshift.io/cluster-baremetal-operator=metal3-baremetal-operator: ' +
        'SiteForge boots hosts through Redfish',
    });
  });

  it('logs its mode, holds the Lease, and on SIGTERM exits 0 and releases the Lease', async () => {
    const id = 'siteforge-controller-cli';
    const child = startController([
      '--kubeconfig',
      hubKubeconfig(),
      '--mode',
      'auto',
      '--leader-election-namespace',
      ns.name,
      '--leader-election-id',
      id,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      // On loopback, so BMCs would be given its listening address.
      '--image-server-bind-address=127.0.0.1:0',
      // The BMAC's start and stop; the assisted core's run in test/hub/assisted-*.
      '--assisted=false',
    ]);
    const leases = ClientNodeLeaseClient.fromKubeconfig(hubKubeconfig());
    try {
      await waitUntil(
        'the Lease is held',
        async () => {
          const holder = (await leases.get(ns.name, id))?.spec.holderIdentity;
          return holder !== undefined && holder !== '';
        },
        30_000,
      );
      const modeLine = child.lines.find((l) => l['mode'] !== undefined);
      expect(modeLine).toMatchObject({
        level: 30,
        component: 'siteforge-controller',
        mode: 'redfish',
      });
      expect(modeLine?.['reason']).toMatch(
        /^no Bare Metal Operator Deployment in .*: SiteForge boots hosts through Redfish$/,
      );
      expect(modeLine?.['msg']).toBe(`mode redfish: ${String(modeLine?.['reason'])}`);
      // The child logs it once the server has answered, maybe after the test saw the Lease.
      await waitUntil(
        'the controller says it leads',
        () =>
          Promise.resolve(child.lines.some((l) => String(l['msg']).startsWith('became leader'))),
        10_000,
      );
    } finally {
      child.kill('SIGTERM');
    }
    const signalled = Date.now();
    expect(await child.exited).toBe(0);
    const exitMs = Date.now() - signalled;
    const lease = await leases.get(ns.name, id);
    expect(lease?.spec.holderIdentity).toBeUndefined();
    expect(lease?.spec.leaseDurationSeconds).toBe(1);
    expect(child.lines.map((l) => l['msg'])).toEqual(
      expect.arrayContaining(['received SIGTERM: stopping', 'released the lease', 'stopped']),
    );
    // Not an assertion: printed so the time from SIGTERM to exit can be watched.
    console.log(`siteforge controller exited ${String(exitMs)} ms after SIGTERM`);
  });

  it('tells to pass --mode when the hub forbids reading Deployments', async () => {
    const nobody = ClientNodeKubeClient.fromKubeconfig({ kubeconfig: nobodyKubeconfig() });
    const err = await detectMode(nobody).then(
      () => expect.fail('expected a rejection'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModeDetectionError);
    expect((err as Error).message).toMatch(/pass --mode redfish or --mode metal3$/);

    const run = await siteforgeAsync([
      'controller',
      '--kubeconfig',
      nobodyKubeconfig(),
      '--leader-election-namespace',
      ns.name,
    ]);
    expect(run.status).toBe(1);
    const last = run.stderr.trim().split('\n').at(-1);
    expect(last).toMatch(
      /^siteforge: --mode auto cannot tell whether the Bare Metal Operator runs: .*forbidden.*; grant get and list on deployments.apps in every namespace, or pass --mode redfish or --mode metal3$/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('leaves hosts to the upstream Bare Metal Operator when its Deployment exists', async () => {
    await make(deployment('baremetal-operator-system', 'baremetal-operator-controller-manager'));
    expect(await detectMode(hubClient())).toEqual({
      mode: 'metal3',
      reason:
        'found Deployment baremetal-operator-system/baremetal-operator-controller-manager: the Bare Metal Operator boots hosts',
    });
    await unmake();
  });

  it('leaves hosts to OpenShift’s metal3 Deployment', async () => {
    await make(deployment('openshift-machine-api', 'metal3'));
    expect(await detectMode(hubClient())).toEqual({
      mode: 'metal3',
      reason: 'found Deployment openshift-machine-api/metal3: the Bare Metal Operator boots hosts',
    });
    await unmake();
  });

  it('finds the Bare Metal Operator by its labels wherever it was installed', async () => {
    await make(
      deployment(ns.name, 'bmo', {
        'control-plane': 'controller-manager',
        webhook: 'metal3-io-v1alpha1-baremetalhost',
      }),
    );
    expect(await detectMode(hubClient())).toEqual({
      mode: 'metal3',
      reason: `found Deployment ${ns.name}/bmo labelled webhook=metal3-io-v1alpha1-baremetalhost: the Bare Metal Operator boots hosts`,
    });
    await unmake();
    expect((await detectMode(hubClient())).mode).toBe('redfish');
  });
});
