/**
 * Just enough ISO 9660 to find a CoreOS live ISO's embed areas without unpacking it
 * (assisted.md §6.2): the primary volume descriptor, directory records (ISO 9660 names, and
 * Rock Ridge `NM` names when present), then `/coreos/igninfo.json` (or `/images/ignition.img`)
 * for the ignition area and `/coreos/kargs.json` (or the usual grub and isolinux files) for the
 * kernel-argument areas, each the `\n###…` run before `# COREOS_KARG_EMBED_AREA`.
 */
import type { FileHandle } from 'node:fs/promises';
import { SiteForgeError } from '../../shared/errors.js';

/** A base ISO that is not a CoreOS live ISO we can embed into. */
export class IsoLayoutError extends SiteForgeError {
  constructor(message: string) {
    super('ISO_LAYOUT', message);
  }
}

/** Positional reads of an image. */
export interface RandomAccess {
  /** Exactly `length` bytes at `position`, fewer only at the end of the image. */
  read(position: number, length: number): Promise<Buffer>;
}

/** A file inside the ISO: where its bytes are in the image. */
export interface IsoFile {
  readonly offset: number;
  readonly length: number;
}

/** A byte range of the image that may be overwritten. */
export interface EmbedArea {
  readonly offset: number;
  readonly length: number;
}

/** Where a CoreOS live ISO takes its ignition and its extra kernel arguments. */
export interface EmbedAreas {
  /** The zero-filled area the bootloader loads as an extra initrd. */
  readonly ignition: EmbedArea;
  /** One per bootloader configuration file: from the newline that ends the default arguments. */
  readonly kargs: readonly EmbedArea[];
  /** The minimal ISO's ramdisk area (`/images/assisted_installer_custom.img`), if any. */
  readonly ramdisk?: EmbedArea;
}

const SECTOR = 2048;
const KARG_MARKER = /(\n#*)# COREOS_KARG_EMBED_AREA/;
const DEFAULT_KARG_FILES = ['/EFI/redhat/grub.cfg', '/isolinux/isolinux.cfg'];

/** RandomAccess over an open file. */
export function fileAccess(file: FileHandle): RandomAccess {
  return {
    async read(position, length) {
      const buffer = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await file.read(buffer, done, length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buffer.subarray(0, done);
    },
  };
}

/** RandomAccess over bytes in memory. */
export function bufferAccess(bytes: Uint8Array): RandomAccess {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    read: (position, length) => Promise.resolve(buffer.subarray(position, position + length)),
  };
}

interface DirectoryRecord {
  readonly isoName: string;
  readonly rrName: string | undefined;
  readonly directory: boolean;
  readonly extent: number;
  readonly length: number;
}

/**
 * The location of `path` (absolute, `/`-separated) in the ISO, or undefined when it is missing.
 * @throws IsoLayoutError when the image is not ISO 9660
 */
export async function findIsoFile(iso: RandomAccess, path: string): Promise<IsoFile | undefined> {
  let dir = await rootDirectory(iso);
  const components = path.split('/').filter((c) => c !== '');
  for (const [i, component] of components.entries()) {
    const records = await listDirectory(iso, dir);
    const found = records.find((r) => nameMatches(r, component));
    if (found === undefined) return undefined;
    const last = i === components.length - 1;
    if (last)
      return found.directory ? undefined : { offset: found.extent * SECTOR, length: found.length };
    if (!found.directory) return undefined;
    dir = found;
  }
  return undefined;
}

/** The bytes of a file of the ISO. */
export async function readIsoFile(iso: RandomAccess, file: IsoFile): Promise<Buffer> {
  const bytes = await iso.read(file.offset, file.length);
  if (bytes.length < file.length)
    throw new IsoLayoutError('the ISO is shorter than its directory says');
  return bytes;
}

/**
 * The ignition and kernel-argument embed areas of a CoreOS live ISO.
 * @throws IsoLayoutError naming what is missing
 */
export async function locateEmbedAreas(iso: RandomAccess): Promise<EmbedAreas> {
  const ramdisk = await findIsoFile(iso, '/images/assisted_installer_custom.img');
  return {
    ignition: await ignitionArea(iso),
    kargs: await kargAreas(iso),
    ...(ramdisk !== undefined && ramdisk.length > 0 && { ramdisk }),
  };
}

async function ignitionArea(iso: RandomAccess): Promise<EmbedArea> {
  let info: Record<string, unknown> = { file: 'images/ignition.img' };
  const infoFile = await findIsoFile(iso, '/coreos/igninfo.json');
  if (infoFile !== undefined)
    info = parseJson(await readIsoFile(iso, infoFile), '/coreos/igninfo.json');
  const name = info['file'];
  if (typeof name !== 'string')
    throw new IsoLayoutError('/coreos/igninfo.json does not name a file');
  const file = await findIsoFile(iso, `/${name}`);
  if (file === undefined)
    throw new IsoLayoutError(`the ISO has no ignition embed area (${name} is missing)`);
  const offset = typeof info['offset'] === 'number' ? info['offset'] : 0;
  const length = typeof info['length'] === 'number' ? info['length'] : file.length - offset;
  if (offset < 0 || length <= 0 || offset + length > file.length)
    throw new IsoLayoutError(`the ignition embed area lies outside ${name}`);
  return { offset: file.offset + offset, length };
}

async function kargAreas(iso: RandomAccess): Promise<EmbedArea[]> {
  let paths = DEFAULT_KARG_FILES;
  const infoFile = await findIsoFile(iso, '/coreos/kargs.json');
  if (infoFile !== undefined) {
    const files = parseJson(await readIsoFile(iso, infoFile), '/coreos/kargs.json')['files'];
    paths = (Array.isArray(files) ? (files as unknown[]) : []).flatMap((f) => {
      const path = (f as { path?: unknown } | null)?.path;
      return typeof path === 'string' ? [path] : [];
    });
  }
  const areas: EmbedArea[] = [];
  for (const path of paths) {
    const file = await findIsoFile(iso, path.startsWith('/') ? path : `/${path}`);
    if (file === undefined) {
      if (infoFile === undefined) continue; // an old ISO without one of the default files
      throw new IsoLayoutError(`${path}, named by /coreos/kargs.json, is missing`);
    }
    const text = (await readIsoFile(iso, file)).toString('latin1');
    const match = KARG_MARKER.exec(text);
    if (match === null) throw new IsoLayoutError(`${path} has no COREOS_KARG_EMBED_AREA`);
    areas.push({ offset: file.offset + match.index, length: match[1]!.length });
  }
  return areas;
}

function parseJson(bytes: Buffer, name: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (value === null || typeof value !== 'object') throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new IsoLayoutError(`${name} is not JSON`);
  }
}

async function rootDirectory(iso: RandomAccess): Promise<DirectoryRecord> {
  for (let sector = 16; sector < 64; sector++) {
    const descriptor = await iso.read(sector * SECTOR, SECTOR);
    if (descriptor.length < SECTOR || descriptor.toString('latin1', 1, 6) !== 'CD001')
      throw new IsoLayoutError('the image is not ISO 9660 (no volume descriptors at sector 16)');
    const type = descriptor[0];
    if (type === 255) break;
    if (type === 1) {
      const root = parseRecord(descriptor.subarray(156, 190));
      if (root === undefined) throw new IsoLayoutError('the ISO has no root directory record');
      return root;
    }
  }
  throw new IsoLayoutError('the ISO has no primary volume descriptor');
}

async function listDirectory(iso: RandomAccess, dir: DirectoryRecord): Promise<DirectoryRecord[]> {
  const bytes = await iso.read(dir.extent * SECTOR, dir.length);
  const records: DirectoryRecord[] = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes[at]!;
    if (length === 0) {
      at = (Math.floor(at / SECTOR) + 1) * SECTOR; // records never cross a sector
      continue;
    }
    const record = parseRecord(bytes.subarray(at, at + length));
    if (record !== undefined && record.isoName !== '\0' && record.isoName !== '\x01')
      records.push(record);
    at += length;
  }
  return records;
}

function parseRecord(bytes: Buffer): DirectoryRecord | undefined {
  if (bytes.length < 34) return undefined;
  const nameLength = bytes[32]!;
  const rawName = bytes.toString('latin1', 33, 33 + nameLength);
  const isoName = rawName.replace(/;\d+$/, '').replace(/\.$/, '');
  const suspStart = 33 + nameLength + (nameLength % 2 === 0 ? 1 : 0);
  return {
    isoName: nameLength === 1 && (bytes[33] === 0 || bytes[33] === 1) ? rawName : isoName,
    rrName: rockRidgeName(bytes.subarray(suspStart, bytes[0])),
    directory: (bytes[25]! & 2) !== 0,
    extent: bytes.readUInt32LE(2),
    length: bytes.readUInt32LE(10),
  };
}

/** The Rock Ridge `NM` name in a record's system use area (pieces joined), if any. */
function rockRidgeName(area: Buffer): string | undefined {
  let name: string | undefined;
  for (let at = 0; at + 4 <= area.length;) {
    const length = area[at + 2]!;
    if (length < 4) break;
    if (area.toString('latin1', at, at + 2) === 'NM' && length >= 5)
      name = (name ?? '') + area.toString('utf8', at + 5, at + length);
    at += length;
  }
  return name;
}

function nameMatches(record: DirectoryRecord, component: string): boolean {
  if (record.rrName !== undefined) return record.rrName === component;
  const upper = component.toUpperCase();
  return record.isoName === upper || record.isoName === dos83(upper);
}

/** The 8.3 form an ISO 9660 level-1 image gives a name (`igninfo.json` → `IGNINFO.JSO`). */
function dos83(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return name.slice(0, 8);
  return `${name.slice(0, Math.min(dot, 8))}.${name.slice(dot + 1, dot + 4)}`;
}
