import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSushy } from '../../scripts/hub/sushy.mjs';
import type { RunningSushy } from '../../scripts/hub/sushy.mjs';
import type { KubeObject } from '../../src/kube/index.js';
import {
  AGENT,
  BMH,
  bareMetalHost,
  createBmcSecret,
  createInfraEnv,
  eventsOf,
  field,
  hubRuntimeClient,
  longIsoUrl,
  startInProcessController,
  waitFor,
} from '../support/controller-hub.js';
import type { InProcessController } from '../support/controller-hub.js';
import { useNamespace } from '../support/hub.js';
import { loopbackCert } from '../support/loopback-cert.js';
import { RecordingProxy } from '../support/recording-proxy.js';

// `siteforge controller --mode redfish` end to end on the real hub against sushy-tools' emulator
// (fake driver, HTTPS, Basic auth), behind a recording proxy so what was sent is known too: the
// BMAC points each host at its InfraEnv's ISO, the Redfish provisioner boots it through the
// image server's short URL, the Agent that registers is paired, the host is let go at Rebooting,
// and deleting a host powers it off and ejects before its finalizers go.

const SYSTEM_A = 'a0c6f3b2-6f4e-4a51-9a4e-1f0c2b3d4e01';
const SYSTEM_B = 'a0c6f3b2-6f4e-4a51-9a4e-1f0c2b3d4e02';
const MAC_A = '52:54:00:ae:10:01';
const MAC_B = '52:54:00:ae:10:02';
const SYSTEMS = (id: string): string => `/redfish/v1/Systems/${id}`;

describe('siteforge controller --mode redfish on the hub, against sushy-tools', () => {
  const ns = useNamespace('e2e-redfish');
  const credentials = { username: 'admin', password: 'e2e-sushy-pw-5d1c' };
  const iso = randomBytes(64 * 1024);
  let isoDownloads = 0;
  const upstream = createServer((_req, res) => {
    isoDownloads++;
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': iso.length,
    });
    res.end(iso);
  });
  const client = hubRuntimeClient();
  let sushy: RunningSushy;
  let proxy: RecordingProxy;
  let certDir: string;
  let controller: InProcessController;
  let longUrl: string;

  /** GET of a sushy resource, as the BMC shows it now. */
  function bmcGet(path: string): Promise<Record<string, unknown>> {
    const ca = readFileSync(sushy.ca!);
    const auth = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
    return new Promise((resolve, reject) => {
      const req = request(
        `${sushy.url}${path}`,
        { ca, headers: { authorization: `Basic ${auth}` } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => {
            resolve(JSON.parse(text) as Record<string, unknown>);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const bmh = (name: string): Promise<KubeObject | undefined> =>
    client.get({ ...BMH, namespace: ns.name, name });
  const agent = (): Promise<KubeObject | undefined> =>
    client.get({ ...AGENT, namespace: ns.name, name: 'agent-a' });

  beforeAll(async () => {
    sushy = await startSushy({
      auth: credentials,
      tls: true,
      systems: [SYSTEM_A, SYSTEM_B].map((uuid, i) => ({
        uuid,
        name: `node-${String(i)}`,
        power_state: 'Off',
        nics: [{ mac: i === 0 ? MAC_A : MAC_B, ip: `172.22.0.${String(10 + i)}` }],
      })),
    });
    certDir = mkdtempSync(join(tmpdir(), 'siteforge-e2e-proxy-'));
    proxy = await RecordingProxy.start(sushy.url, readFileSync(sushy.ca!), loopbackCert(certDir));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    longUrl = longIsoUrl(
      `http://127.0.0.1:${String((upstream.address() as AddressInfo).port)}`,
      'e2e-site',
    );

    await createBmcSecret(client, ns.name, 'bmc-secret', credentials);
    await createInfraEnv(client, ns.name, 'site', { isoDownloadURL: longUrl });
    const address = (id: string): string =>
      `redfish-virtualmedia://127.0.0.1:${String(proxy.port)}${SYSTEMS(id)}`;
    await client.create(
      bareMetalHost(ns.name, 'host-a', {
        infraEnv: 'site',
        address: address(SYSTEM_A),
        credentialsName: 'bmc-secret',
        bootMACAddress: MAC_A,
        annotations: {
          'bmac.agent-install.openshift.io/hostname': 'master-a.example.com',
          'bmac.agent-install.openshift.io/role': 'master',
        },
        spec: { rootDeviceHints: { deviceName: '/dev/sdb' } },
      }),
    );
    await client.create(
      bareMetalHost(ns.name, 'host-b', {
        infraEnv: 'site',
        address: address(SYSTEM_B),
        credentialsName: 'bmc-secret',
        bootMACAddress: MAC_B,
      }),
    );
    controller = await startInProcessController({ mode: 'redfish', namespaces: [ns.name] });
  }, 180_000);

  afterAll(async () => {
    const code = await controller.stop();
    await sushy.stop();
    await proxy.close();
    upstream.closeAllConnections();
    upstream.close();
    rmSync(certDir, { recursive: true, force: true });
    expect(code).toBe(0);
    // No log line carries the BMC password.
    expect(JSON.stringify(controller.lines)).not.toContain(credentials.password);
  });

  it('boots each host from the short image URL: inserted, a one-time Cd override, powered on', async () => {
    for (const name of ['host-a', 'host-b'])
      await waitFor(
        `${name} provisioned`,
        async () => field(await bmh(name), 'status', 'provisioning', 'state') === 'provisioned',
        { controller, timeoutMs: 60_000 },
      );

    for (const id of [SYSTEM_A, SYSTEM_B]) {
      const cd = await bmcGet(`${SYSTEMS(id)}/VirtualMedia/Cd`);
      expect(cd['Inserted']).toBe(true);
      const image = String(cd['Image']);
      // The image server's short URL, never the InfraEnv's URL with its token and query.
      expect(image.startsWith(`${controller.imageOrigin!}/images/`)).toBe(true);
      expect(image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/images\/[\w.-]+\.iso$/);
      expect(image).not.toContain('byapikey');
      const system = await bmcGet(SYSTEMS(id));
      expect(system['PowerState']).toBe('On');
      expect(field(system as KubeObject, 'Boot', 'BootSourceOverrideTarget')).toBe('Cd');
      // sushy-tools reads Enabled back as Continuous whatever it was sent; the proxy saw Once.
      const overrides = proxy
        .matching('PATCH', new RegExp(`^${SYSTEMS(id)}$`))
        .map((r) => field(r.body as KubeObject, 'Boot'));
      expect(overrides).toContainEqual(
        expect.objectContaining({
          BootSourceOverrideTarget: 'Cd',
          BootSourceOverrideEnabled: 'Once',
        }),
      );
      // The long URL never went to the BMC.
      expect(JSON.stringify(proxy.requests)).not.toContain('byapikey');
    }
    // The image server downloaded the ISO once for both hosts.
    expect(isoDownloads).toBe(1);
  }, 90_000);

  it('leaves the host reading as the Bare Metal Operator’s, with the BMAC’s marks on it', async () => {
    const host = (await bmh('host-a'))!;
    const status = field(host, 'status') as Record<string, unknown>;
    expect(status).toMatchObject({
      operationalStatus: 'OK',
      poweredOn: true,
      errorCount: 0,
      errorMessage: '',
      provisioning: { state: 'provisioned', image: { url: longUrl, format: 'live-iso' } },
    });
    expect(status['errorType'] ?? '').toBe('');
    expect(status['lastUpdated']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const op of ['register', 'provision'])
      expect(field(host, 'status', 'operationHistory', op)).toMatchObject({
        start: expect.stringMatching(/Z$/) as unknown,
        end: expect.stringMatching(/Z$/) as unknown,
      });

    expect(host.metadata.annotations).toMatchObject({ 'inspect.metal3.io': 'disabled' });
    expect(host.metadata.labels).toMatchObject({
      'cluster.open-cluster-management.io/backup': 'true',
    });
    expect(host.metadata['finalizers']).toEqual(
      expect.arrayContaining(['bmac.agent-install.openshift.io/deprovision']),
    );
    expect(field(host, 'spec')).toMatchObject({
      automatedCleaningMode: 'disabled',
      online: true,
      image: { url: longUrl, format: 'live-iso' },
    });

    const events = await eventsOf(client, ns.name, 'BareMetalHost', 'host-a');
    expect(events.map((e) => e.reason)).toEqual(
      expect.arrayContaining([
        'ImageSet',
        'BMCAccessValidated',
        'ProvisioningStarted',
        'ProvisioningComplete',
      ]),
    );
    expect(events.filter((e) => e.type !== 'Normal')).toEqual([]);
  });

  it('pairs the Agent that registers with the boot MAC: approved, labelled, named, its disk chosen', async () => {
    const created = await client.create({
      ...AGENT,
      metadata: {
        name: 'agent-a',
        namespace: ns.name,
        labels: { 'infraenvs.agent-install.openshift.io': 'site' },
      },
      spec: { approved: false, role: '' },
    });
    const disk = (id: string, path: string): Record<string, unknown> => ({
      id,
      path,
      byPath: `/dev/disk/by-path/pci-0000:00:1f.2-ata-${path.slice(-1)}`,
      sizeBytes: 480_000_000_000,
      driveType: 'SSD',
      installationEligibility: { eligible: true, notEligibleReasons: [] },
    });
    await client.updateStatus({
      ...created,
      status: {
        inventory: {
          hostname: 'localhost',
          interfaces: [
            {
              name: 'eno1',
              macAddress: MAC_A.toUpperCase(),
              ipV4Addresses: ['192.168.111.20/24'],
              ipV6Addresses: [],
              flags: [],
              speedMbps: 10_000,
            },
          ],
          disks: [
            disk('/dev/disk/by-id/wwn-0x5000c500a0000001', '/dev/sda'),
            disk('/dev/disk/by-id/wwn-0x5000c500a0000002', '/dev/sdb'),
          ],
        },
      },
    });

    const paired = await waitFor(
      'the Agent approved',
      async () => {
        const a = await agent();
        return field(a, 'spec', 'approved') === true ? a : undefined;
      },
      { controller },
    );
    expect(paired.metadata.labels).toMatchObject({ 'agent-install.openshift.io/bmh': 'host-a' });
    expect(field(paired, 'spec')).toMatchObject({
      hostname: 'master-a.example.com',
      role: 'master',
      installation_disk_id: '/dev/disk/by-id/wwn-0x5000c500a0000002',
    });

    const details = await waitFor(
      'the hardwaredetails annotation',
      async () =>
        (await bmh('host-a'))?.metadata.annotations?.['inspect.metal3.io/hardwaredetails'],
      { controller },
    );
    expect(JSON.parse(details)).toMatchObject({
      nics: [{ name: 'eno1', mac: MAC_A.toUpperCase(), ip: '192.168.111.20' }],
      hostname: 'master-a.example.com',
    });
    const events = await eventsOf(client, ns.name, 'BareMetalHost', 'host-a');
    expect(events.map((e) => e.reason)).toContain('AgentApproved');
  }, 60_000);

  it('lets the host go when its Agent reboots into the installed system: detached, media ejected', async () => {
    const current = (await agent())!;
    await client.updateStatus({
      ...current,
      status: {
        ...(field(current, 'status') as Record<string, unknown>),
        progress: { currentStage: 'Rebooting' },
      },
    });
    const detached = await waitFor(
      'host-a detached',
      async () => {
        const host = await bmh('host-a');
        return field(host, 'status', 'operationalStatus') === 'detached' ? host : undefined;
      },
      { controller },
    );
    expect(detached.metadata.annotations?.['baremetalhost.metal3.io/detached']).toBe(
      'assisted-service-controller',
    );
    const cd = await bmcGet(`${SYSTEMS(SYSTEM_A)}/VirtualMedia/Cd`);
    expect(cd['Inserted']).toBe(false);
    // Power is the installed system's now: left on.
    expect((await bmcGet(SYSTEMS(SYSTEM_A)))['PowerState']).toBe('On');
    const events = await eventsOf(client, ns.name, 'BareMetalHost', 'host-a');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['Detached']));
  }, 60_000);

  it('deletes a provisioned host after powering it off and ejecting its media', async () => {
    const powerOffsBefore = proxy.matching('POST', /ComputerSystem\.Reset$/).length;
    await client.delete({ ...BMH, namespace: ns.name, name: 'host-b' });
    await waitFor('host-b gone', async () => (await bmh('host-b')) === undefined, {
      controller,
      timeoutMs: 60_000,
    });
    const system = await bmcGet(SYSTEMS(SYSTEM_B));
    expect(system['PowerState']).toBe('Off');
    expect((await bmcGet(`${SYSTEMS(SYSTEM_B)}/VirtualMedia/Cd`))['Inserted']).toBe(false);
    const resets = proxy
      .matching('POST', new RegExp(`^${SYSTEMS(SYSTEM_B)}/Actions/ComputerSystem\\.Reset$`))
      .map((r) => field(r.body as KubeObject, 'ResetType'));
    expect(resets.at(-1)).toBe('ForceOff');
    expect(proxy.matching('POST', /ComputerSystem\.Reset$/).length).toBeGreaterThan(
      powerOffsBefore,
    );
  }, 90_000);

  it('deletes a detached host without touching its power', async () => {
    const requestsBefore = proxy.requests.length;
    await client.delete({ ...BMH, namespace: ns.name, name: 'host-a' });
    await waitFor('host-a gone', async () => (await bmh('host-a')) === undefined, {
      controller,
    });
    expect((await bmcGet(SYSTEMS(SYSTEM_A)))['PowerState']).toBe('On');
    expect(
      proxy.requests
        .slice(requestsBefore)
        .filter((r) => r.method !== 'GET')
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
  }, 60_000);
});
