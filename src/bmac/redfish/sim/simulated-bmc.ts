/**
 * A simulated BMC on loopback: a node:http (or https) server speaking enough Redfish to boot a
 * host from virtual media, with a vendor personality, injectable faults, and a record of what
 * the host was told. The host "boots" the ISO only when the media is inserted, the boot
 * override points at the CD and the power comes on; `onBoot` is where a fleet simulator hangs
 * its discovery agents.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { HttpListener } from '../../runtime/http-listener.js';
import type { Personality } from './personalities.js';

/** Faults a simulated BMC injects, on every request unless `paths` narrows them. */
export interface FaultConfig {
  /** Added to every response. @default 0 */
  readonly latencyMs?: number;
  /** Random extra latency up to this. @default 0 */
  readonly jitterMs?: number;
  /** Probability of a 5xx answer. @default 0 */
  readonly errorRate?: number;
  /** The 5xx status to answer. @default 503 */
  readonly errorStatus?: number;
  /** Probability of never answering (the client's timeout fires). @default 0 */
  readonly timeoutRate?: number;
  /** Probability of dropping the connection without an answer. @default 0 */
  readonly dropRate?: number;
  /** Tasks never finish. @default false */
  readonly stuckTasks?: boolean;
  /** Only requests whose path matches get the random faults. @default - all but the root */
  readonly paths?: RegExp;
  /** Only requests with these methods get the random faults. @default - every method */
  readonly methods?: readonly string[];
  /**
   * Error bodies quote the request's credentials back (a login's UserName and Password, the
   * Basic user and password, the X-Auth-Token), as firmware that puts request values in its
   * messages and MessageArgs does. @default false
   */
  readonly echoCredentials?: boolean;
}

/** A fault for the next matching requests, for tests that need it exactly. */
export interface ScriptedFault {
  readonly method?: string;
  readonly path?: RegExp;
  /** How many matching requests get it. */
  times: number;
  readonly action:
    | {
        readonly status: number;
        readonly body?: unknown;
        readonly headers?: Record<string, string>;
      }
    | 'drop'
    | 'hang';
}

/** What happened to the host, in order. */
export interface HostEvent {
  readonly at: number;
  readonly kind: 'power' | 'insert' | 'eject' | 'boot-override' | 'boot-mode' | 'boot';
  readonly detail: string;
}

/** A host boot, as reported to `onBoot`. */
export interface BootEvent {
  readonly bmc: SimulatedBmc;
  /** The ISO that booted, or `undefined` when the host booted from disk. */
  readonly imageUrl: string | undefined;
  /** The firmware's boot mode at that boot (`UEFI` or `Legacy`). */
  readonly mode: string;
}

/** Options of {@link startSimulatedBmc}. */
export interface SimulatedBmcOptions {
  readonly personality: Personality;
  /** @default { username: 'admin', password: 'password' } */
  readonly credentials?: { readonly username: string; readonly password: string };
  /** Serve HTTPS with this key and certificate. @default - HTTP */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  /** @default - no faults */
  readonly faults?: FaultConfig;
  /** Sessions expire this long after their last use. @default 30 min */
  readonly sessionTtlMs?: number;
  /** Initial power state. @default 'On' (a host running something else) */
  readonly power?: 'On' | 'Off';
  /** An image already in the CD slot at start. @default - empty */
  readonly insertedImage?: string;
  /**
   * The slot that holds `insertedImage`, any slot of the personality: one that takes no image
   * over Redfish holds what an operator mounted from the BMC's console.
   * @default - the first CD slot that takes images
   */
  readonly insertedSlot?: string;
  /** Called when the host boots. */
  readonly onBoot?: (event: BootEvent) => void;
  /** Called when the host loses power (whatever ran on it stops). */
  readonly onPowerOff?: (bmc: SimulatedBmc) => void;
  /**
   * The firmware's persistent boot order. `disk-first`: the virtual CD boots only through a
   * boot override. `cd-first`: an inserted, mounted virtual CD boots before the disk (firmware
   * that lists virtual media first), so a host boots its disk only once the media is ejected.
   * @default 'disk-first'
   */
  readonly bootOrder?: 'disk-first' | 'cd-first';
  /**
   * Boot modes in which the virtual CD boots (the ISO's bootloaders): a personality with a
   * BootSourceOverrideMode field boots it only in these. @default ['UEFI']
   */
  readonly cdBootModes?: readonly string[];
  /**
   * Read the image on insert, as a BMC mounting it does (the volume descriptor at 32 KiB, by
   * range), and refuse the insert when it cannot be read, like iDRAC's RAC0720.
   * @default false
   */
  readonly fetchImage?: boolean;
  /** @default Math.random; pass a seeded one for reproducible faults */
  readonly random?: () => number;
  /** Port to listen on. @default 0 (any) */
  readonly port?: number;
  /**
   * The simulator's time, for what it measures in time (BIOS jobs, the power-on conflict,
   * stale Inserted, sessions). Share a test's fake clock so its skipped waits count here too.
   * @default Date.now
   */
  readonly clock?: { readonly now: () => number };
}

interface SlotState {
  readonly spec: Personality['slots'][number];
  image: string | undefined;
  inserted: boolean;
  /** Dell: until then the slot still reads as inserted with this image. */
  staleUntil: number;
  staleImage: string | undefined;
  /** Until then an inserted image is still being mounted (ConnectedVia NotConnected). */
  mountedAt: number;
  transferProtocol: string | undefined;
  version: number;
}

interface SessionState {
  readonly id: string;
  readonly token: string;
  readonly userName: string;
  lastUsed: number;
}

interface BootState {
  target: string;
  enabled: string;
  mode: string;
}

/** A boot-mode change waiting for its BIOS job (Dell). */
interface PendingMode {
  readonly mode: string;
  /** When the job finishes; set when the host powers on. */
  appliesAt: number | undefined;
}

/** One simulated BMC. */
export interface SimulatedBmc {
  readonly personality: Personality;
  /** `redfish-virtualmedia+http(s)://127.0.0.1:PORT/redfish/v1/Systems/{id}` */
  readonly address: string;
  /** `http(s)://127.0.0.1:PORT` */
  readonly origin: string;
  readonly credentials: { readonly username: string; readonly password: string };
  readonly events: readonly HostEvent[];
  /** HTTP requests served (faulted ones included). */
  readonly requestCount: number;
  /** Requests by `METHOD path-pattern`, e.g. `POST InsertMedia`. */
  readonly counts: Readonly<Record<string, number>>;
  /** Current state as the host sees it. */
  state(): {
    power: string;
    slots: { id: string; image: string | undefined; inserted: boolean }[];
    boot: BootState;
    bootedImage: string | undefined;
  };
  /** Adds scripted faults. */
  script(...faults: ScriptedFault[]): void;
  /** Replaces the random faults. */
  setFaults(faults: FaultConfig | undefined): void;
  /** Ends every session at once (the BMC rebooted). */
  expireSessions(): void;
  /**
   * The host's own OS restarts the machine (`reboot` at the end of an install): power stays on
   * and the firmware picks the boot device again. Nothing happens while the power is off.
   */
  restartFromHost(): void;
  /** Stops the server and every timer. */
  stop(): Promise<void>;
}

const ROOT = '/redfish/v1';
const SESSIONS = `${ROOT}/SessionService/Sessions`;

/** Starts one simulated BMC on 127.0.0.1. */
export async function startSimulatedBmc(options: SimulatedBmcOptions): Promise<SimulatedBmc> {
  const sim = new Simulation(options);
  await sim.listen(options.port ?? 0);
  return sim;
}

class Simulation implements SimulatedBmc {
  readonly personality: Personality;
  readonly credentials: { readonly username: string; readonly password: string };
  readonly events: HostEvent[] = [];
  readonly counts: Record<string, number> = {};
  requestCount = 0;
  address = '';
  origin = '';
  private readonly server: Server;
  private readonly listener: HttpListener;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly random: () => number;
  private faults: FaultConfig | undefined;
  private scripted: ScriptedFault[] = [];
  /** Sessions by Id; the token is a secret of its holder, never shown in a resource. */
  private readonly sessions = new Map<string, SessionState>();
  /** Session Id by token. */
  private readonly tokens = new Map<string, string>();
  private nextId = 1;
  private readonly heads = new WeakSet<ServerResponse>();
  /** What an `echoCredentials` BMC quotes back in the error answering this request. */
  private readonly echoes = new WeakMap<ServerResponse, string[]>();
  private readonly tasks = new Map<string, { doneAt: number; result: () => Outcome }>();

  private power: string;
  private powerTransition: { to: 'On' | 'Off'; timer: NodeJS.Timeout } | undefined;
  private poweredOnAt = 0;
  private poweredOffAt = 0;
  private pendingMode: PendingMode | undefined;
  private systemVersion = 1;
  private readonly boot: BootState;
  private readonly slots: SlotState[];
  private bootedImage: string | undefined;

  private readonly systemPath: string;
  private readonly managerPath: string;
  private readonly mediaPath: string;

  constructor(private readonly options: SimulatedBmcOptions) {
    const p = options.personality;
    this.personality = p;
    this.credentials = options.credentials ?? { username: 'admin', password: 'password' };
    this.random = options.random ?? Math.random;
    this.faults = options.faults;
    this.power = options.power ?? 'On';
    this.boot = {
      // Supermicro must always get Enabled; start it at Once so a client that omits an
      // unchanged Enabled shows the quirk.
      target: 'None',
      enabled: p.requireBootEnabled ? 'Once' : 'Disabled',
      mode: 'Legacy',
    };
    this.slots = p.slots.map((spec) => ({
      spec,
      image: undefined,
      inserted: false,
      staleUntil: 0,
      staleImage: undefined,
      mountedAt: 0,
      transferProtocol: undefined,
      version: 1,
    }));
    if (options.insertedImage !== undefined) {
      const cd = this.slots.find((s) =>
        options.insertedSlot === undefined
          ? s.spec.mediaTypes.includes('CD') && s.spec.insertBy !== 'none'
          : s.spec.id === options.insertedSlot,
      );
      if (cd) {
        cd.image = options.insertedImage;
        cd.inserted = true;
        cd.mountedAt = this.now() + (p.mountMs ?? 0);
      }
    }
    this.systemPath = `${ROOT}/Systems/${p.systemId}`;
    this.managerPath = `${ROOT}/Managers/${p.managerId}`;
    this.mediaPath = `${p.virtualMedia === 'system' ? this.systemPath : this.managerPath}/VirtualMedia`;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) this.reply(res, 500, errorBody('InternalError', String(err)));
      });
    };
    this.server = options.tls
      ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
      : createHttpServer(handler);
    this.server.keepAliveTimeout = 30_000;
    this.listener = new HttpListener(this.server);
  }

  async listen(port: number): Promise<void> {
    await this.listener.listen(port, '127.0.0.1');
    const scheme = this.options.tls ? 'https' : 'http';
    this.origin = this.listener.origin(scheme);
    this.address = `redfish-virtualmedia+${this.origin}${this.systemPath}`;
  }

  state(): ReturnType<SimulatedBmc['state']> {
    this.applyPendingMode();
    return {
      power: this.power,
      slots: this.slots.map((s) => ({ id: s.spec.id, image: s.image, inserted: s.inserted })),
      boot: { ...this.boot },
      bootedImage: this.bootedImage,
    };
  }

  script(...faults: ScriptedFault[]): void {
    this.scripted.push(...faults);
  }

  setFaults(faults: FaultConfig | undefined): void {
    this.faults = faults;
  }

  expireSessions(): void {
    this.sessions.clear();
    this.tokens.clear();
  }

  restartFromHost(): void {
    if (this.power !== 'On') return;
    this.record('power', 'restart from host');
    this.bootHost();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.powerTransition) clearTimeout(this.powerTransition.timer);
    await this.listener.close();
  }

  // ---------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requestCount++;
    // HEAD is a GET without the body (reply() leaves it out).
    const head = req.method === 'HEAD';
    if (head) this.heads.add(res);
    const method = head ? 'GET' : (req.method ?? 'GET');
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    const raw = await readBody(req);
    const key = `${method} ${countKey(path)}`;
    this.counts[key] = (this.counts[key] ?? 0) + 1;

    if (this.faults?.echoCredentials) this.echoes.set(res, requestCredentials(req));
    if (await this.injectFault(req, res, method, path)) return;

    const odataVersion = req.headers['odata-version'];
    if (odataVersion !== undefined && odataVersion !== '4.0') {
      this.reply(res, 412, errorBody('Base.1.8.PreconditionFailed', 'OData-Version must be 4.0'));
      return;
    }
    // The documents Redfish serves to anyone.
    const open = this.openDocument(path);
    if (open !== undefined) {
      res.setHeader('allow', 'GET, HEAD');
      if (method !== 'GET') {
        this.reply(res, 405, errorBody('Base.1.8.OperationNotAllowed', `${method} ${path}`));
        return;
      }
      if (typeof open === 'string') {
        res.setHeader('content-type', 'application/xml');
        res.setHeader('cache-control', 'no-cache');
        res.statusCode = 200;
        res.end(head ? undefined : open);
        return;
      }
      this.reply(res, 200, open);
      return;
    }
    if (path === SESSIONS && method === 'POST' && this.personality.sessions) {
      this.login(res, raw);
      return;
    }
    if (!this.authorized(req)) {
      res.setHeader('www-authenticate', 'Basic realm="simulated BMC"');
      this.reply(res, 401, errorBody('Base.1.8.NoValidSession', 'no valid credentials'));
      return;
    }
    if (path.startsWith(`${SESSIONS}/`) && method === 'DELETE' && this.personality.sessions) {
      // Logging out ends the session: its token stops working at once.
      const session = this.sessions.get(path.slice(SESSIONS.length + 1));
      if (session === undefined) {
        this.reply(res, 404, errorBody('Base.1.8.ResourceMissingAtURI', `${path} not found`));
        return;
      }
      this.endSession(session);
      this.reply(res, 204);
      return;
    }
    const task = this.tasks.get(path);
    if (task && method === 'GET') {
      this.taskMonitor(res, path, task);
      return;
    }

    let body: Record<string, unknown> | undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        this.reply(res, 400, errorBody('Base.1.8.MalformedJSON', 'body is not JSON'));
        return;
      }
    }
    const image = body?.['Image'];
    const inserting =
      path.endsWith('/VirtualMedia.InsertMedia') ||
      (method === 'PATCH' && path.startsWith(`${this.mediaPath}/`) && body?.['Inserted'] === true);
    if (this.options.fetchImage && inserting && typeof image === 'string') {
      const problem = await readVolumeDescriptor(image);
      if (problem !== undefined) {
        this.reply(
          res,
          400,
          errorBody('IDRAC.2.8.RAC0720', `Unable to locate the ISO image ${image}: ${problem}`),
        );
        return;
      }
    }
    const outcome = this.route(method, path, body, req);
    if (outcome === undefined) {
      this.reply(res, 404, errorBody('Base.1.8.ResourceMissingAtURI', `${path} not found`));
      return;
    }
    if (typeof outcome === 'function') {
      this.startTask(res, outcome);
      return;
    }
    this.send(res, outcome);
  }

  /** Returns the outcome, a deferred outcome to run as a task, or undefined for 404. */
  private route(
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
    req: IncomingMessage,
  ): Outcome | (() => Outcome) | undefined {
    const p = this.personality;
    this.applyPendingMode();
    if (method === 'GET') return this.get(path);
    const async = p.taskMs !== undefined;
    const ifMatch = req.headers['if-match'];
    if (
      p.dellOemBoot &&
      path === `${this.managerPath}/Actions/Oem/EID_674_Manager.ImportSystemConfiguration` &&
      method === 'POST'
    )
      return this.importSystemConfiguration(body);
    if (path === `${this.systemPath}/Actions/ComputerSystem.Reset` && method === 'POST') {
      const check = this.checkReset(body);
      if (check) return check;
      return async ? () => this.reset(body) : this.reset(body);
    }
    if (method === 'PATCH' && (path === this.systemPath || path === this.bootSettingsPath())) {
      const stale = this.checkEtag(ifMatch, this.systemVersion);
      if (stale) return stale;
      return this.patchBoot(path, body);
    }
    for (const slot of this.slots) {
      const slotPath = `${this.mediaPath}/${slot.spec.id}`;
      if (path === `${slotPath}/Actions/VirtualMedia.InsertMedia` && method === 'POST') {
        if (slot.spec.insertBy !== 'action') return undefined;
        const check = this.checkInsert(slot, body);
        if (check) return check;
        return async ? () => this.insert(slot, body) : this.insert(slot, body);
      }
      if (path === `${slotPath}/Actions/VirtualMedia.EjectMedia` && method === 'POST') {
        if (slot.spec.insertBy !== 'action') return undefined;
        if (p.ejectNeedsBody && body === undefined)
          return { status: 415, body: errorBody('Base.1.8.UnsupportedMediaType', 'send {}') };
        return async ? () => this.eject(slot) : this.eject(slot);
      }
      if (path === slotPath && method === 'PATCH') {
        if (slot.spec.insertBy !== 'patch')
          return { status: 405, body: errorBody('Base.1.8.OperationNotAllowed', 'no PATCH') };
        const stale = this.checkEtag(ifMatch, slot.version);
        if (stale) return stale;
        return this.patchSlot(slot, body);
      }
    }
    if (method === 'POST' || method === 'PATCH' || method === 'DELETE') {
      return this.get(path) === undefined
        ? undefined
        : { status: 405, body: errorBody('Base.1.8.OperationNotAllowed', `${method} ${path}`) };
    }
    return undefined;
  }

  private get(path: string): Outcome | undefined {
    const p = this.personality;
    const json = (
      body: Record<string, unknown>,
      version?: number,
      allow = 'GET, HEAD',
    ): Outcome => ({
      status: 200,
      body,
      version,
      allow,
    });
    switch (path) {
      case `${ROOT}/Systems`:
        return json(collection(`${ROOT}/Systems`, [this.systemPath]));
      case `${ROOT}/Managers`:
        return json(collection(`${ROOT}/Managers`, [this.managerPath]));
      case this.systemPath:
        return json(this.systemBody(), this.systemVersion, 'GET, HEAD, PATCH');
      case this.bootSettingsPath():
        // The settings resource shows what is pending, a BIOS job's mode included.
        return json(
          {
            '@odata.id': path,
            '@odata.type': '#ComputerSystem.v1_20_0.ComputerSystem',
            Id: 'Settings',
            Name: 'Pending System Settings',
            Boot: {
              BootSourceOverrideTarget: this.boot.target,
              'BootSourceOverrideTarget@Redfish.AllowableValues': p.bootTargets,
              BootSourceOverrideEnabled: this.boot.enabled,
              BootSourceOverrideMode: this.pendingMode?.mode ?? this.boot.mode,
            },
          },
          this.systemVersion,
          'GET, HEAD, PATCH',
        );
      case this.managerPath:
        return json({
          '@odata.id': this.managerPath,
          '@odata.type': '#Manager.v1_19_0.Manager',
          Id: p.managerId,
          Name: 'Manager',
          ManagerType: 'BMC',
          Model: p.managerModel ?? `${p.vendor} BMC`,
          FirmwareVersion: p.firmwareVersion ?? '1.0.0',
          ...(p.virtualMedia === 'manager'
            ? { VirtualMedia: { '@odata.id': this.mediaPath } }
            : {}),
          ...(p.dellOemBoot
            ? {
                Actions: {
                  Oem: {
                    '#OemManager.v1_4_0.OemManager#OemManager.ImportSystemConfiguration': {
                      target: `${this.managerPath}/Actions/Oem/EID_674_Manager.ImportSystemConfiguration`,
                    },
                  },
                },
              }
            : {}),
        });
      case this.mediaPath:
        return json(
          collection(
            this.mediaPath,
            this.slots.map((s) => `${this.mediaPath}/${s.spec.id}`),
          ),
        );
      case `${ROOT}/SessionService`:
        return p.sessions
          ? json({
              '@odata.id': `${ROOT}/SessionService`,
              '@odata.type': '#SessionService.v1_1_8.SessionService',
              Id: 'SessionService',
              Name: 'Session Service',
              ServiceEnabled: true,
              Sessions: { '@odata.id': SESSIONS },
            })
          : undefined;
      case SESSIONS:
        return p.sessions
          ? json(
              collection(
                SESSIONS,
                [...this.sessions.keys()].map((id) => `${SESSIONS}/${id}`),
              ),
              undefined,
              'GET, HEAD, POST',
            )
          : undefined;
      default:
        break;
    }
    const session = path.startsWith(`${SESSIONS}/`)
      ? this.sessions.get(path.slice(SESSIONS.length + 1))
      : undefined;
    if (p.sessions && session !== undefined)
      return json(
        {
          '@odata.id': path,
          '@odata.type': '#Session.v1_7_0.Session',
          Id: session.id,
          Name: 'User Session',
          UserName: session.userName,
        },
        undefined,
        'GET, HEAD, DELETE',
      );
    for (const slot of this.slots) {
      if (path === `${this.mediaPath}/${slot.spec.id}`)
        return json(
          this.slotBody(slot),
          slot.version,
          slot.spec.insertBy === 'patch' ? 'GET, HEAD, PATCH' : 'GET, HEAD',
        );
    }
    return undefined;
  }

  private serviceRoot(): Record<string, unknown> {
    const p = this.personality;
    return {
      '@odata.id': `${ROOT}/`,
      '@odata.type': '#ServiceRoot.v1_15_0.ServiceRoot',
      Id: 'RootService',
      Name: 'Root Service',
      RedfishVersion: '1.15.0',
      UUID: '92384634-2938-2342-8820-489239905423',
      Vendor: p.vendor,
      Systems: { '@odata.id': `${ROOT}/Systems` },
      Managers: { '@odata.id': `${ROOT}/Managers` },
      ...(p.sessions
        ? {
            SessionService: { '@odata.id': `${ROOT}/SessionService` },
            Links: { Sessions: { '@odata.id': SESSIONS } },
          }
        : {}),
    };
  }

  private systemBody(): Record<string, unknown> {
    const p = this.personality;
    const managers = [{ '@odata.id': this.managerPath }];
    return {
      '@odata.id': this.systemPath,
      '@odata.type': '#ComputerSystem.v1_20_0.ComputerSystem',
      Id: p.systemId,
      Name: 'System',
      Manufacturer: p.manufacturer,
      Model: p.model,
      PowerState: this.power,
      Boot: {
        BootSourceOverrideTarget: this.boot.target,
        'BootSourceOverrideTarget@Redfish.AllowableValues': p.bootTargets,
        BootSourceOverrideEnabled: this.boot.enabled,
        ...(p.bootModeField ? { BootSourceOverrideMode: this.boot.mode } : {}),
      },
      BootProgress: { LastState: this.bootedImage === undefined ? 'None' : 'OSBootStarted' },
      ...(p.virtualMedia === 'system' ? { VirtualMedia: { '@odata.id': this.mediaPath } } : {}),
      Links: p.linksManagers ? { Managers: managers } : { ManagedBy: managers },
      Actions: {
        '#ComputerSystem.Reset': {
          target: `${this.systemPath}/Actions/ComputerSystem.Reset`,
          'ResetType@Redfish.AllowableValues': p.resetTypes,
        },
      },
      ...(p.settingsObject
        ? {
            '@Redfish.Settings': { SettingsObject: { '@odata.id': `${this.systemPath}/Settings` } },
          }
        : {}),
    };
  }

  private slotBody(slot: SlotState): Record<string, unknown> {
    const path = `${this.mediaPath}/${slot.spec.id}`;
    const stale = this.now() < slot.staleUntil;
    const inserted = slot.inserted || stale;
    const image = slot.inserted ? slot.image : stale ? slot.staleImage : undefined;
    return {
      '@odata.id': path,
      '@odata.type': '#VirtualMedia.v1_6_0.VirtualMedia',
      Id: slot.spec.id,
      Name: `Virtual ${slot.spec.id}`,
      MediaTypes: slot.spec.mediaTypes,
      Image: image ?? this.personality.emptyImage,
      ImageName: image === undefined ? this.personality.emptyImage : image.split('/').pop(),
      Inserted: inserted,
      WriteProtected: true,
      ConnectedVia: inserted && !this.mounting(slot) ? 'URI' : 'NotConnected',
      ...(slot.transferProtocol ? { TransferProtocolType: slot.transferProtocol } : {}),
      ...(slot.spec.insertBy === 'action'
        ? {
            Actions: {
              '#VirtualMedia.InsertMedia': {
                target: `${path}/Actions/VirtualMedia.InsertMedia`,
              },
              '#VirtualMedia.EjectMedia': { target: `${path}/Actions/VirtualMedia.EjectMedia` },
            },
          }
        : {}),
    };
  }

  // ---------------------------------------------------------------------------------------------

  private checkReset(body: Record<string, unknown> | undefined): Outcome | undefined {
    const type = body?.['ResetType'];
    if (typeof type !== 'string')
      return {
        status: 400,
        body: errorBody('Base.1.8.ActionParameterMissing', 'ResetType', ['#/ResetType']),
      };
    if (!this.personality.resetTypes.includes(type))
      return {
        status: 400,
        body: errorBody('Base.1.8.ActionParameterValueNotInList', `ResetType ${type}`, [
          '#/ResetType',
        ]),
      };
    const goal =
      type === 'ForceOff' || type === 'GracefulShutdown'
        ? 'Off'
        : type === 'On' || type === 'ForceOn'
          ? 'On'
          : undefined;
    if (this.personality.conflictWhenInState && goal !== undefined && this.power === goal)
      return {
        status: 409,
        body: errorBody('Base.1.8.ActionParameterValueConflict', `the server is already ${goal}`),
      };
    if (
      goal === 'On' &&
      this.power === 'Off' &&
      this.now() - this.poweredOffAt < this.personality.powerOnConflictMs
    )
      return {
        status: 409,
        body: errorBody(
          'Base.1.12.ActionParameterValueConflict',
          `The parameter ResetType with the requested value of ${type} conflicts with the ` +
            'current state of the server, which is still powering off.',
          ['#/ResetType'],
        ),
      };
    return undefined;
  }

  private reset(body: Record<string, unknown> | undefined): Outcome {
    const type = body?.['ResetType'] as string;
    const restart = /Restart|PowerCycle/.test(type);
    if (type === 'On' || type === 'ForceOn') this.transition('On');
    else if (type === 'ForceOff' || type === 'GracefulShutdown') this.transition('Off');
    else if (restart) {
      this.setPower('Off');
      this.transition('On');
    }
    return { status: 204 };
  }

  private transition(to: 'On' | 'Off'): void {
    const current = this.powerTransition?.to ?? this.power;
    if (current === to) return;
    if (this.powerTransition) clearTimeout(this.powerTransition.timer);
    const delay = this.personality.powerDelayMs;
    if (delay <= 0) {
      this.powerTransition = undefined;
      this.setPower(to);
      return;
    }
    this.power = to === 'On' ? 'PoweringOn' : 'PoweringOff';
    const timer = setTimeout(() => {
      this.powerTransition = undefined;
      this.setPower(to);
    }, delay);
    timer.unref();
    this.powerTransition = { to, timer };
  }

  private setPower(to: 'On' | 'Off'): void {
    this.power = to;
    this.systemVersion++;
    this.record('power', to);
    if (to === 'On') {
      this.poweredOnAt = this.now();
      // The BIOS job of a pending boot mode runs as the host starts.
      if (this.pendingMode && this.pendingMode.appliesAt === undefined)
        this.pendingMode.appliesAt = this.now() + (this.personality.bootModeJobMs ?? 0);
      this.applyPendingMode();
      this.bootHost();
    } else {
      this.poweredOffAt = this.now();
      this.bootedImage = undefined;
      this.options.onPowerOff?.(this);
    }
  }

  /** Finishes the boot-mode BIOS job if its time has come. */
  private applyPendingMode(): void {
    const pending = this.pendingMode;
    if (pending?.appliesAt === undefined || this.now() < pending.appliesAt) return;
    this.pendingMode = undefined;
    this.boot.mode = pending.mode;
    this.systemVersion++;
    this.record('boot-mode', pending.mode);
  }

  /** The slot holds an image that is not mounted yet. */
  private mounting(slot: SlotState): boolean {
    return slot.inserted && this.now() < slot.mountedAt;
  }

  /** Where Boot PATCHes go besides the System, if anywhere. */
  private bootSettingsPath(): string | undefined {
    const p = this.personality;
    if (p.settingsObject) return `${this.systemPath}/Settings`;
    if (p.hiddenBootSettings !== undefined) return `${this.systemPath}/${p.hiddenBootSettings}`;
    return undefined;
  }

  /** The firmware picks the boot device: the virtual CD when everything is in place. */
  private bootHost(): void {
    const p = this.personality;
    const cd = this.slots.find(
      (s) =>
        s.inserted &&
        !this.mounting(s) &&
        s.spec.bootable !== false &&
        s.spec.mediaTypes.some((t) => t === 'CD' || t === 'DVD'),
    );
    const overriding = this.boot.enabled !== 'Disabled';
    const overrideCd = p.cdTargets.includes(this.boot.target) && overriding;
    // A boot override to the disk wins over a boot order that lists the virtual CD first.
    const overrideDisk = this.boot.target === 'Hdd' && overriding;
    const cdFirst = this.options.bootOrder === 'cd-first' && !overrideDisk;
    const modeOk =
      !p.bootModeField || (this.options.cdBootModes ?? ['UEFI']).includes(this.boot.mode);
    const image = cd !== undefined && (overrideCd || cdFirst) && modeOk ? cd.image : undefined;
    if (this.boot.enabled === 'Once' && (overrideCd || overrideDisk)) {
      // The one-time override is used up by this boot.
      this.boot.target = 'None';
      this.boot.enabled = 'Disabled';
    }
    this.bootedImage = image;
    this.record('boot', image ?? 'disk');
    this.options.onBoot?.({
      bmc: this,
      imageUrl: image,
      mode: p.bootModeField ? this.boot.mode : 'UEFI',
    });
  }

  private patchBoot(path: string, body: Record<string, unknown> | undefined): Outcome {
    const p = this.personality;
    if (p.settingsObject && path === this.systemPath && body?.['Boot'] !== undefined)
      return {
        status: 400,
        body: errorBody('Base.1.8.PropertyNotWritable', 'use the SettingsObject', ['#/Boot']),
      };
    if (
      p.hiddenBootSettings !== undefined &&
      path === this.systemPath &&
      body?.['Boot'] !== undefined
    )
      return {
        status: 400,
        body: errorBody(
          'Base.1.8.PropertyNotWritable',
          'The property Boot is a read only property and cannot be assigned a value.',
          ['#/Boot'],
        ),
      };
    if (p.postWindowMs > 0 && this.power === 'On' && this.now() - this.poweredOnAt < p.postWindowMs)
      return {
        status: 400,
        body: errorBody('iLO.2.15.UnableToModifyDuringSystemPOST', 'the system is in POST'),
      };
    const boot = (body?.['Boot'] ?? {}) as Record<string, unknown>;
    const text = (v: unknown): string | undefined =>
      v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v);
    const target = text(boot['BootSourceOverrideTarget']);
    const enabled = text(boot['BootSourceOverrideEnabled']);
    const mode = text(boot['BootSourceOverrideMode']);
    if (p.fullBootRequest) {
      const missing = (
        ['BootSourceOverrideTarget', 'BootSourceOverrideEnabled', 'BootSourceOverrideMode'] as const
      ).find((name) => boot[name] === undefined);
      if (missing !== undefined)
        return {
          status: 400,
          body: errorBody(
            'Base.1.12.PropertyMissing',
            `The property ${missing} is a required property and must be included in the request.`,
            [`#/Boot/${missing}`],
          ),
        };
    }
    if (target !== undefined && !p.bootTargets.includes(target))
      return {
        status: 400,
        body: errorBody('Base.1.8.PropertyValueNotInList', `BootSourceOverrideTarget ${target}`, [
          '#/Boot/BootSourceOverrideTarget',
        ]),
      };
    if (enabled !== undefined && !['Once', 'Continuous', 'Disabled'].includes(enabled))
      return {
        status: 400,
        body: errorBody('Base.1.8.PropertyValueNotInList', 'BootSourceOverrideEnabled'),
      };
    if (mode !== undefined && (!p.bootModeField || !['UEFI', 'Legacy'].includes(mode)))
      return { status: 400, body: errorBody('Base.1.8.PropertyUnknown', 'BootSourceOverrideMode') };
    if (mode !== undefined && p.bootModeJobMs !== undefined) {
      // Dell: a BIOS job, run when the host next starts; the System shows the old mode.
      this.pendingMode = mode === this.boot.mode ? undefined : { mode, appliesAt: undefined };
      if (this.pendingMode) this.record('boot-mode', `${mode} pending a BIOS job`);
    } else if (mode !== undefined) {
      this.boot.mode = mode;
      this.record('boot-mode', this.boot.mode);
    }
    if (target !== undefined && !(p.requireBootEnabled && enabled === undefined)) {
      if (target !== this.boot.target && p.resetModeOnTarget && mode === undefined)
        this.boot.mode = 'Legacy';
      this.boot.target = target;
    }
    if (enabled !== undefined) this.boot.enabled = enabled;
    if (target !== undefined || enabled !== undefined)
      this.record('boot-override', `${this.boot.target}/${this.boot.enabled}`);
    this.systemVersion++;
    return { status: 204 };
  }

  /**
   * Dell's Server Configuration Profile import, as ironic's idrac driver sends it: a job that,
   * when done, sets a one-time boot from the virtual CD.
   */
  private importSystemConfiguration(
    body: Record<string, unknown> | undefined,
  ): Outcome | (() => Outcome) {
    const xml = body?.['ImportBuffer'];
    if (
      typeof xml !== 'string' ||
      !xml.includes('<Attribute Name="ServerBoot.1#BootOnce">Enabled</Attribute>') ||
      !xml.includes('<Attribute Name="ServerBoot.1#FirstBootDevice">VCD-DVD</Attribute>') ||
      xml.includes('> <')
    )
      return {
        status: 400,
        body: errorBody('IDRAC.2.8.SYS041', 'Unable to parse the ImportBuffer', ['#/ImportBuffer']),
      };
    return () => {
      this.boot.target = 'Cd';
      this.boot.enabled = 'Once';
      this.systemVersion++;
      this.record('boot-override', 'Cd/Once (OEM job)');
      return { status: 200 };
    };
  }

  private checkInsert(
    slot: SlotState,
    body: Record<string, unknown> | undefined,
  ): Outcome | undefined {
    const p = this.personality;
    if (slot.spec.rejectInsert)
      return {
        status: 400,
        body: errorBody('Base.1.8.ActionNotSupported', 'slot is for vKVM use only'),
      };
    if (typeof body?.['Image'] !== 'string')
      return {
        status: 400,
        body: errorBody('Base.1.8.ActionParameterMissing', 'Image', ['#/Image']),
      };
    if (
      p.rejectInsertedParam &&
      (body['Inserted'] !== undefined || body['WriteProtected'] !== undefined)
    )
      return {
        status: 400,
        body: errorBody(
          'Base.1.8.PropertyUnknown',
          'The property Inserted is not in the list of valid properties for the resource.',
          ['#/Inserted'],
        ),
      };
    if (p.requireTransferProtocol !== 'no' && body['TransferProtocolType'] === undefined)
      return {
        status: 400,
        body:
          p.requireTransferProtocol === 'general-error'
            ? errorBody(
                'Base.1.8.GeneralError',
                'TransferProtocolType is a required parameter for this action.',
              )
            : errorBody('Base.1.8.ActionParameterMissing', 'TransferProtocolType is missing', [
                '#/TransferProtocolType',
              ]),
      };
    if (p.requireCredentials && body['UserName'] === undefined)
      return {
        status: 400,
        body: errorBody(
          'Base.1.8.ActionParameterMissing',
          'The action requires the parameter UserName',
          ['#/UserName'],
        ),
      };
    if (slot.inserted)
      return { status: 409, body: errorBody('Base.1.8.ResourceInUse', 'media already inserted') };
    return undefined;
  }

  private insert(slot: SlotState, body: Record<string, unknown> | undefined): Outcome {
    slot.image = String(body?.['Image']);
    slot.inserted = true;
    slot.staleUntil = 0;
    slot.mountedAt = this.now() + (this.personality.mountMs ?? 0);
    const protocol = body?.['TransferProtocolType'];
    slot.transferProtocol = typeof protocol === 'string' ? protocol : undefined;
    slot.version++;
    this.record('insert', `${slot.spec.id} ${slot.image}`);
    return { status: 204 };
  }

  private eject(slot: SlotState): Outcome {
    if (slot.inserted) {
      slot.staleImage = slot.image;
      slot.staleUntil = this.now() + this.personality.staleInsertedMs;
      this.record('eject', slot.spec.id);
    }
    slot.inserted = false;
    slot.image = undefined;
    slot.version++;
    return { status: 204 };
  }

  private patchSlot(slot: SlotState, body: Record<string, unknown> | undefined): Outcome {
    const image = body?.['Image'];
    const inserted = body?.['Inserted'];
    if (image === null || inserted === false) return this.eject(slot);
    if (typeof image !== 'string' || inserted !== true)
      return {
        status: 400,
        body: errorBody('Base.1.8.PropertyMissing', 'PATCH needs Image and Inserted: true', [
          '#/Inserted',
        ]),
      };
    if (slot.inserted)
      return { status: 409, body: errorBody('Base.1.8.ResourceInUse', 'media already inserted') };
    return this.insert(slot, body);
  }

  private checkEtag(ifMatch: string | undefined, version: number): Outcome | undefined {
    if (ifMatch === undefined || (this.personality.etag === 'none' && !this.personality.etagInBody))
      return undefined;
    // Like some BMCs, accept only the strong form back, whatever was served.
    if (ifMatch !== `"${String(version)}"` && ifMatch !== '*')
      return {
        status: 412,
        body: errorBody('Base.1.8.PreconditionFailed', `ETag ${ifMatch} is stale`),
      };
    return undefined;
  }

  // ---------------------------------------------------------------------------------------------

  private login(res: ServerResponse, raw: Buffer): void {
    let body: { UserName?: unknown; Password?: unknown } = {};
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      // fall through to 400
    }
    if (typeof body.UserName === 'string' && typeof body.Password === 'string')
      this.echoes.get(res)?.push(`UserName ${body.UserName}`, `Password ${body.Password}`);
    if (typeof body.UserName !== 'string' || typeof body.Password !== 'string') {
      this.reply(res, 400, errorBody('Base.1.8.PropertyMissing', 'UserName and Password'));
      return;
    }
    if (
      body.UserName !== this.credentials.username ||
      body.Password !== this.credentials.password
    ) {
      this.reply(res, 401, errorBody('Base.1.8.NoValidSession', 'wrong credentials'));
      return;
    }
    const id = String(this.nextId++);
    const token = randomBytes(16).toString('hex');
    this.sessions.set(id, { id, token, userName: body.UserName, lastUsed: this.now() });
    this.tokens.set(token, id);
    const uri = `${SESSIONS}/${id}`;
    res.setHeader('x-auth-token', token);
    res.setHeader('location', uri);
    this.reply(res, 201, {
      '@odata.id': uri,
      '@odata.type': '#Session.v1_7_0.Session',
      Id: id,
      Name: 'User Session',
      UserName: body.UserName,
    });
  }

  private authorized(req: IncomingMessage): boolean {
    const token = req.headers['x-auth-token'];
    if (typeof token === 'string') {
      const session = this.sessions.get(this.tokens.get(token) ?? '');
      const ttl = this.options.sessionTtlMs ?? 30 * 60_000;
      if (!session) return false;
      if (this.now() - session.lastUsed > ttl) {
        this.endSession(session);
        return false;
      }
      session.lastUsed = this.now();
      return true;
    }
    const auth = req.headers.authorization;
    if (auth?.startsWith('Basic ') !== true) return false;
    const [user, ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
    return user === this.credentials.username && rest.join(':') === this.credentials.password;
  }

  private endSession(session: SessionState): void {
    this.sessions.delete(session.id);
    this.tokens.delete(session.token);
  }

  private startTask(res: ServerResponse, run: () => Outcome): void {
    const id = String(this.nextId++);
    const monitor = `${ROOT}/TaskService/TaskMonitors/${id}`;
    const doneAt = this.now() + (this.personality.taskMs ?? 0);
    let outcome: Outcome | undefined;
    const finish = (): Outcome => (outcome ??= run());
    this.tasks.set(monitor, { doneAt, result: finish });
    if (!this.faults?.stuckTasks) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        finish();
      }, this.personality.taskMs ?? 0);
      timer.unref();
      this.timers.add(timer);
    }
    res.setHeader('location', monitor);
    res.setHeader('retry-after', '0');
    this.reply(res, 202, {
      '@odata.id': `${ROOT}/TaskService/Tasks/${id}`,
      Id: id,
      TaskState: 'Running',
    });
  }

  private taskMonitor(
    res: ServerResponse,
    path: string,
    task: { doneAt: number; result: () => Outcome },
  ): void {
    if (this.faults?.stuckTasks || this.now() < task.doneAt) {
      res.setHeader('location', path);
      res.setHeader('retry-after', '0');
      this.reply(res, 202, { TaskState: 'Running' });
      return;
    }
    const outcome = task.result();
    this.tasks.delete(path);
    if (outcome.status >= 400) {
      this.send(res, outcome);
      return;
    }
    this.reply(res, 200, {
      '@odata.type': '#Task.v1_7_0.Task',
      Id: path.split('/').pop(),
      TaskState: 'Completed',
      TaskStatus: 'OK',
    });
  }

  private async injectFault(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
  ): Promise<boolean> {
    const index = this.scripted.findIndex(
      (f) =>
        f.times > 0 &&
        (f.method === undefined || f.method === method) &&
        (f.path?.test(path) ?? true),
    );
    if (index >= 0) {
      const fault = this.scripted[index]!;
      fault.times--;
      if (fault.times <= 0) this.scripted.splice(index, 1);
      return this.fault(req, res, fault.action);
    }
    const f = this.faults;
    if (f === undefined) return false;
    const delay = (f.latencyMs ?? 0) + this.random() * (f.jitterMs ?? 0);
    if (delay > 0) await sleep(delay);
    if (f.paths ? !f.paths.test(path) : path === ROOT) return false;
    if (f.methods && !f.methods.includes(method)) return false;
    const roll = this.random();
    let edge = f.dropRate ?? 0;
    if (roll < edge) return this.fault(req, res, 'drop');
    edge += f.timeoutRate ?? 0;
    if (roll < edge) return this.fault(req, res, 'hang');
    edge += f.errorRate ?? 0;
    if (roll < edge)
      return this.fault(req, res, {
        status: f.errorStatus ?? 503,
        headers: { 'retry-after': '0' },
        body: errorBody('Base.1.8.ServiceTemporarilyUnavailable', 'injected fault'),
      });
    return false;
  }

  private fault(
    req: IncomingMessage,
    res: ServerResponse,
    action: ScriptedFault['action'],
  ): boolean {
    if (action === 'drop') {
      req.socket.destroy();
      return true;
    }
    if (action === 'hang') return true; // never answered; stop() destroys the socket
    for (const [k, v] of Object.entries(action.headers ?? {})) res.setHeader(k, v);
    this.reply(res, action.status, action.body);
    return true;
  }

  private send(res: ServerResponse, outcome: Outcome): void {
    const p = this.personality;
    if (outcome.allow) res.setHeader('allow', outcome.allow);
    let body = outcome.body;
    if (outcome.version !== undefined && outcome.status === 200) {
      if (p.etagInBody)
        body = { ...(body as object), '@odata.etag': `"${String(outcome.version)}"` };
      else if (p.etag !== 'none')
        res.setHeader('etag', `${p.etag === 'weak' ? 'W/' : ''}"${String(outcome.version)}"`);
    }
    this.reply(res, outcome.status, body);
  }

  private reply(res: ServerResponse, status: number, body?: unknown): void {
    const echoed = this.echoes.get(res);
    if (status >= 400 && echoed !== undefined && echoed.length > 0) body = quoting(body, echoed);
    res.statusCode = status;
    res.setHeader('odata-version', '4.0');
    res.setHeader('cache-control', 'no-cache');
    if (body === undefined) {
      res.end();
      return;
    }
    const type = (body as { '@odata.type'?: unknown })['@odata.type'];
    if (status === 200 && typeof type === 'string') {
      // `#ComputerSystem.v1_20_0.ComputerSystem` → ComputerSystem.v1_20_0; collections are unversioned.
      const [name = '', version = ''] = type.replace(/^#/, '').split('.');
      const schema = /^v\d/.test(version) ? `${name}.${version}` : name;
      res.setHeader(
        'link',
        `<https://redfish.dmtf.org/schemas/v1/${schema}.json>; rel=describedby`,
      );
    }
    const text = JSON.stringify(body);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(text));
    res.end(this.heads.has(res) ? undefined : text);
  }

  /** `/redfish`, the service root, the OData service document and `$metadata`. */
  private openDocument(path: string): Record<string, unknown> | string | undefined {
    switch (path) {
      case '/redfish':
        return { v1: `${ROOT}/` };
      case ROOT:
        return this.serviceRoot();
      case `${ROOT}/odata`:
        return {
          '@odata.context': `${ROOT}/$metadata`,
          value: [
            { name: 'Service', kind: 'Singleton', url: `${ROOT}/` },
            { name: 'Systems', kind: 'Singleton', url: `${ROOT}/Systems` },
            { name: 'Managers', kind: 'Singleton', url: `${ROOT}/Managers` },
            ...(this.personality.sessions
              ? [{ name: 'SessionService', kind: 'Singleton', url: `${ROOT}/SessionService` }]
              : []),
          ],
        };
      case `${ROOT}/$metadata`:
        return METADATA;
      default:
        return undefined;
    }
  }

  private record(kind: HostEvent['kind'], detail: string): void {
    this.events.push({ at: this.now(), kind, detail });
  }

  private now(): number {
    return this.options.clock?.now() ?? Date.now();
  }
}

interface Outcome {
  readonly status: number;
  readonly body?: unknown;
  /** Resource version, served as the ETag. */
  readonly version?: number | undefined;
  readonly allow?: string;
}

/** A minimal OData metadata document: the entity container the validator looks for. */
const METADATA = `<?xml version="1.0" encoding="UTF-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:Reference Uri="http://redfish.dmtf.org/schemas/v1/ServiceRoot_v1.xml">
    <edmx:Include Namespace="ServiceRoot"/>
    <edmx:Include Namespace="ServiceRoot.v1_15_0"/>
  </edmx:Reference>
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Service">
      <EntityContainer Name="Service" Extends="ServiceRoot.v1_15_0.ServiceContainer"/>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`;

function collection(path: string, members: readonly string[]): Record<string, unknown> {
  const kind = path.endsWith('/Systems')
    ? 'ComputerSystem'
    : path.endsWith('/Managers')
      ? 'Manager'
      : path.endsWith('/Sessions')
        ? 'Session'
        : 'VirtualMedia';
  return {
    '@odata.id': path,
    '@odata.type': `#${kind}Collection.${kind}Collection`,
    Name: `${kind} Collection`,
    Members: members.map((id) => ({ '@odata.id': id })),
    'Members@odata.count': members.length,
  };
}

/** A Redfish error body with one ExtendedInfo message. */
export function errorBody(
  messageId: string,
  message: string,
  relatedProperties: readonly string[] = [],
): Record<string, unknown> {
  return {
    error: {
      code: messageId.includes('GeneralError') ? messageId : 'Base.1.8.GeneralError',
      message: 'A general error has occurred. See ExtendedInfo for more information.',
      '@Message.ExtendedInfo': [
        {
          MessageId: messageId,
          Message: message,
          Severity: 'Critical',
          ...(relatedProperties.length > 0 ? { RelatedProperties: relatedProperties } : {}),
        },
      ],
    },
  };
}

/** The credentials a request carries, as an echoing BMC would quote them. */
function requestCredentials(req: IncomingMessage): string[] {
  const quoted: string[] = [];
  const token = req.headers['x-auth-token'];
  if (typeof token === 'string') quoted.push(`X-Auth-Token ${token}`);
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ') === true) {
    const [user = '', ...rest] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
    quoted.push(`user ${user}`, `password ${rest.join(':')}`);
  }
  return quoted;
}

/** An error body that quotes `values` in its message, its messages and their MessageArgs. */
function quoting(body: unknown, values: readonly string[]): unknown {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (error === undefined) return body;
  const suffix = ` (request: ${values.join(', ')})`;
  const info = error['@Message.ExtendedInfo'];
  return {
    error: {
      ...error,
      message: `${String(error['message'])}${suffix}`,
      '@Message.ExtendedInfo': (Array.isArray(info) ? info : []).map(
        (m: Record<string, unknown>) => ({
          ...m,
          Message: `${String(m['Message'])}${suffix}`,
          MessageArgs: values,
        }),
      ),
    },
  };
}

/** Groups request paths for `counts`: the last path segment of actions, else the resource kind. */
function countKey(path: string): string {
  const action = /\/Actions\/(?:Oem\/)?\w+\.([A-Za-z]+)$/.exec(path);
  if (action) return action[1]!;
  if (path.includes('/TaskMonitors/')) return 'TaskMonitor';
  if (path.includes('/Sessions')) return 'Sessions';
  if (/\/VirtualMedia\/[^/]+$/.test(path)) return 'VirtualMediaSlot';
  return path.replace(/^\/redfish\/v1\/?/, '/').replace(/\/[^/]*\d[^/]*$/, '/{id}') || '/';
}

/** Reads the ISO 9660 primary volume descriptor by range; returns why it failed, if it did. */
async function readVolumeDescriptor(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, {
      headers: { range: 'bytes=32768-34815' },
      signal: AbortSignal.timeout(10_000),
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 206 && res.status !== 200) return `HTTP ${String(res.status)}`;
    return body.length > 0 ? undefined : 'empty image';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
