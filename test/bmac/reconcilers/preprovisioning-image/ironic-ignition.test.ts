/**
 * The ironic agent ignition: byte for byte what assisted-service's GenerateIronicConfig stores
 * (Go's encoding/json of ignition 3.2 types), so an unchanged config is never written again.
 */
import { describe, expect, it } from 'vitest';
import { ironicAgentIgnition } from '../../../../src/bmac/reconcilers/preprovisioning-image/index.js';

const IMAGE = 'quay.io/metal3/ironic-agent:4.18';

/** The config file inside the ignition, decoded from its data URL. */
function agentConf(ignition: string): string {
  const parsed = JSON.parse(ignition) as {
    storage: { files: { contents: { source: string } }[] };
  };
  const source = parsed.storage.files[0]!.contents.source;
  expect(source.startsWith('data:text/plain,')).toBe(true);
  return decodeURIComponent(source.slice('data:text/plain,'.length));
}

describe('ironicAgentIgnition', () => {
  it('writes the same bytes as assisted-service for an InfraEnv with a proxy', () => {
    const ignition = ironicAgentIgnition({
      ironicUrl: 'https://10.0.0.5',
      inspectorUrl: 'https://10.0.0.5',
      agentImage: IMAGE,
      proxy: { httpProxy: 'http://proxy:3128', noProxy: '.cluster.local,10.0.0.0/8' },
    });
    expect(ignition).toBe(
      String.raw`{"ignition":{"config":{"replace":{"verification":{}}},"proxy":{},"security":{"tls":{}},"timeouts":{},"version":"3.2.0"},"passwd":{},"storage":{"files":[{"group":{},"overwrite":false,"path":"/etc/ironic-python-agent.conf","user":{},"contents":{"source":"data:text/plain,%0A%5BDEFAULT%5D%0Aapi_url%20%3D%20https%3A%2F%2F10.0.0.5%3A6385%0Ainspection_callback_url%20%3D%20https%3A%2F%2F10.0.0.5%3A5050%2Fv1%2Fcontinue%0Ainsecure%20%3D%20True%0Aenable_vlan_interfaces%20%3D%20all%0A","verification":{}},"mode":420}]},"systemd":{"units":[{"contents":"[Unit]\nDescription=Ironic Agent\nAfter=network-online.target\nWants=network-online.target\n[Service]\nEnvironment=\"HTTP_PROXY=http://proxy:3128\"\nEnvironment=\"HTTPS_PROXY=\"\nEnvironment=\"NO_PROXY=.cluster.local,10.0.0.0/8\"\nTimeoutStartSec=0\nRestart=on-failure\nRestartSec=5\nStartLimitIntervalSec=0\nExecStartPre=/bin/podman pull quay.io/metal3/ironic-agent:4.18 --tls-verify=false\nExecStart=/bin/podman run --rm --privileged --network host --mount type=bind,src=/etc/ironic-python-agent.conf,dst=/etc/ironic-python-agent/ignition.conf --mount type=bind,src=/dev,dst=/dev --mount type=bind,src=/sys,dst=/sys --mount type=bind,src=/run/dbus/system_bus_socket,dst=/run/dbus/system_bus_socket --mount type=bind,src=/,dst=/mnt/coreos --mount type=bind,src=/run/udev,dst=/run/udev --ipc=host --uts=host --env \"IPA_COREOS_IP_OPTIONS=\" --env IPA_COREOS_COPY_NETWORK=false --env \"IPA_DEFAULT_HOSTNAME=\" --name ironic-agent quay.io/metal3/ironic-agent:4.18\n[Install]\nWantedBy=multi-user.target\n","enabled":true,"name":"ironic-agent.service"}]}}`,
    );
  });

  it('keeps given ports and paths and adds the defaults to each URL of a list', () => {
    const conf = agentConf(
      ironicAgentIgnition({
        ironicUrl: 'https://[fd00::5],http://ironic.hub:8080/base',
        inspectorUrl: 'https://[fd00::5]:5050/v1/continue,http://inspector.hub/root',
        agentImage: IMAGE,
      }),
    );
    expect(conf).toContain('api_url = https://[fd00::5]:6385,http://ironic.hub:8080/base\n');
    expect(conf).toContain(
      'inspection_callback_url = https://[fd00::5]:5050/v1/continue,http://inspector.hub:5050/root/v1/continue\n',
    );
  });

  it('lets the agent tag VLAN interfaces only when the image has no static network config', () => {
    const props = {
      ironicUrl: 'https://10.0.0.5',
      inspectorUrl: 'https://10.0.0.5',
      agentImage: IMAGE,
    };
    expect(agentConf(ironicAgentIgnition(props))).toContain('enable_vlan_interfaces = all\n');
    expect(agentConf(ironicAgentIgnition({ ...props, staticNetwork: true }))).toContain(
      'enable_vlan_interfaces = \n',
    );
  });

  it('escapes <, > and & as Go does', () => {
    const ignition = ironicAgentIgnition({
      ironicUrl: 'https://10.0.0.5',
      inspectorUrl: 'https://10.0.0.5',
      agentImage: IMAGE,
      proxy: { noProxy: '<a>&b' },
    });
    expect(ignition).toContain(String.raw`NO_PROXY=\u003ca\u003e\u0026b`);
  });

  it('refuses an empty ironic URL or agent image with the message assisted-service gives', () => {
    expect(() =>
      ironicAgentIgnition({ ironicUrl: '', inspectorUrl: '', agentImage: IMAGE }),
    ).toThrow('ironicBaseURL is required');
    expect(() =>
      ironicAgentIgnition({ ironicUrl: 'https://10.0.0.5', inspectorUrl: '', agentImage: '' }),
    ).toThrow('ironicAgentImage is required');
  });
});
