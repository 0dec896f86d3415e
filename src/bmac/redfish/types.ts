/**
 * The subset of the DMTF Redfish schema this client reads, written by hand. Every field is
 * optional: BMCs leave out whatever they like, and the code checks before it trusts.
 */

/** `{ "@odata.id": "/redfish/v1/..." }` */
export interface ODataLink {
  readonly '@odata.id'?: string;
}

/** `GET /redfish/v1/` */
export interface ServiceRoot {
  readonly RedfishVersion?: string;
  readonly Vendor?: string;
  readonly Product?: string;
  readonly Systems?: ODataLink;
  readonly Managers?: ODataLink;
  readonly SessionService?: ODataLink;
  readonly Links?: { readonly Sessions?: ODataLink };
}

/** A resource collection. */
export interface Collection {
  readonly Members?: readonly ODataLink[];
  readonly 'Members@odata.count'?: number;
}

/** A `#ComputerSystem.Reset`-like action. */
export interface ResetAction {
  readonly target?: string;
  readonly 'ResetType@Redfish.AllowableValues'?: readonly string[];
  readonly '@Redfish.ActionInfo'?: string;
}

/** The boot-override part of a ComputerSystem. */
export interface BootProperties {
  readonly BootSourceOverrideTarget?: string | null;
  readonly 'BootSourceOverrideTarget@Redfish.AllowableValues'?: readonly string[];
  readonly BootSourceOverrideEnabled?: string | null;
  readonly BootSourceOverrideMode?: string | null;
}

/** `GET /redfish/v1/Systems/{id}` */
export interface ComputerSystem extends ODataLink {
  readonly Id?: string;
  readonly Manufacturer?: string;
  readonly Model?: string;
  readonly PowerState?: string | null;
  readonly Boot?: BootProperties;
  readonly BootProgress?: { readonly LastState?: string };
  readonly VirtualMedia?: ODataLink;
  readonly Actions?: { readonly '#ComputerSystem.Reset'?: ResetAction };
  readonly Links?: {
    readonly ManagedBy?: readonly ODataLink[];
    /** Huawei 1288H uses this instead of ManagedBy. */
    readonly Managers?: readonly ODataLink[];
  };
  readonly '@Redfish.Settings'?: { readonly SettingsObject?: ODataLink };
  readonly '@odata.etag'?: string;
}

/** `GET /redfish/v1/Managers/{id}` */
export interface Manager extends ODataLink {
  readonly Id?: string;
  readonly Manufacturer?: string;
  readonly Model?: string;
  readonly FirmwareVersion?: string;
  readonly VirtualMedia?: ODataLink;
  /** Vendor actions, e.g. Dell's `#OemManager.v1_4_0.OemManager#OemManager.ImportSystemConfiguration`. */
  readonly Actions?: { readonly Oem?: Readonly<Record<string, { readonly target?: string }>> };
}

/** An InsertMedia/EjectMedia action of a VirtualMedia slot. */
export interface MediaAction {
  readonly target?: string;
  readonly '@Redfish.ActionInfo'?: string;
  readonly 'TransferProtocolType@Redfish.AllowableValues'?: readonly string[];
}

/** `GET .../VirtualMedia/{id}` */
export interface VirtualMedia extends ODataLink {
  readonly Id?: string;
  readonly MediaTypes?: readonly string[];
  readonly Image?: string | null;
  readonly ImageName?: string | null;
  readonly Inserted?: boolean | null;
  readonly WriteProtected?: boolean | null;
  readonly ConnectedVia?: string | null;
  readonly TransferProtocolType?: string | null;
  readonly Actions?: {
    readonly '#VirtualMedia.InsertMedia'?: MediaAction;
    readonly '#VirtualMedia.EjectMedia'?: MediaAction;
  };
}

/** `GET {@Redfish.ActionInfo}` */
export interface ActionInfo {
  readonly Parameters?: readonly {
    readonly Name?: string;
    readonly Required?: boolean;
    readonly AllowableValues?: readonly string[];
  }[];
}

/** A Task, as a task monitor may return it. */
export interface Task extends ODataLink {
  readonly TaskState?: string;
  readonly TaskStatus?: string;
  readonly Messages?: readonly { readonly MessageId?: string; readonly Message?: string }[];
}

/** A retry schedule. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** Delay before the first retry, before jitter. */
  readonly baseDelayMs: number;
  /** Cap on any single delay. */
  readonly maxDelayMs: number;
}
