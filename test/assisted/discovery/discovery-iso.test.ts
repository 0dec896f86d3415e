import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startImageServer } from '../../../src/bmac/images/index.js';
import type { ImageServer } from '../../../src/bmac/images/index.js';
import {
  DiscoveryIgnitionError,
  DiscoveryImageNotReadyError,
  ImageServerDiscoveryIsos,
  bufferAccess,
  discoveryIgnition,
  findIsoFile,
  locateEmbedAreas,
  readIsoFile,
  staticNetworkRamdisk,
} from '../../../src/assisted/discovery/index.js';
import type { OsImage } from '../../../src/assisted/discovery/index.js';
import { ensureXorriso } from '../../../scripts/hub/coreos-installer.mjs';
import {
  TEST_ISO_DEFAULT_KARGS,
  buildTestIso,
  coreosInstaller,
} from '../../support/coreos-installer.js';

let dir: string;
let baseIso: string;
let baseBytes: Buffer;
let origin: Server;
let baseUrl: string;
let images: ImageServer;
let isos: ImageServerDiscoveryIsos;
let sourceRequests = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-discovery-iso-'));
  baseIso = await buildTestIso(dir);
  baseBytes = await readFile(baseIso);
  origin = createServer((req, res) => {
    sourceRequests++;
    if (req.url !== '/rhcos-live.iso') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': baseBytes.length });
    createReadStream(baseIso).pipe(res);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${String((origin.address() as AddressInfo).port)}/rhcos-live.iso`;
  images = await startImageServer({ cacheDir: join(dir, 'cache'), key: randomBytes(32) });
  isos = new ImageServerDiscoveryIsos(images);
  await isos.prefetch(baseUrl);
}, 120_000);

afterAll(async () => {
  await images.stop();
  await new Promise((resolve) => origin.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const osImage = (): OsImage => ({ openshiftVersion: '4.16', version: '416.94.1', url: baseUrl });

function ignitionFor(id: string): string {
  return discoveryIgnition({
    infraEnvId: id,
    serviceBaseUrl: 'https://hub.example:8090',
    agentToken: 'token-of-' + id,
    pullSecret: '{"auths":{"quay.io":{"auth":"eDp5"}}}',
    sshAuthorizedKey: 'ssh-ed25519 AAAAC3 core@example',
  });
}

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('minimal discovery ISO', () => {
  it('is a template without the rootfs that fetches it, with ignition, kargs and ramdisk overlaid', async () => {
    const minimal = new ImageServerDiscoveryIsos(images, {
      minimal: { xorriso: await ensureXorriso(), templateDir: join(dir, 'templates') },
    });
    const image = {
      ...osImage(),
      rootFSUrl: 'https://mirror.example/4.16/rootfs.img?arch=x86_64&v=1',
    };
    const ignition = ignitionFor('0b8f7c0e-1111-4c3e-9a55-00000000000a');
    const ramdisk = staticNetworkRamdisk([
      {
        networkYaml: 'interfaces:\n- name: eth0\n',
        macInterfaceMap: [{ macAddress: '52:54:00:00:00:01', logicalNicName: 'eth0' }],
      },
    ]);
    const request = {
      osImage: image,
      imageType: 'minimal-iso' as const,
      ignition,
      initrdFiles: ramdisk,
      kernelArguments: ['rd.debug'],
    };
    // The template is built in the background; meanwhile the image is "being created".
    expect(await minimal.isoUrl(request).catch((e: unknown) => e)).toBeInstanceOf(
      DiscoveryImageNotReadyError,
    );
    await minimal.prepareMinimal(image);
    const url = await minimal.isoUrl(request);
    const { body } = await download(url);
    const file = join(dir, 'minimal.iso');
    await writeFile(file, body);

    expect(await coreosInstaller('iso', 'ignition', 'show', file)).toBe(ignition);
    const defaults = TEST_ISO_DEFAULT_KARGS.replace(/coreos\.liveiso=\S+ /, '');
    const rootfs = `coreos.live.rootfs_url="${image.rootFSUrl}"`;
    expect((await coreosInstaller('iso', 'kargs', 'show', '--default', file)).trim()).toBe(
      `${defaults} ${rootfs}`,
    );
    expect((await coreosInstaller('iso', 'kargs', 'show', file)).trim()).toBe(
      `${defaults} ${rootfs} rd.debug`,
    );

    const iso = bufferAccess(body);
    expect(await findIsoFile(iso, '/images/pxeboot/rootfs.img')).toBeUndefined();
    const areas = await locateEmbedAreas(iso);
    expect(areas.ramdisk?.length).toBe(1024 * 1024);
    const cpio = gunzipSync(
      body.subarray(areas.ramdisk!.offset, areas.ramdisk!.offset + areas.ramdisk!.length),
    );
    expect(cpio.toString('latin1')).toContain('etc/assisted/network/host0/mac_interface.ini');
    expect(cpio.toString('latin1')).toContain('52:54:00:00:00:01=eth0');
    const grub = await readIsoFile(iso, (await findIsoFile(iso, '/EFI/redhat/grub.cfg'))!);
    expect(grub.toString()).toMatch(
      /initrd \/images\/pxeboot\/initrd.img \/images\/ignition.img \/images\/assisted_installer_custom.img\n/,
    );
    const isolinux = await readIsoFile(iso, (await findIsoFile(iso, '/isolinux/isolinux.cfg'))!);
    expect(isolinux.toString()).toContain(
      'initrd=/images/pxeboot/initrd.img,/images/ignition.img,/images/assisted_installer_custom.img ',
    );
  });
});

describe('discovery ISO served as base + overlay', () => {
  it('finds the embed areas of a CoreOS live ISO through its ISO 9660 directory', async () => {
    const areas = await locateEmbedAreas(bufferAccess(baseBytes));
    expect(areas.ignition.length).toBe(256 * 1024);
    expect(baseBytes.subarray(areas.ignition.offset, areas.ignition.offset + 16)).toEqual(
      Buffer.alloc(16),
    );
    expect(areas.kargs).toHaveLength(2);
    for (const area of areas.kargs) {
      const text = baseBytes.toString('latin1', area.offset - 6, area.offset + area.length + 24);
      expect(text).toMatch(/^=metal\n#+# COREOS_KARG_EMBED_AREA$/);
    }
  });

  it('streams an ISO from which coreos-installer reads back the ignition and kernel arguments', async () => {
    const ignition = ignitionFor('0b8f7c0e-1111-4c3e-9a55-000000000001');
    const url = await isos.isoUrl({
      osImage: osImage(),
      imageType: 'full-iso',
      ignition,
      kernelArguments: ['rd.net.timeout.carrier=60', 'console=ttyS0'],
    });
    expect(url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/images\/[a-z2-7]{16}\.[0-9a-z]+\.[\w-]{22}\.iso$/,
    );
    const { status, body } = await download(url);
    expect(status).toBe(200);
    expect(body.length).toBe(baseBytes.length);
    const file = join(dir, 'discovery.iso');
    await writeFile(file, body);

    expect(await coreosInstaller('iso', 'ignition', 'show', file)).toBe(ignition);
    expect((await coreosInstaller('iso', 'kargs', 'show', file)).trim()).toBe(
      `${TEST_ISO_DEFAULT_KARGS} rd.net.timeout.carrier=60 console=ttyS0`,
    );
    expect((await coreosInstaller('iso', 'kargs', 'show', '--default', file)).trim()).toBe(
      TEST_ISO_DEFAULT_KARGS,
    );
    // Everything outside the embed areas is the base, byte for byte.
    const areas = await locateEmbedAreas(bufferAccess(baseBytes));
    let differing = 0;
    for (let i = 0; i < body.length; i++) if (body[i] !== baseBytes[i]) differing++;
    expect(differing).toBeGreaterThan(0);
    expect(differing).toBeLessThanOrEqual(
      areas.ignition.length + areas.kargs.reduce((n, a) => n + a.length, 0),
    );
    expect((await stat(baseIso)).size).toBe(baseBytes.length); // the base is never written
  });

  it('answers ranges across the embed area with the overlaid bytes, under its own ETag', async () => {
    const url = await isos.isoUrl({
      osImage: osImage(),
      imageType: 'full-iso',
      ignition: ignitionFor('0b8f7c0e-1111-4c3e-9a55-000000000002'),
    });
    const whole = await download(url);
    const areas = await locateEmbedAreas(bufferAccess(baseBytes));
    const start = areas.ignition.offset - 100;
    const end = areas.ignition.offset + 999;
    const part = await download(url, { range: `bytes=${String(start)}-${String(end)}` });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(
      `bytes ${String(start)}-${String(end)}/${String(baseBytes.length)}`,
    );
    expect(part.body).toEqual(whole.body.subarray(start, end + 1));
    expect(part.body.subarray(100, 102)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}\+[0-9a-f]{64}"$/);
    const again = await download(url, { 'if-none-match': etag });
    expect(again.status).toBe(304);
  });

  it('downloads the base once, and gives the same content the same URL reference', async () => {
    const before = sourceRequests;
    const request = {
      osImage: osImage(),
      imageType: 'full-iso' as const,
      ignition: ignitionFor('0b8f7c0e-1111-4c3e-9a55-000000000003'),
    };
    const a = await isos.isoUrl(request);
    const b = await isos.isoUrl(request);
    const c = await isos.isoUrl({ ...request, kernelArguments: ['quiet'] });
    const ref = (u: string) => /\/images\/([a-z2-7]{16})\./.exec(u)![1];
    expect(b).toBe(a); // the whole URL: the InfraEnv's isoDownloadURL stays put
    expect(ref(c)).not.toBe(ref(a));
    await download(c);
    expect(sourceRequests).toBe(before);
  });

  it('refuses an ignition larger than the embed area, with the image service message', async () => {
    const huge = JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: {
        files: [
          { path: '/x', contents: { source: `data:,${randomBytes(400_000).toString('hex')}` } },
        ],
      },
    });
    const err = await isos
      .isoUrl({ osImage: osImage(), imageType: 'full-iso', ignition: huge })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscoveryIgnitionError);
    expect((err as Error).message).toMatch(
      /^content length \(\d+\) exceeds embed area size \(262144\)$/,
    );
  });

  it('says the image is on its way while the base downloads, then why it failed, once', async () => {
    const missing = baseUrl.replace('rhcos-live', 'missing');
    const request = {
      osImage: { ...osImage(), url: missing },
      imageType: 'full-iso' as const,
      ignition: ignitionFor('x'),
    };
    const first = await isos.isoUrl(request).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(DiscoveryImageNotReadyError);
    await isos.prefetch(missing).catch(() => undefined);
    const second = await isos.isoUrl(request).catch((e: unknown) => e);
    expect((second as Error).message).toMatch(/missing\.iso answered 404$/);
    // The next request tries the source again.
    expect(await isos.isoUrl(request).catch((e: unknown) => e)).toBeInstanceOf(
      DiscoveryImageNotReadyError,
    );
  });
});
