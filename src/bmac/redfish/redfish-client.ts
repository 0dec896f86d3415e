/**
 * The port through which SiteForge drives a BMC. Reconcilers and the `siteforge bmc` CLI see
 * only this interface; UndiciRedfishClient is the adapter that speaks Redfish.
 */

/** `PowerState` values of a ComputerSystem. */
export const PowerState = {
  On: 'On',
  Off: 'Off',
  PoweringOn: 'PoweringOn',
  PoweringOff: 'PoweringOff',
} as const;
export type PowerState = (typeof PowerState)[keyof typeof PowerState];

/** The power actions SiteForge uses, as Redfish `ResetType`s (ironic's mapping). */
export const PowerAction = {
  On: 'On',
  ForceOff: 'ForceOff',
  GracefulShutdown: 'GracefulShutdown',
  ForceRestart: 'ForceRestart',
  GracefulRestart: 'GracefulRestart',
} as const;
export type PowerAction = (typeof PowerAction)[keyof typeof PowerAction];

/** Firmware boot mode. */
export const BootMode = { UEFI: 'UEFI', Legacy: 'Legacy' } as const;
export type BootMode = (typeof BootMode)[keyof typeof BootMode];

/** The boot-override state of a System. */
export interface BootOverride {
  readonly target: string | undefined;
  readonly enabled: string | undefined;
  readonly mode: string | undefined;
  /** `BootSourceOverrideTarget@Redfish.AllowableValues`, empty when not advertised. */
  readonly allowedTargets: readonly string[];
}

/** What the client knows about the System it drives. */
export interface SystemInfo {
  /** `@odata.id` of the System. */
  readonly path: string;
  readonly id: string | undefined;
  readonly manufacturer: string | undefined;
  readonly model: string | undefined;
  readonly powerState: string | undefined;
  readonly boot: BootOverride;
  /** `ResetType@Redfish.AllowableValues`, empty when not advertised. */
  readonly resetTypes: readonly string[];
  /** `BootProgress.LastState` where the BMC reports it. */
  readonly bootProgress: string | undefined;
}

/** A virtual-media slot that can take a CD image. */
export interface MediaSlot {
  readonly path: string;
  readonly id: string | undefined;
  /** Where the slot was found: the System (current) or a Manager (deprecated location). */
  readonly owner: 'system' | 'manager';
  readonly mediaTypes: readonly string[];
  /**
   * The slot holds media: its `Inserted`, or without one an `Image` that ConnectedVia does not
   * call NotConnected. Media may still be mounting (`connectedVia` NotConnected).
   */
  readonly inserted: boolean;
  /** `Image`, or `undefined` when the BMC reports it empty (`null` or `""`). */
  readonly image: string | undefined;
  /** `URI` once the image is mounted; `NotConnected` while empty, or while it mounts. */
  readonly connectedVia: string | undefined;
  /** How an image gets in: the InsertMedia action, a PATCH, or not at all (KVM-only). */
  readonly insertBy: 'action' | 'patch' | 'none';
}

/** What {@link RedfishClient.discover} found. */
export interface RedfishTarget {
  readonly system: SystemInfo;
  /** Manager paths of the System (`Links.ManagedBy`, or `Links.Managers`). */
  readonly managers: readonly string[];
  /** CD slots first, then DVD-only slots; System slots before Manager slots. */
  readonly slots: readonly MediaSlot[];
  readonly vendor: string | undefined;
  readonly redfishVersion: string | undefined;
  /** Names of the vendor quirk rules in force. */
  readonly quirks: readonly string[];
}

/** Options of {@link RedfishClient.setBootOverride}. */
export interface BootOverrideRequest {
  /** @default 'Cd' (or 'UsbCd' where the vendor needs it) */
  readonly target?: 'Cd' | 'Hdd' | 'Pxe' | 'None';
  /** @default 'Once' */
  readonly enabled?: 'Once' | 'Continuous' | 'Disabled';
  /** @default - leave the mode alone */
  readonly mode?: BootMode;
}

/**
 * Drives one BMC. Every method may be called again after a failure or a crash: each reads the
 * BMC's state first and does only what is missing.
 */
export interface RedfishClient {
  /**
   * Finds the System (the address's, or the only one), its Managers and its CD slots
   * (System VirtualMedia first, Manager VirtualMedia as fallback). The layout is cached; the
   * state in it is as of the call.
   */
  discover(): Promise<RedfishTarget>;
  /** Reads the System afresh. */
  getSystem(): Promise<SystemInfo>;
  /** Reads the CD slots afresh. */
  getMediaSlots(): Promise<readonly MediaSlot[]>;
  /**
   * Sends a power action unless the System is already there, and waits until `PowerState`
   * says so. A 400/409 while the System already is in the wanted state counts as success.
   * @returns the final power state
   */
  setPower(action: PowerAction, options?: { readonly wait?: boolean }): Promise<string>;
  /** Ejects every inserted CD slot of the System and its Managers (the body is always `{}`). */
  ejectMedia(): Promise<void>;
  /**
   * Inserts `imageUrl` into the first slot that takes it and waits until the BMC reports it
   * inserted. Does not eject first: callers eject (see bootFromIso).
   * @returns the slot the image went into
   */
  insertMedia(imageUrl: string): Promise<MediaSlot>;
  /**
   * Sets the firmware boot mode, where the System has one, and waits until it is in force.
   * Where a BIOS job applies it (Dell), that takes a restart: a host that was off is powered on
   * for it and off again, and boots whatever media is inserted meanwhile.
   * @returns whether the mode had to change
   */
  setBootMode(mode: BootMode): Promise<boolean>;
  /** Sets the boot override (by default one-time boot from the virtual CD). */
  setBootOverride(request?: BootOverrideRequest): Promise<void>;
  /** Ends the session and closes connections. */
  close(): Promise<void>;
}
