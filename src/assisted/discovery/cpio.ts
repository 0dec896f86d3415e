/**
 * newc ("070701") cpio archives, the format of Linux initramfs images and of the payload
 * coreos-installer and the assisted image service put in a live ISO's ignition embed area
 * (assisted.md §6.2). Deterministic: inode numbers count up from 1, times are 0, so the same
 * files always give the same bytes (and the same content hash).
 */
import { gzipSync } from 'node:zlib';

/** One file of an archive. Parent directories are added for it. */
export interface CpioFile {
  /** Relative, `/`-separated, e.g. `config.ign` or `etc/assisted/network/host0/mac_interface.ini`. */
  readonly path: string;
  readonly contents: string | Uint8Array;
  /** Permission bits. @default 0o644 */
  readonly mode?: number;
}

const MAGIC = '070701';
const REGULAR = 0o100000;
const DIRECTORY = 0o040000;

/** The archive of `files` (with their parent directories, each once), ending in `TRAILER!!!`. */
export function cpioArchive(files: readonly CpioFile[]): Buffer {
  const parts: Buffer[] = [];
  const seen = new Set<string>();
  let inode = 0;
  const add = (name: string, mode: number, data: Buffer): void => {
    parts.push(header(++inode, mode, mode & DIRECTORY ? 2 : 1, name, data.length), data);
    parts.push(Buffer.alloc(pad4(data.length)));
  };
  for (const file of files) {
    const path = normalise(file.path);
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (seen.has(dir)) continue;
      seen.add(dir);
      add(dir, DIRECTORY | 0o755, Buffer.alloc(0));
    }
    if (seen.has(path)) throw new Error(`cpio: ${path} is given twice`);
    seen.add(path);
    add(path, REGULAR | (file.mode ?? 0o644), Buffer.from(file.contents));
  }
  parts.push(header(0, 0, 1, 'TRAILER!!!', 0));
  return Buffer.concat(parts);
}

/**
 * The gzip-compressed archive of `files`, padded with zeros to a multiple of 4 bytes as the
 * assisted image service pads it (the kernel skips zeros between concatenated archives).
 */
export function compressedCpio(files: readonly CpioFile[]): Buffer {
  const gz = gzipSync(cpioArchive(files), { level: 9 });
  return Buffer.concat([gz, Buffer.alloc(pad4(gz.length))]);
}

function header(inode: number, mode: number, nlink: number, name: string, size: number): Buffer {
  const nameBytes = Buffer.from(`${name}\0`);
  const fields = [inode, mode, 0, 0, nlink, 0, size, 0, 0, 0, 0, nameBytes.length, 0];
  const text = MAGIC + fields.map((f) => f.toString(16).padStart(8, '0')).join('');
  const head = Buffer.concat([Buffer.from(text, 'ascii'), nameBytes]);
  return Buffer.concat([head, Buffer.alloc(pad4(head.length))]);
}

function pad4(length: number): number {
  return (4 - (length % 4)) % 4;
}

function normalise(path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..'))
    throw new Error(`cpio: ${JSON.stringify(path)} is not a relative file path`);
  return segments.join('/');
}
