/**
 * Provisions BareMetalHosts over Redfish on hubs without Ironic and the Bare Metal Operator
 * (SiteForge `redfish` mode), for the assisted live-ISO flow: a host with `spec.image` and
 * `online: true` boots the image once from virtual media, through a short URL of the image
 * server, and the status reads as BMO's would.
 *
 * The path of a host (BMO state names):
 *   ''  → unmanaged (no BMC address or Secret; operationalStatus `discovered`)
 *   ''  → registering (BMC reached with the Secret's credentials: `BMCAccessValidated`)
 *       → available (no inspection or preparation: the BMAC writes `inspect.metal3.io:
 *         disabled` in this mode, and hardware details come from the Agent)
 *       → provisioning (intent written first: lastAttemptedImage, operationHistory.provision)
 *       → provisioned (booted; provisioning.image set)
 *   spec.image removed or changed: provisioning/provisioned → deprovisioning (power off,
 *       eject) → available, and the new image is provisioned from there.
 *   deletion: provisioning/provisioned → deprovisioning → powering off before delete →
 *       deleting (finalizer released); available → powering off before delete → deleting;
 *       registering/unmanaged, and hosts handed over, → deleting without touching the BMC.
 * Handed over: the `baremetalhost.metal3.io/detached` annotation, or the paired Agent at
 * stage Rebooting/Joined/Done. The media is ejected once, operationalStatus becomes
 * `detached`, and power is left alone from then on, also on deletion (as BMO does for
 * detached hosts). A paused host (`baremetalhost.metal3.io/paused`) is not touched at all.
 *
 * Crash safety: every BMC operation is preceded by a status write that says what it is for,
 * each boot step is recorded on the BMH before it is taken (boot-checkpoint.ts), and running
 * an operation again finds the BMC's state and only does what is missing. A provision that
 * finds its own image inserted and the host on after the power-on step counts as done, so no
 * host is booted twice for one image; one that finds it inserted short of that resumes at the
 * boot override and power-on.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../../../kube/index.js';
import { ASSISTED_OWNER_VALUE, BmhAnnotation, Finalizer, Gvk, Label } from '../../api.js';
import { bootFromIso, parseRedfishAddress } from '../../redfish/index.js';
import type { BootMode, BootProgress, BootStep, RedfishClient } from '../../redfish/index.js';
import { EventType, requestKey, requestOf } from '../../runtime/contract.js';
import type {
  Controller,
  ObjectReader,
  ReconcileContext,
  ReconcileResult,
  Request,
} from '../../runtime/contract.js';
import { BmcOperations } from './bmc-operations.js';
import { changesResume, recordedStep, resumeAt, writeStep } from './boot-checkpoint.js';
import type { FinishedOperation } from './bmc-operations.js';
import {
  ERROR_EVENT_REASON,
  ErrorType,
  OperationalStatus,
  ProvisioningState,
  readImage,
  readStatus,
  toStatusObject,
  withError,
  withoutError,
  withState,
} from './bmh-status.js';
import type { BmhImage, BmhStatus } from './bmh-status.js';
import { undiciRedfishClients } from './ports.js';
import { readWatchedSecret, watchedSecrets } from '../../watched-secrets.js';
import type { ImageUrls, RedfishCallMetric, RedfishClientFactory } from './ports.js';

/** Agent stages at which the host has rebooted into its installed system (BMAC's detach set). */
export const REBOOTED_STAGES: readonly string[] = ['Rebooting', 'Joined', 'Done'];
/** The install stage after which the installed system is on the disk. */
export const IMAGE_WRITTEN_AFTER = 'Writing image to disk';

/** Options of {@link createRedfishHostController}. */
export interface RedfishHostControllerOptions {
  /** Short URLs of the image server; the only URLs a BMC is given. */
  readonly images: ImageUrls;
  /** @default undiciRedfishClients */
  readonly clients?: RedfishClientFactory;
  /** Counts every Redfish HTTP exchange by vendor and outcome. @default - none */
  readonly redfishCall?: RedfishCallMetric;
  /** BMC operations running at once over all hosts. @default 16 */
  readonly concurrency?: number;
  /**
   * Asks the runtime to reconcile a host now (its BMC operation finished); `urgent` ahead of
   * the backlog of other hosts.
   * @default - none: the host is looked at again after `pollMs`
   */
  readonly wake?: (request: Request, urgent: boolean) => void;
  /** How soon a host with a running operation is looked at again anyway. @default 10_000 */
  readonly pollMs?: number;
  /** First retry delay after a failure; doubles per consecutive failure. @default 15_000 */
  readonly backoffBaseMs?: number;
  /** Cap on the retry delay. @default 900_000 (15 min) */
  readonly backoffMaxMs?: number;
}

/** The controller, with a handle on its BMC operations for shutdown and tests. */
export interface RedfishHostController extends Controller {
  readonly operations: BmcOperations;
  /**
   * Told by the assisted core the moment the host of Agent `agent` reports a stage past
   * writing the image to the disk: its BareMetalHost is looked at first, so the one-time disk
   * boot is set before the installer's reboot, without waiting for the Agent's status to be
   * written and watched back (minutes behind when thousands of hosts install at once).
   */
  imageWritten(agent: Request, reader: ObjectReader): void;
  /** Aborts every BMC operation and waits until none runs. */
  stop(): Promise<void>;
}

/** Operations deletion itself runs; any other is aborted when the host is deleted. */
const DELETION_OPERATIONS: ReadonlySet<string> = new Set([
  'deprovision',
  'power-off-before-delete',
]);
/** Failures after which deletion goes on without the BMC (BMO's retryCount). */
const DELETE_GIVE_UP_AFTER = 3;
/** Requeue of a host whose Secret is missing (BMO hostErrorRetryDelay). */
const MISSING_SECRET_RETRY_MS = 10_000;
/** Requeue of a host whose Secret or address is unusable; editing them also wakes it. */
const BAD_CREDENTIALS_RETRY_MS = 60_000;
const MAX_ERROR_MESSAGE = 1_000;

type OperationKind =
  | 'register'
  | 'provision'
  | 'deprovision'
  | 'power-off-before-delete'
  | 'power'
  | 'detach'
  | 'boot-disk'
  | 'reboot-disk';

/**
 * Operations for a host about to reboot into its installed system: late, it boots the ISO
 * again and installs anew, so they go ahead of any queue of boots.
 */
const URGENT_OPERATIONS: ReadonlySet<OperationKind> = new Set([
  'detach',
  'boot-disk',
  'reboot-disk',
]);

/**
 * Reboots into the disk, per image, for a host that booted its installation image again after
 * the installer wrote the disk (the one-time disk boot came too late, or the firmware ignored
 * it). The assisted service then waits for the user ("please reboot and fix boot order"); the
 * controller holds the BMC, so it does that itself, a few times.
 */
const DISK_REBOOT_ATTEMPTS = 3;
/** How long a reboot into the disk is given to show (the Agent leaves pending-user-action). */
const DISK_REBOOT_WAIT_MS = 5 * 60_000;
/** The host state of an Agent whose host waits for someone to fix its boot. */
const PENDING_USER_ACTION = 'installing-pending-user-action';
/** The install stage of a host whose installer rebooted it into the disk. */
const REBOOTING_STAGE = 'Rebooting';

/** What a BMC operation reports back. */
interface OperationValue {
  readonly poweredOn?: boolean;
  /** Provision: whether this run powered the host on (false when it found it booted). */
  readonly booted?: boolean;
}

interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** Creates the controller of BareMetalHosts in redfish mode. */
export function createRedfishHostController(
  options: RedfishHostControllerOptions,
): RedfishHostController {
  const clients = options.clients ?? undiciRedfishClients;
  const vendors = new Map<string, string>();
  /** Aborted by `stop()`: operations let go of their BMC at once. */
  const shutdown = new AbortController();
  // Every running BMC operation listens to it.
  setMaxListeners(0, shutdown.signal);
  const requests = new Map<string, Request>();
  /** The image whose one-time disk boot was set (or tried), per host: asked once per image. */
  const diskBoots = new Map<string, string>();
  /**
   * Hosts (BMH keys) that reported the image written, ahead of their Agent's status, with the
   * image they were booted from then: a signal never counts for a later install.
   */
  const writtenHosts = new Map<string, string>();
  /** Reboots into the disk per host: of which image, how many, when the last one was asked. */
  const diskReboots = new Map<string, { image: string; attempts: number; at: number }>();
  const operations = new BmcOperations({
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    onFinished: (key) => {
      const request = requests.get(key);
      if (request) options.wake?.(request, false);
    },
  });
  const pollMs = options.pollMs ?? 10_000;
  const backoffBase = options.backoffBaseMs ?? 15_000;
  const backoffMax = options.backoffMaxMs ?? 900_000;

  /** The delay before retry after `errorCount` consecutive failures, jittered per host. */
  const backoffMs = (errorCount: number, key: string): number => {
    const exp = Math.min(backoffMax, backoffBase * 2 ** Math.max(0, errorCount - 1));
    return Math.round(exp * (1 - 0.25 * fraction(`${key}/${String(errorCount)}`)));
  };

  async function reconcile(request: Request, ctx: ReconcileContext): Promise<ReconcileResult> {
    const key = requestKey(request);
    const found = ctx.reader.get({ ...Gvk.BareMetalHost, ...request });
    if (!found) {
      operations.abort(key);
      operations.take(key);
      requests.delete(key);
      vendors.delete(key);
      diskBoots.delete(key);
      diskReboots.delete(key);
      writtenHosts.delete(key);
      return {};
    }
    requests.set(key, request);
    let bmh = found;
    const deleting = bmh.metadata['deletionTimestamp'] !== undefined;
    const finalizers = stringList(bmh.metadata['finalizers']);
    if (!finalizers.includes(Finalizer.RedfishHost)) {
      if (deleting) return {};
      // Before any BMC call: a host deleted from here on is powered off and ejected first.
      bmh = await ctx.writer.update({
        ...bmh,
        metadata: { ...bmh.metadata, finalizers: [...finalizers, Finalizer.RedfishHost] },
      });
    }
    const paused = annotation(bmh, BmhAnnotation.Paused);
    // Paused by the BMAC once it detached the installing host: only the reboot into the disk.
    if (paused === ASSISTED_OWNER_VALUE) return new HostPass(bmh, key, ctx).runPaused();
    if (paused !== undefined) return {};
    return new HostPass(bmh, key, ctx).run();
  }

  /** One reconcile pass of one host: works out the next status and at most one operation. */
  class HostPass {
    private status: BmhStatus;
    private readonly before: string;
    private operation:
      { kind: OperationKind; run: (signal: AbortSignal) => Promise<OperationValue> } | undefined;
    private requeueMs: number | undefined;
    private readonly events: { type: EventType; reason: string; message: string }[] = [];
    private readonly now: number;
    private released = false;

    constructor(
      private readonly bmh: KubeObject,
      private readonly key: string,
      private readonly ctx: ReconcileContext,
    ) {
      this.status = readStatus(bmh);
      this.before = JSON.stringify(toStatusObject(this.status));
      this.now = ctx.clock.now();
    }

    async run(): Promise<ReconcileResult> {
      // Taken only once the status that records it is written (commit): a pass whose write
      // fails (a conflict) leaves it for the next one, which would otherwise redo the work.
      const finished = operations.finishedOf(this.key);
      const state = this.status.provisioning.state;
      if (finished) this.apply(finished);
      // One transition per pass, as BMO does: `available` shows before `provisioning`.
      const moved = this.status.provisioning.state !== state;
      if (!moved && operations.pending(this.key) === undefined) await this.decide();
      else if (this.deleting() && !DELETION_OPERATIONS.has(operations.pending(this.key) ?? '')) {
        // Deletion wins over a boot in flight; the deprovision starts once it has stopped.
        operations.abort(this.key);
      }
      await this.commit();
      if (this.released) return {};
      if (operations.pending(this.key) !== undefined) return { requeueAfterMs: pollMs };
      return this.requeueMs === undefined ? {} : { requeueAfterMs: this.requeueMs };
    }

    /**
     * A pass over a host the BMAC paused after detaching it (the BMC is not managed, the status
     * is frozen): it may only reboot the host into its disk, and takes only that outcome.
     */
    async runPaused(): Promise<ReconcileResult> {
      const finished = operations.finishedOf(this.key);
      if (finished !== undefined && finished.kind !== 'reboot-disk') return {};
      if (finished) this.diskRebooted(finished);
      else if (operations.pending(this.key) === undefined && this.mayRebootIntoDisk())
        await this.startDiskReboot(this.status.provisioning.image?.url ?? '');
      this.status = readStatus(this.bmh);
      await this.commit();
      if (operations.pending(this.key) !== undefined) return { requeueAfterMs: pollMs };
      return this.requeueMs === undefined ? {} : { requeueAfterMs: this.requeueMs };
    }

    // ---- outcomes of finished operations -------------------------------------------------

    private apply(finished: FinishedOperation): void {
      const kind = finished.kind as OperationKind;
      if (kind === 'boot-disk') {
        this.diskBootSet(finished);
        return;
      }
      if (kind === 'reboot-disk') {
        this.diskRebooted(finished);
        return;
      }
      const expected = this.expectedOperation();
      // An outcome for a state the host has left since (a boot overtaken by deletion) is moot.
      if (kind !== expected) return;
      if (!finished.outcome.ok) {
        this.fail(kind, finished.outcome.error);
        return;
      }
      const value = finished.outcome.value as OperationValue;
      switch (kind) {
        case 'register':
          this.status = withoutError(
            withState(this.status, ProvisioningState.Available, this.time()),
          );
          this.status = { ...this.status, poweredOn: value.poweredOn ?? this.status.poweredOn };
          this.event(EventType.Normal, 'BMCAccessValidated', 'Verified access to BMC');
          return;
        case 'provision': {
          const image = this.status.lastAttemptedImage;
          this.status = withoutError(
            withState(this.status, ProvisioningState.Provisioned, this.time()),
          );
          this.status = {
            ...this.status,
            poweredOn: true,
            provisioningFailCount: 0,
            provisioning: { ...this.status.provisioning, ...(image ? { image } : {}) },
          };
          this.event(
            EventType.Normal,
            'ProvisioningComplete',
            value.booted === false
              ? 'Image provisioning completed: the host was found booted from its image'
              : 'Image provisioning completed: the host is booting its image from virtual media',
          );
          return;
        }
        case 'deprovision': {
          const next = this.deleting()
            ? ProvisioningState.PoweringOffBeforeDelete
            : ProvisioningState.Available;
          this.status = withoutError(withState(this.status, next, this.time()));
          const provisioning = { ...this.status.provisioning };
          delete provisioning.image;
          this.status = {
            ...this.status,
            poweredOn: false,
            provisioning,
          };
          this.event(EventType.Normal, 'DeprovisioningComplete', 'Image deprovisioning completed');
          return;
        }
        case 'power-off-before-delete':
          this.status = withoutError(
            withState(this.status, ProvisioningState.Deleting, this.time()),
          );
          this.status = { ...this.status, poweredOn: false };
          return;
        case 'power':
          this.status = { ...withoutError(this.status), poweredOn: value.poweredOn ?? false };
          this.event(
            EventType.Normal,
            value.poweredOn === true ? 'PowerOn' : 'PowerOff',
            value.poweredOn === true ? 'Host powered on' : 'Host powered off',
          );
          return;
        case 'detach':
          this.status = withoutError(this.status, OperationalStatus.Detached);
          this.event(
            EventType.Normal,
            'Detached',
            'Virtual media ejected; power is no longer managed',
          );
          return;
      }
    }

    private fail(kind: OperationKind, error: unknown): void {
      const type =
        kind === 'register'
          ? ErrorType.Registration
          : kind === 'power' || kind === 'power-off-before-delete'
            ? ErrorType.PowerManagement
            : ErrorType.Provisioning;
      const message = this.scrub(`${FAILURE_PREFIX[kind]}: ${describeError(error)}`);
      this.status = withError(this.status, type, message);
      if (kind === 'provision')
        this.status = {
          ...this.status,
          provisioningFailCount: this.status.provisioningFailCount + 1,
        };
      this.event(EventType.Warning, ERROR_EVENT_REASON[type], message);
      this.ctx.log.warn(
        { operation: kind, errorType: type, errorCount: this.status.errorCount },
        message,
      );
    }

    // ---- what to do next -----------------------------------------------------------------

    private async decide(): Promise<void> {
      if (this.deleting()) {
        await this.decideDeletion();
        return;
      }
      if (this.handedOver() !== undefined) {
        await this.decideHandover();
        return;
      }
      if (this.status.operationalStatus === OperationalStatus.Detached)
        // The detached annotation is gone: manage the host again (BMO checkDetachedHost).
        this.status = {
          ...this.status,
          operationalStatus: this.status.errorType ? OperationalStatus.Error : OperationalStatus.OK,
        };

      const state = this.status.provisioning.state;
      switch (state) {
        case ProvisioningState.None:
        case ProvisioningState.Unmanaged:
          if (!this.hasBmcDetails()) {
            if (state === ProvisioningState.None) {
              this.status = withState(this.status, ProvisioningState.Unmanaged, this.time());
              this.status = { ...this.status, operationalStatus: OperationalStatus.Discovered };
              this.event(EventType.Normal, 'Discovered', 'Discovered host with no BMC details');
            }
            return;
          }
          this.status = withState(this.status, ProvisioningState.Registering, this.time());
          if (this.status.operationalStatus !== OperationalStatus.Error)
            this.status = { ...this.status, operationalStatus: OperationalStatus.OK };
          await this.startRegister();
          return;
        case ProvisioningState.Registering:
          await this.startRegister();
          return;
        case ProvisioningState.Available:
        case ProvisioningState.Ready: {
          const image = readImage(this.spec()['image']);
          if (image && this.spec()['online'] === true) {
            const credentials = await this.credentials();
            if (!credentials) return;
            // The intent, written before the BMC is touched.
            this.status = withState(this.status, ProvisioningState.Provisioning, this.time());
            this.status = {
              ...this.status,
              lastAttemptedImage: image,
              provisioning: { ...this.status.provisioning, bootMode: this.specBootMode() },
            };
            this.event(EventType.Normal, 'ProvisioningStarted', 'Image provisioning started');
            this.startProvision(image, credentials);
            return;
          }
          await this.managePower();
          return;
        }
        case ProvisioningState.Provisioning: {
          const image = this.status.lastAttemptedImage;
          if (!image || this.imageChanged(image)) {
            await this.startDeprovisioning();
            return;
          }
          if (this.waitingForRetry()) return;
          const credentials = await this.credentials();
          if (credentials) this.startProvision(image, credentials);
          return;
        }
        case ProvisioningState.Provisioned: {
          const image = this.status.provisioning.image;
          if (!image || this.imageChanged(image)) {
            await this.startDeprovisioning();
            return;
          }
          if (this.imageWritten() && diskBoots.get(this.key) !== image.url) {
            await this.startDiskBoot();
            return;
          }
          await this.managePower();
          return;
        }
        case ProvisioningState.Deprovisioning:
          await this.startDeprovision();
          return;
        case ProvisioningState.PoweringOffBeforeDelete:
        case ProvisioningState.Deleting:
          // Only reached by deletion; a host seen here without it was deleted and recreated.
          this.status = withState(this.status, ProvisioningState.Registering, this.time());
          return;
      }
    }

    private async decideDeletion(): Promise<void> {
      if (delayedDelete(this.bmh)) return;
      const state = this.status.provisioning.state;
      const skipBmc =
        this.handedOver() !== undefined ||
        this.status.operationalStatus === OperationalStatus.Detached ||
        state === ProvisioningState.None ||
        state === ProvisioningState.Unmanaged ||
        state === ProvisioningState.Registering ||
        (this.status.errorCount > DELETE_GIVE_UP_AFTER && state !== ProvisioningState.Deleting);
      if (skipBmc && state !== ProvisioningState.Deleting) {
        if (this.status.errorCount > DELETE_GIVE_UP_AFTER)
          this.event(
            EventType.Warning,
            'DeletingWithoutBMC',
            `Giving up on the BMC after ${String(this.status.errorCount)} failures; the host may still be powered on with media inserted`,
          );
        this.status = withState(this.status, ProvisioningState.Deleting, this.time());
      }
      switch (this.status.provisioning.state) {
        case ProvisioningState.Provisioning:
        case ProvisioningState.Provisioned:
          await this.startDeprovisioning();
          return;
        case ProvisioningState.Deprovisioning:
          await this.startDeprovision();
          return;
        case ProvisioningState.Available:
        case ProvisioningState.Ready:
          this.status = withState(
            this.status,
            ProvisioningState.PoweringOffBeforeDelete,
            this.time(),
          );
          await this.startPowerOffBeforeDelete();
          return;
        case ProvisioningState.PoweringOffBeforeDelete:
          await this.startPowerOffBeforeDelete();
          return;
        case ProvisioningState.None:
        case ProvisioningState.Unmanaged:
        case ProvisioningState.Registering:
        case ProvisioningState.Deleting:
          this.skipToDeleting();
          return;
      }
    }

    private async decideHandover(): Promise<void> {
      if (this.status.operationalStatus === OperationalStatus.Detached) {
        if (this.mayRebootIntoDisk())
          await this.startDiskReboot(this.status.provisioning.image?.url ?? '');
        return;
      }
      const state = this.status.provisioning.state;
      if (state === ProvisioningState.Provisioning && this.handedOver() === 'agent') {
        // The Agent rebooted into the installed system: the boot happened.
        const image = this.status.lastAttemptedImage;
        this.status = withState(this.status, ProvisioningState.Provisioned, this.time());
        this.status = {
          ...this.status,
          poweredOn: true,
          provisioning: { ...this.status.provisioning, ...(image ? { image } : {}) },
        };
      }
      const mediaOurs =
        this.status.provisioning.state === ProvisioningState.Provisioning ||
        this.status.provisioning.state === ProvisioningState.Provisioned ||
        this.status.provisioning.state === ProvisioningState.Deprovisioning;
      if (!mediaOurs) {
        this.status = withoutError(this.status, OperationalStatus.Detached);
        return;
      }
      if (this.waitingForRetry()) return;
      const credentials = await this.credentials();
      if (!credentials) return;
      this.startOperation('detach', credentials, async (client) => {
        await client.ejectMedia();
        return {};
      });
    }

    /**
     * The installer wrote the installed system to the disk: the next boot, the installer's own
     * reboot, is set to the disk once (as the installer sets the UEFI boot order), so a host
     * whose firmware lists virtual media first boots its disk even if the media is ejected late.
     */
    private async startDiskBoot(): Promise<void> {
      const credentials = await this.credentials();
      if (!credentials) return;
      this.startOperation('boot-disk', credentials, async (client) => {
        await client.setBootOverride({ target: 'Hdd', enabled: 'Once' });
        return {};
      });
    }

    /** The outcome of the one-time disk boot: an event; a failure leaves it to the eject. */
    private diskBootSet(finished: FinishedOperation): void {
      const image = this.status.provisioning.image;
      if (image) diskBoots.set(this.key, image.url);
      writtenHosts.delete(this.key);
      if (finished.outcome.ok) {
        this.event(
          EventType.Normal,
          'DiskBootSet',
          'The image is on the disk: the next boot is from the disk (one-time boot override)',
        );
        return;
      }
      const message = this.scrub(
        `${FAILURE_PREFIX['boot-disk']}: ${describeError(finished.outcome.error)}`,
      );
      this.event(EventType.Warning, 'DiskBootFailed', message);
      this.ctx.log.warn({ operation: 'boot-disk' }, message);
    }

    /**
     * Reboots the host into its disk: power off, one-time disk boot, power on (the override
     * is set while the host is off, as some firmware clears it on a power change). At most
     * {@link DISK_REBOOT_ATTEMPTS} times per image, {@link DISK_REBOOT_WAIT_MS} apart.
     */
    private async startDiskReboot(image: string): Promise<void> {
      const last = diskReboots.get(this.key);
      const attempts = last?.image === image ? last.attempts : 0;
      if (attempts >= DISK_REBOOT_ATTEMPTS) return;
      if (last?.image === image && this.now - last.at < DISK_REBOOT_WAIT_MS) {
        this.requeueMs = last.at + DISK_REBOOT_WAIT_MS - this.now;
        return;
      }
      const credentials = await this.credentials();
      if (!credentials) return;
      const attempt = attempts + 1;
      diskReboots.set(this.key, { image, attempts: attempt, at: this.now });
      this.event(
        EventType.Warning,
        'DiskBootRetried',
        `The host booted the installation image again instead of its disk: rebooting it from the disk (one-time boot override), attempt ${String(attempt)} of ${String(DISK_REBOOT_ATTEMPTS)}`,
      );
      this.startOperation('reboot-disk', credentials, async (client) => {
        await client.setPower('ForceOff');
        await client.setBootOverride({ target: 'Hdd', enabled: 'Once' });
        await client.setPower('On');
        return {};
      });
    }

    /**
     * Whether the host, handed over for its install (by the Agent's stage or the BMAC's detach,
     * never by a user's annotation), booted the installation image again and should be on.
     */
    private mayRebootIntoDisk(): boolean {
      const detached = annotation(this.bmh, BmhAnnotation.Detached);
      return (
        this.status.operationalStatus === OperationalStatus.Detached &&
        (detached === undefined || detached === ASSISTED_OWNER_VALUE) &&
        this.spec()['online'] === true &&
        this.bootedImageAgain()
      );
    }

    /**
     * The outcome of a reboot into the disk: the wait for it to show starts now. The status is
     * left alone (the host is detached: its power is no longer recorded).
     */
    private diskRebooted(finished: FinishedOperation): void {
      const last = diskReboots.get(this.key);
      if (last) diskReboots.set(this.key, { ...last, at: this.now });
      if (finished.outcome.ok) return;
      const message = this.scrub(
        `${FAILURE_PREFIX['reboot-disk']}: ${describeError(finished.outcome.error)}`,
      );
      this.event(EventType.Warning, 'DiskBootFailed', message);
      this.ctx.log.warn({ operation: 'reboot-disk' }, message);
    }

    /**
     * Whether the paired Agent's host booted the installation image again after its installer
     * rebooted it: the assisted service holds it in installing-pending-user-action at the
     * `Rebooting` stage (the wrong boot order, or a reboot that never came back).
     */
    private bootedImageAgain(): boolean {
      const agent = pairedAgent(this.bmh, this.ctx.reader);
      const status = record(agent?.['status']);
      return (
        record(status['debugInfo'])['state'] === PENDING_USER_ACTION &&
        record(status['progress'])['currentStage'] === REBOOTING_STAGE
      );
    }

    /** Whether the paired Agent's install is past writing the image to the disk. */
    private imageWritten(): boolean {
      const signalled = writtenHosts.get(this.key);
      if (signalled !== undefined && signalled === this.status.provisioning.image?.url) return true;
      const agent = pairedAgent(this.bmh, this.ctx.reader);
      const progress = record(record(agent?.['status'])['progress']);
      const stages = progress['progressStages'];
      const stage = progress['currentStage'];
      if (!Array.isArray(stages) || typeof stage !== 'string') return false;
      const written = stages.indexOf(IMAGE_WRITTEN_AFTER);
      return written !== -1 && stages.indexOf(stage) > written;
    }

    // ---- operations ----------------------------------------------------------------------

    private async startRegister(): Promise<void> {
      if (this.waitingForRetry()) return;
      const credentials = await this.credentials();
      if (!credentials) return;
      this.startOperation('register', credentials, async (client) => {
        await client.discover();
        const system = await client.getSystem();
        return { poweredOn: isOn(system.powerState) };
      });
    }

    private startProvision(image: BmhImage, credentials: Credentials): void {
      const bootMode = this.bootMode();
      const writer = this.ctx.writer;
      const { name, namespace } = this.bmh.metadata;
      const ref = { ...Gvk.BareMetalHost, name, ...(namespace === undefined ? {} : { namespace }) };
      // Where an earlier run got to is read from the server, never the cache: a cache behind
      // this process's own checkpoints (a busy watch) would show a finished boot as unfinished,
      // and the host would be power-cycled again. The checkpoints then start from what was read
      // and each one's answer, so they need no further read unless someone else writes.
      let recorded: BootStep | undefined;
      let known: KubeObject | undefined;
      const checkpoint = async (progress: BootProgress): Promise<void> => {
        // Only the writes that change how a crashed boot resumes; the others cost requests.
        if (!changesResume(recorded, progress.step)) return;
        known = await writeStep(writer, ref, image.url, progress.step, known);
        recorded = progress.step;
      };
      this.startOperation('provision', credentials, async (client) => {
        known = await writer.getLive(ref);
        if (!known) throw new Error(`${name} is gone`);
        recorded = recordedStep(known, image.url);
        const target = await client.discover();
        const ours = target.slots.find(
          (slot) =>
            slot.inserted &&
            slot.image !== undefined &&
            options.images.isShortUrlOf(slot.image, image.url),
        );
        if (ours?.image !== undefined) {
          // An earlier run got this far: finish without a second power cycle.
          const on = isOn(target.system.powerState);
          const step = resumeAt(recordedStep(known, image.url), on);
          if (step === 'done') return { booted: false, poweredOn: on };
          await bootFromIso(client, ours.image, {
            bootMode,
            progress: { imageUrl: ours.image, step },
            checkpoint,
          });
          return { booted: true, poweredOn: true };
        }
        const shortUrl = await options.images.shortUrlFor(image.url);
        await bootFromIso(client, shortUrl, { bootMode, checkpoint });
        return { booted: true, poweredOn: true };
      });
    }

    private async startDeprovisioning(): Promise<void> {
      this.status = withState(this.status, ProvisioningState.Deprovisioning, this.time());
      this.event(EventType.Normal, 'DeprovisioningStarted', 'Image deprovisioning started');
      await this.startDeprovision();
    }

    private async startDeprovision(): Promise<void> {
      if (this.waitingForRetry()) return;
      const credentials = await this.credentials();
      if (!credentials) {
        if (this.deleting()) this.skipToDeleting();
        return;
      }
      const powerOff = this.spec()['disablePowerOff'] !== true;
      this.startOperation('deprovision', credentials, async (client) => {
        // Ironic powers off before the eject (bug 2160374).
        if (powerOff) await client.setPower('ForceOff');
        await client.ejectMedia();
        return { poweredOn: !powerOff };
      });
    }

    private async startPowerOffBeforeDelete(): Promise<void> {
      if (this.spec()['disablePowerOff'] === true) {
        this.skipToDeleting();
        return;
      }
      if (this.waitingForRetry()) return;
      const credentials = await this.credentials();
      if (!credentials) {
        this.skipToDeleting();
        return;
      }
      this.startOperation('power-off-before-delete', credentials, async (client) => {
        await client.setPower('ForceOff');
        await client.ejectMedia();
        return { poweredOn: false };
      });
    }

    private skipToDeleting(): void {
      this.status = withState(this.status, ProvisioningState.Deleting, this.time());
      this.released = true;
    }

    /** BMO's steady-state power management: `spec.online` wins, once the host is registered. */
    private async managePower(): Promise<void> {
      const online = this.spec()['online'] === true;
      const state = this.status.provisioning.state;
      const wantOff = !online && this.status.poweredOn;
      // An available host has nothing to boot, so only a provisioned one is powered on.
      const wantOn = online && !this.status.poweredOn && state === ProvisioningState.Provisioned;
      if (!wantOff && !wantOn) {
        if (this.status.errorType === ErrorType.PowerManagement)
          this.status = withoutError(this.status);
        return;
      }
      if (this.waitingForRetry()) return;
      const credentials = await this.credentials();
      if (!credentials) return;
      this.startOperation('power', credentials, async (client) => {
        const power = await client.setPower(wantOn ? 'On' : 'ForceOff');
        return { poweredOn: isOn(power) };
      });
    }

    private startOperation(
      kind: OperationKind,
      credentials: Credentials,
      body: (client: RedfishClient) => Promise<OperationValue>,
    ): void {
      const bmc = this.spec()['bmc'] as Record<string, unknown>;
      const key = this.key;
      const address = String(bmc['address']);
      const disableCertificateVerification = bmc['disableCertificateVerification'] === true;
      const metric = options.redfishCall;
      const log = this.ctx.log;
      const stopSignal = this.ctx.signal;
      this.operation = {
        kind,
        run: async (signal) => {
          const client = clients({
            address,
            credentials,
            disableCertificateVerification,
            onExchange: (exchange) =>
              metric?.(
                vendors.get(key) ?? 'unknown',
                exchange.status === undefined
                  ? 'transport_error'
                  : exchange.status >= 400
                    ? 'http_error'
                    : 'success',
              ),
          });
          // Cancelled (the host was deleted): stop before the next request, but let the one in
          // flight end, so nothing of this operation lands after the next one's requests.
          const cancelled = new AbortController();
          // Shutting down: let go at once; the request in flight ends by its own timeout.
          const stopping = new AbortController();
          const cancel = (): void => {
            cancelled.abort(new Error('BMC operation cancelled'));
          };
          const stop = (): void => {
            cancel();
            stopping.abort(new Error('BMC operation abandoned: the controller stops'));
          };
          signal.addEventListener('abort', cancel, { once: true });
          stopSignal.addEventListener('abort', stop, { once: true });
          shutdown.signal.addEventListener('abort', stop, { once: true });
          if (stopSignal.aborted || shutdown.signal.aborted) stop();
          try {
            const guarded = guard(
              wrapDiscover(client, (vendor) => vendors.set(key, vendor)),
              cancelled.signal,
            );
            const value = await untilAborted(body(guarded), stopping.signal);
            log.debug({ operation: kind }, 'BMC operation done');
            return value;
          } catch (error) {
            // Firmware quotes request values back; none of the credentials leave this closure.
            throw new Error(
              scrub(describeError(error), [credentials.username, credentials.password]),
            );
          } finally {
            signal.removeEventListener('abort', cancel);
            stopSignal.removeEventListener('abort', stop);
            shutdown.signal.removeEventListener('abort', stop);
            const closing = client.close().catch(() => undefined);
            if (!stopping.signal.aborted) await closing;
          }
        },
      };
    }

    // ---- inputs --------------------------------------------------------------------------

    /**
     * The BMC credentials from the Secret `spec.bmc.credentialsName` names, or `undefined`
     * after recording a registration error as BMO words it.
     */
    private async credentials(): Promise<Credentials | undefined> {
      const bmc = record(this.spec()['bmc']);
      const address = bmc['address'];
      const name = bmc['credentialsName'];
      if (typeof address !== 'string' || address === '') {
        this.refuse("Missing BMC connection detail 'Address'", BAD_CREDENTIALS_RETRY_MS);
        return;
      }
      if (typeof name !== 'string' || name === '') {
        this.refuse('The BMC secret reference is empty', BAD_CREDENTIALS_RETRY_MS);
        return;
      }
      const addressProblem = checkAddress(address);
      if (addressProblem !== undefined) {
        this.refuse(addressProblem, BAD_CREDENTIALS_RETRY_MS);
        return;
      }
      const namespace = this.bmh.metadata.namespace;
      const secret = await readWatchedSecret(this.ctx.reader, this.ctx.writer, {
        name,
        ...(namespace === undefined ? {} : { namespace }),
      });
      if (!secret) {
        this.refuse(
          `The BMC secret ${namespace ?? ''}/${name} does not exist`,
          MISSING_SECRET_RETRY_MS,
        );
        return;
      }
      const data = record(secret['data']);
      // Trimmed as BMO does: `echo pw | base64` leaves a newline.
      const username = decode(data['username']).trim();
      const password = decode(data['password']).trim();
      if (username === '') {
        this.refuse(
          "Missing BMC connection detail 'username' in credentials",
          BAD_CREDENTIALS_RETRY_MS,
        );
        return;
      }
      if (password === '') {
        this.refuse(
          "Missing BMC connection details 'password' in credentials",
          BAD_CREDENTIALS_RETRY_MS,
        );
        return;
      }
      this.secrets = [username, password];
      return { username, password };
    }

    private secrets: string[] = [];

    /** Records a registration error about the Secret or address (once) and gives nothing. */
    private refuse(message: string, retryMs: number): void {
      this.requeueMs = retryMs;
      const repeated =
        this.status.errorType === ErrorType.Registration && this.status.errorMessage === message;
      if (!repeated) {
        this.status = withError(this.status, ErrorType.Registration, message);
        this.event(EventType.Warning, 'BMCCredentialError', message);
      }
    }

    /** `detached` or `agent` when the host is no longer ours to power, else `undefined`. */
    private handedOver(): 'detached' | 'agent' | undefined {
      if (annotation(this.bmh, BmhAnnotation.Detached) !== undefined) return 'detached';
      const agent = pairedAgent(this.bmh, this.ctx.reader);
      const stage = record(record(agent?.['status'])['progress'])['currentStage'];
      return typeof stage === 'string' && REBOOTED_STAGES.includes(stage) ? 'agent' : undefined;
    }

    /** The operation whose outcome the current state waits for. */
    private expectedOperation(): OperationKind | undefined {
      if (
        this.status.operationalStatus !== OperationalStatus.Detached &&
        this.handedOver() !== undefined &&
        !this.deleting()
      )
        return 'detach';
      switch (this.status.provisioning.state) {
        case ProvisioningState.Registering:
          return 'register';
        case ProvisioningState.Provisioning:
          return 'provision';
        case ProvisioningState.Deprovisioning:
          return 'deprovision';
        case ProvisioningState.PoweringOffBeforeDelete:
          return 'power-off-before-delete';
        case ProvisioningState.Available:
        case ProvisioningState.Ready:
        case ProvisioningState.Provisioned:
          return 'power';
        case ProvisioningState.None:
        case ProvisioningState.Unmanaged:
        case ProvisioningState.Deleting:
          return undefined;
      }
    }

    /** Whether the last failure's backoff still runs; if so, asks to be requeued at its end. */
    private waitingForRetry(): boolean {
      if (this.status.errorType === undefined || this.status.errorCount === 0) return false;
      if (CREDENTIAL_ERRORS.some((prefix) => this.status.errorMessage.startsWith(prefix)))
        return false;
      const since = Date.parse(this.status.lastUpdated ?? '');
      if (Number.isNaN(since)) return false;
      const due = since + backoffMs(this.status.errorCount, this.key);
      if (this.now >= due) return false;
      this.requeueMs = due - this.now;
      return true;
    }

    private imageChanged(image: BmhImage): boolean {
      const wanted = readImage(this.spec()['image']);
      return wanted?.url !== image.url;
    }

    private hasBmcDetails(): boolean {
      const bmc = record(this.spec()['bmc']);
      return nonEmpty(bmc['address']) || nonEmpty(bmc['credentialsName']);
    }

    /** `spec.bootMode` as the status records it (BMO's spelling, UEFI by default). */
    private specBootMode(): string {
      const mode = this.spec()['bootMode'];
      return mode === 'legacy' || mode === 'UEFISecureBoot' ? mode : 'UEFI';
    }

    /** The firmware boot mode to set: secure boot is a UEFI boot. */
    private bootMode(): BootMode {
      return this.specBootMode() === 'legacy' ? 'Legacy' : 'UEFI';
    }

    private spec(): Record<string, unknown> {
      return record(this.bmh['spec']);
    }

    private deleting(): boolean {
      return this.bmh.metadata['deletionTimestamp'] !== undefined;
    }

    private time(): string {
      return new Date(Math.floor(this.now / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    }

    private event(type: EventType, reason: string, message: string): void {
      this.events.push({ type, reason, message: this.scrub(message) });
    }

    /** Removes the BMC credentials from text that goes to status, events and logs. */
    private scrub(text: string): string {
      return scrub(text, this.secrets);
    }

    // ---- writing -------------------------------------------------------------------------

    /**
     * Writes the status if it changed, then starts the operation: what an operation is for is
     * on the API server before the BMC hears of it. Then the finalizer, if the host is done.
     */
    private async commit(): Promise<void> {
      let bmh = this.bmh;
      if (JSON.stringify(toStatusObject(this.status)) !== this.before) {
        this.status = { ...this.status, lastUpdated: this.time() };
        bmh = await this.ctx.writer.updateStatus({ ...bmh, status: toStatusObject(this.status) });
      }
      operations.take(this.key);
      for (const e of this.events) this.ctx.events.event(bmh, e.type, e.reason, e.message);
      if (this.operation) {
        const { kind, run } = this.operation;
        operations.start(this.key, kind, run, URGENT_OPERATIONS.has(kind));
        this.ctx.log.info(
          { operation: kind, state: this.status.provisioning.state },
          'BMC operation started',
        );
      }
      if (this.released) {
        const finalizers = stringList(bmh.metadata['finalizers']).filter(
          (f) => f !== Finalizer.RedfishHost,
        );
        await this.ctx.writer.update({ ...bmh, metadata: { ...bmh.metadata, finalizers } });
        vendors.delete(this.key);
        this.ctx.log.info('finalizer released');
      }
    }
  }

  return {
    name: 'redfish-host',
    for: Gvk.BareMetalHost,
    watches: [
      {
        gvk: Gvk.Agent,
        map: (agent, reader) => bmhsOfAgent(agent, reader),
      },
      // New BMC credentials: a host refused for its Secret is looked at again at once.
      watchedSecrets((secret, reader) =>
        reader
          .list(
            Gvk.BareMetalHost,
            secret.metadata.namespace === undefined ? {} : { namespace: secret.metadata.namespace },
          )
          .filter(
            (bmh) => record(record(bmh['spec'])['bmc'])['credentialsName'] === secret.metadata.name,
          )
          .map(requestOf),
      ),
    ],
    reconcile,
    operations,
    imageWritten: (agent, reader) => {
      const found = reader.get({ ...Gvk.Agent, ...agent });
      if (!found) return;
      for (const bmh of bmhsOfAgent(found, reader)) {
        const host = reader.get({ ...Gvk.BareMetalHost, ...bmh });
        const image = host === undefined ? undefined : readStatus(host).provisioning.image?.url;
        if (image === undefined) continue;
        writtenHosts.set(requestKey(bmh), image);
        options.wake?.(bmh, true);
      }
    },
    stop: () => {
      shutdown.abort();
      return operations.stop();
    },
  };
}

const FAILURE_PREFIX: Readonly<Record<OperationKind, string>> = {
  register: 'Failed to reach the BMC',
  provision: 'Failed to boot the host from virtual media',
  deprovision: 'Failed to power off the host and eject its virtual media',
  'power-off-before-delete': 'Failed to power off the host before deletion',
  power: 'Failed to change the power state of the host',
  detach: 'Failed to eject the virtual media of the detached host',
  'boot-disk': 'Failed to set the one-time boot from the disk',
  'reboot-disk': 'Failed to reboot the host from its disk',
};

/** The Agent paired with a BMH: by the Agent's `agent-install.openshift.io/bmh` label, else MAC. */
export function pairedAgent(bmh: KubeObject, reader: ObjectReader): KubeObject | undefined {
  const namespace = bmh.metadata.namespace;
  const scope = namespace === undefined ? {} : { namespace };
  const labelled = reader.list(Gvk.Agent, {
    ...scope,
    labels: { [Label.AgentBmh]: bmh.metadata.name },
  });
  if (labelled.length > 0) return newest(labelled);
  const mac = record(bmh['spec'])['bootMACAddress'];
  if (typeof mac !== 'string' || mac === '') return undefined;
  return newest(
    reader.list(Gvk.Agent, scope).filter((agent) => agentMacs(agent).includes(mac.toLowerCase())),
  );
}

/** The BMHs an Agent's change concerns. */
function bmhsOfAgent(agent: KubeObject, reader: ObjectReader): Request[] {
  const namespace = agent.metadata.namespace;
  const name = agent.metadata.labels?.[Label.AgentBmh];
  if (name !== undefined) return [namespace === undefined ? { name } : { namespace, name }];
  const macs = agentMacs(agent);
  return reader
    .list(Gvk.BareMetalHost, namespace === undefined ? {} : { namespace })
    .filter((bmh) => {
      const mac = record(bmh['spec'])['bootMACAddress'];
      return typeof mac === 'string' && macs.includes(mac.toLowerCase());
    })
    .map(requestOf);
}

function agentMacs(agent: KubeObject): string[] {
  const interfaces = record(record(agent['status'])['inventory'])['interfaces'];
  if (!Array.isArray(interfaces)) return [];
  return interfaces
    .map((i) => record(i)['macAddress'])
    .filter((m): m is string => typeof m === 'string' && m !== '')
    .map((m) => m.toLowerCase());
}

function newest(objects: readonly KubeObject[]): KubeObject | undefined {
  const created = (o: KubeObject): string => {
    const at = o.metadata['creationTimestamp'];
    return typeof at === 'string' ? at : '';
  };
  return [...objects].sort((a, b) => created(b).localeCompare(created(a)))[0];
}

/**
 * The client with every call refused once `signal` fires: an aborted workflow stops before its
 * next BMC request, so nothing happens to the host after the abort but the request in flight.
 */
function guard(client: RedfishClient, signal: AbortSignal): RedfishClient {
  const checked =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (signal.aborted) return Promise.reject(signal.reason as Error);
      return fn(...args);
    };
  return {
    discover: checked(() => client.discover()),
    getSystem: checked(() => client.getSystem()),
    getMediaSlots: checked(() => client.getMediaSlots()),
    setPower: checked((action, opts) => client.setPower(action, opts)),
    ejectMedia: checked(() => client.ejectMedia()),
    insertMedia: checked((url) => client.insertMedia(url)),
    setBootMode: checked((mode) => client.setBootMode(mode)),
    setBootOverride: checked((request) => client.setBootOverride(request)),
    close: () => client.close(),
  };
}

/** `work`, or a rejection as soon as `signal` fires (the work is left to fail on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** Records the vendor when `discover` learns it, for the metric label. */
function wrapDiscover(client: RedfishClient, learned: (vendor: string) => void): RedfishClient {
  return {
    discover: async () => {
      const target = await client.discover();
      learned((target.vendor ?? target.system.manufacturer ?? 'unknown').toLowerCase());
      return target;
    },
    getSystem: () => client.getSystem(),
    getMediaSlots: () => client.getMediaSlots(),
    setPower: (action, opts) => client.setPower(action, opts),
    ejectMedia: () => client.ejectMedia(),
    insertMedia: (url) => client.insertMedia(url),
    setBootMode: (mode) => client.setBootMode(mode),
    setBootOverride: (request) => client.setBootOverride(request),
    close: () => client.close(),
  };
}

/** Why `address` cannot be driven over Redfish, or `undefined`. */
function checkAddress(address: string): string | undefined {
  try {
    parseRedfishAddress(address);
    return undefined;
  } catch (error) {
    return `Invalid BMC address: ${describeError(error)}`;
  }
}

/** Registration errors about the Secret or address: fixed by an edit, not by waiting. */
const CREDENTIAL_ERRORS = ['Missing BMC connection', 'The BMC secret', 'Invalid BMC address'];

/** `text` with each of `secrets` replaced, longest first, and cut to a readable length. */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}…` : text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    if (secret.length > 0) out = out.split(secret).join('<redacted>');
  return out;
}

/**
 * Whether the detached annotation asks to keep the host while it stays detached
 * (`{"deleteAction":"delay"}`, BMO delayDeleteForDetachedHost).
 */
function delayedDelete(bmh: KubeObject): boolean {
  const value = annotation(bmh, BmhAnnotation.Detached);
  if (!value?.trimStart().startsWith('{')) return false;
  try {
    return record(JSON.parse(value))['deleteAction'] === 'delay';
  } catch {
    return false;
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function isOn(power: string | undefined): boolean {
  return power === 'On' || power === 'PoweringOn';
}

function annotation(object: KubeObject, key: string): string | undefined {
  return object.metadata.annotations?.[key];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

function decode(value: unknown): string {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

/** A stable number in [0, 1) from `text` (FNV-1a), for jitter that repeats run to run. */
function fraction(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 2 ** 32;
}
