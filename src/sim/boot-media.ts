/**
 * What a simulated host reads when its BMC boots it from a virtual CD. A BMC streams virtual
 * media: the host's firmware and kernel read blocks of the "CD", and the BMC fetches each
 * block from the image URL it was given with an HTTP Range request. So does the simulated host:
 * it reads the ISO 9660 directory, the bootloader's configuration (grub.cfg for UEFI,
 * isolinux.cfg for legacy BIOS), the kernel and the initrds it names (among them the ignition
 * embed area SiteForge wrote), and the live root filesystem (from the CD, or from
 * `coreos.live.rootfs_url` for a minimal ISO). Nothing is read that a boot would not read.
 */
import { gunzipSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { findIsoFile, readIsoFile } from '../assisted/discovery/index.js';
import type { RandomAccess } from '../assisted/discovery/index.js';
import { SiteForgeError } from '../shared/errors.js';

/** The boot failed: the media could not be read or is not a bootable live ISO. */
export class BootMediaError extends SiteForgeError {
  constructor(message: string) {
    super('SIM_BOOT_MEDIA', message);
  }
}

/** Bytes and requests, as counted by whoever reads. */
export interface TransferCounter {
  requests: number;
  bytes: number;
}

/** Reads of this size or less go through aligned blocks kept for the boot (directories, configs). */
const BLOCK = 32 * 1024;
/** Bulk reads (kernel, initrds, rootfs) are fetched in pieces of at most this. */
const PIECE = 1024 * 1024;

/**
 * Virtual media over HTTP: positional reads as Range requests, small reads through aligned
 * blocks (a BMC fetches blocks, and the directory walk reads the same sectors again and again).
 */
export class HttpRangeMedia implements RandomAccess {
  private readonly blocks = new Map<number, Buffer>();
  private readonly origin: string;
  private readonly path: string;
  private size: number | undefined;

  constructor(
    url: string,
    private readonly dispatcher: Dispatcher,
    private readonly counter: TransferCounter,
  ) {
    const parsed = new URL(url);
    this.origin = parsed.origin;
    this.path = `${parsed.pathname}${parsed.search}`;
  }

  async read(position: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    if (length > BLOCK) return this.fetchRange(position, length);
    const first = Math.floor(position / BLOCK);
    const last = Math.floor((position + length - 1) / BLOCK);
    const parts: Buffer[] = [];
    for (let block = first; block <= last; block++) {
      let bytes = this.blocks.get(block);
      if (bytes === undefined) {
        bytes = await this.fetchRange(block * BLOCK, BLOCK);
        this.blocks.set(block, bytes);
      }
      parts.push(bytes);
    }
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const from = position - first * BLOCK;
    return all.subarray(from, from + length);
  }

  /** Forgets the blocks read so far (the boot is over). */
  release(): void {
    this.blocks.clear();
  }

  private async fetchRange(position: number, length: number): Promise<Buffer> {
    if (this.size !== undefined && position >= this.size) return Buffer.alloc(0);
    const end = position + length - 1;
    this.counter.requests++;
    const response = await this.dispatcher.request({
      origin: this.origin,
      method: 'GET',
      path: this.path,
      headers: { range: `bytes=${String(position)}-${String(end)}` },
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    this.counter.bytes += body.length;
    if (response.statusCode === 416) return Buffer.alloc(0);
    if (response.statusCode === 200) {
      // A server that ignores ranges sends everything: take the part asked for.
      this.size = body.length;
      return body.subarray(position, position + length);
    }
    if (response.statusCode !== 206)
      throw new BootMediaError(
        `the virtual media answered ${String(response.statusCode)} to a read at ${String(position)}`,
      );
    const total = /\/(\d+)$/.exec(String(response.headers['content-range'] ?? ''))?.[1];
    if (total !== undefined) this.size = Number(total);
    return body;
  }
}

/** How the firmware starts the CD. */
export type FirmwareBootMode = 'UEFI' | 'legacy';

/** What the booted live system got from its media. */
export interface BootedLiveIso {
  /** The kernel command line the bootloader passed. */
  readonly kernelArguments: readonly string[];
  /** The ignition config embedded in the ISO (`config.ign` of the ignition initrd). */
  readonly ignition: Record<string, unknown>;
}

/** Fetches a whole URL (the minimal ISO's rootfs); returns how many bytes came. */
export type UrlReader = (url: string) => Promise<number>;

/**
 * Boots a CoreOS live ISO from `media` as the firmware would: the bootloader's entry, its
 * kernel and initrds (the ignition among them), then the live rootfs.
 * @throws BootMediaError when the ISO cannot be booted (a real host would stop at its prompt)
 */
export async function bootLiveIso(
  media: RandomAccess,
  mode: FirmwareBootMode,
  readUrl: UrlReader,
): Promise<BootedLiveIso> {
  const entry = await bootEntry(media, mode);
  await readWhole(media, entry.kernel);
  let ignition: Record<string, unknown> | undefined;
  for (const initrd of entry.initrds) {
    const bytes = await readWhole(media, initrd);
    // The ignition embed area is an initrd of its own: a gzip'd newc cpio holding config.ign.
    const config = configIgnition(bytes);
    if (config !== undefined) ignition = config;
  }
  if (ignition === undefined)
    throw new BootMediaError(
      `none of the initrds (${entry.initrds.join(', ')}) carries an ignition config`,
    );
  // assisted-service quotes the URL (`coreos.live.rootfs_url="http://…"`); the kernel drops them.
  const rootfsUrl = entry.kernelArguments
    .find((arg) => arg.startsWith('coreos.live.rootfs_url='))
    ?.slice('coreos.live.rootfs_url='.length)
    .replace(/^"(.*)"$/, '$1');
  if (rootfsUrl !== undefined) await readUrl(rootfsUrl);
  else if (await findIsoFile(media, '/images/pxeboot/rootfs.img'))
    await readWhole(media, '/images/pxeboot/rootfs.img');
  else throw new BootMediaError('the ISO has no /images/pxeboot/rootfs.img and no rootfs URL');
  return { kernelArguments: entry.kernelArguments, ignition };
}

interface BootEntry {
  readonly kernel: string;
  readonly initrds: readonly string[];
  readonly kernelArguments: readonly string[];
}

/** The first entry of the bootloader configuration that `mode` uses. */
async function bootEntry(media: RandomAccess, mode: FirmwareBootMode): Promise<BootEntry> {
  const path = mode === 'UEFI' ? '/EFI/redhat/grub.cfg' : '/isolinux/isolinux.cfg';
  const file = await findIsoFile(media, path);
  if (file === undefined)
    throw new BootMediaError(`the ISO has no ${path} to boot in ${mode} mode`);
  const text = (await readIsoFile(media, file)).toString('utf8');
  const lines = text.split('\n').map((line) => line.trim());
  if (mode === 'UEFI') {
    const linux = lines.find((line) => /^linux(efi)?\s/.test(line))?.split(/\s+/);
    const initrd = lines.find((line) => /^initrd(efi)?\s/.test(line))?.split(/\s+/);
    if (linux?.[1] === undefined) throw new BootMediaError(`${path} has no linux line`);
    return {
      kernel: linux[1],
      kernelArguments: linux.slice(2),
      initrds: initrd?.slice(1) ?? [],
    };
  }
  const kernel = lines.find((line) => /^kernel\s/.test(line))?.split(/\s+/)[1];
  const append = lines.find((line) => /^append\s/.test(line))?.split(/\s+/) ?? [];
  if (kernel === undefined) throw new BootMediaError(`${path} has no kernel line`);
  const initrdArg = append.find((arg) => arg.startsWith('initrd='));
  return {
    kernel,
    kernelArguments: append.slice(1).filter((arg) => arg !== initrdArg),
    initrds: initrdArg?.slice('initrd='.length).split(',') ?? [],
  };
}

async function readWhole(media: RandomAccess, path: string): Promise<Buffer> {
  const file = await findIsoFile(media, path.startsWith('/') ? path : `/${path}`);
  if (file === undefined)
    throw new BootMediaError(`the bootloader names ${path}, which is missing`);
  if (file.length <= PIECE) return readIsoFile(media, file);
  // Bulk: read in pieces, keep nothing (the live system copies it into memory).
  for (let at = 0; at < file.length; at += PIECE)
    await media.read(file.offset + at, Math.min(PIECE, file.length - at));
  return Buffer.alloc(0);
}

/** `config.ign` of an ignition initrd (zero-padded gzip'd cpio), or undefined for other initrds. */
export function configIgnition(initrd: Buffer): Record<string, unknown> | undefined {
  if (initrd.length < 2 || initrd[0] !== 0x1f || initrd[1] !== 0x8b) return undefined;
  let end = initrd.length;
  while (end > 0 && initrd[end - 1] === 0) end--;
  let archive: Buffer;
  try {
    archive = gunzipSync(initrd.subarray(0, Math.min(initrd.length, end + 8)), {
      finishFlush: 2, // Z_SYNC_FLUSH: tolerate the zero padding the trim may have cut into
    });
  } catch {
    return undefined;
  }
  const config = readCpio(archive).get('config.ign');
  if (config === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(config.toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new BootMediaError('config.ign is not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    if (err instanceof BootMediaError) throw err;
    throw new BootMediaError('config.ign in the ignition initrd is not JSON');
  }
}

/** The files of a newc cpio archive, by name. */
export function readCpio(archive: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let at = 0;
  const align = (n: number): number => (n + 3) & ~3;
  while (at + 110 <= archive.length) {
    const magic = archive.toString('ascii', at, at + 6);
    if (magic !== '070701' && magic !== '070702') break;
    const hexField = (i: number): number =>
      parseInt(archive.toString('ascii', at + 6 + i * 8, at + 14 + i * 8), 16);
    const size = hexField(6);
    const nameSize = hexField(11);
    const name = archive.toString('utf8', at + 110, at + 110 + nameSize - 1);
    const dataAt = align(at + 110 + nameSize);
    if (name === 'TRAILER!!!') break;
    files.set(name, archive.subarray(dataAt, dataAt + size));
    at = align(dataAt + size);
  }
  return files;
}
