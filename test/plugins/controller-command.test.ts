import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseControllerArgs } from '../../src/plugins/cli/controller-command.js';
import { runCli } from '../../src/plugins/cli/main.js';

/** A kubeconfig whose API server refuses connections. */
function goneKubeconfig(): string {
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'siteforge-controller-')), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {token: not-a-real-token}}]',
      'contexts: [{name: gone, context: {cluster: gone, user: u}}]',
      'current-context: gone',
      '',
    ].join('\n'),
  );
  return kubeconfig;
}

/** Listens on `port` of loopback until `close`; rejects when it is taken. */
async function occupyPort(port: number): Promise<{ close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

/** Listens on a free loopback port until `close`. */
async function occupy(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    cwd: process.cwd(),
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
  });
  return { status, stdout, stderr };
}

/** The assisted core's options when no assisted flag is given (test/assisted/config tests them). */
const ASSISTED_DEFAULT_OPTIONS = {
  assisted: true,
  agentApiBindAddress: { host: '', port: 8090 },
  installer: 'openshift-install',
  openshiftInstallPath: 'openshift-install',
  discoveryIsoType: 'minimal-iso',
};

describe('siteforge controller arguments', () => {
  it('runs in auto mode with leader election and controller-runtime’s default ports', () => {
    expect(parseControllerArgs([])).toEqual({
      mode: 'auto',
      namespaces: [],
      metricsBindAddress: { host: '', port: 8080 },
      healthProbeBindAddress: { host: '', port: 8081 },
      leaderElect: true,
      leaderElectionId: 'siteforge-controller',
      imageServerBindAddress: { host: '', port: 8082 },
      workers: 16,
      kubeApiQps: 500,
      kubeApiBurst: 1000,
      maxConcurrentBmcOperations: 256,
      logLevel: 'info',
      ...ASSISTED_DEFAULT_OPTIONS,
    });
  });

  it('takes every flag as --flag VALUE or --flag=VALUE, and --namespace more than once', () => {
    expect(
      parseControllerArgs([
        '--kubeconfig',
        '/hub/kubeconfig',
        '--mode=metal3',
        '--namespace',
        'site-a',
        '--namespace=site-b',
        '--metrics-bind-address',
        '127.0.0.1:9090',
        '--health-probe-bind-address=[::1]:9440',
        '--leader-elect=false',
        '--leader-election-namespace',
        'siteforge',
        '--leader-election-id=bmac.siteforge.io',
        '--image-server-bind-address',
        '0.0.0.0:6180',
        '--image-server-url',
        'https://images.hub.example:6180',
        '--workers',
        '16',
        '--log-level',
        'debug',
        '--image-cache-dir=/var/cache/images',
        '--image-server-key-file',
        '/etc/siteforge/image-key',
        '--kube-api-qps=50',
        '--kube-api-burst',
        '80',
        '--max-concurrent-bmc-operations=64',
        '--ironic-url',
        'https://10.0.0.5:6385',
        '--ironic-inspector-url=https://10.0.0.5:5050',
        '--ironic-agent-image',
        'quay.io/metal3-io/ironic-agent:latest',
      ]),
    ).toEqual({
      kubeconfig: '/hub/kubeconfig',
      mode: 'metal3',
      namespaces: ['site-a', 'site-b'],
      metricsBindAddress: { host: '127.0.0.1', port: 9090 },
      healthProbeBindAddress: { host: '::1', port: 9440 },
      leaderElect: false,
      leaderElectionNamespace: 'siteforge',
      leaderElectionId: 'bmac.siteforge.io',
      imageServerBindAddress: { host: '0.0.0.0', port: 6180 },
      imageServerUrl: 'https://images.hub.example:6180',
      workers: 16,
      logLevel: 'debug',
      imageCacheDir: '/var/cache/images',
      imageServerKeyFile: '/etc/siteforge/image-key',
      kubeApiQps: 50,
      kubeApiBurst: 80,
      maxConcurrentBmcOperations: 64,
      ironicUrl: 'https://10.0.0.5:6385',
      ironicInspectorUrl: 'https://10.0.0.5:5050',
      ironicAgentImage: 'quay.io/metal3-io/ironic-agent:latest',
      ...ASSISTED_DEFAULT_OPTIONS,
    });
  });

  it('turns the metrics and probe servers off with 0, as controller-runtime', () => {
    const options = parseControllerArgs([
      '--metrics-bind-address=0',
      '--health-probe-bind-address',
      '0',
    ]);
    expect(options).not.toHaveProperty('metricsBindAddress');
    expect(options).not.toHaveProperty('healthProbeBindAddress');
  });

  it('reads the log level from SITEFORGE_LOG_LEVEL unless --log-level is given', () => {
    expect(parseControllerArgs([], { SITEFORGE_LOG_LEVEL: 'warn' })).toMatchObject({
      logLevel: 'warn',
    });
    expect(
      parseControllerArgs(['--log-level=error'], { SITEFORGE_LOG_LEVEL: 'warn' }),
    ).toMatchObject({ logLevel: 'error' });
  });

  it('takes a bare --leader-elect as true, like a Go bool flag', () => {
    expect(parseControllerArgs(['--leader-elect=false', '--leader-elect'])).toMatchObject({
      leaderElect: true,
    });
  });

  const refused: [string[], string][] = [
    [['--mode', 'ironic'], '--mode must be redfish, metal3 or auto, not "ironic"'],
    [['--mode'], '--mode needs a value'],
    [['--mode', '--workers', '2'], '--mode needs a value'],
    [['--leader-elect', 'false'], 'controller takes no arguments, got "false"'],
    [['--leader-elect=no'], '--leader-elect takes =true or =false, not "no"'],
    [['--workers', '0'], '--workers must be a whole number from 1 to 1000, not "0"'],
    [['--workers=two'], '--workers must be a whole number from 1 to 1000, not "two"'],
    [['--metrics-bind-address', '8080'], 'not "8080"'],
    [['--health-probe-bind-address', ':99999'], 'not ":99999"'],
    [['--image-server-bind-address=0'], '--image-server-bind-address cannot be turned off'],
    [['--image-server-url', 'images.hub:6180'], '--image-server-url must be an http or https URL'],
    [['--ironic-url', 'ftp://10.0.0.5'], '--ironic-url must be an http or https URL'],
    [['--kube-api-qps', '0'], '--kube-api-qps must be a whole number from 1 to 100000, not "0"'],
    [['--kube-api-burst=lots'], '--kube-api-burst must be a whole number from 1 to 100000'],
    [
      ['--max-concurrent-bmc-operations', '0'],
      '--max-concurrent-bmc-operations must be a whole number from 1 to 10000, not "0"',
    ],
    [['--namespace', 'Site_A'], '--namespace must be a namespace name'],
    [['--leader-election-id', 'SiteForge'], '--leader-election-id must be a Lease name'],
    [
      ['--log-level', 'verbose'],
      '--log-level must be one of trace, debug, info, warn, error, fatal',
    ],
    [['--metrics-addr', ':8080'], 'unknown controller option --metrics-addr'],
  ];
  for (const [args, message] of refused) {
    it(`refuses ${args.join(' ')} with one line and exit 2`, async () => {
      const { status, stdout, stderr } = await cli(['controller', ...args]);
      expect(status).toBe(2);
      expect(stdout).toBe('');
      const [line, hint, ...rest] = stderr.split('\n');
      expect(line).toContain(message);
      expect(line).toMatch(/^siteforge: /);
      expect(hint).toBe("Run 'siteforge --help' for usage.");
      expect(rest).toEqual(['']);
    });
  }

  it('prints its help on stdout', async () => {
    const { status, stdout } = await cli(['controller', '--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: siteforge controller/);
    for (const flag of ['--mode redfish|metal3|auto', '--leader-elect=true|false', '--workers N'])
      expect(stdout).toContain(flag);
  });

  it('asks for a Lease namespace outside a pod before it connects anywhere', async () => {
    const { status, stderr } = await cli([
      'controller',
      '--assisted=false',
      '--kubeconfig',
      '/nonexistent/kubeconfig',
      '--mode',
      'redfish',
    ]);
    expect(status).toBe(2);
    expect(stderr).toContain('pass --leader-election-namespace NS');
  });

  it('exits 3 with one line when the hub does not answer', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'siteforge-controller-')), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: not-a-real-token}}]',
        'contexts: [{name: gone, context: {cluster: gone, user: u}}]',
        'current-context: gone',
        '',
      ].join('\n'),
    );
    const { status, stderr } = await cli([
      'controller',
      '--assisted=false',
      '--kubeconfig',
      kubeconfig,
      '--leader-election-namespace',
      'siteforge',
      '--log-level',
      'fatal',
    ]);
    expect(status).toBe(3);
    expect(stderr).toBe(
      'siteforge: cannot reach the API server at https://127.0.0.1:1: ECONNREFUSED\n',
    );
  });

  it('says which port is busy and exits 1, leaving nothing listening', async () => {
    const busy = await occupy();
    // A free port for the image server, which starts before the busy one fails.
    const free = await occupy();
    await free.close();
    try {
      const { status, stderr } = await cli([
        'controller',
        '--assisted=false',
        '--kubeconfig',
        goneKubeconfig(),
        '--mode=redfish',
        '--leader-elect=false',
        '--log-level=fatal',
        `--image-server-bind-address=127.0.0.1:${String(free.port)}`,
        `--image-cache-dir=${mkdtempSync(join(tmpdir(), 'siteforge-images-'))}`,
        '--health-probe-bind-address=0',
        `--metrics-bind-address=127.0.0.1:${String(busy.port)}`,
      ]);
      expect(status).toBe(1);
      expect(stderr).toBe(
        `siteforge: cannot listen on 127.0.0.1:${String(busy.port)} for /metrics: address already in use\n`,
      );
      // The image server that had started was stopped: its port is free again.
      await (await occupyPort(free.port)).close();
    } finally {
      await busy.close();
    }
  });

  /** Flags that keep every server on loopback or off. */
  const quiet = () => [
    '--mode=redfish',
    '--leader-elect=false',
    '--log-level=fatal',
    '--image-server-bind-address=127.0.0.1:0',
    `--image-cache-dir=${mkdtempSync(join(tmpdir(), 'siteforge-images-'))}`,
    '--health-probe-bind-address=0',
    '--metrics-bind-address=0',
  ];

  it('calls a missing --kubeconfig file a usage error', async () => {
    const { status, stderr } = await cli([
      'controller',
      '--assisted=false',
      '--kubeconfig',
      '/nonexistent/kubeconfig',
      ...quiet(),
    ]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^siteforge: --kubeconfig \/nonexistent\/kubeconfig: no such file\n/);
  });

  it('exits 3 in redfish mode too when the hub does not answer', async () => {
    const { status, stderr } = await cli([
      'controller',
      '--assisted=false',
      '--kubeconfig',
      goneKubeconfig(),
      ...quiet(),
    ]);
    expect(status).toBe(3);
    expect(stderr).toBe(
      'siteforge: cannot reach the API server at https://127.0.0.1:1: ECONNREFUSED\n',
    );
  });

  it('exits 1 naming what the hub refuses and the chart’s ClusterRole', async () => {
    // An API server that forbids everything, as one does to a ServiceAccount without roles.
    const hub = createHttpServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          message: 'forbidden: User "system:serviceaccount:siteforge:edge" cannot list resource',
        }),
      );
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'siteforge-controller-')), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: h, cluster: {server: "http://127.0.0.1:${String((hub.address() as AddressInfo).port)}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: not-a-real-token}}]',
        'contexts: [{name: h, context: {cluster: h, user: u}}]',
        'current-context: h',
        '',
      ].join('\n'),
    );
    try {
      const { status, stderr } = await cli([
        'controller',
        '--assisted=false',
        '--kubeconfig',
        kubeconfig,
        ...quiet(),
        '--namespace=site-1',
      ]);
      expect(stderr).toBe(
        'siteforge: the hub refuses to let the controller list baremetalhosts.metal3.io in namespace site-1: bind its ServiceAccount to the ClusterRole of charts/siteforge-controller (generated from src/bmac/permissions.ts)\n',
      );
      expect(status).toBe(1);
    } finally {
      await new Promise((resolve) => hub.close(resolve));
    }
  });
});
