import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OsImageNotFoundError,
  OsImagesError,
  compareVersions,
  latestOsImage,
  loadOsImagesFile,
  osImageOrLatest,
  osImagesOfAgentServiceConfig,
  parseOsImages,
  selectOsImage,
} from '../../../src/assisted/config/os-images.js';
import type { OsImage } from '../../../src/assisted/config/os-images.js';
import { UsageError } from '../../../src/shared/errors.js';

const RHCOS = 'https://mirror.example.com/rhcos';

/** The issues of a file that does not load, as `line:column CODE`. */
function issuesOf(text: string): string[] {
  try {
    parseOsImages('os-images.yaml', text);
  } catch (err) {
    expect(err).toBeInstanceOf(OsImagesError);
    return (err as OsImagesError).issues.map(
      (i) => `${String(i.line)}:${String(i.column)} ${i.code}`,
    );
  }
  throw new Error('the file loaded');
}

function messageOf(text: string): string {
  try {
    parseOsImages('os-images.yaml', text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the file loaded');
}

describe('an osImages file', () => {
  it('reads the AgentServiceConfig list from YAML, normalising aarch64 to arm64 as assisted-service does', () => {
    const images = parseOsImages(
      'os-images.yaml',
      [
        'osImages:',
        '  - openshiftVersion: "4.16"',
        '    version: 416.94.202405291527-0',
        `    url: ${RHCOS}/4.16/rhcos-live.x86_64.iso`,
        `    rootFSUrl: ${RHCOS}/4.16/rhcos-live-rootfs.x86_64.img`,
        '    cpuArchitecture: x86_64',
        '  - openshiftVersion: "4.16"',
        '    version: 416.94.202405291527-0',
        `    url: ${RHCOS}/4.16/rhcos-live.aarch64.iso`,
        '    cpuArchitecture: aarch64',
        '  - openshiftVersion: "4.17"',
        '    version: 417.94.202410090854-0',
        `    url: ${RHCOS}/4.17/rhcos-live.x86_64.iso`,
        '',
      ].join('\n'),
    );
    expect(images).toEqual([
      {
        openshiftVersion: '4.16',
        version: '416.94.202405291527-0',
        url: `${RHCOS}/4.16/rhcos-live.x86_64.iso`,
        rootFSUrl: `${RHCOS}/4.16/rhcos-live-rootfs.x86_64.img`,
        cpuArchitecture: 'x86_64',
      },
      {
        openshiftVersion: '4.16',
        version: '416.94.202405291527-0',
        url: `${RHCOS}/4.16/rhcos-live.aarch64.iso`,
        cpuArchitecture: 'arm64',
      },
      {
        openshiftVersion: '4.17',
        version: '417.94.202410090854-0',
        url: `${RHCOS}/4.17/rhcos-live.x86_64.iso`,
        cpuArchitecture: 'x86_64',
      },
    ]);
  });

  it('reads a whole AgentServiceConfig given as JSON (kubectl get -o json)', () => {
    const asc = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'AgentServiceConfig',
      metadata: { name: 'agent' },
      spec: {
        osImages: [
          {
            openshiftVersion: '4.16',
            version: '416.94.202405291527-0',
            url: `${RHCOS}/4.16/rhcos-live.s390x.iso`,
            cpuArchitecture: 's390x',
          },
        ],
      },
    };
    expect(parseOsImages('asc.json', JSON.stringify(asc, null, 2))).toEqual([
      {
        openshiftVersion: '4.16',
        version: '416.94.202405291527-0',
        url: `${RHCOS}/4.16/rhcos-live.s390x.iso`,
        cpuArchitecture: 's390x',
      },
    ]);
    expect(osImagesOfAgentServiceConfig(asc, 'AgentServiceConfig agent')).toHaveLength(1);
  });

  it('points at the line and column of each bad value, all at once', () => {
    const text = [
      'osImages:',
      '  - openshiftVersion: "4.16"',
      '    version: 416.94.202405291527-0',
      '    url: ftp://mirror.example.com/rhcos.iso',
      '    cpuArchitecture: riscv64',
      '  - openshiftVersion: latest',
      '    version: "1"',
      `    url: ${RHCOS}/a.iso`,
      '    rootFSUrl: /local/rootfs.img',
      '',
    ].join('\n');
    expect(issuesOf(text)).toEqual([
      '4:10 OS_IMAGE_BAD_URL',
      '5:22 OS_IMAGE_BAD_ARCHITECTURE',
      '6:23 OS_IMAGE_BAD_VERSION',
      '9:16 OS_IMAGE_BAD_URL',
    ]);
    const message = messageOf(text);
    expect(message).toContain(
      'os-images.yaml:5:22: error OS_IMAGE_BAD_ARCHITECTURE: cpuArchitecture must be one of x86_64, aarch64, arm64, ppc64le, s390x, not "riscv64"',
    );
    expect(message).toContain(
      'url must be an http or https URL, not "ftp://mirror.example.com/rhcos.iso"',
    );
  });

  it('refuses an unquoted version that YAML reads as a number, and says to quote it', () => {
    const text = [
      'osImages:',
      '  - openshiftVersion: 4.10',
      '    version: 410.84.202205191234-0',
      `    url: ${RHCOS}/4.10.iso`,
      '',
    ].join('\n');
    expect(issuesOf(text)).toEqual(['2:23 OS_IMAGE_NOT_A_STRING']);
    expect(messageOf(text)).toContain(
      'openshiftVersion must be a string, not 4.10 (read as a number)',
    );
    expect(messageOf(text)).toContain('hint: quote it: openshiftVersion: "4.10"');
  });

  it('names a missing field the way assisted-service does, at its image', () => {
    const text = ['osImages:', '  - openshiftVersion: "4.16"', '    version: "416"', ''].join('\n');
    expect(issuesOf(text)).toEqual(['2:5 OS_IMAGE_MISSING_FIELD']);
    expect(messageOf(text)).toContain(
      "Missing value in OSImage for 'url' field (openshiftVersion: 4.16)",
    );
  });

  it('refuses a second image for the same version and architecture, naming the first', () => {
    const image = (arch: string) => [
      '  - openshiftVersion: "4.16"',
      '    version: "416"',
      `    url: ${RHCOS}/x.iso`,
      `    cpuArchitecture: ${arch}`,
    ];
    const text = ['osImages:', ...image('arm64'), ...image('aarch64'), ''].join('\n');
    expect(issuesOf(text)).toEqual(['6:5 OS_IMAGE_DUPLICATE']);
    expect(messageOf(text)).toContain(
      'osImages[1] repeats openshiftVersion "4.16" for arm64, already given by osImages[0]',
    );
  });

  it('points at an unknown field and translates assisted-service’s OS_IMAGES spelling', () => {
    const text = [
      'osImages:',
      '  - openshift_version: "4.16"',
      '    openshiftVersion: "4.16"',
      '    version: "416"',
      `    url: ${RHCOS}/x.iso`,
      '',
    ].join('\n');
    expect(issuesOf(text)).toEqual(['2:5 OS_IMAGE_UNKNOWN_FIELD']);
    expect(messageOf(text)).toContain(
      'this file takes AgentServiceConfig’s spelling'.replace('’', "'"),
    );
  });

  it('says what shape it expects from an empty list, a map without osImages, or two documents', () => {
    expect(issuesOf('osImages: []\n')).toEqual(['1:11 OS_IMAGES_EMPTY']);
    expect(issuesOf('images:\n  - a\n')).toEqual(['1:1 OS_IMAGES_SHAPE']);
    expect(issuesOf('osImages: a\n')).toEqual(['1:11 OS_IMAGES_SHAPE']);
    expect(issuesOf('kind: AgentServiceConfig\nspec:\n  imageStorage: {}\n')).toEqual([
      '3:3 OS_IMAGES_SHAPE',
    ]);
    expect(messageOf('kind: AgentServiceConfig\nspec: {}\n')).toContain(
      'the AgentServiceConfig has no spec.osImages',
    );
    expect(issuesOf('osImages: []\n---\nosImages: []\n')).toEqual(['3:1 OS_IMAGES_DOCUMENTS']);
    expect(issuesOf('')).toEqual(['1:1 OS_IMAGES_DOCUMENTS']);
    expect(issuesOf('osImages: [\n')[0]).toMatch(/^\d+:\d+ /);
  });

  it('names the field of an AgentServiceConfig read from the API', () => {
    expect(() =>
      osImagesOfAgentServiceConfig(
        { kind: 'AgentServiceConfig', spec: { osImages: [{ openshiftVersion: '4.16' }] } },
        'AgentServiceConfig agent',
      ),
    ).toThrow(
      "AgentServiceConfig agent: /spec/osImages/0: error OS_IMAGE_MISSING_FIELD: Missing value in OSImage for 'version' field",
    );
  });
});

describe('loadOsImagesFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-os-images-'));

  it('reads a file from disk', () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(
      file,
      `osImages:\n  - {openshiftVersion: "4.16", version: "416", url: "${RHCOS}/x.iso"}\n`,
    );
    expect(loadOsImagesFile(file)).toHaveLength(1);
  });

  it('refuses a file over its size bound before reading it', () => {
    const file = join(dir, 'big.yaml');
    writeFileSync(file, `# ${'x'.repeat(2000)}\nosImages: []\n`);
    expect(() => loadOsImagesFile(file, 1000)).toThrow(UsageError);
    expect(() => loadOsImagesFile(file, 1000)).toThrow(
      /is 2\d\d\d bytes; an osImages file may have at most 1000/,
    );
  });

  it('says which file it cannot read', () => {
    expect(() => loadOsImagesFile(join(dir, 'missing.yaml'))).toThrow(
      /^cannot read --os-images-file .*missing\.yaml: ENOENT/,
    );
  });
});

describe('selectOsImage', () => {
  const image = (
    openshiftVersion: string,
    cpuArchitecture: OsImage['cpuArchitecture'] = 'x86_64',
  ): OsImage => ({
    openshiftVersion,
    version: `rhcos-${openshiftVersion}`,
    url: `${RHCOS}/${openshiftVersion}-${cpuArchitecture}.iso`,
    cpuArchitecture,
  });
  const images = [
    image('4.15'),
    image('4.16.3'),
    image('4.16.10'),
    image('4.16.2'),
    image('4.17.0-ec.1'),
    image('4.17.0'),
    image('4.17', 'arm64'),
  ];

  it('picks the exact version first', () => {
    expect(selectOsImage(images, '4.16.3').openshiftVersion).toBe('4.16.3');
  });

  it('falls back to the x.y image, then to the latest x.y.z of the same x.y', () => {
    expect(selectOsImage(images, '4.15.7').openshiftVersion).toBe('4.15');
    expect(selectOsImage(images, '4.16').openshiftVersion).toBe('4.16.10');
    expect(selectOsImage(images, '4.16.99').openshiftVersion).toBe('4.16.10');
    expect(selectOsImage(images, '4.17').openshiftVersion).toBe('4.17.0');
  });

  it('matches architectures as assisted-service normalises them, empty meaning x86_64', () => {
    expect(selectOsImage(images, '4.17.1', 'aarch64').cpuArchitecture).toBe('arm64');
    expect(selectOsImage(images, '4.17.1', 'arm64').url).toContain('4.17-arm64');
    expect(selectOsImage(images, '4.15', 'amd64').openshiftVersion).toBe('4.15');
    expect(selectOsImage(images, '4.15', '').openshiftVersion).toBe('4.15');
  });

  it('says what is missing with assisted-service’s messages', () => {
    expect(() => selectOsImage(images, '4.16', 's390x')).toThrow(
      new OsImageNotFoundError(
        "The requested CPU architecture (s390x) isn't specified in OS images list",
      ),
    );
    expect(() => selectOsImage(images, '4.18.1')).toThrow(
      "The requested OS image for version (4.18.1) and CPU architecture (x86_64) isn't specified in OS images list",
    );
    expect(() => selectOsImage(images, '4', 'arm64')).toThrow('invalid version');
  });

  it('gives the latest version of an architecture for an InfraEnv that names none', () => {
    expect(latestOsImage(images).openshiftVersion).toBe('4.17.0');
    expect(latestOsImage(images, 'aarch64').openshiftVersion).toBe('4.17');
    expect(() => latestOsImage(images, 'ppc64le')).toThrow('No OS images are available');
  });

  it('picks for an InfraEnv its version, else the latest, as assisted-service does', () => {
    expect(osImageOrLatest(images, '4.16.3', 'x86_64').openshiftVersion).toBe('4.16.3');
    expect(osImageOrLatest(images, '4.17.2', 'aarch64').url).toContain('4.17-arm64');
    expect(osImageOrLatest(images, '').openshiftVersion).toBe('4.17.0');
    expect(osImageOrLatest(images, '', 'aarch64').openshiftVersion).toBe('4.17');
  });

  it('says for an InfraEnv what is missing in assisted-service’s words', () => {
    expect(() => osImageOrLatest(images, '4.12', 'x86_64')).toThrow(
      new OsImageNotFoundError(
        "No OS image for Openshift version 4.12 and architecture x86_64: The requested OS image for version (4.12) and CPU architecture (x86_64) isn't specified in OS images list",
      ),
    );
    expect(() => osImageOrLatest(images, '4.16', 'aarch64')).toThrow(
      new OsImageNotFoundError(
        "No OS image for Openshift version 4.16 and architecture arm64: The requested OS image for version (4.16) and CPU architecture (arm64) isn't specified in OS images list",
      ),
    );
    expect(() => osImageOrLatest(images, '4.16', 's390x')).toThrow(
      "No OS image for Openshift version 4.16 and architecture s390x: The requested CPU architecture (s390x) isn't specified in OS images list",
    );
    expect(() => osImageOrLatest([], '', '')).toThrow(
      new OsImageNotFoundError(
        'Failed to get latest OS image for architecture x86_64: No OS images are available',
      ),
    );
  });

  it('orders versions numerically, a release after its pre-releases', () => {
    const sorted = [
      '4.9',
      '4.10',
      '4.16.10',
      '4.16.2',
      '4.17.0',
      '4.17.0-ec.1',
      '4.17.0-rc.0',
      '4.17.0-ec.10',
    ].sort(compareVersions);
    expect(sorted).toEqual([
      '4.9',
      '4.10',
      '4.16.2',
      '4.16.10',
      '4.17.0-ec.1',
      '4.17.0-ec.10',
      '4.17.0-rc.0',
      '4.17.0',
    ]);
  });
});
