/**
 * One simulated server, driven by its BMC. It does nothing until the BMC boots it: from the
 * virtual CD (the BMC has the ISO inserted, a CD boot and power on) it streams the ISO through
 * the image URL the BMC was given, takes the agent's settings from the ISO's ignition, applies
 * the static network configuration meant for its MACs, and runs the discovery agent: it
 * registers with an inventory of its hardware, answers its next steps, and once told to install,
 * walks the installer's stages. At `Rebooting` its OS restarts the machine through the BMC:
 * the firmware then boots the disk only if the media was ejected (or never boots the CD by
 * itself: see SimulatedBmcOptions.bootOrder), and the installed system reports the remaining
 * stages. Booting the ISO again instead starts a discovery agent again, as a real host would.
 */
import type { Dispatcher } from 'undici';
import type { BootEvent, SimulatedBmc } from '../bmac/redfish/sim/index.js';
import { AgentClient, installStagesOf } from './agent-client.js';
import type { AgentExchange, HostDescription, ReceivedSteps } from './agent-client.js';
import { bootLiveIso, HttpRangeMedia } from './boot-media.js';
import type { FirmwareBootMode, TransferCounter } from './boot-media.js';
import { discoveryOf, staticNetworkOf } from './discovery-config.js';
import type { Discovery } from './discovery-config.js';
import type { SimHostSpec } from './site-hosts.js';

/** Where a host is in its life, as the simulation sees it (not the hub). */
export const HostPhase = {
  Off: 'off',
  /** Powered, running whatever was on its disk before (or nothing). */
  Idle: 'idle',
  /** Stuck in POST (the never-boots fault). */
  Hung: 'hung',
  BootingIso: 'booting-iso',
  Discovery: 'discovery',
  Installing: 'installing',
  Rebooting: 'rebooting',
  /** The installed system runs and reports its last stages. */
  Installed: 'installed',
  Done: 'done',
  /** The network went away (the disconnect fault). */
  Unplugged: 'unplugged',
  /** It could not boot the ISO (unreadable media, no ignition). */
  BootFailed: 'boot-failed',
} as const;
export type HostPhase = (typeof HostPhase)[keyof typeof HostPhase];

/** How long things take, compressed. */
export interface SimTimings {
  /** Between two install stages. */
  readonly stageMs: number;
  /** The most an agent waits between two polls (it waits less when the service says so). */
  readonly pollMs: number;
  /** From power-on to the firmware picking a boot device (POST). */
  readonly postMs: number;
  /**
   * From the installer's `Rebooting` report to the firmware picking the boot device again:
   * assisted-installer reboots with `shutdown -r +1`, then the server runs its POST.
   */
  readonly rebootMs: number;
}

/** What every host of a fleet shares. */
export interface SimHostContext {
  readonly timings: SimTimings;
  /** A keep-alive pool to an origin (the image server, the agent API), shared by all hosts. */
  dispatcherFor(url: string, ca: string | undefined): Dispatcher;
  /** Bytes read from image URLs (virtual media and rootfs downloads). */
  readonly media: TransferCounter;
  /** Agent API calls made and failed. */
  readonly agentCalls: { requests: number; failures: number };
  /** Called on every phase change. */
  onPhase(host: SimHost, phase: HostPhase, detail?: string): void;
  readonly random: () => number;
  /** Sees every agent API exchange (a conformance check). */
  readonly onExchange?: (exchange: AgentExchange) => void;
}

/** One simulated server. */
export class SimHost {
  phase: HostPhase = HostPhase.Off;
  /** Why the last boot failed, or what the host is stuck on. */
  detail: string | undefined;
  /** Boots from the ISO so far. */
  isoBoots = 0;
  /** The installer wrote the disk: a disk boot runs the installed system. */
  private diskInstalled = false;
  /** Stages the installer has left for the installed system to report. */
  private remainingStages: readonly string[] = [];
  private discovery: Discovery | undefined;
  private description: HostDescription | undefined;
  /** Bumped whenever the machine loses power or restarts: older loops see it and stop. */
  private life = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly spec: SimHostSpec,
    readonly bmc: SimulatedBmc,
    private readonly context: SimHostContext,
  ) {}

  /** The BMC booted the host (from `event.imageUrl`, or from its disk). */
  onBoot(event: BootEvent): void {
    const life = this.restart();
    if (this.spec.faults.neverBoots === true) {
      this.setPhase(HostPhase.Hung, 'stuck in POST (fault never-boots)');
      return;
    }
    const imageUrl = event.imageUrl;
    if (imageUrl === undefined) {
      if (!this.diskInstalled) {
        this.setPhase(HostPhase.Idle);
        return;
      }
      this.setPhase(HostPhase.Rebooting, 'booting the installed system');
      void this.after(life, this.context.timings.stageMs, () => this.runInstalled(life));
      return;
    }
    this.isoBoots++;
    this.setPhase(HostPhase.BootingIso);
    const mode: FirmwareBootMode = event.mode === 'Legacy' ? 'legacy' : 'UEFI';
    void this.after(life, this.context.timings.postMs, () =>
      this.runDiscovery(life, imageUrl, mode),
    );
  }

  /** The BMC cut the power. */
  onPowerOff(): void {
    this.restart();
    this.setPhase(HostPhase.Off);
  }

  /** Stops every timer and loop of the host (the simulation ends). */
  stop(): void {
    this.restart();
  }

  // ---- discovery ----------------------------------------------------------------------------

  private async runDiscovery(
    life: number,
    imageUrl: string,
    mode: FirmwareBootMode,
  ): Promise<void> {
    const media = new HttpRangeMedia(
      imageUrl,
      this.context.dispatcherFor(imageUrl, undefined),
      this.context.media,
    );
    let discovery: Discovery;
    try {
      const booted = await bootLiveIso(media, mode, (url) => this.download(url));
      discovery = discoveryOf(booted.ignition);
    } catch (err) {
      if (!this.alive(life)) return;
      this.setPhase(HostPhase.BootFailed, err instanceof Error ? err.message : String(err));
      return;
    } finally {
      media.release();
    }
    if (!this.alive(life)) return;
    this.discovery = discovery;
    this.description = this.describe(discovery);
    this.setPhase(HostPhase.Discovery);
    await this.agentLoop(life, discovery, this.description);
  }

  /** The host as the discovery agent reports it, its network set up as the ISO says. */
  private describe(discovery: Discovery): HostDescription {
    const spec = this.spec;
    const small = spec.faults.tooSmall === true;
    const macs = spec.faults.wrongMac === true ? spec.macs.map(misWired) : spec.macs;
    const network = staticNetworkOf(discovery.ignition, macs);
    const nics = macs.map((mac, i) => {
      const configured = network?.nics.find((n) => n.mac === mac);
      const addresses =
        configured !== undefined ? configured.addresses : i === 0 ? [spec.dhcpAddress] : [];
      return { mac, name: configured?.name ?? `eno${String(i + 1)}`, addresses };
    });
    return {
      hostId: spec.systemUuid,
      hostname: spec.name,
      macs,
      nicNames: nics.map((n) => n.name),
      ips: nics.map((n) => n.addresses[0] ?? ''),
      moreIps: nics.map((n) => n.addresses.slice(1)),
      cpus: small ? 2 : spec.cpus,
      ramMiB: small ? 4096 : spec.ramMiB,
      disks: spec.disks.map((d) => ({ ...d })),
      gateway: network?.gateway ?? spec.dhcpGateway,
      dns: spec.dns,
    };
  }

  private agentClient(discovery: Discovery): AgentClient {
    return new AgentClient({
      url: discovery.url,
      infraEnvId: discovery.infraEnvId,
      token: discovery.token,
      ...(discovery.agentVersion !== undefined && { agentVersion: discovery.agentVersion }),
      dispatcher: this.context.dispatcherFor(discovery.url, discovery.ca),
      ...(this.context.onExchange !== undefined && { onExchange: this.context.onExchange }),
    });
  }

  /** The discovery agent: register, then poll and answer until the host reboots. */
  private async agentLoop(
    life: number,
    discovery: Discovery,
    description: HostDescription,
  ): Promise<void> {
    const client = this.agentClient(discovery);
    const { pollMs } = this.context.timings;
    let registered = false;
    let installing = false;
    while (this.alive(life)) {
      let waitMs = pollMs;
      try {
        if (!registered) {
          // A registration is a fresh agent process: it has sent nothing yet.
          client.forget(description.hostId);
          const answer = await this.call(() => client.register(description.hostId));
          if (!this.alive(life)) return;
          if (answer.status === 201) registered = true;
          else {
            this.detail = `registration answered ${String(answer.status)}: ${answer.text.slice(0, 200)}`;
            // The agent exits; systemd starts it again (RestartSec=3, compressed to the poll).
            await this.sleep(life, this.jitter(pollMs));
            continue;
          }
        }
        const { steps } = await this.call(() => client.runSteps(description));
        if (!this.alive(life)) return;
        if (steps.status === 404 || steps.status === 401) registered = false;
        else if (steps.status === 200) {
          const body = steps.body;
          if (body.post_step_action === 'exit') registered = false;
          const install = body.instructions.find((s) => s.step_type === 'install');
          if (install !== undefined && !installing) {
            installing = true;
            void this.runInstaller(life, client, install.args[0]);
          }
          waitMs = Math.min(pollMs, secondsOf(body) * 1000);
        }
      } catch (err) {
        // The service restarting or unreachable: the agent tries again.
        this.detail = `agent: ${err instanceof Error ? err.message : String(err)}`;
      }
      await this.sleep(life, this.jitter(waitMs));
    }
  }

  // ---- install --------------------------------------------------------------------------------

  /** The installer the install step started: reports its stages, reboots at `Rebooting`. */
  private async runInstaller(
    life: number,
    client: AgentClient,
    request: string | undefined,
  ): Promise<void> {
    this.setPhase(HostPhase.Installing);
    const stages = installStagesOf(request);
    const faults = this.spec.faults;
    for (const [i, stage] of stages.entries()) {
      if (!this.alive(life)) return;
      if (stage === 'Rebooting') {
        await this.report(life, client, stage);
        this.remainingStages = stages.slice(i + 1);
        await this.rebootIntoDisk();
        return;
      }
      if (!(await this.report(life, client, stage))) return;
      if (stage === 'Writing image to disk') this.diskInstalled = true;
      if (faults.disconnectAfter === stage) {
        this.restart();
        this.setPhase(HostPhase.Unplugged, `network lost after "${stage}" (fault disconnect)`);
        return;
      }
      if (faults.hangAfter === stage) {
        this.detail = `installer hangs after "${stage}" (fault stage-timeout)`;
        return; // the agent loop goes on checking in
      }
      await this.sleep(life, this.context.timings.stageMs);
    }
  }

  /** Reports a stage until the service takes it; false when the host went away meanwhile. */
  private async report(life: number, client: AgentClient, stage: string): Promise<boolean> {
    const hostId = this.spec.systemUuid;
    for (let attempt = 0; this.alive(life); attempt++) {
      try {
        const answer = await this.call(() => client.reportProgress(hostId, stage));
        if (answer.status === 200) return true;
        this.detail = `progress "${stage}" answered ${String(answer.status)}: ${answer.text.slice(0, 200)}`;
        // 4xx: the service refuses this stage (e.g. the host was reset); stop reporting.
        if (answer.status >= 400 && answer.status < 500) return false;
      } catch (err) {
        this.detail = `progress "${stage}": ${err instanceof Error ? err.message : String(err)}`;
      }
      await this.sleep(life, this.jitter(this.context.timings.pollMs));
    }
    return false;
  }

  /** The installer's `reboot`: the discovery system stops, the firmware picks a device again. */
  private async rebootIntoDisk(): Promise<void> {
    const next = this.restart();
    this.setPhase(HostPhase.Rebooting, 'restarting after writing the disk');
    await this.sleep(next, this.context.timings.rebootMs);
    if (!this.alive(next)) return;
    this.bmc.restartFromHost();
  }

  /** The installed system: reports the stages the installer left (Joined, Done, …). */
  private async runInstalled(life: number): Promise<void> {
    const discovery = this.discovery;
    if (discovery === undefined) return;
    this.setPhase(HostPhase.Installed);
    const client = this.agentClient(discovery);
    for (const stage of this.remainingStages) {
      await this.sleep(life, this.context.timings.stageMs);
      if (!(await this.report(life, client, stage))) return;
    }
    if (this.alive(life)) this.setPhase(HostPhase.Done);
  }

  // ---- plumbing -------------------------------------------------------------------------------

  private async download(url: string): Promise<number> {
    const dispatcher = this.context.dispatcherFor(url, undefined);
    const parsed = new URL(url);
    const response = await dispatcher.request({
      origin: parsed.origin,
      method: 'GET',
      path: `${parsed.pathname}${parsed.search}`,
    });
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Buffer).length;
    this.context.media.requests++;
    this.context.media.bytes += bytes;
    if (response.statusCode !== 200)
      throw new Error(`GET ${parsed.pathname} answered ${String(response.statusCode)}`);
    return bytes;
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    this.context.agentCalls.requests++;
    try {
      return await request();
    } catch (err) {
      this.context.agentCalls.failures++;
      throw err;
    }
  }

  private setPhase(phase: HostPhase, detail?: string): void {
    this.phase = phase;
    this.detail = detail;
    this.context.onPhase(this, phase, detail);
  }

  /** A new life: loops of the old one stop at their next step. */
  private restart(): number {
    this.life++;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.wakers) wake();
    this.wakers.clear();
    return this.life;
  }

  private alive(life: number): boolean {
    return this.life === life;
  }

  /** Waits `ms`, or less when the host restarts meanwhile. */
  private sleep(life: number, ms: number): Promise<void> {
    if (!this.alive(life)) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.timers.add(timer);
      this.wakers.add(wake);
    });
  }

  private async after(life: number, ms: number, run: () => Promise<void>): Promise<void> {
    await this.sleep(life, ms);
    if (this.alive(life)) await run();
  }

  private jitter(ms: number): number {
    return ms * (0.75 + this.context.random() * 0.5);
  }
}

function secondsOf(steps: ReceivedSteps): number {
  return Number.isFinite(steps.next_instruction_seconds) && steps.next_instruction_seconds > 0
    ? steps.next_instruction_seconds
    : 60;
}

/** Another MAC on the same NIC vendor prefix: the cable in the wrong port, or a typo. */
function misWired(mac: string): string {
  const last = parseInt(mac.slice(-2), 16);
  return `${mac.slice(0, -2)}${((last + 0x40) & 0xff).toString(16).padStart(2, '0')}`;
}
