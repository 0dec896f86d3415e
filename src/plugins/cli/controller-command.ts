/**
 * `siteforge controller`: runs the BMAC controller on a hub. Flags are spelt as
 * controller-runtime's manager and kubebuilder's scaffold spell them, so a Deployment written
 * for another operator reads the same. Bad flags are usage errors (exit 2) found before
 * anything connects; the controller itself is loaded only once they parse.
 */
import { UsageError } from '../../shared/errors.js';
import {
  ASSISTED_DEFAULTS,
  DiscoveryIsoType,
  InstallerBackend,
} from '../../assisted/config/options.js';
import { MODE_FLAG_VALUES } from '../../bmac/mode.js';
import type { ModeFlag } from '../../bmac/mode.js';
import type { BindAddress, ControllerOptions, LogLevel } from '../../bmac/main.js';
import { KubeUnreachableError } from '../../kube/errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from './cli-io.js';

const USAGE = `Usage: siteforge controller [options]

Runs the BMAC controller on a hub until SIGTERM or SIGINT. With the Bare Metal Operator on the
hub (metal3 mode) it serves the operator's images; without it (redfish mode) it boots the hosts
itself through Redfish. Logs are JSON lines on stderr.

Options:
  --kubeconfig FILE       the hub (default: $KUBECONFIG, ~/.kube/config, else in-cluster)
  --mode redfish|metal3|auto
                          who boots hosts; auto (the default) looks for the Bare Metal
                          Operator's Deployment and needs get and list on deployments.apps
  --namespace NS          watch only NS; repeatable (default: every namespace)
  --metrics-bind-address HOST:PORT
                          where /metrics listens; 0 turns it off (default :8080)
  --health-probe-bind-address HOST:PORT
                          where /healthz and /readyz listen; 0 turns them off (default :8081)
  --dashboard-bind-address HOST:PORT
                          where the fleet dashboard (a read-only web page of every site's
                          state, problems and timeline) listens; 0 turns it off (default 0)
  --leader-elect=true|false
                          campaign for a Lease so one replica acts at a time (default true)
  --leader-election-namespace NS
                          namespace of the Lease (default: the pod's own)
  --leader-election-id NAME
                          name of the Lease (default siteforge-controller)
  --image-server-bind-address HOST:PORT
                          where the image server listens (default :8082)
  --image-server-url URL  base URL at which BMCs reach the image server (default: its
                          listening address; listening on every interface, http://$POD_IP:PORT,
                          and without POD_IP the controller refuses to start)
  --image-cache-dir DIR   where the image server keeps downloaded images
                          (default: $TMPDIR/siteforge-images)
  --image-server-key-file FILE
                          HMAC key of short image URLs, at least 32 bytes, the same for
                          every replica (default: random per process; URLs then stop
                          working after a restart or failover)
  --workers N             reconciles at once per controller (default 16)
  --kube-api-qps N        writes per second toward the API server (default 500)
  --kube-api-burst N      writes at once before --kube-api-qps applies (default 1000)
  --max-concurrent-bmc-operations N
                          redfish mode: BMC operations (a boot, a power change) running
                          at once over all hosts; each waits on its BMC, not on this
                          process (default 256)
  --ironic-url URL        metal3 mode: Ironic's API, which the ironic agent of a
                          PreprovisioningImage reports to
  --ironic-inspector-url URL
                          metal3 mode: Ironic inspector (default: --ironic-url)
  --ironic-agent-image IMAGE
                          metal3 mode: the ironic agent image (default: $IRONIC_AGENT_IMAGE)
  --assisted=true|false   run the assisted core beside the BMAC: discovery ISOs of
                          InfraEnvs, the agent API, the Agent and install controllers
                          (default true)
  --agent-api-bind-address HOST:PORT
                          where the agent API (HTTPS) listens (default :8090)
  --agent-api-url URL     https base URL discovery agents are given (default: its
                          listening address; listening on every interface,
                          https://$POD_IP:PORT)
  --agent-api-tls-cert-file FILE, --agent-api-tls-key-file FILE
                          PEM certificate (with its chain) and key of the agent API,
                          given together (default: a CA and certificate made at start-up,
                          for the host of --agent-api-url; ISOs then stop working after a
                          restart or failover)
  --agent-token-key-file FILE
                          PEM EC P-256 private key signing agent tokens, the same for every
                          replica (default: random per process; ISOs then stop working
                          after a restart or failover). Make one with
                          openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256
  --os-images-file FILE   the base images of discovery ISOs: YAML or JSON with osImages
                          (AgentServiceConfig's list), or an AgentServiceConfig
  --installer openshift-install|simulated
                          where install ignition comes from (default openshift-install;
                          simulated makes fake clusters for fleet simulations)
  --openshift-install-path PATH
                          the openshift-install binary (default: openshift-install on PATH)
  --discovery-iso-type minimal-iso|full-iso
                          the discovery ISO InfraEnvs get (default minimal-iso)
  --log-level LEVEL       trace, debug, info, warn, error or fatal
                          (default: $SITEFORGE_LOG_LEVEL, else info)
  -h, --help              show this help

HOST:PORT is e.g. :8080 (every interface), 127.0.0.1:8080 or [::1]:8080.

Exit codes: 0 stopped by a signal, 1 the hub refused something needed to start,
2 usage error, 3 the hub is unreachable.
`;

/**
 * BMC operations at once. Each spends its time waiting on a BMC (a power change takes seconds),
 * so the bound is about sockets and BMC-side load, not this process: 256 boots a few thousand
 * hosts in minutes. BMO's PROVISIONING_LIMIT of 20 bounds Ironic's conductor work, not I/O.
 */
const DEFAULT_MAX_CONCURRENT_BMC_OPERATIONS = 256;

const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** Flags that take a value, as `--flag VALUE` or `--flag=VALUE`. */
const VALUED = new Set([
  '--kubeconfig',
  '--mode',
  '--namespace',
  '--metrics-bind-address',
  '--health-probe-bind-address',
  '--dashboard-bind-address',
  '--leader-election-namespace',
  '--leader-election-id',
  '--image-server-bind-address',
  '--image-server-url',
  '--workers',
  '--log-level',
  '--image-cache-dir',
  '--image-server-key-file',
  '--kube-api-qps',
  '--kube-api-burst',
  '--max-concurrent-bmc-operations',
  '--ironic-url',
  '--ironic-inspector-url',
  '--ironic-agent-image',
  '--agent-api-bind-address',
  '--agent-api-url',
  '--agent-api-tls-cert-file',
  '--agent-api-tls-key-file',
  '--agent-token-key-file',
  '--os-images-file',
  '--installer',
  '--openshift-install-path',
  '--discovery-iso-type',
]);

/** Go bool flags: bare, or =true / =false (never a separate word). */
const BOOLEAN = new Set(['--leader-elect', '--assisted']);

/** A namespace name (RFC 1123 label). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** A Lease name (RFC 1123 subdomain). */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What `siteforge controller --help` needs, or the options to run with. */
export type ParsedControllerArgs = { readonly help: true } | ControllerOptions;

/**
 * Parses the arguments of `siteforge controller` (after the word `controller`).
 * @throws UsageError naming the first bad flag
 */
export function parseControllerArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): ParsedControllerArgs {
  const values = new Map<string, string>();
  const namespaces: string[] = [];
  const booleans = new Map<string, boolean>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (BOOLEAN.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : 'true';
      if (value !== 'true' && value !== 'false')
        throw new UsageError(`${name} takes =true or =false, not "${value}"`);
      booleans.set(name, value === 'true');
    } else if (VALUED.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '' || (eq < 0 && value.startsWith('--')))
        throw new UsageError(`${name} needs a value`);
      if (name === '--namespace') namespaces.push(namespaceOf(name, value));
      else values.set(name, value);
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown controller option ${name}`);
    } else {
      throw new UsageError(`controller takes no arguments, got "${arg}"`);
    }
  }

  const mode = values.get('--mode') ?? 'auto';
  if (!(MODE_FLAG_VALUES as readonly string[]).includes(mode))
    throw new UsageError(`--mode must be redfish, metal3 or auto, not "${mode}"`);
  const logLevel = values.get('--log-level') ?? env['SITEFORGE_LOG_LEVEL'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  // Reconciles wait on the API server, not the CPU: at 4, passes queued behind each other's
  // writes for most of a fleet's boot.
  const workers = wholeNumber(values, '--workers', 16, 1, 1000);
  // ~11 writes per booted host: 100 a second held 3,500 hosts for six minutes. The API server
  // protects itself (priority and fairness); controller-runtime dropped its client-side limit.
  const kubeApiQps = wholeNumber(values, '--kube-api-qps', 500, 1, 100_000);
  const kubeApiBurst = wholeNumber(values, '--kube-api-burst', 1000, 1, 100_000);
  const maxConcurrentBmcOperations = wholeNumber(
    values,
    '--max-concurrent-bmc-operations',
    DEFAULT_MAX_CONCURRENT_BMC_OPERATIONS,
    1,
    10_000,
  );
  const ironicUrl = values.get('--ironic-url');
  if (ironicUrl !== undefined) checkUrl(ironicUrl, '--ironic-url');
  const ironicInspectorUrl = values.get('--ironic-inspector-url');
  if (ironicInspectorUrl !== undefined) checkUrl(ironicInspectorUrl, '--ironic-inspector-url');
  const passed = (flag: string, key: string): Record<string, string> => {
    const value = values.get(flag);
    return value === undefined ? {} : { [key]: value };
  };
  const leaderElectionId = values.get('--leader-election-id') ?? 'siteforge-controller';
  if (leaderElectionId.length > 253 || !SUBDOMAIN.test(leaderElectionId))
    throw new UsageError(
      `--leader-election-id must be a Lease name (lower-case letters, digits, '-' and '.'), not "${leaderElectionId}"`,
    );
  const leaseNamespace = values.get('--leader-election-namespace');
  const kubeconfig = values.get('--kubeconfig');
  const imageServerUrl = values.get('--image-server-url');
  if (imageServerUrl !== undefined) checkUrl(imageServerUrl, '--image-server-url');
  const metrics = bindAddressOf('--metrics-bind-address', values, ':8080', true);
  const probes = bindAddressOf('--health-probe-bind-address', values, ':8081', true);
  const dashboard = bindAddressOf('--dashboard-bind-address', values, '0', true);
  const imageServer = bindAddressOf('--image-server-bind-address', values, ':8082', false);
  const leaderElect = booleans.get('--leader-elect') ?? true;
  const assisted = assistedOptionsOf(values, booleans);

  return {
    ...(kubeconfig !== undefined && { kubeconfig }),
    mode: mode as ModeFlag,
    namespaces: [...new Set(namespaces)],
    ...(metrics !== undefined && { metricsBindAddress: metrics }),
    ...(probes !== undefined && { healthProbeBindAddress: probes }),
    ...(dashboard !== undefined && { dashboardBindAddress: dashboard }),
    leaderElect,
    ...(leaseNamespace !== undefined && {
      leaderElectionNamespace: namespaceOf('--leader-election-namespace', leaseNamespace),
    }),
    leaderElectionId,
    imageServerBindAddress: imageServer!,
    ...(imageServerUrl !== undefined && { imageServerUrl }),
    ...passed('--image-cache-dir', 'imageCacheDir'),
    ...passed('--image-server-key-file', 'imageServerKeyFile'),
    workers,
    kubeApiQps,
    kubeApiBurst,
    maxConcurrentBmcOperations,
    ...(ironicUrl !== undefined && { ironicUrl }),
    ...(ironicInspectorUrl !== undefined && { ironicInspectorUrl }),
    ...passed('--ironic-agent-image', 'ironicAgentImage'),
    logLevel: logLevel as LogLevel,
    ...assisted,
  };
}

/** The assisted core's flags, with their defaults. */
function assistedOptionsOf(
  values: ReadonlyMap<string, string>,
  booleans: ReadonlyMap<string, boolean>,
): Pick<
  ControllerOptions,
  | 'assisted'
  | 'agentApiBindAddress'
  | 'agentApiUrl'
  | 'agentApiTlsCertFile'
  | 'agentApiTlsKeyFile'
  | 'agentTokenKeyFile'
  | 'osImagesFile'
  | 'installer'
  | 'openshiftInstallPath'
  | 'discoveryIsoType'
> {
  const agentApiUrl = values.get('--agent-api-url');
  if (agentApiUrl !== undefined) checkUrl(agentApiUrl, '--agent-api-url', ['https:']);
  const certFile = values.get('--agent-api-tls-cert-file');
  const keyFile = values.get('--agent-api-tls-key-file');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError(
      `${certFile === undefined ? '--agent-api-tls-key-file' : '--agent-api-tls-cert-file'} needs ${certFile === undefined ? '--agent-api-tls-cert-file' : '--agent-api-tls-key-file'}: give both, or neither (a CA and certificate are then made at start-up)`,
    );
  const optional = (flag: string, key: string): Record<string, string> => {
    const value = values.get(flag);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    assisted: booleans.get('--assisted') ?? ASSISTED_DEFAULTS.assisted,
    agentApiBindAddress: bindAddressOf(
      '--agent-api-bind-address',
      values,
      `:${String(ASSISTED_DEFAULTS.agentApiPort)}`,
      false,
    )!,
    ...(agentApiUrl !== undefined && { agentApiUrl }),
    ...optional('--agent-api-tls-cert-file', 'agentApiTlsCertFile'),
    ...optional('--agent-api-tls-key-file', 'agentApiTlsKeyFile'),
    ...optional('--agent-token-key-file', 'agentTokenKeyFile'),
    ...optional('--os-images-file', 'osImagesFile'),
    installer: oneOf(
      values,
      '--installer',
      Object.values(InstallerBackend),
      ASSISTED_DEFAULTS.installer,
    ),
    openshiftInstallPath:
      values.get('--openshift-install-path') ?? ASSISTED_DEFAULTS.openshiftInstallPath,
    discoveryIsoType: oneOf(
      values,
      '--discovery-iso-type',
      Object.values(DiscoveryIsoType),
      ASSISTED_DEFAULTS.discoveryIsoType,
    ),
  };
}

/** A flag whose value is one of `choices`. */
function oneOf<T extends string>(
  values: ReadonlyMap<string, string>,
  flag: string,
  choices: readonly T[],
  fallback: T,
): T {
  const value = values.get(flag) ?? fallback;
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(
      `${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)!}, not "${value}"`,
    );
  return value as T;
}

/**
 * Runs `siteforge controller`.
 * @returns the exit code
 */
export async function runControllerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseControllerArgs(argv, io.env ?? process.env);
  if ('help' in parsed) {
    io.stdout(USAGE);
    return ExitCode.Ok;
  }
  // Loaded only now: client-node takes most of a second to import.
  const { runController } = await import('../../bmac/main.js');
  try {
    return await runController(parsed, { ...(io.env && { env: io.env }) });
  } catch (err) {
    if (err instanceof KubeUnreachableError) {
      io.stderr(`siteforge: ${err.message}\n`);
      return ExitCode.Unreachable;
    }
    throw err;
  }
}

function namespaceOf(flag: string, value: string): string {
  if (!NAMESPACE.test(value))
    throw new UsageError(
      `${flag} must be a namespace name (lower-case letters, digits and '-'), not "${value}"`,
    );
  return value;
}

function checkUrl(
  value: string,
  flag: string,
  protocols: readonly string[] = ['http:', 'https:'],
): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || !protocols.includes(url.protocol))
    throw new UsageError(
      `${flag} must be ${protocols.length === 1 ? 'an https' : 'an http or https'} URL, not "${value}"`,
    );
}

/** A whole-number flag within [min, max]. */
function wholeNumber(
  values: ReadonlyMap<string, string>,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = values.get(flag);
  if (text === undefined) return fallback;
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max))
    throw new UsageError(
      `${flag} must be a whole number from ${String(min)} to ${String(max)}, not "${text}"`,
    );
  return value;
}

/**
 * `HOST:PORT` as Go's net.Listen takes it: `:8080`, `127.0.0.1:8080`, `host:8080`,
 * `[::1]:8080`. `0` turns an optional server off, as in controller-runtime.
 */
function bindAddressOf(
  flag: string,
  values: ReadonlyMap<string, string>,
  fallback: string,
  canDisable: boolean,
): BindAddress | undefined {
  const text = values.get(flag) ?? fallback;
  if (text === '0') {
    if (canDisable) return undefined;
    throw new UsageError(`${flag} cannot be turned off; give HOST:PORT`);
  }
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]*):([0-9]{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65_535)
    throw new UsageError(
      `${flag} must be HOST:PORT such as :8080, 127.0.0.1:8080 or [::1]:8080${canDisable ? ', or 0 to turn it off' : ''}; not "${text}"`,
    );
  const host = match[1]!.startsWith('[') ? match[1]!.slice(1, -1) : match[1]!;
  return { host, port };
}
