/**
 * A small ISO in the layout of a CoreOS live ISO, for simulations and tests: what
 * coreos-installer and SiteForge's image code look for (a zero-filled `/images/ignition.img`
 * embed area named by `/coreos/igninfo.json`, `/coreos/kargs.json` pointing at the
 * kernel-argument areas of `/EFI/redhat/grub.cfg` and `/isolinux/isolinux.cfg`, each
 * `<defaults>\n###…# COREOS_KARG_EMBED_AREA`), and what a booting host reads (a bootloader entry
 * naming the kernel, the initrds and the ignition area; a live rootfs). Built with xorriso;
 * the payloads are filler, so it boots only simulated hosts.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The default kernel arguments of the ISO. */
export const LIVE_ISO_DEFAULT_KARGS =
  'coreos.liveiso=siteforge-test ignition.firstboot ignition.platform.id=metal';

/** Options of {@link buildLiveIso}. */
export interface LiveIsoOptions {
  /** The xorriso executable. */
  readonly xorriso: string;
  /** Size of `/images/ignition.img`. @default 256 KiB */
  readonly embedAreaBytes?: number;
  /** Size of each karg embed area (defaults included), as in kargs.json. @default 1137 */
  readonly kargsAreaBytes?: number;
  /** Bytes of the filler rootfs, so that a boot has some bulk to stream. @default 1 MiB */
  readonly rootfsBytes?: number;
  /** The volume label. @default SFTEST */
  readonly volumeId?: string;
}

/** Builds the ISO in `dir` (as `base.iso`); returns its path. */
export async function buildLiveIso(dir: string, options: LiveIsoOptions): Promise<string> {
  const tree = join(dir, 'iso-tree');
  const size = options.kargsAreaBytes ?? 1137;
  const kargs = LIVE_ISO_DEFAULT_KARGS;
  const area = `${kargs}\n${'#'.repeat(size - kargs.length - 1)}`;
  const grub = `set timeout=5\nmenuentry 'SiteForge test live' {\n  linux /images/pxeboot/vmlinuz ${area}# COREOS_KARG_EMBED_AREA\n  initrd /images/pxeboot/initrd.img /images/ignition.img\n}\n`;
  const isolinux = `default live\nlabel live\n  kernel /images/pxeboot/vmlinuz\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ${area}# COREOS_KARG_EMBED_AREA\n`;
  const offsetOf = (text: string): number => text.indexOf(kargs);
  const files: Record<string, string | Buffer> = {
    'EFI/redhat/grub.cfg': grub,
    'isolinux/isolinux.cfg': isolinux,
    'images/ignition.img': Buffer.alloc(options.embedAreaBytes ?? 256 * 1024),
    'images/pxeboot/vmlinuz': Buffer.alloc(4096, 1),
    'images/pxeboot/initrd.img': Buffer.alloc(4096, 2),
    'images/pxeboot/rootfs.img': Buffer.alloc(options.rootfsBytes ?? 1 << 20, 3),
    'coreos/igninfo.json': JSON.stringify({ file: 'images/ignition.img' }),
    'coreos/kargs.json': JSON.stringify({
      default: kargs,
      files: [
        { path: 'EFI/redhat/grub.cfg', offset: offsetOf(grub) },
        { path: 'isolinux/isolinux.cfg', offset: offsetOf(isolinux) },
      ],
      size,
    }),
  };
  for (const [path, contents] of Object.entries(files)) {
    await mkdir(join(tree, path, '..'), { recursive: true });
    await writeFile(join(tree, path), contents);
  }
  const iso = join(dir, 'base.iso');
  const volume = options.volumeId ?? 'SFTEST';
  await exec(options.xorriso, [
    '-as',
    'mkisofs',
    '-quiet',
    '-V',
    volume,
    '-R',
    '-J',
    '-o',
    iso,
    tree,
  ]);
  await rm(tree, { recursive: true, force: true });
  return iso;
}
