/**
 * A simulated host booting a live ISO the way virtual media serves it: by HTTP ranges from the
 * image URL, reading only what the bootloader and the live system read, and taking the agent's
 * settings and its static network from the ignition in the ISO's embed area.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bufferAccess,
  compressedCpio,
  locateEmbedAreas,
  rootfsUrlKernelArgument,
} from '../../src/assisted/discovery/index.js';
import { bootLiveIso, HttpRangeMedia } from '../../src/sim/boot-media.js';
import { discoveryOf, staticNetworkOf } from '../../src/sim/discovery-config.js';
import { buildTestIso } from '../support/coreos-installer.js';

const dataUrl = (text: string): string =>
  `data:text/plain;charset=utf-8;base64,${Buffer.from(text).toString('base64')}`;

/** A discovery ignition as SiteForge writes it: agent.service, the CA, static networking. */
const ignition = {
  ignition: { version: '3.1.0' },
  systemd: {
    units: [
      {
        name: 'agent.service',
        enabled: true,
        contents: [
          '[Service]',
          'Environment=PULL_SECRET_TOKEN=eyJ.token.sig',
          'ExecStart=/usr/local/bin/agent --url https://10.0.0.2:8090 --infra-env-id 3f6e1c2a-0000-4000-8000-000000000001 --agent-version quay.io/agent:v1 --insecure=false --cacert /etc/assisted-service/service-ca-cert.crt',
        ].join('\n'),
      },
    ],
  },
  storage: {
    files: [
      {
        path: '/etc/assisted-service/service-ca-cert.crt',
        contents: {
          source: dataUrl('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'),
        },
      },
      {
        path: '/etc/assisted/network/host0/mac_interface.ini',
        contents: { source: dataUrl('0c:42:a1:00:00:01=eno1\n0c:42:a1:00:00:02=eno2') },
      },
      {
        path: '/etc/assisted/network/host0/ymlFile0.yml',
        contents: {
          source: dataUrl(`interfaces:
  - name: eno1
    type: ethernet
    ipv4:
      enabled: true
      address:
        - ip: 10.16.231.20
          prefix-length: 24
    ipv6:
      enabled: true
      address:
        - ip: fd00::20
          prefix-length: 64
  - name: eno2
    type: ethernet
    ipv4:
      enabled: false
dns-resolver:
  config:
    server: [10.16.231.1]
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 10.16.231.1
      next-hop-interface: eno1
`),
        },
      },
      {
        path: '/etc/assisted/network/host1/mac_interface.ini',
        contents: { source: dataUrl('0c:42:a1:00:00:09=eno1') },
      },
    ],
  },
};

let dir: string;
let iso: Buffer;
let server: Server;
let url: string;
const served = { requests: 0, ranges: 0, whole: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'siteforge-boot-media-'));
  iso = readFileSync(await buildTestIso(dir, { rootfsBytes: 300 * 1024 }));
  // Embed the ignition as SiteForge does: a gzip'd newc cpio in the zero-filled area.
  const area = (await locateEmbedAreas(bufferAccess(iso))).ignition;
  compressedCpio([{ path: 'config.ign', contents: JSON.stringify(ignition) }]).copy(
    iso,
    area.offset,
  );
  server = createServer((req, res) => {
    served.requests++;
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (req.url === '/rootfs.img') {
      served.whole++;
      res.writeHead(200, { 'content-length': 4096 }).end(Buffer.alloc(4096, 7));
      return;
    }
    if (range === null) {
      served.whole++;
      res.writeHead(200, { 'content-length': iso.length }).end(iso);
      return;
    }
    served.ranges++;
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), iso.length - 1);
    res
      .writeHead(206, {
        'content-length': end - start + 1,
        'content-range': `bytes ${String(start)}-${String(end)}/${String(iso.length)}`,
      })
      .end(iso.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/images/abc.iso`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('booting a live ISO over virtual media', () => {
  it('reads the bootloader, kernel, initrds and rootfs by ranges and finds the ignition', async () => {
    const pool = new Pool(new URL(url).origin);
    const counter = { requests: 0, bytes: 0 };
    served.requests = served.ranges = served.whole = 0;
    const booted = await bootLiveIso(new HttpRangeMedia(url, pool, counter), 'UEFI', () =>
      Promise.reject(new Error('a full ISO has its rootfs')),
    );
    await pool.close();
    expect(booted.ignition).toEqual(ignition);
    expect(booted.kernelArguments).toContain('ignition.firstboot');
    // Only ranges, never the whole image; what a boot reads: a little more than the rootfs,
    // the ignition area and the kernel and initrd, far less than the ISO.
    expect(served.whole).toBe(0);
    expect(served.ranges).toBe(counter.requests);
    expect(counter.bytes).toBeGreaterThan(300 * 1024);
    expect(counter.bytes).toBeLessThan(iso.length);
  });

  it('boots the isolinux entry in legacy mode, and fetches a minimal ISO rootfs from its URL', async () => {
    const pool = new Pool(new URL(url).origin);
    // The kernel arguments of a minimal ISO name the rootfs; a full ISO has it on the CD.
    const fetched: string[] = [];
    const booted = await bootLiveIso(
      new HttpRangeMedia(url, pool, { requests: 0, bytes: 0 }),
      'legacy',
      (rootfs) => {
        fetched.push(rootfs);
        return Promise.resolve(0);
      },
    );
    await pool.close();
    expect(booted.ignition).toEqual(ignition);
    expect(fetched).toEqual([]);
  });

  it('fetches the rootfs of a minimal ISO from the URL its kernel arguments name', async () => {
    // What the image server's overlay writes into the karg areas of a minimal ISO.
    const minimal = Buffer.from(iso);
    const rootfs = 'http://127.0.0.1:9/images/rootfs.img?arch=x86_64';
    const kargs = Buffer.from(` ${rootfsUrlKernelArgument(rootfs)}\n`);
    for (const area of (await locateEmbedAreas(bufferAccess(minimal))).kargs)
      kargs.copy(minimal, area.offset);
    const fetched: string[] = [];
    const booted = await bootLiveIso(bufferAccess(minimal), 'UEFI', (url) => {
      fetched.push(url);
      return Promise.resolve(4096);
    });
    expect(fetched).toEqual([rootfs]);
    expect(booted.kernelArguments).toContain(rootfsUrlKernelArgument(rootfs));
  });

  it('fails with what is missing when the media is not a bootable live ISO', async () => {
    const pool = new Pool(new URL(url).origin);
    const bad = `${url.replace('/images/abc.iso', '')}/rootfs.img`;
    await expect(
      bootLiveIso(new HttpRangeMedia(bad, pool, { requests: 0, bytes: 0 }), 'UEFI', () =>
        Promise.resolve(0),
      ),
    ).rejects.toThrow(/ISO 9660/);
    await pool.close();
  });
});

describe('the discovery settings in the ignition', () => {
  it('gives the agent its service URL, InfraEnv, token, agent image and CA', () => {
    expect(discoveryOf(ignition)).toMatchObject({
      url: 'https://10.0.0.2:8090',
      infraEnvId: '3f6e1c2a-0000-4000-8000-000000000001',
      token: 'eyJ.token.sig',
      agentVersion: 'quay.io/agent:v1',
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
  });

  it('applies the static network whose mac_interface.ini lists one of the host MACs', () => {
    expect(staticNetworkOf(ignition, ['0C:42:A1:00:00:01', '0c:42:a1:00:00:02'])).toEqual({
      nics: [
        { mac: '0c:42:a1:00:00:01', name: 'eno1', addresses: ['10.16.231.20/24', 'fd00::20/64'] },
        { mac: '0c:42:a1:00:00:02', name: 'eno2', addresses: [] },
      ],
      gateway: '10.16.231.1',
      dnsServers: ['10.16.231.1'],
    });
    // Another host's configuration (host1) has no YAML here, and no MAC of this one matches.
    expect(staticNetworkOf(ignition, ['52:54:00:00:00:01'])).toBeUndefined();
  });

  it('refuses an ignition without the agent service', () => {
    expect(() => discoveryOf({ ignition: { version: '3.1.0' } })).toThrow(
      'the ignition has no agent.service with --url, --infra-env-id and PULL_SECRET_TOKEN',
    );
  });
});
