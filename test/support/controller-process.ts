/**
 * The real `siteforge controller` as a child process against the test hub and simulated BMCs:
 * its JSON log lines, /readyz and /metrics, and the sites (BMC Secret, InfraEnv with its ISO,
 * BareMetalHosts) it boots, as bench/controller.js sets them up.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Gvk, Label } from '../../src/bmac/api.js';
import type { SimulatedBmc } from '../../src/bmac/redfish/sim/index.js';
import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { hubKubeconfig } from './hub.js';
import { repoRoot } from './sites.js';

/** A running `siteforge controller`. */
export interface ControllerProcess {
  readonly name: string;
  readonly pid: number;
  /** Its log, one parsed JSON object per line, as written so far. */
  readonly lines: Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** `http://127.0.0.1:PORT` of its probe and metrics server. */
  readonly probes: string;
  kill(signal: NodeJS.Signals): void;
  /** The body of /readyz, or undefined while it does not answer. */
  readyz(): Promise<string | undefined>;
  /** The sum of a metric family's samples, or undefined while /metrics does not answer. */
  metric(name: string): Promise<number | undefined>;
  /** The time (epoch ms) of the first log line whose message starts with `prefix`. */
  loggedAt(prefix: string): number | undefined;
}

/** What every controller of one test shares: the image server's URL and key. */
export interface ControllerSetup {
  readonly imagePort: number;
  readonly keyFile: string;
  readonly cacheDir: string;
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/**
 * A key file and an image URL shared by every controller of a test, so a short URL given to a
 * BMC by one process is the same URL its successor computes (as the chart shares them).
 */
export async function controllerSetup(): Promise<ControllerSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-controller-'));
  const keyFile = join(dir, 'image-key');
  writeFileSync(keyFile, randomBytes(48), { mode: 0o600 });
  return { imagePort: await freePort(), keyFile, cacheDir: join(dir, 'images') };
}

/** Options of {@link startControllerProcess}. */
export interface StartOptions {
  readonly name: string;
  readonly setup: ControllerSetup;
  readonly namespace: string;
  /** @default hubKubeconfig() */
  readonly kubeconfig?: string;
  /** Lease ID; undefined runs without leader election. */
  readonly leaseId?: string;
  /** Extra environment (the lease timing). */
  readonly env?: Readonly<Record<string, string>>;
  /** The image server listens on the shared port (one process at a time), else on its own. */
  readonly ownImagePort?: boolean;
}

/** Starts `siteforge controller --mode redfish` watching `namespace`. */
export async function startControllerProcess(options: StartOptions): Promise<ControllerProcess> {
  const { setup } = options;
  const probePort = await freePort();
  const imagePort = options.ownImagePort === true ? await freePort() : setup.imagePort;
  const args = [
    join(repoRoot, 'bin', 'siteforge.js'),
    'controller',
    '--kubeconfig',
    options.kubeconfig ?? hubKubeconfig(),
    '--mode',
    'redfish',
    '--namespace',
    options.namespace,
    '--metrics-bind-address',
    `127.0.0.1:${String(probePort)}`,
    '--health-probe-bind-address',
    `127.0.0.1:${String(probePort)}`,
    '--image-server-bind-address',
    `127.0.0.1:${String(imagePort)}`,
    // Every replica gives BMCs the same URLs: a failover does not change a host's image.
    '--image-server-url',
    `http://127.0.0.1:${String(setup.imagePort)}`,
    '--image-server-key-file',
    setup.keyFile,
    '--image-cache-dir',
    setup.cacheDir,
    '--log-level',
    'info',
    // The BMAC's tests; the assisted core's (test/hub/assisted-*) run it in the test process.
    '--assisted=false',
    ...(options.leaseId === undefined
      ? ['--leader-elect=false']
      : [
          '--leader-election-namespace',
          options.namespace,
          '--leader-election-id',
          options.leaseId,
        ]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ msg: line });
    }
  });
  // Never outlive the test run, whatever happens to the test.
  const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve(status);
    });
  });
  const probes = `http://127.0.0.1:${String(probePort)}`;
  const get = async (path: string): Promise<{ status: number; text: string } | undefined> => {
    try {
      const res = await fetch(`${probes}${path}`, { signal: AbortSignal.timeout(5_000) });
      return { status: res.status, text: await res.text() };
    } catch {
      return undefined;
    }
  };
  return {
    name: options.name,
    pid: child.pid!,
    lines,
    exited,
    probes,
    kill: (signal) => child.kill(signal),
    readyz: async () => (await get('/readyz'))?.text.trim(),
    metric: async (name) => {
      const res = await get('/metrics');
      return res === undefined ? undefined : metricSum(res.text, name);
    },
    loggedAt: (prefix) => {
      const line = lines.find((l) => typeof l['msg'] === 'string' && l['msg'].startsWith(prefix));
      return line === undefined ? undefined : Date.parse(String(line['time']));
    },
  };
}

/** Sums the samples of a Prometheus metric family. */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] === name) sum += Number(match[3]);
  }
  return sum;
}

/** Stops a controller: SIGTERM, then SIGKILL if it has not exited within 20 s. */
export async function stopController(controller: ControllerProcess): Promise<void> {
  controller.kill('SIGTERM');
  const timer = setTimeout(() => {
    controller.kill('SIGKILL');
  }, 20_000);
  await controller.exited;
  clearTimeout(timer);
}

/** The hub as the tests' runtime client (create, updateStatus, list, delete). */
export function runtimeClient(): ClientNodeRuntimeKubeClient {
  return ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());
}

/**
 * A site in `namespace`: the BMC Secret, an InfraEnv `infraEnv` whose ISO has existed past the
 * cool-down, and one BareMetalHost per BMC, `${infraEnv}-NN`, labelled with the InfraEnv.
 * @returns the names of the hosts, in the order of `bmcs`
 */
export async function createSite(
  namespace: string,
  infraEnv: string,
  bmcs: readonly SimulatedBmc[],
): Promise<string[]> {
  const client = runtimeClient();
  const credentials = bmcs[0]!.credentials;
  const secret = `${infraEnv}-bmc`;
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret, namespace },
    type: 'Opaque',
    stringData: { username: credentials.username, password: credentials.password },
  });
  const created = await client.create({
    ...Gvk.InfraEnv,
    metadata: { name: infraEnv, namespace },
    spec: { pullSecretRef: { name: 'pull-secret' } },
  });
  await client.updateStatus({
    ...created,
    status: {
      isoDownloadURL: `http://127.0.0.1:9/images/${infraEnv}/discovery.iso?arch=x86_64&type=full-iso`,
      createdTime: new Date(Date.now() - 5 * 60_000).toISOString(),
    },
  });
  const names: string[] = [];
  for (const [i, bmc] of bmcs.entries()) {
    const name = `${infraEnv}-${String(i).padStart(2, '0')}`;
    names.push(name);
    await client.create({
      ...Gvk.BareMetalHost,
      metadata: { name, namespace, labels: { [Label.InfraEnv]: infraEnv } },
      spec: {
        online: false,
        bootMACAddress: `52:54:00:00:${(names.length >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
        bmc: {
          address: bmc.address,
          credentialsName: secret,
          disableCertificateVerification: true,
        },
      },
    });
  }
  return names;
}

/** The BareMetalHosts of `namespace` by name. */
export async function hostsOf(namespace: string): Promise<Map<string, KubeObject>> {
  const { items } = await runtimeClient().list(Gvk.BareMetalHost, { namespace });
  return new Map(items.map((h) => [h.metadata.name, h]));
}

/** BMO's provisioning state of a BareMetalHost. */
export function stateOf(host: KubeObject | undefined): string | undefined {
  const status = (host as { status?: { provisioning?: { state?: string } } } | undefined)?.status;
  return status?.provisioning?.state;
}

/**
 * The ISO boots of a simulated BMC: the host came on (power on, or a restart) with a mounted
 * CD image and the boot override on the CD, so it started the image; a boot from disk (no
 * image, or the override not on the CD) is not one.
 */
export function isoBoots(bmc: SimulatedBmc): string[] {
  return bmc.events.filter((e) => e.kind === 'boot' && e.detail !== 'disk').map((e) => e.detail);
}

/** A short label of `bmc` for messages: its vendor personality and port. */
export function bmcLabel(bmc: SimulatedBmc): string {
  return `${bmc.personality.name} ${bmc.origin}`;
}
