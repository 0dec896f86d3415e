/**
 * Vendor quirks as data: what differs per BMC vendor and model, and which error shapes mean
 * "try again" or "send it differently". Each entry names its source in reference/redfish.md
 * (ironic, sushy, BMO, vendor docs) so it can be checked and removed when firmware moves on.
 */
import type { RedfishError } from './errors.js';
import type { RetryPolicy } from './types.js';

/** Behaviour that depends on the System's Manufacturer and Model. */
export interface VendorQuirks {
  /** Boot the virtual CD as `UsbCd` when the BMC offers it (Supermicro). */
  readonly preferUsbCd: boolean;
  /** Send `BootSourceOverrideEnabled` even when it already has the wanted value. */
  readonly alwaysSendBootEnabled: boolean;
  /** Send target, enabled and mode together in every boot PATCH. */
  readonly fullBootRequest: boolean;
  /** Send the boot mode again after the boot target, which resets it. */
  readonly resyncBootModeAfterTarget: boolean;
  /** Only slots whose Id matches can take an image. @default - any slot */
  readonly slotIds?: RegExp;
  /**
   * A boot-mode change is applied by a BIOS job when the host starts: reboot, then wait for
   * the mode to read back (see {@link BOOT_MODE_JOB}).
   */
  readonly bootModeByBiosJob: boolean;
}

/** A vendor rule: when the identity matches, its quirks override the defaults. */
export interface VendorQuirkRule {
  readonly name: string;
  readonly manufacturer: RegExp;
  /** @default - any model */
  readonly model?: RegExp;
  /** Matches the Model of one of the System's Managers. @default - any Manager */
  readonly managerModel?: RegExp;
  readonly quirks: Partial<VendorQuirks>;
  /** Where the behaviour is documented. */
  readonly source: string;
}

/** Quirks of a BMC nobody has told us about: plain DMTF Redfish. */
export const DEFAULT_QUIRKS: VendorQuirks = {
  preferUsbCd: false,
  alwaysSendBootEnabled: false,
  fullBootRequest: false,
  resyncBootModeAfterTarget: false,
  bootModeByBiosJob: false,
};

/** Applied in order; later rules override earlier ones, so exceptions come after the rule. */
export const VENDOR_QUIRKS: readonly VendorQuirkRule[] = [
  {
    name: 'supermicro',
    manufacturer: /supermicro/i,
    quirks: { preferUsbCd: true, alwaysSendBootEnabled: true, resyncBootModeAfterTarget: true },
    source: 'sushy system.py _supermicro_models_cd_vmedia; ironic stories 2008547, 2008712',
  },
  {
    name: 'supermicro-ars-111gl-nhr',
    manufacturer: /supermicro/i,
    model: /ARS-111GL-NHR/i,
    quirks: { preferUsbCd: false },
    source: 'sushy system.py: this model boots the virtual CD as Cd',
  },
  {
    name: 'ami-asrockrack',
    manufacturer: /^(ami|american megatrends|asrockrack)\b/i,
    quirks: { fullBootRequest: true },
    source: 'ironic VENDORS_REQUIRING_FULL_BOOT_REQUEST',
  },
  {
    name: 'lenovo-xcc',
    manufacturer: /lenovo/i,
    quirks: { slotIds: /^EXT\d+$/i },
    source: 'Lenovo XCC REST API: EXT1..EXT4 take images, Remote{N}/RDOC{N} do not',
  },
  {
    name: 'dell',
    manufacturer: /^dell\b/i,
    quirks: { bootModeByBiosJob: true },
    // ironic waits like this for every vendor; only Dell is known to need it ("at least Dell
    // machines"), and elsewhere the wait would cost a needless power cycle.
    source: 'ironic redfish/management.py _wait_for_boot_mode: Dell applies it by a BIOS job',
  },
  {
    // iDRAC10 is told by its Manager's Model, as ironic does (drac/boot.py
    // _get_idrac_version_from_model): the first two characters are the server generation
    // ("17G Monolithic"), and a generation above 16 means iDRAC10. Not by FirmwareVersion:
    // iDRAC10 restarted its numbering (ironic redfish/boot.py _validate_vendor), so a 2.x
    // could as well be an old iDRAC8 firmware. Neither sushy nor the System says more.
    name: 'dell-idrac10',
    manufacturer: /^dell\b/i,
    managerModel: /^(?:1[7-9]|[2-9]\d)(?!\d)/,
    quirks: { slotIds: /^1$/ },
    source:
      'ironic drac/boot.py _get_acceptable_media_id (bug 2125571): only VirtualMedia Id "1", ' +
      'and iDRAC10 may list its slots out of order',
  },
];

/** The quirks of a System, from its Manufacturer and Model and the Models of its Managers. */
export function quirksFor(identity: {
  readonly manufacturer?: string | undefined;
  readonly model?: string | undefined;
  readonly managerModels?: readonly string[];
}): { readonly quirks: VendorQuirks; readonly rules: readonly string[] } {
  let quirks = DEFAULT_QUIRKS;
  const rules: string[] = [];
  for (const rule of VENDOR_QUIRKS) {
    if (!rule.manufacturer.test(identity.manufacturer ?? '')) continue;
    if (rule.model && !rule.model.test(identity.model ?? '')) continue;
    const managerModel = rule.managerModel;
    if (managerModel && !(identity.managerModels ?? []).some((m) => managerModel.test(m))) continue;
    quirks = { ...quirks, ...rule.quirks };
    rules.push(rule.name);
  }
  return { quirks, rules };
}

/** An error shape that means "the BMC is busy, ask again later". */
export interface TransientErrorRule {
  readonly name: string;
  /** HTTP methods the rule applies to. */
  readonly methods: readonly string[];
  readonly matches: (err: RedfishError) => boolean;
  readonly policy: RetryPolicy;
  readonly source: string;
}

const ANY_METHOD = ['GET', 'POST', 'PATCH', 'DELETE'];

/** Vendor errors that sushy and ironic retry although they are 4xx or on a POST. */
export const TRANSIENT_ERRORS: readonly TransientErrorRule[] = [
  {
    name: 'idrac-sys518',
    methods: ANY_METHOD,
    matches: (err) => err.hasMessageId('SYS518'),
    policy: { attempts: 11, baseDelayMs: 1_000, maxDelayMs: 15_000 },
    source: 'sushy connector.py check_retry_on_exception',
  },
  {
    name: 'ilo-invalid-operation-for-system-state',
    methods: ANY_METHOD,
    matches: (err) => err.hasMessageId('InvalidOperationForSystemState'),
    policy: { attempts: 11, baseDelayMs: 1_000, maxDelayMs: 15_000 },
    source: 'sushy connector.py check_retry_on_exception',
  },
  {
    name: 'ilo-unable-to-modify-during-post',
    methods: ['PATCH'],
    matches: (err) => err.status === 400 && err.hasMessageId('UnableToModifyDuringSystemPOST'),
    policy: { attempts: 6, baseDelayMs: 5_000, maxDelayMs: 30_000 },
    source: 'ironic [redfish]post_boot_retry_attempts=6, post_boot_retry_delay=5',
  },
];

/**
 * An iDRAC10 answers 409 ActionParameterValueConflict to "On" right after a power-off; ironic
 * retries it 6 times, 10 s apart (`power_on_conflict_retry_*`).
 */
export const POWER_ON_CONFLICT: TransientErrorRule = {
  name: 'idrac10-power-on-conflict',
  methods: ['POST'],
  matches: (err) => err.status === 409 && err.hasMessageId('ActionParameterValueConflict'),
  policy: { attempts: 6, baseDelayMs: 10_000, maxDelayMs: 10_000 },
  source: 'ironic [redfish]power_on_conflict_retry_attempts=6, interval=10',
};

/**
 * Dell's `#OemManager.ImportSystemConfiguration` boot job, as ironic's `idrac-virtualmedia`
 * sends it (sushy-oem-idrac `set_virtual_boot_device`): one-time boot from the virtual CD.
 * The XML must carry no insignificant whitespace.
 */
export const DELL_VIRTUAL_CD_BOOT = {
  ShareParameters: { Target: ['ALL'] },
  ImportBuffer:
    '<SystemConfiguration><Component FQDD="iDRAC.Embedded.1">' +
    '<Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute>' +
    '<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>' +
    '</Component></SystemConfiguration>',
} as const;

/** Errors of the Dell boot job that sushy-oem-idrac waits out, each on its own schedule. */
export const DELL_IMPORT_RETRIES: readonly TransientErrorRule[] = [
  {
    name: 'dell-import-not-found-yet',
    methods: ['POST'],
    matches: (err) => err.status === 404,
    policy: { attempts: 4, baseDelayMs: 10_000, maxDelayMs: 10_000 },
    source: 'sushy-oem-idrac: 3 retries on 404 while the job is created, 10 s apart',
  },
  {
    name: 'dell-rac0679-job-running',
    methods: ['POST'],
    matches: (err) => err.hasMessageId('RAC0679'),
    policy: { attempts: 36, baseDelayMs: 15_000, maxDelayMs: 15_000 },
    source: 'sushy-oem-idrac: RAC0679 (a job is running), 35 retries 15 s apart',
  },
];

/**
 * Dell LC068: a configuration change is pending. sushy-oem-idrac reboots once to apply it,
 * then posts the job again.
 */
export const DELL_CONFIG_PENDING = {
  name: 'dell-lc068-config-pending',
  matches: (err: RedfishError): boolean => err.hasMessageId('LC068'),
  source: 'sushy-oem-idrac set_virtual_boot_device: LC068 -> reboot once, then retry',
} as const;

/**
 * Dell's boot-mode BIOS job: ironic reboots, then reads the mode every 15 s for up to 900 s
 * (`BOOT_MODE_CONFIG_INTERVAL`, `[redfish]boot_mode_config_timeout`), and puts the power back
 * as it was.
 */
export const BOOT_MODE_JOB = {
  pollMs: 15_000,
  timeoutMs: 900_000,
  source: 'ironic redfish/management.py _wait_for_boot_mode; [redfish]boot_mode_config_timeout',
} as const;

/**
 * Where a refused boot PATCH is sent next, relative to the System: DMTF Tacklebox tries the
 * settings resources that some BMCs want but do not link (`systems.py set_system_boot`).
 * The only paths this client builds rather than follows.
 */
export const BOOT_SETTINGS_FALLBACK = {
  paths: ['Settings', 'SD'],
  /**
   * Refusals that mean "not here": a bad request, forbidden, method not allowed, not
   * implemented. A busy BMC (5xx), a conflict (409) or a stale ETag (412) is no reason to
   * write the boot somewhere else: that error is the caller's.
   */
  statuses: [400, 403, 405, 501],
  source: 'DMTF Redfish-Tacklebox redfish_utilities/systems.py set_system_boot workarounds',
} as const;

/** The body of an InsertMedia POST. */
export interface InsertPayload {
  readonly Image: string;
  readonly TransferProtocolType?: string;
  readonly TransferMethod?: string;
  readonly UserName?: string;
  readonly Password?: string;
}

/** An error shape that InsertMedia answers when the body lacks something, and the fix. */
export interface InsertFix {
  readonly name: string;
  readonly matches: (err: RedfishError) => boolean;
  readonly apply: (payload: InsertPayload) => InsertPayload;
  readonly source: string;
}

/** Adds `TransferProtocolType` as the image URL's scheme says (HTTPS or HTTP). */
export function withTransferProtocol(payload: InsertPayload): InsertPayload {
  return {
    ...payload,
    TransferProtocolType: payload.Image.startsWith('https:') ? 'HTTPS' : 'HTTP',
  };
}

const mentions = (err: RedfishError, word: string): boolean =>
  err.detail.includes(word) || err.relatedProperties.some((p) => p.includes(word));

/**
 * sushy's insert-and-retry ladder (`virtual_media.py insert_media`): each fix is applied at
 * most once, in this order, and a POST that fails with no applicable fix fails the insert.
 */
export const INSERT_FIXES: readonly InsertFix[] = [
  {
    name: 'transfer-protocol-type-required',
    matches: (err) =>
      (err.hasMessageId('GeneralError') && err.detail.includes('TransferProtocolType')) ||
      ((err.hasMessageId('ActionParameterMissing') || err.hasMessageId('PropertyMissing')) &&
        // "#/TransferProtocolType" or "/TransferProtocolType"; with no RelatedProperties at all,
        // the parameter is named in MessageArgs (Cisco C845A M8).
        (err.relatedProperties.some((p) => p.endsWith('/TransferProtocolType')) ||
          err.messageArgs.includes('TransferProtocolType'))),
    apply: withTransferProtocol,
    source: 'sushy insert_media, is_transfer_protocol_required; Supermicro, Nokia, Cisco',
  },
  {
    name: 'transfer-method-required',
    matches: (err) => err.hasMessageId('GeneralError') && err.detail.includes('TransferMethod'),
    apply: (payload) => ({ ...payload, TransferMethod: 'Stream' }),
    source: 'sushy insert_media',
  },
  {
    name: 'credentials-required',
    matches: (err) =>
      (err.hasMessageId('ActionParameterMissing') &&
        (mentions(err, 'UserName') || mentions(err, 'Password'))) ||
      err.detail.includes('requires the parameter UserName'),
    apply: (payload) => ({ ...payload, UserName: 'none', Password: 'none' }),
    source: 'sushy insert_media; NVIDIA DGX, ironic bug 2071945',
  },
];
