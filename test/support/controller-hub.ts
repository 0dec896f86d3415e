/**
 * What the controller hub tests (test/hub/controller-*.test.ts) share: `siteforge controller`
 * run in the test process on the test run's hub, and the objects of a site as the assisted
 * service and a user would make them (BMC Secret, InfraEnv with its ISO, BareMetalHost, Agent).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runController } from '../../src/bmac/main.js';
import type { ControllerOptions } from '../../src/bmac/main.js';
import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import type { KubeObject, RuntimeKubeClient } from '../../src/kube/index.js';
import { hubKubeconfig } from './hub.js';

/** A controller running in the test process. */
export interface InProcessController {
  /** Its JSON log lines so far. */
  readonly lines: readonly Record<string, unknown>[];
  /** Where its image server answers (redfish mode). */
  readonly imageOrigin: string | undefined;
  /** The error it stopped with, if it stopped on its own. */
  failure(): unknown;
  /** Stops it as SIGTERM would; resolves with its exit code. */
  stop(): Promise<number>;
}

/**
 * Starts `siteforge controller` in this process, watching `namespaces` only (so test files
 * sharing the hub never see each other's hosts), without leader election, probes or metrics.
 * Resolves once its controllers are built and about to start.
 */
export async function startInProcessController(
  options: Partial<ControllerOptions> & Pick<ControllerOptions, 'mode' | 'namespaces'>,
): Promise<InProcessController> {
  const stop = new AbortController();
  const lines: Record<string, unknown>[] = [];
  const cacheDir = mkdtempSync(join(tmpdir(), 'siteforge-e2e-images-'));
  let failure: unknown;
  const done = runController(
    {
      kubeconfig: hubKubeconfig(),
      leaderElect: false,
      leaderElectionId: 'siteforge-controller',
      imageServerBindAddress: { host: '127.0.0.1', port: 0 },
      imageCacheDir: cacheDir,
      workers: 4,
      kubeApiQps: 100,
      kubeApiBurst: 200,
      maxConcurrentBmcOperations: 64,
      logLevel: 'debug',
      // The BMAC's tests run without the assisted core unless they ask for it.
      assisted: false,
      ...options,
    },
    {
      stop: stop.signal,
      logDestination: {
        write: (text: string) => {
          for (const line of text.split('\n').filter((l) => l !== ''))
            lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    },
  ).catch((err: unknown) => {
    failure = err;
    return -1;
  });
  const started = (): boolean =>
    lines.some((l) => typeof l['msg'] === 'string' && l['msg'].includes(' controllers for mode '));
  const deadline = Date.now() + 30_000;
  while (!started() && failure === undefined) {
    if (Date.now() > deadline) throw new Error('the controller did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (failure !== undefined) throw asError(failure);
  const imageUp = lines.find((l) => l['msg'] === 'image server up');
  return {
    lines,
    imageOrigin: typeof imageUp?.['url'] === 'string' ? imageUp['url'] : undefined,
    failure: () => failure,
    stop: async () => {
      stop.abort();
      const code = await done;
      rmSync(cacheDir, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * Polls `check` every 200 ms until it gives a value other than undefined or false; fails after
 * `timeoutMs` with `what`, or at once when the controller has stopped with an error.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  options: { readonly timeoutMs?: number; readonly controller?: InProcessController } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = options.controller?.failure();
    if (failure !== undefined)
      throw new Error(`${what}: the controller stopped: ${asError(failure).message}`);
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      // What the controller complained about last, to say why.
      const complaints = (options.controller?.lines ?? [])
        .filter((l) => typeof l['level'] === 'number' && l['level'] >= 40)
        .slice(-5)
        .map((l) => JSON.stringify(l));
      throw new Error(
        [`${what}: not so after ${String(timeoutMs)} ms`, ...complaints].join('\n  '),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A client of the hub with create, update and status writes. */
export function hubRuntimeClient(kubeconfig = hubKubeconfig()): RuntimeKubeClient {
  return ClientNodeRuntimeKubeClient.fromKubeconfig(kubeconfig);
}

export const BMH = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost' } as const;
export const AGENT = { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'Agent' } as const;
export const INFRA_ENV = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'InfraEnv',
} as const;
export const PPI = { apiVersion: 'metal3.io/v1alpha1', kind: 'PreprovisioningImage' } as const;

/** The BMC credentials Secret of a host. */
export async function createBmcSecret(
  client: RuntimeKubeClient,
  namespace: string,
  name: string,
  credentials: { readonly username: string; readonly password: string },
): Promise<void> {
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: {
      username: Buffer.from(credentials.username).toString('base64'),
      password: Buffer.from(credentials.password).toString('base64'),
    },
  });
}

/**
 * An InfraEnv as the assisted service leaves it once its image exists: `isoDownloadURL` (a long
 * URL with a token and a query string, as the image service gives) and a `createdTime` past
 * the 60 s cool-down; `imageCreated` adds the ImageCreated condition.
 */
export async function createInfraEnv(
  client: RuntimeKubeClient,
  namespace: string,
  name: string,
  status: { readonly isoDownloadURL?: string; readonly imageCreated?: boolean } = {},
): Promise<KubeObject> {
  const created = await client.create({
    ...INFRA_ENV,
    metadata: { name, namespace },
    spec: { pullSecretRef: { name: 'pull-secret' }, cpuArchitecture: 'x86_64' },
  });
  if (status.isoDownloadURL === undefined) return created;
  return client.updateStatus({
    ...created,
    status: {
      isoDownloadURL: status.isoDownloadURL,
      createdTime: new Date(Date.now() - 5 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      ...(status.imageCreated === true && {
        conditions: [
          {
            type: 'ImageCreated',
            status: 'True',
            reason: 'InfraEnvAvailable',
            message: 'InfraEnv is available: Image has been created',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      }),
    },
  });
}

/** A long image-service URL of the kind the BMC must never be given. */
export function longIsoUrl(origin: string, infraEnvId: string): string {
  const token = `eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.${'eyJpbmZyYV9lbnZfaWQiOiI'.repeat(6)}.sig`;
  return `${origin}/byapikey/${token}/4.16/x86_64/${infraEnvId}/full.iso?arch=x86_64&type=full-iso&version=4.16`;
}

/** A BareMetalHost of an InfraEnv, powered off, as a SiteConfig renders it. */
export function bareMetalHost(
  namespace: string,
  name: string,
  host: {
    readonly infraEnv: string;
    readonly address: string;
    readonly credentialsName: string;
    readonly bootMACAddress: string;
    readonly annotations?: Record<string, string>;
    readonly spec?: Record<string, unknown>;
  },
): KubeObject {
  return {
    ...BMH,
    metadata: {
      name,
      namespace,
      labels: { 'infraenvs.agent-install.openshift.io': host.infraEnv },
      annotations: host.annotations ?? {},
    },
    spec: {
      online: false,
      bootMACAddress: host.bootMACAddress,
      bmc: {
        address: host.address,
        credentialsName: host.credentialsName,
        disableCertificateVerification: true,
      },
      ...host.spec,
    },
  };
}

/** The objects' fields a test reads, without casts at every step. */
export function field(object: KubeObject | undefined, ...path: string[]): unknown {
  let value: unknown = object;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The Events of an object, oldest first, as `kubectl describe` lists them. */
export async function eventsOf(
  client: RuntimeKubeClient,
  namespace: string,
  kind: string,
  name: string,
): Promise<{ type: string; reason: string; message: string; source: string }[]> {
  const { items } = await client.list({ apiVersion: 'v1', kind: 'Event' }, { namespace });
  return items
    .filter((e) => field(e, 'involvedObject', 'kind') === kind)
    .filter((e) => field(e, 'involvedObject', 'name') === name)
    .map((e) => ({
      type: String(field(e, 'type')),
      reason: String(field(e, 'reason')),
      message: String(field(e, 'message')),
      source: String(field(e, 'source', 'component') ?? field(e, 'reportingComponent')),
    }));
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(JSON.stringify(value));
}

/**
 * Deletes what a test left in `namespace` and lets go of the finalizers the controller (now
 * stopped) would have released, so the namespace can go.
 */
export async function releaseNamespace(
  client: RuntimeKubeClient,
  namespace: string,
): Promise<void> {
  for (const gvk of [BMH, PPI, AGENT]) {
    const { items } = await client.list(gvk, { namespace });
    for (const item of items) {
      await client.delete({ ...gvk, namespace, name: item.metadata.name });
      const finalizers = item.metadata['finalizers'];
      if (!Array.isArray(finalizers) || finalizers.length === 0) continue;
      const live = await client.get({ ...gvk, namespace, name: item.metadata.name });
      if (live) await client.update({ ...live, metadata: { ...live.metadata, finalizers: [] } });
    }
  }
}
