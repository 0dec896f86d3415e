/**
 * The RedfishClient adapter: the operations of reference/redfish.md §1 over RedfishHttp, with
 * the vendor quirks of quirks.ts. It follows `@odata.id` links and never builds paths itself.
 */
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { parseRedfishAddress } from './address.js';
import type { RedfishEndpoint } from './address.js';
import { RedfishError, RedfishErrorCode } from './errors.js';
import {
  BOOT_MODE_JOB,
  BOOT_SETTINGS_FALLBACK,
  DELL_CONFIG_PENDING,
  DELL_IMPORT_RETRIES,
  DELL_VIRTUAL_CD_BOOT,
  INSERT_FIXES,
  POWER_ON_CONFLICT,
  quirksFor,
  withTransferProtocol,
} from './quirks.js';
import type { InsertPayload, VendorQuirks } from './quirks.js';
import { RedfishHttp } from './redfish-http.js';
import type { RedfishHttpOptions } from './redfish-http.js';
import type {
  BootMode,
  BootOverrideRequest,
  MediaSlot,
  PowerAction,
  RedfishClient,
  RedfishTarget,
  SystemInfo,
} from './redfish-client.js';
import { backoffDelay } from './retry-policy.js';
import type {
  ActionInfo,
  Collection,
  ComputerSystem,
  Manager,
  ODataLink,
  VirtualMedia,
} from './types.js';

/** Options of {@link UndiciRedfishClient}. */
export interface UndiciRedfishClientOptions extends Omit<
  RedfishHttpOptions,
  'origin' | 'insecure'
> {
  /** The BareMetalHost `spec.bmc.address`, any scheme BMO accepts for Redfish. */
  readonly address: string;
  /** BareMetalHost `spec.bmc.disableCertificateVerification`. @default false */
  readonly disableCertificateVerification?: boolean;
  /** Interval of PowerState polls. @default 1_000 (ironic) */
  readonly powerPollMs?: number;
  /** How long a power change may take. @default 60_000 (ironic power_state_change_timeout) */
  readonly powerTimeoutMs?: number;
  /** Interval of slot polls after an insert or eject. @default 1_000 */
  readonly mediaPollMs?: number;
  /** How long a mount may take to show. @default 20_000 (iRMC mounts asynchronously) */
  readonly mediaTimeoutMs?: number;
  /** Delay between the whole-slot insert retries on 5xx. @default 3_000 (ironic) */
  readonly insertRetryDelayMs?: number;
  /** Interval of boot-mode reads while a Dell BIOS job applies it. @default 15_000 (ironic) */
  readonly bootModePollMs?: number;
  /**
   * How long a Dell BIOS job may take to apply the boot mode.
   * @default 900_000 (ironic [redfish]boot_mode_config_timeout)
   */
  readonly bootModeTimeoutMs?: number;
}

interface Layout {
  readonly systemPath: string;
  readonly managers: readonly string[];
  readonly slotPaths: readonly { readonly path: string; readonly owner: 'system' | 'manager' }[];
  readonly vendor: string | undefined;
  readonly redfishVersion: string | undefined;
  readonly quirks: VendorQuirks;
  readonly quirkRules: readonly string[];
  /** Target of Dell's `#OemManager.ImportSystemConfiguration`, when a Manager has it. */
  readonly dellImportTarget: string | undefined;
}

const CD_TYPES = ['CD', 'DVD'];
const INSERT_LADDER_POSTS = 4;
const INSERT_ATTEMPTS_ON_5XX = 3;

/** A Redfish client for one BMC, on undici. */
export class UndiciRedfishClient implements RedfishClient {
  readonly endpoint: RedfishEndpoint;
  private readonly http: RedfishHttp;
  private readonly clock: Clock;
  private layoutPromise: Promise<Layout> | undefined;
  /** Where boot PATCHes go since the System refused one and a Tacklebox fallback took it. */
  private bootSettingsPath: string | undefined;
  /** Raw slot resources by path, as last read (their actions and ETags). */
  private readonly rawSlots = new Map<string, { body: VirtualMedia; etag: string | undefined }>();

  constructor(private readonly options: UndiciRedfishClientOptions) {
    this.endpoint = parseRedfishAddress(options.address);
    this.clock = options.clock ?? systemClock;
    this.http = new RedfishHttp({
      ...options,
      origin: this.endpoint.origin,
      insecure: options.disableCertificateVerification ?? false,
    });
  }

  async discover(): Promise<RedfishTarget> {
    const layout = await this.layout();
    const [system, slots] = await Promise.all([this.getSystem(), this.getMediaSlots()]);
    return {
      system,
      managers: layout.managers,
      slots,
      vendor: layout.vendor,
      redfishVersion: layout.redfishVersion,
      quirks: layout.quirkRules,
    };
  }

  async getSystem(): Promise<SystemInfo> {
    const { systemPath } = await this.layout();
    return toSystemInfo((await this.http.get<ComputerSystem>(systemPath)).body ?? {}, systemPath);
  }

  async getMediaSlots(): Promise<readonly MediaSlot[]> {
    const { slotPaths } = await this.layout();
    const slots = await Promise.all(slotPaths.map(({ path, owner }) => this.readSlot(path, owner)));
    return slots.filter((slot): slot is MediaSlot => slot !== undefined);
  }

  async setPower(action: PowerAction, options: { wait?: boolean } = {}): Promise<string> {
    const { systemPath } = await this.layout();
    const { body: raw = {} } = await this.http.get<ComputerSystem>(systemPath);
    const system = toSystemInfo(raw, systemPath);
    const goal = action === 'ForceOff' || action === 'GracefulShutdown' ? 'Off' : 'On';
    const restart = action === 'ForceRestart' || action === 'GracefulRestart';
    if (!restart && system.powerState === goal) return goal;
    const reset = raw.Actions?.['#ComputerSystem.Reset'];
    if (reset?.target === undefined)
      throw this.unsupported(systemPath, 'the System has no #ComputerSystem.Reset action');
    // sushy refuses a ResetType the BMC does not advertise.
    if (system.resetTypes.length > 0 && !system.resetTypes.includes(action))
      throw this.unsupported(
        reset.target,
        `ResetType ${action} is not offered (${system.resetTypes.join(', ')})`,
      );
    for (let attempt = 1; ; attempt++) {
      try {
        await this.http.send('POST', reset.target, { ResetType: action });
        break;
      } catch (err) {
        if (!(err instanceof RedfishError) || (err.status !== 400 && err.status !== 409)) throw err;
        // "Already in that state" comes as 400 or 409 on some BMCs.
        if (!restart && (await this.getSystem()).powerState === goal) return goal;
        if (action === 'On' && POWER_ON_CONFLICT.matches(err)) {
          if (attempt >= POWER_ON_CONFLICT.policy.attempts) throw err;
          await this.clock.sleep(POWER_ON_CONFLICT.policy.baseDelayMs);
          continue;
        }
        throw err;
      }
    }
    if (options.wait === false) return (await this.getSystem()).powerState ?? 'Unknown';
    await this.poll(
      () => this.getSystem(),
      (s) => s.powerState === goal,
      `PowerState ${goal}`,
      systemPath,
      this.options.powerPollMs ?? 1_000,
      this.options.powerTimeoutMs ?? 60_000,
    );
    return goal;
  }

  async ejectMedia(): Promise<void> {
    const inserted: MediaSlot[] = [];
    for (const slot of await this.getMediaSlots()) {
      if (!slot.inserted) continue;
      await this.ejectSlot(slot);
      inserted.push(slot);
    }
    if (inserted.length === 0) return;
    // Dell keeps reporting Inserted for a while after an eject; give it the mount timeout,
    // then go on: the insert that follows is sent regardless and verified on its own.
    try {
      await this.poll(
        () => Promise.all(inserted.map((s) => this.readSlot(s.path, s.owner))),
        (slots) => slots.every((s) => s?.inserted !== true),
        'the ejected slots to read empty',
        inserted[0]!.path,
        this.options.mediaPollMs ?? 1_000,
        this.options.mediaTimeoutMs ?? 20_000,
      );
    } catch (err) {
      if (!(err instanceof RedfishError) || err.code !== RedfishErrorCode.Timeout) throw err;
    }
  }

  async insertMedia(imageUrl: string): Promise<MediaSlot> {
    const layout = await this.layout();
    const slots = await this.getMediaSlots();
    // Insert through the System when it has VirtualMedia (DMTF current), else the Managers.
    const owner = slots.some((s) => s.owner === 'system') ? 'system' : 'manager';
    const candidates = slots.filter(
      (s) =>
        s.owner === owner &&
        s.insertBy !== 'none' &&
        (layout.quirks.slotIds === undefined || layout.quirks.slotIds.test(s.id ?? '')),
    );
    let lastError: RedfishError | undefined;
    for (const slot of candidates) {
      try {
        await this.insertInto(slot, imageUrl);
      } catch (err) {
        // Cisco internal slots answer 400, OpenBMC KVM-only slots 405: try the next one.
        if (err instanceof RedfishError && (err.status === 400 || err.status === 405)) {
          lastError = err;
          continue;
        }
        throw err;
      }
      return this.poll(
        () => this.readSlot(slot.path, slot.owner),
        // Mounted, not merely inserted: iRMC shows Inserted while ConnectedVia is NotConnected.
        (s): s is MediaSlot =>
          s !== undefined &&
          s.inserted &&
          s.connectedVia !== 'NotConnected' &&
          imageMatches(s, imageUrl),
        `${imageUrl} to show as inserted`,
        slot.path,
        this.options.mediaPollMs ?? 1_000,
        this.options.mediaTimeoutMs ?? 20_000,
      ) as Promise<MediaSlot>;
    }
    throw (
      lastError ??
      this.unsupported(layout.systemPath, 'no CD or DVD virtual-media slot can take an image')
    );
  }

  async setBootMode(mode: BootMode): Promise<boolean> {
    const { quirks } = await this.layout();
    // AMI/ASRockRack take the mode only together with the target: setBootOverride sends both.
    if (quirks.fullBootRequest) return false;
    const change = await this.modeChange(await this.readBoot(), mode);
    if (change.needed) await this.applyBootMode(mode, { patch: !change.pending });
    return change.needed;
  }

  async setBootOverride(request: BootOverrideRequest = {}): Promise<void> {
    const { quirks, dellImportTarget } = await this.layout();
    const enabled = request.enabled ?? 'Once';
    const current = await this.readBoot();
    const allowed = current.boot?.['BootSourceOverrideTarget@Redfish.AllowableValues'] ?? [];
    let target: string = request.target ?? 'Cd';
    if (
      target === 'Cd' &&
      allowed.includes('UsbCd') &&
      (quirks.preferUsbCd || !allowed.includes('Cd'))
    )
      target = 'UsbCd';
    // HPE Gen9 has no BootSourceOverrideMode: setting it is unsupported, and skipped.
    const modeKnown = current.boot !== undefined && 'BootSourceOverrideMode' in current.boot;
    const mode = request.mode !== undefined && modeKnown ? request.mode : undefined;
    const { needed: changeMode, pending: modePending } = await this.modeChange(current, mode);
    // metal3's idrac-virtualmedia:// sets the CD boot through Dell's configuration job, as
    // ironic's idrac-redfish-virtual-media does; the mode still goes through the System.
    const dellJob =
      this.endpoint.scheme === 'idrac-virtualmedia' &&
      dellImportTarget !== undefined &&
      target === 'Cd' &&
      enabled === 'Once';
    if (dellJob) {
      if (changeMode && mode !== undefined) await this.applyBootMode(mode, { patch: !modePending });
      await this.importDellBootJob(dellImportTarget);
      return;
    }
    if (changeMode && mode !== undefined && !quirks.fullBootRequest)
      await this.applyBootMode(mode, { patch: !modePending });

    const boot: Record<string, string> = { BootSourceOverrideTarget: target };
    if (
      quirks.alwaysSendBootEnabled ||
      quirks.fullBootRequest ||
      current.boot?.BootSourceOverrideEnabled !== enabled
    )
      boot['BootSourceOverrideEnabled'] = enabled;
    // AMI/ASRockRack refuse a PATCH without the mode; ironic sends the current one, else UEFI.
    if (quirks.fullBootRequest && modeKnown)
      boot['BootSourceOverrideMode'] = mode ?? current.boot?.BootSourceOverrideMode ?? 'UEFI';
    await this.patchBoot(boot);
    // Supermicro resets the mode to BIOS when the device changes.
    if (quirks.resyncBootModeAfterTarget && mode !== undefined)
      await this.patchBoot({ BootSourceOverrideMode: mode });
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * Where boot settings go, and what they read: the System's `Boot`, overlaid with its
   * SettingsObject's when that carries `Boot` (Nokia, iDRAC10), or the settings resource a
   * Tacklebox fallback found.
   */
  private async readBoot(): Promise<{
    path: string;
    boot: ComputerSystem['Boot'];
    systemBoot: ComputerSystem['Boot'];
    etag: string;
  }> {
    const { systemPath } = await this.layout();
    const res = await this.http.get<ComputerSystem>(systemPath);
    const systemBoot = res.body?.Boot;
    const settings =
      res.body?.['@Redfish.Settings']?.SettingsObject?.['@odata.id'] ?? this.bootSettingsPath;
    if (settings !== undefined) {
      const pending = await this.http.get<ComputerSystem>(settings);
      if (pending.body?.Boot !== undefined || settings === this.bootSettingsPath)
        return {
          path: settings,
          boot: { ...systemBoot, ...pending.body?.Boot },
          systemBoot,
          etag: pending.etag ?? '',
        };
    }
    return { path: systemPath, boot: systemBoot, systemBoot, etag: res.etag ?? '' };
  }

  /**
   * PATCHes `Boot` where {@link readBoot} says. When the System itself refuses it as not
   * supported there (400, 403, 405, 501), tries `{System}/Settings`, then `{System}/SD`, as
   * Tacklebox's workarounds do; if those fail too, the System's error is the one that counts.
   */
  private async patchBoot(boot: Record<string, string>): Promise<void> {
    const { systemPath } = await this.layout();
    const current = await this.readBoot();
    try {
      await this.http.send('PATCH', current.path, { Boot: boot }, { etag: current.etag });
    } catch (err) {
      if (
        current.path !== systemPath ||
        !(err instanceof RedfishError) ||
        !(BOOT_SETTINGS_FALLBACK.statuses as readonly number[]).includes(err.status ?? 0)
      )
        throw err;
      for (const name of BOOT_SETTINGS_FALLBACK.paths) {
        const path = `${systemPath}/${name}`;
        try {
          // Tacklebox PATCHes only a resource that reads, with its ETag.
          const { etag } = await this.http.get(path);
          await this.http.send('PATCH', path, { Boot: boot }, { etag: etag ?? '' });
        } catch (fallbackErr) {
          if (fallbackErr instanceof RedfishError) continue;
          throw fallbackErr;
        }
        this.bootSettingsPath = path;
        return;
      }
      throw err;
    }
  }

  /**
   * Whether `mode` differs from the mode in force (HPE Gen9, which has none, never does), and
   * whether a BIOS job already holds it pending.
   */
  private async modeChange(
    current: { path: string; boot: ComputerSystem['Boot']; systemBoot: ComputerSystem['Boot'] },
    mode: BootMode | undefined,
  ): Promise<{ needed: boolean; pending: boolean }> {
    const { systemPath, quirks } = await this.layout();
    if (
      mode === undefined ||
      current.boot === undefined ||
      !('BootSourceOverrideMode' in current.boot)
    )
      return { needed: false, pending: false };
    // A mode that a BIOS job applies shows in the SettingsObject before it is in force; only
    // the System says whether it is.
    const modeInForce = quirks.bootModeByBiosJob
      ? current.systemBoot?.BootSourceOverrideMode
      : current.boot.BootSourceOverrideMode;
    // A resumed workflow may find its mode already pending in the SettingsObject: that job
    // needs its restart, not a second PATCH.
    const pending =
      quirks.bootModeByBiosJob &&
      current.path !== systemPath &&
      current.boot.BootSourceOverrideMode === mode;
    return { needed: modeInForce !== mode, pending };
  }

  /**
   * Sets the boot mode. Where a BIOS job applies it (Dell), the mode reads back only after the
   * host has started: like ironic, restart the host, poll until the mode reads back, and leave
   * the power as it was. A host that was off is powered off again, because bootFromIso powers
   * it on only once the boot override is in place (as after Dell's LC068 reboot).
   */
  private async applyBootMode(mode: BootMode, { patch = true } = {}): Promise<void> {
    const { systemPath, quirks } = await this.layout();
    if (patch) await this.patchBoot({ BootSourceOverrideMode: mode });
    if (!quirks.bootModeByBiosJob) return;
    const applied = (system: SystemInfo): boolean => system.boot.mode === mode;
    const before = await this.getSystem();
    if (applied(before)) return;
    const wasOn = before.powerState === 'On' || before.powerState === 'PoweringOn';
    await this.setPower(wasOn ? 'ForceRestart' : 'On');
    try {
      await this.poll(
        () => this.getSystem(),
        applied,
        `BootSourceOverrideMode ${mode} (applied by a BIOS job after the restart)`,
        systemPath,
        this.options.bootModePollMs ?? BOOT_MODE_JOB.pollMs,
        this.options.bootModeTimeoutMs ?? BOOT_MODE_JOB.timeoutMs,
        // A BIOS job takes minutes: no sooner looks, as ironic.
        false,
      );
    } catch (err) {
      // Put the power back if we can; the mode that never showed is the error to report.
      if (!wasOn) await this.setPower('ForceOff').catch(() => undefined);
      throw err;
    }
    if (!wasOn) await this.setPower('ForceOff');
  }

  /** Posts Dell's boot job and follows it, waiting out the errors sushy-oem-idrac waits out. */
  private async importDellBootJob(target: string): Promise<void> {
    const tries = new Map<string, number>();
    let rebooted = false;
    for (;;) {
      try {
        await this.http.send('POST', target, DELL_VIRTUAL_CD_BOOT);
        return;
      } catch (err) {
        if (!(err instanceof RedfishError)) throw err;
        if (DELL_CONFIG_PENDING.matches(err) && !rebooted) {
          // Apply the pending configuration with one reboot, then leave the host off again:
          // the workflow powers it on only once the boot override is in place.
          rebooted = true;
          await this.setPower('ForceRestart');
          await this.setPower('ForceOff');
          continue;
        }
        const rule = DELL_IMPORT_RETRIES.find((r) => r.matches(err));
        const tried = (tries.get(rule?.name ?? '') ?? 0) + 1;
        if (rule === undefined || tried >= rule.policy.attempts) throw err;
        tries.set(rule.name, tried);
        await this.clock.sleep(rule.policy.baseDelayMs);
      }
    }
  }

  /** Finds the System, its Managers and its CD slot paths once. */
  private layout(): Promise<Layout> {
    this.layoutPromise ??= this.findLayout();
    this.layoutPromise.catch(() => (this.layoutPromise = undefined));
    return this.layoutPromise;
  }

  private async findLayout(): Promise<Layout> {
    const root = await this.http.serviceRoot();
    let systemPath = this.endpoint.systemPath;
    if (systemPath === undefined) {
      const systems = root.Systems?.['@odata.id'];
      if (systems === undefined) throw this.unsupported('/redfish/v1/', 'no Systems collection');
      const members = links((await this.http.get<Collection>(systems)).body?.Members);
      // sushy: UnknownDefaultError unless there is exactly one.
      if (members.length !== 1)
        throw this.unsupported(
          systems,
          `${String(members.length)} Systems; put the System path in the BMC address`,
        );
      systemPath = members[0]!;
    }
    const system = (await this.http.get<ComputerSystem>(systemPath)).body ?? {};
    const managers = links(system.Links?.ManagedBy ?? system.Links?.Managers);

    const collections: { path: string; owner: 'system' | 'manager' }[] = [];
    const systemMedia = system.VirtualMedia?.['@odata.id'];
    if (systemMedia !== undefined) collections.push({ path: systemMedia, owner: 'system' });
    let dellImportTarget: string | undefined;
    const managerModels: string[] = [];
    for (const managerPath of managers) {
      try {
        const manager = (await this.http.get<Manager>(managerPath)).body ?? {};
        if (manager.Model !== undefined) managerModels.push(manager.Model);
        for (const [name, action] of Object.entries(manager.Actions?.Oem ?? {})) {
          if (name.endsWith('#OemManager.ImportSystemConfiguration') && action.target)
            dellImportTarget ??= action.target;
        }
        const media = manager.VirtualMedia?.['@odata.id'];
        if (media !== undefined && !collections.some((c) => c.path === media))
          collections.push({ path: media, owner: 'manager' });
      } catch (err) {
        // With System VirtualMedia, Managers only matter for the eject; don't fail on them.
        if (systemMedia === undefined) throw err;
      }
    }
    const { quirks, rules } = quirksFor({
      manufacturer: system.Manufacturer,
      model: system.Model,
      managerModels,
    });
    const slotPaths: { path: string; owner: 'system' | 'manager'; dvdOnly: boolean }[] = [];
    for (const collection of collections) {
      const members = links((await this.http.get<Collection>(collection.path)).body?.Members);
      for (const path of members) {
        const slot = await this.readSlot(path, collection.owner);
        if (slot === undefined) continue;
        slotPaths.push({ path, owner: collection.owner, dvdOnly: !slot.mediaTypes.includes('CD') });
      }
    }
    // CD slots first; DVD-only slots (Cisco UCS B/X) after them, as ironic does.
    slotPaths.sort((a, b) => Number(a.dvdOnly) - Number(b.dvdOnly));
    return {
      systemPath,
      managers,
      slotPaths: slotPaths.map(({ path, owner }) => ({ path, owner })),
      // BMCs send null for what they do not know (the DMTF mockup's Vendor).
      vendor: typeof root.Vendor === 'string' ? root.Vendor : undefined,
      redfishVersion: typeof root.RedfishVersion === 'string' ? root.RedfishVersion : undefined,
      quirks,
      quirkRules: rules,
      dellImportTarget,
    };
  }

  /** Reads one slot; `undefined` when it takes no CD or DVD. */
  private async readSlot(
    path: string,
    owner: 'system' | 'manager',
  ): Promise<MediaSlot | undefined> {
    const res = await this.http.get<VirtualMedia>(path);
    const body = res.body ?? {};
    this.rawSlots.set(path, { body, etag: res.etag });
    const mediaTypes = body.MediaTypes ?? [];
    if (!mediaTypes.some((t) => CD_TYPES.includes(t))) return undefined;
    const image = body.Image === null || body.Image === '' ? undefined : body.Image;
    // `Inserted` says it when the BMC reports it, as sushy and ironic read it: a slot that
    // shows Inserted with ConnectedVia NotConnected (iRMC while it mounts) still holds media.
    // Only without `Inserted` does an image count, unless NotConnected says the slot is empty
    // (Supermicro keeps ImageName after an eject).
    const inserted =
      typeof body.Inserted === 'boolean'
        ? body.Inserted
        : image !== undefined && body.ConnectedVia !== 'NotConnected';
    return {
      path,
      id: body.Id,
      owner,
      mediaTypes,
      inserted,
      image,
      connectedVia: body.ConnectedVia ?? undefined,
      insertBy:
        body.Actions?.['#VirtualMedia.InsertMedia']?.target !== undefined
          ? 'action'
          : res.allow.includes('PATCH')
            ? 'patch'
            : 'none',
    };
  }

  /**
   * Ejects one slot; a failure is ignored when the slot reads empty afterwards (sushy 2114737).
   * A slot that holds media but offers no way to eject it (no EjectMedia action, no PATCH)
   * fails, as sushy's MissingActionError fails ironic's eject: the media would stay in.
   */
  private async ejectSlot(slot: MediaSlot): Promise<void> {
    const raw = this.rawSlots.get(slot.path);
    const action = raw?.body.Actions?.['#VirtualMedia.EjectMedia']?.target;
    try {
      if (action !== undefined) {
        // Always a body: HPE iLO answers 415/400 to a bodyless eject.
        await this.http.send('POST', action, {});
      } else if (slot.insertBy === 'patch') {
        await this.http.send(
          'PATCH',
          slot.path,
          { Image: null, Inserted: false },
          { etag: raw?.etag },
        );
      } else {
        throw this.unsupported(
          slot.path,
          `slot ${slot.id ?? slot.path} holds ${slot.image ?? 'media'} but offers no way to ` +
            'eject it (no #VirtualMedia.EjectMedia action, no PATCH in Allow); eject it from ' +
            'the BMC’s console',
        );
      }
    } catch (err) {
      if (!(err instanceof RedfishError) || err.status === undefined) throw err;
      if (err.status !== 400 && err.status !== 409 && err.status < 500) throw err;
      const after = await this.readSlot(slot.path, slot.owner);
      if (after?.inserted === true) throw err;
    }
  }

  /** One slot: the InsertMedia ladder (with ironic's 5xx retries), or the PATCH fallback. */
  private async insertInto(slot: MediaSlot, imageUrl: string): Promise<void> {
    const raw = this.rawSlots.get(slot.path);
    const action = raw?.body.Actions?.['#VirtualMedia.InsertMedia'];
    if (action?.target === undefined) {
      // Lenovo SD530/XCC, DMTF mockup: PATCH, and here Inserted must be sent.
      await this.http.send(
        'PATCH',
        slot.path,
        { Image: imageUrl, Inserted: true, WriteProtected: true },
        { etag: raw?.etag },
      );
      return;
    }
    const target = action.target;
    let payload: InsertPayload = { Image: imageUrl };
    if (await this.protocolRequired(action)) payload = withTransferProtocol(payload);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.insertLadder(target, payload);
        return;
      } catch (err) {
        // A Dell eject still in progress answers 5xx (ironic story 2008504).
        const serverSide = err instanceof RedfishError && (err.status ?? 0) >= 500;
        if (!serverSide || attempt >= INSERT_ATTEMPTS_ON_5XX) throw err;
        await this.clock.sleep(
          backoffDelay(
            attempt,
            {
              attempts: INSERT_ATTEMPTS_ON_5XX,
              baseDelayMs: this.options.insertRetryDelayMs ?? 3_000,
              maxDelayMs: this.options.insertRetryDelayMs ?? 3_000,
            },
            this.options.random ?? Math.random,
          ),
        );
      }
    }
  }

  /** sushy's insert_media: leave out the defaults, add what the BMC asks for, ≤ 4 POSTs. */
  private async insertLadder(target: string, first: InsertPayload): Promise<void> {
    let payload = first;
    const applied = new Set<string>();
    for (let post = 1; ; post++) {
      try {
        await this.http.send('POST', target, payload);
        return;
      } catch (err) {
        if (!(err instanceof RedfishError) || err.code !== RedfishErrorCode.Http) throw err;
        const fix = INSERT_FIXES.find((f) => !applied.has(f.name) && f.matches(err));
        if (fix === undefined || post >= INSERT_LADDER_POSTS) throw err;
        applied.add(fix.name);
        payload = fix.apply(payload);
      }
    }
  }

  /** Whether InsertMedia declares TransferProtocolType required (inline or via ActionInfo). */
  private async protocolRequired(action: {
    readonly '@Redfish.ActionInfo'?: string;
    readonly 'TransferProtocolType@Redfish.AllowableValues'?: readonly string[];
  }): Promise<boolean> {
    if ((action['TransferProtocolType@Redfish.AllowableValues'] ?? []).length > 0) return true;
    const infoPath = action['@Redfish.ActionInfo'];
    if (infoPath === undefined) return false;
    try {
      const info = (await this.http.get<ActionInfo>(infoPath)).body;
      return (info?.Parameters ?? []).some(
        (p) => p.Name === 'TransferProtocolType' && p.Required === true,
      );
    } catch {
      return false; // the ladder still adds it if the BMC asks
    }
  }

  /**
   * Polls `read` until `done`, at most `timeoutMs`. With `soon`, the first waits are shorter
   * (an eighth of `intervalMs`, doubling up to it): most BMCs finish a power change or a mount
   * well within one interval, and a full interval per step was most of a boot's time. A slow
   * BMC costs three more reads per wait.
   */
  private async poll<T>(
    read: () => Promise<T>,
    done: (value: T) => boolean,
    what: string,
    path: string,
    intervalMs: number,
    timeoutMs: number,
    soon = true,
  ): Promise<T> {
    const deadline = this.clock.now() + timeoutMs;
    let waitMs = soon ? Math.max(1, Math.floor(intervalMs / 8)) : intervalMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (this.clock.now() + waitMs > deadline)
        throw new RedfishError(
          RedfishErrorCode.Timeout,
          `gave up waiting ${String(timeoutMs)} ms for ${what}`,
          { method: 'GET', path },
        );
      await this.clock.sleep(waitMs);
      waitMs = Math.min(intervalMs, waitMs * 2);
    }
  }

  private unsupported(path: string, summary: string): RedfishError {
    return new RedfishError(RedfishErrorCode.Unsupported, summary, { method: 'GET', path });
  }
}

function links(list: readonly ODataLink[] | undefined): string[] {
  return (list ?? [])
    .map((link) => link['@odata.id'])
    .filter((id): id is string => typeof id === 'string');
}

function toSystemInfo(raw: ComputerSystem, path: string): SystemInfo {
  const boot = raw.Boot ?? {};
  return {
    path,
    id: raw.Id,
    manufacturer: raw.Manufacturer,
    model: raw.Model,
    powerState: raw.PowerState ?? undefined,
    boot: {
      target: boot.BootSourceOverrideTarget ?? undefined,
      enabled: boot.BootSourceOverrideEnabled ?? undefined,
      mode: boot.BootSourceOverrideMode ?? undefined,
      allowedTargets: boot['BootSourceOverrideTarget@Redfish.AllowableValues'] ?? [],
    },
    resetTypes: raw.Actions?.['#ComputerSystem.Reset']?.['ResetType@Redfish.AllowableValues'] ?? [],
    bootProgress: raw.BootProgress?.LastState,
  };
}

/**
 * The slot shows `imageUrl`, or shows an image inserted without saying which (some BMCs leave
 * `Image` empty and report only `ImageName`).
 */
function imageMatches(slot: MediaSlot, imageUrl: string): boolean {
  if (slot.image !== undefined) return slot.image === imageUrl;
  return true;
}
