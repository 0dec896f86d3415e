/**
 * A hub in memory (FakeCluster, fake clock) with simulated BMCs on loopback, driving the
 * redfish-host controller the way the runtime would: a host is reconciled again when its
 * status changed (the watch event) or its BMC operation finished (`wake`).
 */
import { Writable } from 'node:stream';
import { imageRef } from '../../../../src/bmac/images/index.js';
import { Finalizer, Gvk } from '../../../../src/bmac/api.js';
import { UndiciRedfishClient } from '../../../../src/bmac/redfish/index.js';
import type { RedfishClient } from '../../../../src/bmac/redfish/index.js';
import { PERSONALITIES, startSimulatedBmc } from '../../../../src/bmac/redfish/sim/index.js';
import type { SimulatedBmc, SimulatedBmcOptions } from '../../../../src/bmac/redfish/sim/index.js';
import {
  createRedfishHostController,
  isShortUrlOf,
  readStatus,
} from '../../../../src/bmac/reconcilers/redfish-host/index.js';
import type {
  BmhStatus,
  ImageUrls,
  RedfishClientRequest,
  RedfishHostController,
  RedfishHostControllerOptions,
} from '../../../../src/bmac/reconcilers/redfish-host/index.js';
import { requestKey } from '../../../../src/bmac/runtime/contract.js';
import type { ObjectReader, Request } from '../../../../src/bmac/runtime/contract.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { KubeApiError } from '../../../../src/kube/errors.js';
import { createLogger } from '../../../../src/shared/logger.js';
import { FakeCluster } from '../../../fakes/fake-cluster.js';
import { chartRules } from '../../../support/chart-rules.js';

export const NS = 'site-1';
/** The InfraEnv ISO URL as assisted's image service writes it: long, with a token. */
export const LONG_URL =
  'https://assisted-image-service-multicluster-engine.apps.hub.example.com/byapikey/eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpbmZyYV9lbnZfaWQiOiI2YzFmIn0.c2lnbmF0dXJl/4.16/x86_64/minimal.iso?arch=x86_64&type=minimal-iso';
export const IMAGE_ORIGIN = 'http://127.0.0.1:9';

/** Fast client timings: these tests are about the controller, not BMC patience. */
export const FAST = {
  powerPollMs: 5,
  mediaPollMs: 5,
  minTaskPollMs: 5,
  insertRetryDelayMs: 5,
  retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
} as const;

/** Short URLs shaped as the image server's (`/images/<ref>.<expiry>.<mac>.iso`). */
export function fakeImageUrls(): ImageUrls & { issued: string[] } {
  const issued: string[] = [];
  return {
    issued,
    shortUrlFor: (source) => {
      const url = `${IMAGE_ORIGIN}/images/${imageRef(source)}.${String(issued.length + 100)}.bWFjbWFjbWFjbWFjbWFjbWFjbQ.iso`;
      issued.push(url);
      return Promise.resolve(url);
    },
    isShortUrlOf,
  };
}

export interface HarnessOptions extends Partial<RedfishHostControllerOptions> {
  /** Wraps each client the controller makes (to crash or slow it). */
  readonly wrapClient?: (client: RedfishClient, request: RedfishClientRequest) => RedfishClient;
}

/** The world of one test. */
export class Harness {
  now = Date.parse('2026-11-25T10:00:00Z');
  /** With exactly the permissions the chart grants the controller. */
  readonly cluster = new FakeCluster(
    { now: () => this.now, sleep: () => Promise.resolve() },
    { rules: chartRules() },
  );
  readonly bmcs = new Map<string, SimulatedBmc>();
  readonly images = fakeImageUrls();
  readonly logLines: string[] = [];
  readonly log = createLogger({
    level: 'debug',
    destination: new Writable({
      write: (chunk: Buffer, _enc, done) => {
        this.logLines.push(chunk.toString());
        done();
      },
    }),
  });
  /** Clients made, by host name. */
  readonly clientsMade = new Map<string, number>();
  readonly metrics: { vendor: string; outcome: string }[] = [];
  /** Every status written, in order. */
  readonly statuses: unknown[] = [];
  /** Every provisioning state written, by host name, in order. */
  readonly states = new Map<string, string[]>();
  controller: RedfishHostController;
  /** Hosts the controller asked to be looked at ahead of the backlog, in order. */
  readonly urgentWakes: string[] = [];
  private readonly woken = new Set<string>();
  private wakeUp: (() => void) | undefined;
  private readonly abort = new AbortController();

  constructor(private readonly options: HarnessOptions = {}) {
    this.controller = this.newController();
    const updateStatus = this.cluster.updateStatus.bind(this.cluster);
    this.cluster.updateStatus = async (object: KubeObject) => {
      this.statuses.push(structuredClone(object['status']));
      const state = readStatus(object).provisioning.state;
      const seen = this.states.get(object.metadata.name) ?? [];
      if (seen.at(-1) !== state) seen.push(state);
      this.states.set(object.metadata.name, seen);
      return updateStatus(object);
    };
  }

  /** A controller as a restarted process would have: nothing in memory. */
  newController(): RedfishHostController {
    const addressToHost = (address: string): string =>
      [...this.bmcs].find(([, bmc]) => bmc.address === address)?.[0] ?? 'unknown';
    return createRedfishHostController({
      images: this.images,
      clients: (request) => {
        const host = addressToHost(request.address);
        this.clientsMade.set(host, (this.clientsMade.get(host) ?? 0) + 1);
        const client = new UndiciRedfishClient({ ...request, ...FAST });
        return this.options.wrapClient ? this.options.wrapClient(client, request) : client;
      },
      redfishCall: (vendor, outcome) => this.metrics.push({ vendor, outcome }),
      wake: (request, urgent) => {
        if (urgent) this.urgentWakes.push(request.name);
        this.woken.add(request.name);
        this.wakeUp?.();
      },
      concurrency: 4,
      ...this.options,
    });
  }

  /** A simulated BMC and a BareMetalHost with its Secret, as the BMAC leaves it to boot. */
  async addHost(
    name: string,
    bmcOptions: Partial<SimulatedBmcOptions> = {},
    spec: Record<string, unknown> = {},
  ): Promise<SimulatedBmc> {
    const bmc = await startSimulatedBmc({
      personality: PERSONALITIES['generic']!,
      power: 'On',
      credentials: { username: `user-${name}-7f3a`, password: `pw-${name}-S3cr3t!91` },
      ...bmcOptions,
    });
    this.bmcs.set(name, bmc);
    this.cluster.seed(
      {
        ...Gvk.Secret,
        metadata: { name: `${name}-bmc-secret`, namespace: NS },
        type: 'Opaque',
        data: {
          username: Buffer.from(bmc.credentials.username).toString('base64'),
          password: Buffer.from(`${bmc.credentials.password}\n`).toString('base64'),
        },
      },
      {
        ...Gvk.BareMetalHost,
        metadata: {
          name,
          namespace: NS,
          labels: { 'infraenvs.agent-install.openshift.io': 'site-1' },
          annotations: { 'inspect.metal3.io': 'disabled' },
        },
        spec: {
          online: true,
          bootMACAddress: macOf(name),
          automatedCleaningMode: 'disabled',
          bmc: { address: bmc.address, credentialsName: `${name}-bmc-secret` },
          image: { url: LONG_URL, format: 'live-iso' },
          ...spec,
        },
      },
    );
    return bmc;
  }

  bmh(name: string): KubeObject | undefined {
    return this.cluster.peek({ ...Gvk.BareMetalHost, namespace: NS, name });
  }

  status(name: string): BmhStatus {
    return readStatus(this.bmh(name)!);
  }

  /** Changes a BMH as a user or the BMAC would (metadata and spec). */
  async edit(name: string, change: (bmh: KubeObject) => KubeObject): Promise<void> {
    await this.cluster.asOtherActor((c) => c.update(change(this.bmh(name)!)));
  }

  /**
   * One reconcile pass of one host, conflicts let through as the runtime does; `reader` stands
   * for the informer cache (a lagging one, say). @default the cluster itself
   */
  async pass(name: string, reader: ObjectReader = this.cluster): Promise<void> {
    const request: Request = { namespace: NS, name };
    try {
      await this.controller.reconcile(request, {
        reader,
        writer: this.cluster,
        events: this.cluster,
        clock: this.cluster.clock,
        log: this.log.child({ controller: 'redfish-host', namespace: NS, name }),
        signal: this.abort.signal,
      });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.status === 409)) throw error;
      this.woken.add(name);
    }
  }

  /**
   * Reconciles the hosts until nothing changes and no operation runs, or `until` holds. A host
   * is passed again when its pass wrote something or its operation finished. Bounded.
   */
  async settle(names: readonly string[], until?: () => boolean, maxRounds = 200): Promise<void> {
    for (const name of names) this.woken.add(name);
    for (let round = 0; round < maxRounds; round++) {
      if (until?.() === true) return;
      const batch = [...this.woken].filter((n) => names.includes(n));
      for (const name of batch) this.woken.delete(name);
      for (const name of batch) {
        const writes = this.cluster.writes.length;
        await this.pass(name);
        if (this.cluster.writes.length !== writes) this.woken.add(name);
      }
      if (this.woken.size > 0) continue;
      if (until?.() === true) return;
      const running = names.some(
        (n) =>
          this.controller.operations.pending(requestKey({ namespace: NS, name: n })) !== undefined,
      );
      if (!running) return;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        if (this.woken.size > 0) resolve();
      });
      this.wakeUp = undefined;
    }
    throw new Error(`hosts did not settle in ${String(maxRounds)} rounds`);
  }

  /** Everything written where users and log collectors read. */
  visibleText(): string {
    return [
      JSON.stringify([...this.cluster.objects.values()].filter((o) => o.kind !== 'Secret')),
      JSON.stringify(this.cluster.events),
      ...this.logLines,
    ].join('\n');
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.controller.stop();
    await Promise.all([...this.bmcs.values()].map((bmc) => bmc.stop()));
  }
}

export function macOf(name: string): string {
  let n = 0;
  for (let i = 0; i < name.length; i++) n = (n * 31 + name.charCodeAt(i)) % 65_536;
  const hex = n.toString(16).padStart(4, '0');
  return `52:54:00:01:${hex.slice(0, 2)}:${hex.slice(2)}`;
}

export function hasFinalizer(bmh: KubeObject | undefined): boolean {
  const finalizers = bmh?.metadata['finalizers'];
  return Array.isArray(finalizers) && finalizers.includes(Finalizer.RedfishHost);
}

/** The BMC's record of what happened to the host, as `kind detail` lines. */
export function hostEvents(bmc: SimulatedBmc): string[] {
  return bmc.events.map((e) => `${e.kind} ${e.detail}`);
}
