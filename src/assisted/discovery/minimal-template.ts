/**
 * The minimal ISO template of a base ISO (assisted.md §6.2), built once per base and rootfs URL
 * with xorriso: the full live ISO without `images/pxeboot/rootfs.img`, with a 1 MiB zero-filled
 * `/images/assisted_installer_custom.img` loaded by the bootloaders as one more initrd (the
 * ramdisk area: static networking), and `coreos.liveiso=` replaced by
 * `coreos.live.rootfs_url="<url>"` in the default kernel arguments of grub and isolinux, whose
 * karg embed areas keep their size (kargs.json follows their new offsets and defaults).
 * The ISO 9660 names stay 8.3 (`-compliance iso_9660_level=1`): coreos-installer finds
 * `COREOS/KARGS.JSO` and `COREOS/IGNINFO.JSO` by those names.
 */
import { execFile } from 'node:child_process';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { IsoLayoutError, fileAccess, findIsoFile, readIsoFile } from './iso9660.js';

const exec = promisify(execFile);

/** Where the minimal ISO's ramdisk goes, as assisted-service names it. */
export const RAMDISK_PATH = '/images/assisted_installer_custom.img';
/** The ramdisk area's size. */
export const RAMDISK_BYTES = 1024 * 1024;
const ROOTFS_PATH = '/images/pxeboot/rootfs.img';

/** Options of {@link buildMinimalTemplate}. */
export interface MinimalTemplateOptions {
  /** The xorriso executable. */
  readonly xorriso: string;
  /** The full live ISO. */
  readonly baseIso: string;
  /** Where the live system fetches its rootfs. */
  readonly rootfsUrl: string;
  /** The template to write (atomically: a partial one is never left under this name). */
  readonly out: string;
  /** A scratch directory of its own (removed afterwards). */
  readonly workDir: string;
}

interface KargsInfo {
  default: string;
  files: { path: string; offset: number; pad?: string; end?: string }[];
  size: number;
}

/**
 * Builds the minimal ISO template of `baseIso`.
 * @throws IsoLayoutError when the base has no kargs.json or its karg areas are not as it says,
 *   Error when xorriso fails
 */
export async function buildMinimalTemplate(options: MinimalTemplateOptions): Promise<void> {
  if (/[$\\"\s]/.test(options.rootfsUrl))
    throw new IsoLayoutError(`invalid rootfs URL ${JSON.stringify(options.rootfsUrl)}`);
  const file = await open(options.baseIso, 'r');
  const replaced = new Map<string, string | Buffer>();
  let removeRootfs: boolean;
  try {
    const iso = fileAccess(file);
    const infoFile = await findIsoFile(iso, '/coreos/kargs.json');
    if (infoFile === undefined)
      throw new IsoLayoutError('the base ISO has no /coreos/kargs.json: no minimal template');
    const info = JSON.parse((await readIsoFile(iso, infoFile)).toString('utf8')) as KargsInfo;
    const newDefault = `${info.default.replace(/\bcoreos\.liveiso=\S+ ?/, '').trim()} coreos.live.rootfs_url="${options.rootfsUrl}"`;
    if (newDefault.length + 1 > info.size)
      throw new IsoLayoutError(
        `content length (${String(newDefault.length + 1)}) exceeds embed area size (${String(info.size)})`,
      );
    const files: KargsInfo['files'] = [];
    for (const entry of info.files) {
      const path = entry.path.startsWith('/') ? entry.path : `/${entry.path}`;
      const located = await findIsoFile(iso, path);
      if (located === undefined) throw new IsoLayoutError(`${entry.path} is missing`);
      const text = (await readIsoFile(iso, located)).toString('latin1');
      const end = entry.end ?? '\n';
      const pad = entry.pad ?? '#';
      if (!text.startsWith(info.default, entry.offset))
        throw new IsoLayoutError(
          `${entry.path} has no default kernel arguments at ${String(entry.offset)}`,
        );
      const region = `${newDefault}${end}`.padEnd(info.size, pad);
      let edited = text.slice(0, entry.offset) + region + text.slice(entry.offset + info.size);
      edited =
        basename(path) === 'isolinux.cfg'
          ? edited.replace(/^(\s+append.*initrd=\S+)/m, `$1,${RAMDISK_PATH}`)
          : edited.replace(/^(\s+initrd .+)$/m, `$1 ${RAMDISK_PATH}`);
      files.push({ ...entry, offset: edited.indexOf(region) });
      replaced.set(path, Buffer.from(edited, 'latin1'));
    }
    replaced.set('/coreos/kargs.json', JSON.stringify({ ...info, default: newDefault, files }));
    replaced.set(RAMDISK_PATH, Buffer.alloc(RAMDISK_BYTES));
    removeRootfs = (await findIsoFile(iso, ROOTFS_PATH)) !== undefined;
  } finally {
    await file.close();
  }

  await mkdir(options.workDir, { recursive: true });
  const partial = `${options.out}.partial`;
  try {
    const maps: string[] = [];
    let n = 0;
    for (const [path, contents] of replaced) {
      const local = join(options.workDir, `file-${String(n++)}`);
      await writeFile(local, contents);
      maps.push('-map', local, path);
    }
    await rm(partial, { force: true });
    await exec(
      options.xorriso,
      [
        '-indev',
        options.baseIso,
        '-outdev',
        partial,
        '-compliance',
        'iso_9660_level=1',
        '-boot_image',
        'any',
        'replay',
        ...(removeRootfs ? ['-rm', ROOTFS_PATH, '--'] : []),
        ...maps,
      ],
      { maxBuffer: 16 << 20 },
    );
    await rename(partial, options.out);
  } finally {
    await rm(options.workDir, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
}
