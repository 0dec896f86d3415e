/**
 * Our Redfish client on data captured from real BMCs: HPE iLO 5 (proliantutils), Dell iDRAC 9
 * (sushy-oem-idrac) and DMTF's public mockup (sushy), served by sushy-tools' `sushy-static`
 * (scripts/hub/mockups.mjs). sushy-static keeps no state (POST and PATCH answer 204 and change
 * nothing), so these tests cover what the client reads and where it would write; the write
 * half of the contract runs against sushy-emulator and the simulator (contract.test.ts).
 * Expected values are the captured ones, read from the samples themselves.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELL_CONFIG_PENDING,
  DELL_IMPORT_RETRIES,
  DELL_VIRTUAL_CD_BOOT,
  INSERT_FIXES,
  parseErrorBody,
  RedfishError,
  RedfishErrorCode,
  UndiciRedfishClient,
} from '../../../src/bmac/redfish/index.js';
import type {
  InsertPayload,
  RedfishExchange,
  UndiciRedfishClientOptions,
} from '../../../src/bmac/redfish/index.js';
import {
  buildMockups,
  ensureMockupWheels,
  startSushyStatic,
} from '../../../scripts/hub/mockups.mjs';
import type { BuiltMockups, RunningSushyStatic } from '../../../scripts/hub/mockups.mjs';

const credentials = { username: 'admin', password: 'captured-tree-pw' };
const ISO = 'https://images.example.test/discovery.iso';

let built: BuiltMockups;
let wheels: string;

beforeAll(async () => {
  wheels = await ensureMockupWheels();
  built = await buildMockups();
}, 300_000);
afterAll(() => {
  built.remove();
});

/** A captured sample, straight from its wheel (a `variant` of a file that wraps several). */
function sample(wheel: string, path: string, variant?: string): Record<string, unknown> {
  const json = JSON.parse(readFileSync(`${wheels}/${wheel}/${path}`, 'utf8')) as Record<
    string,
    unknown
  >;
  return variant === undefined ? json : (json[variant] as Record<string, unknown>);
}

/** A request as sushy-static logged it: request line and status, Authorization, body. */
interface Received {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/**
 * Reads sushy-static's log: each request's headers (and `Data: b'...'` body) on stdout, then
 * its request line with the status on stderr.
 */
function received(log: string): Received[] {
  const requests: Received[] = [];
  let authorization: string | undefined;
  let body: unknown;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const auth = /^authorization:\s*(.*)$/i.exec(line);
    if (auth) authorization = auth[1];
    const data = /^Data: b'(.*)'$/.exec(line);
    if (data) body = JSON.parse(data[1]!.replace(/\\'/g, "'").replace(/\\\\/g, '\\'));
    const done = /"([A-Z]+) (\S+) HTTP\/1\.[01]" (\d{3})/.exec(line);
    if (done) {
      requests.push({
        method: done[1]!,
        path: done[2]!,
        status: Number(done[3]),
        authorization,
        body,
      });
      authorization = undefined;
      body = undefined;
    }
  }
  return requests;
}

/** One captured tree on a real sushy-static over TLS, with a client that records exchanges. */
function onCapturedTree(vendor: string) {
  const state = {
    bmc: undefined as RunningSushyStatic | undefined,
    exchanges: [] as RedfishExchange[],
    clients: [] as UndiciRedfishClient[],
  };
  beforeAll(async () => {
    state.bmc = await startSushyStatic({ mockupDir: built.trees[vendor]!.dir, tls: true });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(state.clients.map((c) => c.close()));
    await state.bmc?.stop();
  });
  return {
    get bmc(): RunningSushyStatic {
      return state.bmc!;
    },
    /** Exchanges of every client since the last call, as `METHOD path status`. */
    takeExchanges(): string[] {
      return state.exchanges
        .splice(0)
        .map((e) => `${e.method} ${e.path} ${String(e.status ?? 'none')}`);
    },
    client(scheme = 'redfish-virtualmedia', options: Partial<UndiciRedfishClientOptions> = {}) {
      const bmc = state.bmc!;
      const client = new UndiciRedfishClient({
        address: `${scheme}+${bmc.url}`,
        credentials,
        ca: readFileSync(bmc.ca!),
        retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
        onExchange: (e) => state.exchanges.push(e),
        ...options,
      });
      state.clients.push(client);
      return client;
    },
  };
}

const basic = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;

describe('HPE iLO 5 (proliantutils samples) on sushy-static', () => {
  const tree = onCapturedTree('hpe-ilo');
  const ilo = 'proliantutils/tests/redfish/json_samples';
  const system = () => sample('proliantutils', `${ilo}/system.json`, 'default');
  const slot = () => sample('proliantutils', `${ilo}/vmedia.json`, 'default');

  it('logs in with the credentials: the session POST gets 204 without a token, so Basic auth', async () => {
    const client = tree.client();
    await client.getSystem();
    expect(tree.takeExchanges().slice(0, 2)).toEqual([
      'GET /redfish/v1/ 200',
      'POST /redfish/v1/SessionService/Sessions/ 204',
    ]);
    const gets = received(tree.bmc.log).filter((r) => r.path === '/redfish/v1/Systems/1/');
    expect(gets.length).toBeGreaterThan(0);
    expect(gets.every((r) => r.authorization === basic)).toBe(true);
  });

  it('finds the ProLiant, powered on, in UEFI mode, with the reset types it offers', async () => {
    const target = await tree.client().discover();
    const captured = system();
    const boot = captured['Boot'] as Record<string, unknown>;
    expect(target.system).toEqual({
      path: '/redfish/v1/Systems/1/',
      id: captured['Id'],
      manufacturer: 'HPE',
      model: 'ProLiant DL180 Gen10',
      powerState: 'On',
      boot: {
        target: 'None',
        enabled: 'Disabled',
        mode: 'UEFI',
        allowedTargets: boot['BootSourceOverrideTarget@Redfish.AllowableValues'],
      },
      resetTypes: ['On', 'ForceOff', 'ForceRestart', 'Nmi', 'PushPowerButton'],
      bootProgress: undefined,
    });
    expect(target.managers).toEqual(['/redfish/v1/Managers/1/']);
    expect(target.redfishVersion).toBe('1.0.0');
    expect(target.quirks).toEqual([]); // no vendor rule for HPE
  });

  it("finds iLO's empty CD/DVD slot under the Manager, not the System", async () => {
    const client = tree.client();
    const captured = slot();
    const expected = {
      path: '/redfish/v1/Managers/1/VirtualMedia/2/',
      id: '2',
      owner: 'manager',
      mediaTypes: ['CD', 'DVD'],
      inserted: false,
      image: undefined, // captured as ""
      connectedVia: 'NotConnected',
      // This iLO firmware (VirtualMedia v1_0_0) has no #VirtualMedia.InsertMedia, only HPE's
      // Oem InsertVirtualMedia, and a mockup carries no Allow header; like sushy, the client
      // then knows no way in.
      insertBy: 'none',
    };
    expect(captured['Image']).toBe('');
    expect((await client.discover()).slots).toEqual([expected]);
    expect(await client.getMediaSlots()).toEqual([expected]);
  });

  it('refuses to insert rather than guess a way into that slot, and sends nothing', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    const err = await client.insertMedia(ISO).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedfishError);
    expect((err as RedfishError).code).toBe(RedfishErrorCode.Unsupported);
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([]);
  });

  it('sets the one-time CD boot with one PATCH of the System (no SettingsObject here)', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    await client.setBootOverride({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([
      'PATCH /redfish/v1/Systems/1/ 204',
    ]);
    // The mode already reads UEFI, so only target and enabled are sent.
    expect(
      received(tree.bmc.log)
        .filter((r) => r.method === 'PATCH')
        .at(-1)?.body,
    ).toEqual({
      Boot: { BootSourceOverrideTarget: 'Cd', BootSourceOverrideEnabled: 'Once' },
    });
  });

  it('sends nothing to power on a host that already reads On', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    await expect(client.setPower('On')).resolves.toBe('On');
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([]);
  });
});

describe('Dell iDRAC 9 (sushy-oem-idrac samples) on sushy-static', () => {
  const tree = onCapturedTree('dell-idrac');
  const idrac = 'sushy_oem_idrac/tests/unit/json_samples';
  const importTarget = () => {
    const manager = sample('sushy-oem-idrac', `${idrac}/manager.json`) as {
      Actions: { Oem: Record<string, { target: string }> };
    };
    return manager.Actions.Oem['OemManager.v1_0_0#OemManager.ImportSystemConfiguration']!.target;
  };

  it('finds the PowerEdge R640 behind iDRAC 9, and applies the Dell rule but not iDRAC10', async () => {
    const client = tree.client();
    const target = await client.discover();
    expect(target.system).toMatchObject({
      path: '/redfish/v1/Systems/System.Embedded.1',
      id: 'System.Embedded.1',
      manufacturer: 'Dell Inc.',
      model: 'PowerEdge R640',
      powerState: 'On',
      boot: { target: 'None', enabled: 'Disabled', mode: 'UEFI' },
    });
    expect(target.system.resetTypes).toContain('ForceRestart');
    expect(target.managers).toEqual(['/redfish/v1/Managers/iDRAC.Embedded.1']);
    expect(target.redfishVersion).toBe('1.4.0');
    // Manager Model "14G Monolithic": generation 14, so not iDRAC10's slot-1-only rule.
    expect(target.quirks).toEqual(['dell']);
    // The capture holds no VirtualMedia slot (its collection is synthesized empty).
    expect(target.slots).toEqual([]);
    expect(built.trees['dell-idrac']!.synthesized).toContain(
      '/redfish/v1/Managers/iDRAC.Embedded.1/VirtualMedia',
    );
  });

  it('logs in through the Sessions link of the root, then falls back to Basic auth', async () => {
    const client = tree.client();
    tree.takeExchanges();
    await client.getSystem();
    expect(tree.takeExchanges()).toContain('POST /redfish/v1/Sessions 204');
    const last = received(tree.bmc.log).at(-1);
    expect(last).toMatchObject({ method: 'GET', status: 200, authorization: basic });
  });

  it("with idrac-virtualmedia, boots the CD through the Manager's captured ImportSystemConfiguration", async () => {
    const client = tree.client('idrac-virtualmedia');
    await client.discover();
    tree.takeExchanges();
    await client.setBootOverride({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([
      `POST ${importTarget()} 204`,
    ]);
    expect(received(tree.bmc.log).at(-1)?.body).toEqual(DELL_VIRTUAL_CD_BOOT);
  });

  it('with redfish-virtualmedia, PATCHes the System (no SettingsObject here)', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    await client.setBootOverride({ target: 'Cd', enabled: 'Once', mode: 'UEFI' });
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([
      'PATCH /redfish/v1/Systems/System.Embedded.1 204',
    ]);
  });
});

describe("DMTF's public mockup (sushy samples) on sushy-static", () => {
  const tree = onCapturedTree('dmtf');

  it('finds the Contoso System, its BMC Manager and its boot progress', async () => {
    const target = await tree.client().discover();
    expect(target.system).toMatchObject({
      path: '/redfish/v1/Systems/437XR1138R2',
      manufacturer: 'Contoso',
      model: '3500',
      powerState: 'On',
      bootProgress: 'OSRunning',
      boot: { target: 'Pxe', enabled: 'Once', mode: 'UEFI' },
    });
    expect(target.managers).toEqual(['/redfish/v1/Managers/BMC']);
    expect(target.redfishVersion).toBe('1.0.2');
    expect(target.vendor).toBeUndefined(); // captured as null
    expect(target.quirks).toEqual([]);
    expect(built.trees['dmtf']!.synthesized).toEqual([]);
  });

  it('offers no CD slot: the only one is a floppy, and no image goes into it', async () => {
    const client = tree.client();
    const target = await client.discover();
    expect(target.slots).toEqual([]);
    tree.takeExchanges();
    const err = await client.insertMedia(ISO).catch((e: unknown) => e);
    expect((err as RedfishError).code).toBe(RedfishErrorCode.Unsupported);
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([]);
  });

  it('changes only the target when Enabled already reads Once', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    await client.setBootOverride({ target: 'Cd', enabled: 'Once' });
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([
      'PATCH /redfish/v1/Systems/437XR1138R2 204',
    ]);
    expect(received(tree.bmc.log).at(-1)?.body).toEqual({
      Boot: { BootSourceOverrideTarget: 'Cd' },
    });
  });
});

describe("DMTF's mockup in its newer schema (sushy samples) on sushy-static", () => {
  const tree = onCapturedTree('dmtf-system-media');

  it('reads the CD slot under the System as inserted through the KVM applet', async () => {
    const client = tree.client();
    const target = await client.discover();
    expect(target.system).toMatchObject({
      path: '/redfish/v1/Systems/437XR1138R2',
      manufacturer: 'Contoso',
      powerState: 'On',
      bootProgress: 'OSRunning',
    });
    const expected = {
      path: '/redfish/v1/Systems/437XR1138R2/VirtualMedia/CD1',
      id: 'CD1',
      owner: 'system',
      mediaTypes: ['CD', 'DVD'],
      inserted: true,
      image: 'redfish.dmtf.org/freeImages/freeOS.1.1.iso',
      connectedVia: 'Applet',
      // No InsertMedia action and no Allow header: the client knows no way in.
      insertBy: 'none',
    };
    expect(target.slots).toEqual([expected]);
    expect(await client.getMediaSlots()).toEqual([expected]);
  });

  it('fails to eject the applet-mounted image it has no way to eject (as ironic), sending nothing', async () => {
    const client = tree.client();
    await client.discover();
    tree.takeExchanges();
    const ejectErr = await client.ejectMedia().catch((e: unknown) => e);
    expect(ejectErr).toBeInstanceOf(RedfishError);
    expect((ejectErr as RedfishError).code).toBe(RedfishErrorCode.Unsupported);
    expect((ejectErr as RedfishError).message).toMatch(/slot CD1 .* no way to eject it/);
    const err = await client.insertMedia(ISO).catch((e: unknown) => e);
    expect((err as RedfishError).code).toBe(RedfishErrorCode.Unsupported);
    expect(tree.takeExchanges().filter((e) => !e.startsWith('GET '))).toEqual([]);
  });
});

describe('captured InsertMedia and Dell job errors, through our parsing and retry rules', () => {
  const sushySamples = 'sushy/tests/unit/json_samples';
  const idracSamples = 'sushy_oem_idrac/tests/unit/json_samples';

  /** The RedfishError the transport makes of a 400 with this captured body. */
  const captured = (wheel: string, path: string, status = 400): RedfishError =>
    new RedfishError(RedfishErrorCode.Http, 'request failed', {
      method: 'POST',
      path: '/redfish/v1/Managers/1/VirtualMedia/CD1/Actions/VirtualMedia.InsertMedia',
      status,
      ...parseErrorBody(sample(wheel, path)),
    });

  /** What the insert ladder sends next after this error: its first fix that matches. */
  const retryAfter = (err: RedfishError, payload: InsertPayload) => {
    const fix = INSERT_FIXES.find((f) => f.matches(err));
    return fix && { fix: fix.name, payload: fix.apply(payload) };
  };

  it.each([
    'transfer_proto_required_error.json', // ActionParameterMissing, RelatedProperties "#/..."
    'transfer_proto_required_error2.json', // GeneralError naming TransferProtocolType
    'transfer_proto_required_error3.json', // RelatedProperties ["/TransferProtocolType"]
    'transfer_proto_required_error4.json', // no RelatedProperties, MessageArgs names it
  ])('%s: retries with TransferProtocolType from the image URL', (file) => {
    expect(retryAfter(captured('sushy', `${sushySamples}/${file}`), { Image: ISO })).toEqual({
      fix: 'transfer-protocol-type-required',
      payload: { Image: ISO, TransferProtocolType: 'HTTPS' },
    });
  });

  it('transfer_method_required_error.json: retries with TransferMethod Stream', () => {
    const err = captured('sushy', `${sushySamples}/transfer_method_required_error.json`);
    expect(retryAfter(err, { Image: ISO, TransferProtocolType: 'HTTPS' })).toEqual({
      fix: 'transfer-method-required',
      payload: { Image: ISO, TransferProtocolType: 'HTTPS', TransferMethod: 'Stream' },
    });
  });

  it('credentials_required_error.json: retries with UserName and Password "none"', () => {
    const err = captured('sushy', `${sushySamples}/credentials_required_error.json`);
    expect(err.messageId).toBe('Base.1.12.ActionParameterMissing');
    expect(retryAfter(err, { Image: ISO })).toEqual({
      fix: 'credentials-required',
      payload: { Image: ISO, UserName: 'none', Password: 'none' },
    });
  });

  it('gives up on a captured error that asks for nothing it can add', () => {
    const err = captured('sushy', `${sushySamples}/error.json`);
    expect(err.messageId).toBe('Base.1.0.MalformedJSON'); // the Critical one of three
    expect(retryAfter(err, { Image: ISO })).toBeUndefined();
    // iDRAC's single-object @Message.ExtendedInfo is read as one message.
    const single = captured('sushy', `${sushySamples}/error_single_ext_info.json`);
    expect(single.messages).toHaveLength(1);
    expect(retryAfter(single, { Image: ISO })).toBeUndefined();
  });

  it("Dell's LC068 (pending configuration) means one reboot, RAC0679 (job running) a wait", () => {
    const pending = captured('sushy-oem-idrac', `${idracSamples}/error_pending_job.json`);
    expect(DELL_CONFIG_PENDING.matches(pending)).toBe(true);
    expect(DELL_IMPORT_RETRIES.find((r) => r.matches(pending))).toBeUndefined();
    const running = captured('sushy-oem-idrac', `${idracSamples}/error_running_job.json`);
    expect(DELL_CONFIG_PENDING.matches(running)).toBe(false);
    expect(DELL_IMPORT_RETRIES.find((r) => r.matches(running))?.name).toBe(
      'dell-rac0679-job-running',
    );
  });
});
