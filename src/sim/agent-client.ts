/**
 * A scripted discovery agent: speaks the assisted-service v2 agent protocol the way
 * assisted-installer-agent does (`src/commands/service_api.go`, `step_processor.go`,
 * `src/session/inventory_session.go`, `src/logs_sender/send_logs.go`): the token in
 * `X-Secret-Key`, `discovery_agent_version` as a header, Go's User-Agent, an `X-Request-ID`
 * per session, the `timestamp` query on instructions, and it skips re-sending a successful
 * output identical to the last one of its step type (the agent's reply cache). Step outputs
 * are realistic JSON built from a small host description, so the validations have data to work
 * on. One undici Pool (keep-alive) is shared by any number of hosts: thousands run from one
 * process.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { WireInventory } from '../assisted/model.js';
import {
  BOOTSTRAP_STAGES,
  MASTER_STAGES,
  SNO_STAGES,
  WORKER_STAGES,
} from '../assisted/state/host-stages.js';

/** A host the agent pretends to run on. */
export interface HostDescription {
  /** The host id the agent registers with (upstream: the system UUID). */
  readonly hostId: string;
  readonly hostname: string;
  /** One NIC per MAC, named `eth0`, `eth1`, … unless `nicNames`; `ips[i]` (CIDR, v4 or v6) goes to NIC i. */
  readonly macs: readonly string[];
  readonly ips: readonly string[];
  /** More addresses of NIC i (a dual-stack NIC), beside `ips[i]`. */
  readonly moreIps?: readonly (readonly string[])[];
  /** NIC names, by index. @default eth0, eth1, … */
  readonly nicNames?: readonly string[];
  readonly cpus: number;
  readonly ramMiB: number;
  readonly disks: readonly {
    readonly name: string;
    readonly sizeBytes: number;
    /** @default 'SSD' */
    readonly driveType?: 'SSD' | 'HDD' | 'Multipath' | 'iSCSI' | 'FC' | 'LVM' | 'ODD';
    /** What rootDeviceHints match on; defaults are made up from the disk's index. */
    readonly byPath?: string;
    readonly hctl?: string;
    readonly model?: string;
    readonly vendor?: string;
    readonly serial?: string;
    readonly wwn?: string;
  }[];
  /** Default gateway (IPv4 or IPv6). @default the first address of the first IPv4 network, .1 */
  readonly gateway?: string;
  /** Names the DNS answers, for domain-resolution: name → addresses. */
  readonly dns?: Readonly<Record<string, readonly string[]>>;
  /** @default 'x86_64' */
  readonly architecture?: string;
  /** @default false: a physical server */
  readonly virtual?: boolean;
  /** Exit codes to answer a step type with (a failing step). */
  readonly failSteps?: Readonly<Partial<Record<string, number>>>;
}

/** One request and its answer, as the conformance check sees it. */
export interface AgentExchange {
  readonly method: string;
  /** Path and query, with the base path. */
  readonly path: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody?: string;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: string;
}

/** An answer of the API. */
export interface AgentResponse<T = unknown> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body, parsed as JSON when it is JSON. */
  readonly body: T;
  readonly text: string;
}

/** swagger `step` as received. */
export interface ReceivedStep {
  readonly step_type: string;
  readonly step_id: string;
  readonly args: readonly string[];
}

/** swagger `steps` as received. */
export interface ReceivedSteps {
  readonly next_instruction_seconds: number;
  readonly post_step_action: 'continue' | 'exit';
  readonly instructions: readonly ReceivedStep[];
}

/** How the client reaches the API. */
export interface AgentClientOptions {
  /** `https://127.0.0.1:PORT` (no base path). */
  readonly url: string;
  readonly infraEnvId: string;
  /** The agent token (PULL_SECRET_TOKEN); sent as X-Secret-Key. */
  readonly token: string;
  /** `--agent-version`. @default quay.io/edge-infrastructure/assisted-installer-agent:latest */
  readonly agentVersion?: string;
  /** CA the server's certificate is checked against (the agent's `--cacert`). */
  readonly ca?: string | Buffer;
  /** Skip certificate checks (the agent's `--insecure=true`). @default false */
  readonly insecure?: boolean;
  /** A dispatcher to share between clients; else one Pool of its own. */
  readonly dispatcher?: Dispatcher;
  /** Connections of its own Pool. @default 16 */
  readonly connections?: number;
  /** Sees every exchange (e.g. the OpenAPI conformance check). */
  readonly onExchange?: (exchange: AgentExchange) => void;
}

const BASE = '/api/assisted-install';
const DEFAULT_AGENT = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

/** A keep-alive Pool to the API, to share between many clients. */
export function agentDispatcher(
  url: string,
  options: { ca?: string | Buffer; insecure?: boolean; connections?: number } = {},
): Pool {
  return new Pool(new URL(url).origin, {
    connections: options.connections ?? 16,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    connect: {
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      rejectUnauthorized: options.insecure !== true,
    },
  });
}

/** One agent identity (an InfraEnv and its token) speaking for any number of hosts. */
export class AgentClient {
  readonly agentVersion: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  /** step type → last successful output sent, per host (the agent's reply cache). */
  private readonly replyCache = new Map<string, Map<string, string>>();

  constructor(readonly options: AgentClientOptions) {
    this.agentVersion = options.agentVersion ?? DEFAULT_AGENT;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      agentDispatcher(options.url, {
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
        ...(options.insecure !== undefined ? { insecure: options.insecure } : {}),
        ...(options.connections !== undefined ? { connections: options.connections } : {}),
      });
  }

  /** `POST /v2/infra-envs/{id}/hosts` (201: host + next_step_runner_command). */
  register(hostId: string): Promise<AgentResponse> {
    return this.json('POST', `/v2/infra-envs/${this.options.infraEnvId}/hosts`, {
      host_id: hostId,
      discovery_agent_version: this.agentVersion,
    });
  }

  /** `GET …/instructions?timestamp=…`. */
  nextSteps(
    hostId: string,
    nowSeconds = Math.floor(Date.now() / 1000),
  ): Promise<AgentResponse<ReceivedSteps>> {
    return this.json(
      'GET',
      `${this.hostPath(hostId)}/instructions?timestamp=${String(nowSeconds)}`,
    ) as Promise<AgentResponse<ReceivedSteps>>;
  }

  /** `POST …/instructions` with one step's reply. */
  postStepReply(
    hostId: string,
    reply: { step_type: string; step_id: string; exit_code: number; output: string; error: string },
  ): Promise<AgentResponse> {
    return this.json('POST', `${this.hostPath(hostId)}/instructions`, reply);
  }

  /**
   * Polls once and answers every instruction as the agent would (in parallel), skipping
   * successful replies identical to the last of their type. Returns the steps and the replies'
   * answers.
   */
  async runSteps(
    host: HostDescription,
  ): Promise<{ steps: AgentResponse<ReceivedSteps>; replies: AgentResponse[] }> {
    const steps = await this.nextSteps(host.hostId);
    if (steps.status !== 200) {
      this.replyCache.delete(host.hostId);
      return { steps, replies: [] };
    }
    const replies = await Promise.all(
      steps.body.instructions.map(async (step) => {
        const answer = stepAnswer(host, step);
        const cache = this.cacheOf(host.hostId);
        if (answer.exit_code === 0 && cache.get(step.step_type) === answer.output) return undefined;
        const response = await this.postStepReply(host.hostId, {
          step_type: step.step_type,
          step_id: step.step_id,
          ...answer,
        });
        if (response.status === 204 && answer.exit_code === 0)
          cache.set(step.step_type, answer.output);
        return response;
      }),
    );
    return {
      steps,
      replies: replies.filter((reply): reply is AgentResponse => reply !== undefined),
    };
  }

  /** `PUT …/progress` (what the installer reports per stage). */
  reportProgress(
    hostId: string,
    currentStage: string,
    progressInfo?: string,
  ): Promise<AgentResponse> {
    return this.json('PUT', `${this.hostPath(hostId)}/progress`, {
      current_stage: currentStage,
      ...(progressInfo !== undefined ? { progress_info: progressInfo } : {}),
    });
  }

  /** `PUT …/logs-progress`. */
  logsProgress(hostId: string, logsState: string): Promise<AgentResponse> {
    return this.json('PUT', `${this.hostPath(hostId)}/logs-progress`, { logs_state: logsState });
  }

  /** `GET …/hosts/{id}`. */
  getHost(hostId: string): Promise<AgentResponse> {
    return this.json('GET', this.hostPath(hostId));
  }

  /** `POST /v2/clusters/{id}/logs?…` with `upfile` as the logs_sender sends it. */
  uploadLogs(clusterId: string, hostId: string, archive: Buffer): Promise<AgentResponse> {
    const boundary = randomUUID().replaceAll('-', '');
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="upfile"; filename="logs.tar.gz"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const query = `host_id=${hostId}&infra_env_id=${this.options.infraEnvId}&logs_type=host`;
    return this.request('POST', `/v2/clusters/${clusterId}/logs?${query}`, {
      body: Buffer.concat([head, archive, tail]),
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
  }

  /** Any request, with the agent's headers (for tests of refusals). */
  async request(
    method: string,
    path: string,
    options: {
      body?: string | Buffer;
      contentType?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<AgentResponse> {
    const all: Record<string, string> = {
      'user-agent': 'Go-http-client/1.1',
      accept: 'application/json',
      'x-request-id': randomUUID(),
      discovery_agent_version: this.agentVersion,
      ...(this.options.token !== '' ? { 'x-secret-key': this.options.token } : {}),
      ...(options.contentType !== undefined ? { 'content-type': options.contentType } : {}),
      ...options.headers,
    };
    // A header given as '' is left out (a test's way to drop one of the agent's headers).
    const headers = Object.fromEntries(Object.entries(all).filter(([, value]) => value !== ''));
    const fullPath = `${BASE}${path}`;
    const response = await this.dispatcher.request({
      origin: new URL(this.options.url).origin,
      method: method,
      path: fullPath,
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const text = await response.body.text();
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined)
        responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const isJson = (responseHeaders['content-type'] ?? '').startsWith('application/json');
    this.options.onExchange?.({
      method,
      path: fullPath,
      requestHeaders: headers,
      ...(options.body !== undefined
        ? { requestBody: typeof options.body === 'string' ? options.body : '(binary)' }
        : {}),
      status: response.statusCode,
      responseHeaders,
      responseBody: text,
    });
    return {
      status: response.statusCode,
      headers: responseHeaders,
      body: isJson && text !== '' ? (JSON.parse(text) as unknown) : undefined,
      text,
    };
  }

  /**
   * Forgets the replies sent for a host: its agent process started again (it registers anew),
   * so it sends every step's output again, as a fresh agent does.
   */
  forget(hostId: string): void {
    this.replyCache.delete(hostId);
  }

  /** Closes the Pool (when it is the client's own). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private json(method: string, path: string, body?: unknown): Promise<AgentResponse> {
    return this.request(method, path, {
      ...(body !== undefined
        ? { body: JSON.stringify(body), contentType: 'application/json' }
        : {}),
    });
  }

  private hostPath(hostId: string): string {
    return `/v2/infra-envs/${this.options.infraEnvId}/hosts/${hostId}`;
  }

  private cacheOf(hostId: string): Map<string, string> {
    let cache = this.replyCache.get(hostId);
    if (!cache) {
      cache = new Map();
      this.replyCache.set(hostId, cache);
    }
    return cache;
  }
}

// ---- Step outputs -------------------------------------------------------------------------

/** A realistic host: 3 NICs' worth of defaults filled from a few numbers. */
export function describeHost(
  index: number,
  overrides: Partial<HostDescription> = {},
): HostDescription {
  const octet3 = Math.floor(index / 250) % 250;
  const octet4 = (index % 250) + 2;
  const mac = `52:54:00:${hex(index >> 16)}:${hex(index >> 8)}:${hex(index)}`;
  return {
    hostId: randomUUID(),
    hostname: `host-${String(index)}.example.com`,
    macs: [mac],
    ips: [`192.168.${String(octet3)}.${String(octet4)}/16`],
    cpus: 16,
    ramMiB: 65_536,
    disks: [{ name: 'sda', sizeBytes: 480 * 1024 ** 3 }],
    ...overrides,
  };
}

function hex(value: number): string {
  return (value & 0xff).toString(16).padStart(2, '0');
}

/** The inventory the agent's inventory step reports for the host (models.Inventory JSON). */
export function inventoryOf(host: HostDescription): WireInventory {
  const architecture = host.architecture ?? 'x86_64';
  const interfaces = host.macs.map((mac, i) => {
    const addresses = [host.ips[i], ...(host.moreIps?.[i] ?? [])].filter(
      (a): a is string => a !== undefined,
    );
    return {
      name: host.nicNames?.[i] ?? `eth${String(i)}`,
      mac_address: mac,
      ipv4_addresses: addresses.filter((a) => !a.includes(':')),
      ipv6_addresses: addresses.filter((a) => a.includes(':')),
      has_carrier: true,
      mtu: 1500,
      speed_mbps: 10_000,
      type: 'physical',
      vendor: '0x8086',
      product: '0x1572',
      biosdevname: `em${String(i + 1)}`,
      flags: ['up', 'broadcast', 'multicast'],
    };
  });
  const firstV4 = host.ips.find((ip) => !ip.includes(':'));
  const gateway =
    host.gateway ?? (firstV4 ? `${firstV4.split('.').slice(0, 3).join('.')}.1` : undefined);
  return {
    hostname: host.hostname,
    bmc_address: '0.0.0.0',
    bmc_v6address: '::/0',
    interfaces,
    disks: host.disks.map((disk, i) => {
      const wwn = disk.wwn ?? `0x5000c500${String(1000 + i).padStart(8, '0')}`;
      return {
        id: `/dev/disk/by-id/wwn-${wwn}`,
        name: disk.name,
        path: `/dev/${disk.name}`,
        by_id: `/dev/disk/by-id/wwn-${wwn}`,
        by_path: disk.byPath ?? `/dev/disk/by-path/pci-0000:00:1f.2-ata-${String(i + 1)}`,
        drive_type: disk.driveType ?? 'SSD',
        hctl: disk.hctl ?? `${String(i)}:0:0:0`,
        model: disk.model ?? 'SAMSUNG MZ7LH480',
        vendor: disk.vendor ?? 'ATA',
        serial: disk.serial ?? `S4${String(100_000 + i)}`,
        wwn,
        size_bytes: disk.sizeBytes,
        bootable: i === 0,
        removable: false,
        is_installation_media: false,
        has_uuid: true,
        smart: '{"json_format_version":[1,0],"smart_status":{"passed":true}}',
        installation_eligibility: {
          eligible: disk.sizeBytes >= 100 * 1000 ** 3,
          not_eligible_reasons: [],
        },
      };
    }),
    boot: {
      current_boot_mode: 'uefi',
      command_line: 'BOOT_IMAGE=/images/pxeboot/vmlinuz coreos.liveiso=rhcos ignition.firstboot',
      secure_boot_state: 'Disabled',
    },
    system_vendor: {
      manufacturer: host.virtual === true ? 'Red Hat' : 'Dell Inc.',
      product_name: host.virtual === true ? 'KVM' : 'PowerEdge R650',
      serial_number: host.hostId.slice(0, 8).toUpperCase(),
      virtual: host.virtual ?? false,
    },
    memory: {
      physical_bytes: host.ramMiB * 1024 * 1024,
      usable_bytes: host.ramMiB * 1024 * 1024 - 512 * 1024 * 1024,
      physical_bytes_method: 'dmidecode',
    },
    cpu: {
      count: host.cpus,
      frequency: 2_900,
      model_name: 'Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz',
      architecture,
      flags: ['fpu', 'vme', 'sse4_2', 'avx2', 'vmx'],
    },
    gpus: [],
    routes: gateway
      ? [
          {
            interface: host.nicNames?.[0] ?? 'eth0',
            gateway,
            destination: gateway.includes(':') ? '::' : '0.0.0.0',
            family: gateway.includes(':') ? 10 : 2,
            metric: 100,
          },
        ]
      : [],
    tpm_version: 'none',
  };
}

/** The reply the agent posts for one instruction: realistic output per step type. */
export function stepAnswer(
  host: HostDescription,
  step: ReceivedStep,
): { exit_code: number; output: string; error: string } {
  const failing = host.failSteps?.[step.step_type];
  if (failing !== undefined && failing !== 0) {
    return { exit_code: failing, output: '', error: `${step.step_type} failed (scripted)` };
  }
  const output = stepOutput(host, step);
  return { exit_code: 0, output: output === undefined ? '' : JSON.stringify(output), error: '' };
}

function arg0(step: ReceivedStep): unknown {
  const first = step.args[0];
  if (first === undefined) return undefined;
  try {
    return JSON.parse(first) as unknown;
  } catch {
    return undefined;
  }
}

function stepOutput(host: HostDescription, step: ReceivedStep): unknown {
  const request = arg0(step);
  switch (step.step_type) {
    case 'inventory':
      return inventoryOf(host);
    case 'ntp-synchronizer': {
      const text = (request as { ntp_source?: string } | undefined)?.ntp_source ?? '';
      const names = text === '' ? ['clock.redhat.com'] : text.split(',');
      return { ntp_sources: names.map((name) => ({ source_name: name, source_state: 'synced' })) };
    }
    case 'connectivity-check': {
      const others = (request ?? []) as {
        host_id: string;
        nics: { name?: string; mac?: string; ip_addresses?: string[] | null }[];
      }[];
      return {
        remote_hosts: others.map((other) => {
          const remotes = other.nics.flatMap((nic) =>
            (nic.ip_addresses ?? []).map((ip) => ({ ip, mac: nic.mac ?? '' })),
          );
          return {
            host_id: other.host_id,
            l2_connectivity: remotes.map((remote) => ({
              outgoing_ip_address: (host.ips[0] ?? '').split('/')[0],
              outgoing_nic: host.nicNames?.[0] ?? 'eth0',
              remote_ip_address: remote.ip,
              remote_mac: remote.mac,
              successful: true,
            })),
            l3_connectivity: remotes.map((remote) => ({
              average_rtt_ms: 0.3,
              outgoing_nic: host.nicNames?.[0] ?? 'eth0',
              packet_loss_percentage: 0,
              remote_ip_address: remote.ip,
              successful: true,
            })),
            mtu_report: remotes.map((remote) => ({
              mtu_successful: true,
              outgoing_nic: host.nicNames?.[0] ?? 'eth0',
              remote_ip_address: remote.ip,
            })),
          };
        }),
      };
    }
    case 'domain-resolution': {
      const domains = (
        (request as { domains?: { domain_name: string }[] } | undefined)?.domains ?? []
      ).map((domain) => domain.domain_name);
      return {
        resolutions: domains.map((name) => {
          const addresses = host.dns?.[name] ?? host.dns?.[name.replace(/\.$/, '')] ?? [];
          return {
            domain_name: name,
            ipv4_addresses: addresses.filter((ip) => !ip.includes(':')),
            ipv6_addresses: addresses.filter((ip) => ip.includes(':')),
            cnames: [],
          };
        }),
      };
    }
    case 'free-network-addresses': {
      const networks = (request ?? []) as string[];
      return networks.map((network) => {
        const base = network.split('/')[0]!.split('.').slice(0, 3).join('.');
        return {
          network,
          free_addresses: [200, 201, 202].map((last) => `${base}.${String(last)}`),
        };
      });
    }
    case 'installation-disk-speed-check': {
      const path = (request as { path?: string } | undefined)?.path ?? '';
      return { io_sync_duration: 3, path };
    }
    case 'container-image-availability': {
      const images = (request as { images?: string[] } | undefined)?.images ?? [];
      return {
        images: images.map((name) => ({
          name,
          result: 'success',
          size_bytes: 333_000_000,
          time: 10.5,
          download_rate: 31.7,
        })),
      };
    }
    case 'dhcp-lease-allocate':
      return {
        api_vip_address: '192.168.0.250',
        ingress_vip_address: '192.168.0.251',
        api_vip_lease: 'lease {\n  interface "api";\n}',
        ingress_vip_lease: 'lease {\n  interface "ingress";\n}',
      };
    case 'verify-vips': {
      const vips = (request ?? []) as { vip: string; vip_type: string }[];
      return vips.map((vip) => ({ ...vip, verification: 'succeeded' }));
    }
    case 'tang-connectivity-check':
      return { is_success: true, tang_server_response: [] };
    case 'upgrade-agent':
      return {
        agent_image: (request as { agent_image?: string } | undefined)?.agent_image,
        result: 'success',
      };
    default:
      // install, logs-gather, stop-installation, …: the command's own output, no JSON.
      return undefined;
  }
}

/**
 * Stages the installer reports, by role: upstream's lists (assisted-service `host/common.go`),
 * which the installer and the service share.
 */
export function installStages(role: 'bootstrap' | 'master' | 'worker' | 'sno'): readonly string[] {
  switch (role) {
    case 'bootstrap':
      return BOOTSTRAP_STAGES;
    case 'master':
      return MASTER_STAGES;
    case 'worker':
      return WORKER_STAGES;
    case 'sno':
      return SNO_STAGES;
  }
}

/** The stages of the installer an install step starts, from the step's request (its args[0]). */
export function installStagesOf(request: string | undefined): readonly string[] {
  let parsed: { role?: string; control_plane_count?: number } = {};
  try {
    parsed = JSON.parse(request ?? '{}') as typeof parsed;
  } catch {
    // an install step without a request: a plain master
  }
  const role =
    parsed.role === 'bootstrap'
      ? parsed.control_plane_count === 1
        ? 'sno'
        : 'bootstrap'
      : parsed.role === 'worker'
        ? 'worker'
        : 'master';
  return installStages(role);
}
