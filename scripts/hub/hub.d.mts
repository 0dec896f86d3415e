// Types of hub.mjs for the TypeScript tests and benchmarks that start a hub.

/** One process of the hub, as recorded in <dir>/hub.json. */
export interface HubProcess {
  readonly pid: number;
  /** Path of the binary; stopHub only signals a pid still running it. */
  readonly exe: string;
  readonly version: string;
}

/** Seconds from the start of startHub until each step was ready. */
export interface HubTimings {
  readonly etcd: number;
  readonly apiserver: number;
  readonly crds: number;
  readonly controllerManager: number;
}

/** A running hub: where it is and how to reach it. */
export interface HubState {
  readonly dir: string;
  /** https://127.0.0.1:PORT */
  readonly server: string;
  /** Admin kubeconfig (group system:masters), certificates inlined. */
  readonly kubeconfig: string;
  readonly startedAt: string;
  readonly etcd: HubProcess & { readonly url: string; readonly source: string };
  readonly apiserver: HubProcess & { readonly port: number };
  readonly controllerManager: HubProcess & { readonly controllers: readonly string[] };
  /** Names of the CRDs applied from crds/. */
  readonly crds: readonly string[];
  /** Seconds from the call to a hub ready for use (CRDs established, controllers running). */
  readonly startSeconds: number;
  readonly timings: HubTimings;
}

export interface StartHubOptions {
  /** @default $SITEFORGE_HUB_DIR or <repo>/.cache/hub */
  readonly dir?: string;
  /** Bound of each readiness wait. @default 60_000 */
  readonly readyTimeoutMs?: number;
  /** Directory of CRD manifests to apply, or false for none. @default <repo>/crds */
  readonly crds?: string | false;
}

/** Starts (or reuses) the hub in `dir`; builds the binaries first when they are not cached. */
export function startHub(
  options?: StartHubOptions,
): Promise<HubState & { stop(): Promise<string[]> }>;

/** Stops the hub in `dir` and removes `dir`; returns what happened to each process. */
export function stopHub(options?: { readonly dir?: string }): Promise<string[]>;

export interface HubStatus {
  readonly running: boolean;
  readonly ready: boolean;
  readonly state?: HubState;
  /** Resident memory per process, KiB. */
  readonly rssKiB?: Readonly<
    Record<'etcd' | 'apiserver' | 'controllerManager', number | undefined>
  >;
}

export function hubStatus(options?: { readonly dir?: string }): Promise<HubStatus>;

export const crdsDir: string;
export function defaultHubDir(): string;
