// Types of sushy.mjs for the TypeScript tests that start a Redfish emulator.

export interface StartSushyOptions {
  /** @default a free port */
  readonly port?: number;
  /** Enables HTTP Basic auth. */
  readonly auth?: { readonly username: string; readonly password: string };
  /** Serve HTTPS with a certificate from a fresh CA (returned as `ca`). @default false */
  readonly tls?: boolean;
  /** SUSHY_EMULATOR_FAKE_SYSTEMS entries. */
  readonly systems?: readonly Record<string, unknown>[];
  readonly extraConfig?: Readonly<Record<string, unknown>>;
  /** @default 30_000 */
  readonly readyTimeoutMs?: number;
}

export interface RunningSushy {
  /** http(s)://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dir: string;
  /** CA certificate file to trust, with `tls`. */
  readonly ca?: string;
  /** The server's output. */
  readonly log: string;
  stop(): Promise<void>;
}

/** Installs sushy-tools into the project virtualenv when needed, then starts the emulator. */
export function startSushy(options?: StartSushyOptions): Promise<RunningSushy>;

/** Creates or reuses the virtualenv; returns the sushy-emulator path. */
export function ensureSushy(): Promise<string>;

export const SUSHY_TOOLS_VERSION: string;
