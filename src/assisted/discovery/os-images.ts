/**
 * The base images of discovery ISOs, from configuration: AgentServiceConfig's `osImages` list,
 * and the choice among them assisted-service makes for an InfraEnv (an exact version, its
 * major.minor, the newest patch of that major.minor, or the newest of all when the InfraEnv
 * names none), with assisted-service's messages when nothing matches.
 */
import { SiteForgeError } from '../../shared/errors.js';

/** One entry of `osImages`. */
export interface OsImage {
  /** e.g. `4.16` or `4.16.3`. */
  readonly openshiftVersion: string;
  /** The RHCOS build, e.g. `416.94.202405291527-0`. */
  readonly version: string;
  /** The live ISO. */
  readonly url: string;
  /** The live rootfs (the minimal ISO fetches it). */
  readonly rootFSUrl?: string;
  /** `x86_64` when absent. */
  readonly cpuArchitecture?: string;
}

/** No configured image fits an InfraEnv. */
export class OsImageNotFoundError extends SiteForgeError {
  constructor(message: string) {
    super('OS_IMAGE_NOT_FOUND', message);
  }
}

export const DEFAULT_CPU_ARCHITECTURE = 'x86_64';

/** The architecture spellings assisted-service takes as the same (`amd64` is `x86_64`). */
export function normaliseCpuArchitecture(arch: string | undefined): string {
  switch (arch) {
    case undefined:
    case '':
      return DEFAULT_CPU_ARCHITECTURE;
    case 'amd64':
      return 'x86_64';
    case 'arm64':
      return 'aarch64';
    default:
      return arch;
  }
}

/**
 * The image for `openshiftVersion` (or the newest when empty) and `cpuArchitecture`.
 * @throws OsImageNotFoundError with assisted-service's message
 */
export function selectOsImage(
  images: readonly OsImage[],
  openshiftVersion: string | undefined,
  cpuArchitecture: string | undefined,
): OsImage {
  const arch = normaliseCpuArchitecture(cpuArchitecture);
  if (!openshiftVersion) {
    let latest: OsImage | undefined;
    for (const image of images)
      if (normaliseCpuArchitecture(image.cpuArchitecture) === arch)
        if (
          latest === undefined ||
          compareVersions(image.openshiftVersion, latest.openshiftVersion) > 0
        )
          latest = image;
    if (latest === undefined) throw new OsImageNotFoundError('No OS images are available');
    return latest;
  }
  try {
    return osImageFor(images, openshiftVersion, arch);
  } catch (err) {
    throw new OsImageNotFoundError(
      `No OS image for Openshift version ${openshiftVersion} and architecture ${arch}: ${(err as Error).message}`,
    );
  }
}

function osImageFor(images: readonly OsImage[], version: string, arch: string): OsImage {
  const ofArch = images.filter((i) => normaliseCpuArchitecture(i.cpuArchitecture) === arch);
  if (ofArch.length === 0)
    throw new Error(`The requested CPU architecture (${arch}) isn't specified in OS images list`);
  const exact = ofArch.find((i) => i.openshiftVersion === version);
  if (exact) return exact;
  const majorMinor = majorMinorOf(version);
  if (majorMinor === undefined) throw new Error(`invalid version ${version}`);
  const byMinor = ofArch.find((i) => i.openshiftVersion === majorMinor);
  if (byMinor) return byMinor;
  const patches = ofArch
    .filter((i) => majorMinorOf(i.openshiftVersion) === majorMinor)
    .sort((a, b) => compareVersions(b.openshiftVersion, a.openshiftVersion));
  if (patches[0]) return patches[0];
  throw new Error(
    `The requested OS image for version (${version}) and CPU architecture (${arch}) isn't specified in OS images list`,
  );
}

function majorMinorOf(version: string): string | undefined {
  const match = /^(\d+)\.(\d+)/.exec(version);
  return match ? `${match[1]!}.${match[2]!}` : undefined;
}

/** Compares dotted versions numerically (`4.10` > `4.9`); a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { parts: core.split('.').map((p) => Number.parseInt(p, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length); i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}
