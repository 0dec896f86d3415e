/**
 * The real coreos-installer as a test peer, and a small ISO in the layout it expects of a CoreOS
 * live ISO (built with xorriso): a zero-filled `/images/ignition.img` embed area named by
 * `/coreos/igninfo.json`, and `/coreos/kargs.json` pointing at the kernel-argument areas of
 * `/EFI/redhat/grub.cfg` and `/isolinux/isolinux.cfg`, each `<defaults>\n###…# COREOS_KARG_EMBED_AREA`.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureCoreosInstaller, ensureXorriso } from '../../scripts/hub/coreos-installer.mjs';

const exec = promisify(execFile);

/** The default kernel arguments of the test ISO. */
export const TEST_ISO_DEFAULT_KARGS =
  'coreos.liveiso=siteforge-test ignition.firstboot ignition.platform.id=metal';

/** Options of {@link buildTestIso}. */
export interface TestIsoOptions {
  /** Size of `/images/ignition.img`. @default 256 KiB */
  readonly embedAreaBytes?: number;
  /** Size of each karg embed area (defaults included), as in kargs.json. @default 1137 */
  readonly kargsAreaBytes?: number;
  /** Bytes of a dummy rootfs, so the ISO has some bulk to stream. @default 1 MiB */
  readonly rootfsBytes?: number;
}

/** Builds the test ISO in `dir`; returns its path. */
export async function buildTestIso(dir: string, options: TestIsoOptions = {}): Promise<string> {
  const xorriso = await ensureXorriso();
  const tree = join(dir, 'iso-tree');
  const size = options.kargsAreaBytes ?? 1137;
  const area = `${TEST_ISO_DEFAULT_KARGS}\n${'#'.repeat(size - TEST_ISO_DEFAULT_KARGS.length - 1)}`;
  const grub = `set timeout=5\nmenuentry 'SiteForge test live' {\n  linux /images/pxeboot/vmlinuz ${area}# COREOS_KARG_EMBED_AREA\n  initrd /images/pxeboot/initrd.img /images/ignition.img\n}\n`;
  const isolinux = `default live\nlabel live\n  kernel /images/pxeboot/vmlinuz\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ${area}# COREOS_KARG_EMBED_AREA\n`;
  const offsetOf = (text: string) => text.indexOf(TEST_ISO_DEFAULT_KARGS);
  const files: Record<string, string | Buffer> = {
    'EFI/redhat/grub.cfg': grub,
    'isolinux/isolinux.cfg': isolinux,
    'images/ignition.img': Buffer.alloc(options.embedAreaBytes ?? 256 * 1024),
    'images/pxeboot/vmlinuz': Buffer.alloc(4096, 1),
    'images/pxeboot/initrd.img': Buffer.alloc(4096, 2),
    'images/pxeboot/rootfs.img': Buffer.alloc(options.rootfsBytes ?? 1 << 20, 3),
    'coreos/igninfo.json': JSON.stringify({ file: 'images/ignition.img' }),
    'coreos/kargs.json': JSON.stringify({
      default: TEST_ISO_DEFAULT_KARGS,
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
  await exec(xorriso, ['-as', 'mkisofs', '-quiet', '-V', 'SFTEST', '-R', '-J', '-o', iso, tree]);
  return iso;
}

/** Runs coreos-installer with `args`; resolves with its stdout. */
export async function coreosInstaller(...args: string[]): Promise<string> {
  const exe = await ensureCoreosInstaller();
  const { stdout } = await exec(exe, args, { maxBuffer: 64 << 20 });
  return stdout;
}
