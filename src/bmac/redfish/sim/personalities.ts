/**
 * Vendor personalities of the simulated BMC, each built from the behaviour that
 * reference/redfish.md §1–§3 documents for that vendor. A personality is data; the simulator
 * reads it on every request.
 */

/** A virtual-media slot of a personality. */
export interface SlotSpec {
  readonly id: string;
  readonly mediaTypes: readonly string[];
  /** How an image gets in: InsertMedia action, PATCH only (with `Allow: PATCH`), or not at all. */
  readonly insertBy: 'action' | 'patch' | 'none';
  /** Answer 400 to any insert (Cisco internal vKVM slots). @default false */
  readonly rejectInsert?: boolean;
  /**
   * The host boots the CD override from an image in this slot. iDRAC10 takes an image in its
   * slot 2 but boots only slot 1 (ironic bug 2125571). @default true
   */
  readonly bootable?: boolean;
}

/** How a simulated BMC behaves. */
export interface Personality {
  readonly name: string;
  readonly vendor: string;
  readonly manufacturer: string;
  readonly model: string;
  readonly systemId: string;
  readonly managerId: string;
  /** The Manager's Model, e.g. Dell's "17G Monolithic". @default `${vendor} BMC` */
  readonly managerModel?: string;
  /** The Manager's FirmwareVersion. @default '1.0.0' */
  readonly firmwareVersion?: string;
  /** Where the VirtualMedia collection is linked from. */
  readonly virtualMedia: 'system' | 'manager';
  readonly slots: readonly SlotSpec[];
  /** How an empty slot reports `Image`. */
  readonly emptyImage: null | '';
  /** `BootSourceOverrideTarget@Redfish.AllowableValues` */
  readonly bootTargets: readonly string[];
  /** Targets that boot the virtual CD. */
  readonly cdTargets: readonly string[];
  /** The System has `BootSourceOverrideMode` (HPE Gen9 has not). */
  readonly bootModeField: boolean;
  /** A boot-target PATCH without `BootSourceOverrideEnabled` is silently not applied. */
  readonly requireBootEnabled: boolean;
  /** Changing the boot target resets the mode to Legacy (Supermicro). */
  readonly resetModeOnTarget: boolean;
  /** Boot settings go to `{System}/Settings`; PATCH on the System's Boot is refused. */
  readonly settingsObject: boolean;
  /**
   * Boot settings go to `{System}/{this}`, which the System does not link; PATCH on the
   * System's Boot is refused (what DMTF Tacklebox's workaround is for).
   */
  readonly hiddenBootSettings: 'Settings' | 'SD' | undefined;
  /**
   * A Boot PATCH must carry Target, Enabled and Mode, else 400 PropertyMissing (AMI,
   * ASRockRack; ironic VENDORS_REQUIRING_FULL_BOOT_REQUEST).
   */
  readonly fullBootRequest: boolean;
  /**
   * A boot-mode change is a BIOS job: it stays pending until the host powers on, and reads
   * back this long after (Dell). `undefined`: it applies at once.
   */
  readonly bootModeJobMs: number | undefined;
  /** InsertMedia asks for TransferProtocolType, in one of the two known error shapes. */
  readonly requireTransferProtocol: 'no' | 'general-error' | 'parameter-missing';
  /** InsertMedia asks for UserName/Password (NVIDIA DGX). */
  readonly requireCredentials: boolean;
  /** InsertMedia refuses `Inserted`/`WriteProtected` (Supermicro X11/X12, iLO4). */
  readonly rejectInsertedParam: boolean;
  /** EjectMedia without a JSON body gets 415 (HPE iLO). */
  readonly ejectNeedsBody: boolean;
  /** After an eject, `Inserted` keeps reading true this long (Dell). */
  readonly staleInsertedMs: number;
  /**
   * After an insert, the slot reads `Inserted` with ConnectedVia NotConnected this long while
   * the BMC mounts the image, and the host cannot boot it yet (Fujitsu iRMC mounts
   * asynchronously). @default 0
   */
  readonly mountMs?: number;
  readonly etag: 'none' | 'strong' | 'weak';
  /** Serve the ETag in the body as `@odata.etag` instead of the header (Lenovo). */
  readonly etagInBody: boolean;
  /** Has a SessionService; otherwise Basic only (sushy-tools). */
  readonly sessions: boolean;
  /** Actions answer 202 with a task monitor that finishes after this long. @default - sync */
  readonly taskMs: number | undefined;
  /** How long a power transition takes (PoweringOn/PoweringOff meanwhile). */
  readonly powerDelayMs: number;
  /** `ResetType@Redfish.AllowableValues` */
  readonly resetTypes: readonly string[];
  /** Power actions to the current state get 409 (instead of a no-op 204). */
  readonly conflictWhenInState: boolean;
  /**
   * For this long after the host reached Off, "On" gets 409 ActionParameterValueConflict
   * (iDRAC10; ironic power_on_conflict_retry_*). 0: never.
   */
  readonly powerOnConflictMs: number;
  /** For this long after power-on, a Boot PATCH gets 400 UnableToModifyDuringSystemPOST (iLO). */
  readonly postWindowMs: number;
  /** The System links its Managers with `Links.Managers` (Huawei) instead of `ManagedBy`. */
  readonly linksManagers: boolean;
  /**
   * The Manager has Dell's `#OemManager.ImportSystemConfiguration`, which sets a one-time
   * boot from the virtual CD as a job (what `idrac-virtualmedia://` uses).
   */
  readonly dellOemBoot: boolean;
}

const STANDARD_RESETS = ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart'];

/** A plain DMTF Redfish BMC: System VirtualMedia, sessions, strong ETags. */
export const GENERIC: Personality = {
  name: 'generic',
  vendor: 'DMTF',
  manufacturer: 'Contoso',
  model: 'Rack 3000',
  systemId: '1',
  managerId: 'BMC',
  virtualMedia: 'system',
  slots: [
    { id: 'Floppy1', mediaTypes: ['Floppy', 'USBStick'], insertBy: 'action' },
    { id: 'CD1', mediaTypes: ['CD', 'DVD'], insertBy: 'action' },
  ],
  emptyImage: null,
  bootTargets: ['None', 'Pxe', 'Cd', 'Hdd', 'BiosSetup'],
  cdTargets: ['Cd'],
  bootModeField: true,
  requireBootEnabled: false,
  resetModeOnTarget: false,
  settingsObject: false,
  hiddenBootSettings: undefined,
  fullBootRequest: false,
  bootModeJobMs: undefined,
  requireTransferProtocol: 'no',
  requireCredentials: false,
  rejectInsertedParam: false,
  ejectNeedsBody: false,
  staleInsertedMs: 0,
  etag: 'strong',
  etagInBody: false,
  sessions: true,
  taskMs: undefined,
  powerDelayMs: 30,
  resetTypes: STANDARD_RESETS,
  conflictWhenInState: false,
  powerOnConflictMs: 0,
  postWindowMs: 0,
  linksManagers: false,
  dellOemBoot: false,
};

/**
 * Dell iDRAC9 (firmware ≥ 6): System VirtualMedia slots 1 and 2, stale Inserted, 409s, and a
 * boot mode that a BIOS job applies when the host starts.
 */
export const IDRAC9: Personality = {
  ...GENERIC,
  name: 'idrac9',
  vendor: 'Dell',
  manufacturer: 'Dell Inc.',
  model: 'PowerEdge R650',
  systemId: 'System.Embedded.1',
  managerId: 'iDRAC.Embedded.1',
  managerModel: '15G Monolithic',
  firmwareVersion: '7.00.00.00',
  bootModeJobMs: 0,
  slots: [
    { id: '1', mediaTypes: ['CD', 'DVD'], insertBy: 'action' },
    { id: '2', mediaTypes: ['USBStick'], insertBy: 'action' },
  ],
  staleInsertedMs: 60,
  conflictWhenInState: true,
  dellOemBoot: true,
  taskMs: undefined,
  resetTypes: [...STANDARD_RESETS, 'Nmi', 'PushPowerButton', 'PowerCycle'],
};

/**
 * Dell iDRAC10 (17G servers): System VirtualMedia only, listed out of order, and only slot 1
 * boots; boot settings through the SettingsObject. The 409 on "On" right after a power-off
 * (`powerOnConflictMs`) is off here, so a fleet on real time does not wait 10 s per host; tests
 * turn it on with a fake clock.
 */
export const IDRAC10: Personality = {
  ...IDRAC9,
  name: 'idrac10',
  model: 'PowerEdge R770',
  managerModel: '17G Monolithic',
  firmwareVersion: '2.00.00.00', // iDRAC10 restarted its numbering (ironic _validate_vendor)
  slots: [
    { id: '2', mediaTypes: ['CD', 'DVD', 'USBStick'], insertBy: 'action', bootable: false },
    { id: '1', mediaTypes: ['CD', 'DVD', 'USBStick'], insertBy: 'action' },
  ],
  settingsObject: true,
};

/**
 * An ASRockRack board with AMI MegaRAC firmware: every Boot PATCH must carry Target, Enabled
 * and Mode.
 */
export const ASROCKRACK: Personality = {
  ...GENERIC,
  name: 'asrockrack',
  vendor: 'AMI',
  manufacturer: 'ASRockRack',
  model: 'ROMED8-2T',
  systemId: 'Self',
  managerId: 'Self',
  fullBootRequest: true,
};

/** HPE iLO 5/6: Manager VirtualMedia slot 2, `Image: ""`, eject needs `{}`, weak ETags. */
export const ILO6: Personality = {
  ...GENERIC,
  name: 'ilo6',
  vendor: 'HPE',
  manufacturer: 'HPE',
  model: 'ProLiant DL360 Gen11',
  systemId: '1',
  managerId: '1',
  virtualMedia: 'manager',
  slots: [
    { id: '1', mediaTypes: ['Floppy', 'USBStick'], insertBy: 'action' },
    { id: '2', mediaTypes: ['CD', 'DVD'], insertBy: 'action' },
  ],
  emptyImage: '',
  ejectNeedsBody: true,
  etag: 'weak',
  postWindowMs: 40,
  bootTargets: ['None', 'Cd', 'Hdd', 'Usb', 'Pxe', 'UefiHttp'],
};

/** Supermicro X12: TransferProtocolType required, Inserted refused, UsbCd, mode reset. */
export const SUPERMICRO: Personality = {
  ...GENERIC,
  name: 'supermicro',
  vendor: 'Supermicro',
  manufacturer: 'Supermicro',
  model: 'SYS-120H-TNR',
  systemId: '1',
  managerId: '1',
  virtualMedia: 'manager',
  slots: [{ id: 'CD1', mediaTypes: ['CD', 'DVD'], insertBy: 'action' }],
  bootTargets: ['None', 'Pxe', 'Hdd', 'Cd', 'UsbCd', 'BiosSetup'],
  cdTargets: ['UsbCd'],
  requireBootEnabled: true,
  resetModeOnTarget: true,
  requireTransferProtocol: 'general-error',
  rejectInsertedParam: true,
  sessions: true,
};

/** Lenovo XCC: PATCH-only EXT slots, a Remote slot that takes nothing, `@odata.etag`. */
export const LENOVO_XCC: Personality = {
  ...GENERIC,
  name: 'lenovo-xcc',
  vendor: 'Lenovo',
  manufacturer: 'Lenovo',
  model: 'ThinkSystem SR650 V2',
  systemId: '1',
  managerId: '1',
  virtualMedia: 'manager',
  slots: [
    { id: 'Remote1', mediaTypes: ['CD', 'DVD'], insertBy: 'none' },
    { id: 'EXT1', mediaTypes: ['CD', 'DVD', 'USBStick'], insertBy: 'patch' },
    { id: 'EXT2', mediaTypes: ['CD', 'DVD', 'USBStick'], insertBy: 'patch' },
  ],
  etagInBody: true,
};

/** A BMC whose actions run as tasks (202 + monitor), with sessions that expire quickly. */
export const ASYNC_TASKS: Personality = {
  ...GENERIC,
  name: 'async-tasks',
  vendor: 'Acme',
  manufacturer: 'Acme',
  model: 'Async 1',
  requireTransferProtocol: 'parameter-missing',
  taskMs: 40,
  powerDelayMs: 60,
};

/** Every personality, by name. */
export const PERSONALITIES: Readonly<Record<string, Personality>> = Object.fromEntries(
  [GENERIC, IDRAC9, IDRAC10, ILO6, SUPERMICRO, LENOVO_XCC, ASROCKRACK, ASYNC_TASKS].map((p) => [
    p.name,
    p,
  ]),
);
