/**
 * The ignition config that turns an InfraEnv's discovery image into one that also runs the
 * ironic agent (IPA), which the Bare Metal Operator needs to inspect, clean and deploy a host
 * in the converged flow. Same content as assisted-service's `GenerateIronicConfig` (on
 * image-customization-controller's builder): ignition 3.2.0 with one file,
 * `/etc/ironic-python-agent.conf`, and one unit, `ironic-agent.service`, serialised the way Go's
 * encoding/json writes those types, so that the override compares equal to one the assisted
 * core stored earlier and an unchanged config never regenerates the image.
 */

/** Options of {@link ironicAgentIgnition}. */
export interface IronicAgentIgnitionProps {
  /** Ironic API base URL(s), comma-separated; port 6385 is added when none is given. */
  readonly ironicUrl: string;
  /**
   * Ironic inspector base URL(s), comma-separated; port 5050 and path `/v1/continue` are added
   * when missing.
   */
  readonly inspectorUrl: string;
  /** The ironic agent container image. */
  readonly agentImage: string;
  /** The InfraEnv's proxy, passed to podman. @default none */
  readonly proxy?: {
    readonly httpProxy?: string;
    readonly httpsProxy?: string;
    readonly noProxy?: string;
  };
  /**
   * Whether the image carries a static network config; then the agent must not create VLAN
   * interfaces of its own (`enable_vlan_interfaces` empty instead of `all`).
   * @default false
   */
  readonly staticNetwork?: boolean;
}

const IRONIC_PORT = '6385';
const INSPECTOR_PORT = '5050';
const INSPECTOR_PATH = '/v1/continue';
/** As openshift/ironic-image's configure-coreos-ipa pulls the agent. */
const PODMAN_FLAGS = '--tls-verify=false';
/** 0644, as encoding/json writes it. */
const FILE_MODE = 420;

/**
 * The ignition config, as the JSON text to store as the InfraEnv's internal ignition override.
 * @throws Error when the ironic URL or the agent image is empty
 */
export function ironicAgentIgnition(props: IronicAgentIgnitionProps): string {
  if (props.ironicUrl === '') throw new Error('ironicBaseURL is required');
  if (props.agentImage === '') throw new Error('ironicAgentImage is required');
  const vlanInterfaces = props.staticNetwork === true ? '' : 'all';
  const conf = [
    '',
    '[DEFAULT]',
    `api_url = ${withDefaults(props.ironicUrl, IRONIC_PORT, '')}`,
    `inspection_callback_url = ${withDefaults(props.inspectorUrl, INSPECTOR_PORT, INSPECTOR_PATH)}`,
    'insecure = True',
    `enable_vlan_interfaces = ${vlanInterfaces}`,
    '',
  ].join('\n');
  const config = {
    ignition: {
      config: { replace: { verification: {} } },
      proxy: {},
      security: { tls: {} },
      timeouts: {},
      version: '3.2.0',
    },
    passwd: {},
    storage: {
      files: [
        {
          group: {},
          overwrite: false,
          path: '/etc/ironic-python-agent.conf',
          user: {},
          contents: { source: textDataUrl(conf), verification: {} },
          mode: FILE_MODE,
        },
      ],
    },
    systemd: {
      units: [{ contents: agentUnit(props), enabled: true, name: 'ironic-agent.service' }],
    },
  };
  return goJson(config);
}

function agentUnit(props: IronicAgentIgnitionProps): string {
  const image = props.agentImage;
  const mounts = [
    'src=/etc/ironic-python-agent.conf,dst=/etc/ironic-python-agent/ignition.conf',
    'src=/dev,dst=/dev',
    'src=/sys,dst=/sys',
    'src=/run/dbus/system_bus_socket,dst=/run/dbus/system_bus_socket',
    'src=/,dst=/mnt/coreos',
    'src=/run/udev,dst=/run/udev',
  ]
    .map((m) => `--mount type=bind,${m}`)
    .join(' ');
  return [
    '[Unit]',
    'Description=Ironic Agent',
    'After=network-online.target',
    'Wants=network-online.target',
    '[Service]',
    `Environment="HTTP_PROXY=${props.proxy?.httpProxy ?? ''}"`,
    `Environment="HTTPS_PROXY=${props.proxy?.httpsProxy ?? ''}"`,
    `Environment="NO_PROXY=${props.proxy?.noProxy ?? ''}"`,
    'TimeoutStartSec=0',
    'Restart=on-failure',
    'RestartSec=5',
    'StartLimitIntervalSec=0',
    `ExecStartPre=/bin/podman pull ${image} ${PODMAN_FLAGS}`,
    `ExecStart=/bin/podman run --rm --privileged --network host ${mounts} --ipc=host --uts=host --env "IPA_COREOS_IP_OPTIONS=" --env IPA_COREOS_COPY_NETWORK=false --env "IPA_DEFAULT_HOSTNAME=" --name ironic-agent ${image}`,
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/**
 * Each URL of a comma-separated list with `port` when it has none and `path` appended when its
 * path does not end with it; empty entries are dropped, unparsable ones skipped.
 */
function withDefaults(urls: string, port: string, path: string): string {
  const out: string[] = [];
  for (const raw of urls.split(',')) {
    const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(.*)$/.exec(raw);
    if (m === null) continue;
    const [, scheme = '', authority = '', urlPath = '', rest = ''] = m;
    const hasPort = /:\d+$/.test(authority);
    const host = hasPort || port === '' ? authority : `${authority}:${port}`;
    const fullPath = path !== '' && !urlPath.endsWith(path) ? `${urlPath}${path}` : urlPath;
    out.push(`${scheme}${host}${fullPath}${rest}`);
  }
  return out.join(',');
}

/** A `data:text/plain,` URL with every byte outside RFC 2396's unreserved set %-escaped. */
function textDataUrl(text: string): string {
  let escaped = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    escaped += /[A-Za-z0-9\-_.!~*'()]/.test(c)
      ? c
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `data:text/plain,${escaped}`;
}

/** JSON as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
