/**
 * The base images of discovery ISOs: AgentServiceConfig's `spec.osImages` list, read from a
 * file (`--os-images-file`) or from an AgentServiceConfig object, and the choice of one image for
 * an InfraEnv's OpenShift version and CPU architecture, made the way assisted-service makes it
 * (AS `internal/versions/osimages.go`): exact version, else the `x.y` entry, else the latest
 * `x.y.z` of the same `x.y`.
 *
 * Every problem of a file is reported at its `file:line:column`, all at once.
 */
import { readFileSync, statSync } from 'node:fs';
import {
  SiteForgeError,
  UsageError,
  compareIssues,
  formatIssue,
  quote,
} from '../../shared/errors.js';
import type { InputIssue } from '../../shared/errors.js';
import { locate, parseYamlFile, rawText } from '../../shared/source-yaml.js';
import type { SourcePos } from '../../shared/source-yaml.js';

/** The CPU architectures an OS image may name (AS `models.OsImage` enum). */
export const OS_IMAGE_ARCHITECTURES = ['x86_64', 'aarch64', 'arm64', 'ppc64le', 's390x'] as const;

/**
 * A CPU architecture as assisted-service keeps it after normalising: `aarch64` becomes `arm64`
 * (AS `common.NormalizeCPUArchitecture`, applied to every OS image at start-up).
 */
export type CpuArchitecture = 'x86_64' | 'arm64' | 'ppc64le' | 's390x';

/** The architecture of an image that names none (AS `common.DefaultCPUArchitecture`). */
export const DEFAULT_CPU_ARCHITECTURE: CpuArchitecture = 'x86_64';

/** One base image of discovery ISOs. */
export interface OsImage {
  /** The OpenShift version it serves: `x.y` (e.g. `4.16`) or a full `x.y.z`. */
  readonly openshiftVersion: string;
  /** The RHCOS build, e.g. `416.94.202405291527-0`. */
  readonly version: string;
  /** The live ISO (http or https). */
  readonly url: string;
  /**
   * The live rootfs image (http or https). Upstream ignores this field (deprecated) and serves
   * the rootfs extracted from the ISO; it is kept for files written for older releases.
   */
  readonly rootFSUrl?: string;
  /** Normalised: `aarch64` is given as `arm64`. @default x86_64 */
  readonly cpuArchitecture: CpuArchitecture;
}

/** Bytes of an osImages file: a list of a few dozen images is a few KB. */
export const OS_IMAGES_FILE_LIMIT = 1024 * 1024;

/** The osImages input was invalid; `issues` holds every problem found. */
export class OsImagesError extends SiteForgeError {
  constructor(readonly issues: readonly InputIssue[]) {
    const sorted = [...issues].sort(compareIssues);
    super(
      'OS_IMAGES_INVALID',
      `invalid osImages (${String(sorted.length)} error(s)):\n${sorted.map(formatOsImagesIssue).join('\n')}`,
    );
  }
}

/** An issue at `file:line:column`, or at `source: /path` for an object read from the API. */
function formatOsImagesIssue(issue: InputIssue): string {
  if (issue.line > 0) return formatIssue(issue);
  return formatIssue({
    ...issue,
    file: `${issue.file}: ${issue.path || '/'}`,
    line: 0,
    column: 0,
  }).replace(/:0:0:/, ':');
}

/** No image fits an InfraEnv's version and architecture; the message is assisted-service's. */
export class OsImageNotFoundError extends SiteForgeError {
  constructor(message: string) {
    super('OS_IMAGE_NOT_FOUND', message);
  }
}

/**
 * Reads `--os-images-file`: YAML or JSON holding `osImages: [...]`, a bare list, or a whole
 * AgentServiceConfig (its `spec.osImages`).
 * @throws UsageError when the file cannot be read or is over `limit` bytes; OsImagesError
 *   listing every problem of its content
 */
export function loadOsImagesFile(path: string, limit = OS_IMAGES_FILE_LIMIT): OsImage[] {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > limit)
      throw new UsageError(
        `--os-images-file ${path} is ${String(size)} bytes; an osImages file may have at most ${String(limit)}`,
      );
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read --os-images-file ${path}: ${(err as Error).message}`);
  }
  return parseOsImages(path, text);
}

/**
 * Parses the text of an osImages file (YAML, or JSON such as `kubectl get agentserviceconfig
 * agent -o json`). Pure.
 * @param file the name its issues give
 * @throws OsImagesError listing every problem found
 */
export function parseOsImages(file: string, text: string): OsImage[] {
  const parsed = parseYamlFile(file, text);
  const syntax: InputIssue[] = parsed.errors.map((e) => ({
    severity: 'error',
    code: e.code,
    message: e.message,
    ...(e.hint !== undefined && { hint: e.hint }),
    file,
    line: e.pos.line,
    column: e.pos.column,
    path: '',
  }));
  if (syntax.length > 0) throw new OsImagesError(syntax);
  const documents = parsed.documents.filter((d) => d.value !== null && d.value !== undefined);
  const first = documents[0];
  if (first === undefined || documents.length > 1) {
    const pos = documents[1]?.pos ?? { line: 1, column: 1 };
    throw new OsImagesError([
      issue(
        file,
        pos,
        '',
        'OS_IMAGES_DOCUMENTS',
        first === undefined
          ? 'the file holds no osImages'
          : 'the file holds more than one YAML document; give one',
        SHAPE_HINT,
      ),
    ]);
  }
  const at = (path: readonly (string | number)[], where: 'value' | 'key' = 'value'): SourcePos =>
    locate(first.value, first.pos, path, where);
  return checkOsImages(first.value, (path, code, message, hint, where) =>
    issue(file, at(path, where), pointer(path), code, message, hint),
  );
}

/**
 * The osImages of an AgentServiceConfig object already read (from the API server, or parsed
 * JSON): `spec.osImages`. Issues name `source` and the field's path.
 * @throws OsImagesError listing every problem found
 */
export function osImagesOfAgentServiceConfig(object: unknown, source: string): OsImage[] {
  return checkOsImages(object, (path, code, message, hint) =>
    issue(source, { line: 0, column: 0 }, pointer(path), code, message, hint),
  );
}

type Report = (
  path: readonly (string | number)[],
  code: string,
  message: string,
  hint?: string,
  where?: 'value' | 'key',
) => InputIssue;

const SHAPE_HINT =
  'write `osImages:` followed by a list of {openshiftVersion, version, url, cpuArchitecture}, or give an AgentServiceConfig';

/** The fields of an AgentServiceConfig OSImage. */
const FIELDS = ['openshiftVersion', 'version', 'url', 'rootFSUrl', 'cpuArchitecture'] as const;
/** assisted-service's OS_IMAGES spelling of the same fields. */
const SNAKE_CASE: Readonly<Record<string, string>> = {
  openshift_version: 'openshiftVersion',
  cpu_architecture: 'cpuArchitecture',
  rootfs_url: 'rootFSUrl',
};

/** `x.y`, `x.y.z`, with a pre-release such as `4.18.0-ec.2`. */
const OPENSHIFT_VERSION = /^[0-9]+\.[0-9]+(\.[0-9]+)?(-[0-9A-Za-z.-]+)?$/;

function checkOsImages(root: unknown, report: Report): OsImage[] {
  const issues: InputIssue[] = [];
  const found = listOf(root);
  if (found === undefined) {
    throw new OsImagesError([
      isMap(root) && root['kind'] === 'AgentServiceConfig'
        ? report(
            isMap(root['spec']) ? ['spec'] : [],
            'OS_IMAGES_SHAPE',
            'the AgentServiceConfig has no spec.osImages',
            'add spec.osImages, or give the list in a file of its own',
          )
        : report(
            [],
            'OS_IMAGES_SHAPE',
            `expected a map with osImages, a list, or an AgentServiceConfig, not ${quote(root)}`,
            SHAPE_HINT,
          ),
    ]);
  }
  const { list, at } = found;
  if (!Array.isArray(list)) {
    throw new OsImagesError([
      report(at, 'OS_IMAGES_SHAPE', `osImages must be a list, not ${quote(list)}`, SHAPE_HINT),
    ]);
  }
  if (list.length === 0)
    throw new OsImagesError([
      report(
        at,
        'OS_IMAGES_EMPTY',
        'osImages is empty: discovery ISOs need at least one base image',
        SHAPE_HINT,
      ),
    ]);

  const images: OsImage[] = [];
  const seen = new Map<string, number>();
  list.forEach((entry: unknown, index) => {
    const path = [...at, index];
    const image = checkOne(entry, path, report, issues);
    if (image === undefined) return;
    const key = `${image.openshiftVersion}\u0000${image.cpuArchitecture}`;
    const before = seen.get(key);
    if (before !== undefined) {
      issues.push(
        report(
          path,
          'OS_IMAGE_DUPLICATE',
          `osImages[${String(index)}] repeats openshiftVersion ${quote(image.openshiftVersion)} for ${image.cpuArchitecture}, already given by osImages[${String(before)}]`,
          'keep one image per OpenShift version and architecture',
        ),
      );
      return;
    }
    seen.set(key, index);
    images.push(image);
  });
  if (issues.length > 0) throw new OsImagesError(issues);
  return images;
}

/** Where the list is: `osImages`, `spec.osImages` of an AgentServiceConfig, or the root. */
function listOf(root: unknown): { list: unknown; at: (string | number)[] } | undefined {
  if (Array.isArray(root)) return { list: root, at: [] };
  if (!isMap(root)) return undefined;
  if (root['kind'] === 'AgentServiceConfig' || ('spec' in root && !('osImages' in root))) {
    const spec = root['spec'];
    if (!isMap(spec) || !('osImages' in spec)) return undefined;
    return { list: spec['osImages'], at: ['spec', 'osImages'] };
  }
  if (!('osImages' in root)) return undefined;
  return { list: root['osImages'], at: ['osImages'] };
}

function checkOne(
  entry: unknown,
  path: readonly (string | number)[],
  report: Report,
  issues: InputIssue[],
): OsImage | undefined {
  if (!isMap(entry)) {
    issues.push(
      report(path, 'OS_IMAGE_NOT_A_MAP', `an OS image must be a map, not ${quote(entry)}`),
    );
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(entry)) {
    if ((FIELDS as readonly string[]).includes(key)) continue;
    const camel = SNAKE_CASE[key];
    issues.push(
      report(
        [...path, key],
        'OS_IMAGE_UNKNOWN_FIELD',
        `unknown field ${quote(key)} in an OS image`,
        camel === undefined
          ? `the fields are ${FIELDS.join(', ')}`
          : `this file takes AgentServiceConfig's spelling: ${camel} (${key} is assisted-service's OS_IMAGES spelling)`,
        'key',
      ),
    );
  }
  const text = (field: (typeof FIELDS)[number], required: boolean): string | undefined => {
    const value = entry[field];
    if (value === undefined || value === null || value === '') {
      if (required)
        issues.push(
          report(
            path,
            'OS_IMAGE_MISSING_FIELD',
            `Missing value in OSImage for '${field}' field${typeof entry['openshiftVersion'] === 'string' ? ` (openshiftVersion: ${entry['openshiftVersion']})` : ''}`,
          ),
        );
      return undefined;
    }
    if (typeof value !== 'string') {
      const raw = rawText(entry, field);
      issues.push(
        report(
          [...path, field],
          'OS_IMAGE_NOT_A_STRING',
          `${field} must be a string, not ${raw === undefined ? quote(value) : `${raw} (read as a ${typeof value})`}`,
          raw === undefined ? undefined : `quote it: ${field}: "${raw}"`,
        ),
      );
      return undefined;
    }
    return value;
  };

  const openshiftVersion = text('openshiftVersion', true);
  if (openshiftVersion !== undefined && !OPENSHIFT_VERSION.test(openshiftVersion))
    issues.push(
      report(
        [...path, 'openshiftVersion'],
        'OS_IMAGE_BAD_VERSION',
        `openshiftVersion must be an OpenShift version such as 4.16 or 4.16.3, not ${quote(openshiftVersion)}`,
      ),
    );
  const version = text('version', true);
  const url = text('url', true);
  if (url !== undefined) checkUrl(url, [...path, 'url'], 'url', report, issues);
  const rootFSUrl = text('rootFSUrl', false);
  if (rootFSUrl !== undefined)
    checkUrl(rootFSUrl, [...path, 'rootFSUrl'], 'rootFSUrl', report, issues);
  const arch = text('cpuArchitecture', false) ?? DEFAULT_CPU_ARCHITECTURE;
  if (!(OS_IMAGE_ARCHITECTURES as readonly string[]).includes(arch))
    issues.push(
      report(
        [...path, 'cpuArchitecture'],
        'OS_IMAGE_BAD_ARCHITECTURE',
        `cpuArchitecture must be one of ${OS_IMAGE_ARCHITECTURES.join(', ')}, not ${quote(arch)}`,
      ),
    );
  if (issues.length > before) return undefined;
  return {
    openshiftVersion: openshiftVersion!,
    version: version!,
    url: url!,
    ...(rootFSUrl !== undefined && { rootFSUrl }),
    cpuArchitecture: normalizeCpuArchitecture(arch) as CpuArchitecture,
  };
}

function checkUrl(
  value: string,
  path: readonly (string | number)[],
  field: string,
  report: Report,
  issues: InputIssue[],
): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    issues.push(
      report(
        path,
        'OS_IMAGE_BAD_URL',
        `${field} must be an http or https URL, not ${quote(value)}`,
      ),
    );
}

/**
 * An architecture as assisted-service compares it: `amd64` is `x86_64`, `aarch64` is `arm64`
 * (AS `common.NormalizeCPUArchitecture`); others are kept.
 */
export function normalizeCpuArchitecture(arch: string): string {
  if (arch === 'amd64') return 'x86_64';
  if (arch === 'aarch64') return 'arm64';
  return arch;
}

/**
 * The image for an OpenShift version and CPU architecture, as assisted-service's GetOsImage
 * picks it: among the images of the architecture (an empty one is x86_64), the one whose
 * openshiftVersion is `openshiftVersion` exactly; else the one that is its `x.y`; else the
 * latest of the same `x.y`.
 * @throws OsImageNotFoundError with assisted-service's message
 */
export function selectOsImage(
  images: readonly OsImage[],
  openshiftVersion: string,
  cpuArchitecture = '',
): OsImage {
  const arch = normalizeCpuArchitecture(cpuArchitecture) || DEFAULT_CPU_ARCHITECTURE;
  const ofArch = images.filter((image) => image.cpuArchitecture === arch);
  if (ofArch.length === 0)
    throw new OsImageNotFoundError(
      `The requested CPU architecture (${arch}) isn't specified in OS images list`,
    );
  const exact = ofArch.find((image) => image.openshiftVersion === openshiftVersion);
  if (exact !== undefined) return exact;
  const minor = majorMinor(openshiftVersion);
  if (minor === undefined) throw new OsImageNotFoundError('invalid version');
  const sameMinor = ofArch.find((image) => image.openshiftVersion === minor);
  if (sameMinor !== undefined) return sameMinor;
  const latest = ofArch
    .filter((image) => majorMinor(image.openshiftVersion) === minor)
    .sort((a, b) => compareVersions(b.openshiftVersion, a.openshiftVersion))[0];
  if (latest !== undefined) return latest;
  throw new OsImageNotFoundError(
    `The requested OS image for version (${openshiftVersion}) and CPU architecture (${arch}) isn't specified in OS images list`,
  );
}

/**
 * The image of the latest OpenShift version for an architecture (AS GetLatestOsImage), for an
 * InfraEnv that names no version.
 * @throws OsImageNotFoundError when the architecture has none
 */
export function latestOsImage(images: readonly OsImage[], cpuArchitecture = ''): OsImage {
  const arch = normalizeCpuArchitecture(cpuArchitecture) || DEFAULT_CPU_ARCHITECTURE;
  const latest = images
    .filter((image) => image.cpuArchitecture === arch)
    .sort((a, b) => compareVersions(b.openshiftVersion, a.openshiftVersion))[0];
  if (latest === undefined) throw new OsImageNotFoundError('No OS images are available');
  return latest;
}

/**
 * The image of an InfraEnv (AS GetOsImageOrLatest): `selectOsImage` for the version it names,
 * `latestOsImage` when it names none, with assisted-service's message around the reason.
 * @throws OsImageNotFoundError with assisted-service's message
 */
export function osImageOrLatest(
  images: readonly OsImage[],
  openshiftVersion: string,
  cpuArchitecture = '',
): OsImage {
  const arch = normalizeCpuArchitecture(cpuArchitecture) || DEFAULT_CPU_ARCHITECTURE;
  try {
    return openshiftVersion === ''
      ? latestOsImage(images, arch)
      : selectOsImage(images, openshiftVersion, arch);
  } catch (err) {
    if (!(err instanceof OsImageNotFoundError)) throw err;
    throw new OsImageNotFoundError(
      openshiftVersion === ''
        ? `Failed to get latest OS image for architecture ${arch}: ${err.message}`
        : `No OS image for Openshift version ${openshiftVersion} and architecture ${arch}: ${err.message}`,
    );
  }
}

/** `4.16` of `4.16.3` or `4.16.0-ec.1` (AS common.GetMajorMinorVersion); undefined without a dot. */
export function majorMinor(version: string): string | undefined {
  const parts = (version.split('-')[0] ?? '').split('.');
  if (parts.length < 2) return undefined;
  return `${parts[0]!}.${parts[1]!}`;
}

/**
 * Orders OpenShift versions as hashicorp/go-version does for the ones assisted-service sees:
 * numeric segments (missing ones are 0), then a release after its pre-releases.
 */
export function compareVersions(a: string, b: string): number {
  const [aCore = '', ...aPre] = a.split('-');
  const [bCore = '', ...bPre] = b.split('-');
  const aNums = aCore.split('.').map(Number);
  const bNums = bCore.split('.').map(Number);
  for (let i = 0; i < Math.max(aNums.length, bNums.length); i++) {
    const d = (aNums[i] ?? 0) - (bNums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  const ap = aPre.join('-');
  const bp = bPre.join('-');
  if (ap === bp) return 0;
  if (ap === '') return 1;
  if (bp === '') return -1;
  const aIds = ap.split('.');
  const bIds = bp.split('.');
  for (let i = 0; i < Math.max(aIds.length, bIds.length); i++) {
    const x = aIds[i];
    const y = bIds[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    if (xn && yn) return Math.sign(Number(x) - Number(y));
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function pointer(path: readonly (string | number)[]): string {
  return path.map((p) => `/${String(p)}`).join('');
}

function issue(
  file: string,
  pos: SourcePos,
  path: string,
  code: string,
  message: string,
  hint?: string,
): InputIssue {
  return {
    severity: 'error',
    code,
    message,
    ...(hint !== undefined && { hint }),
    file,
    line: pos.line,
    column: pos.column,
    path,
  };
}
