import { describe, expect, it } from 'vitest';
import { compareVersions, selectOsImage } from '../../../src/assisted/discovery/index.js';
import type { OsImage } from '../../../src/assisted/discovery/index.js';

const image = (openshiftVersion: string, cpuArchitecture?: string): OsImage => ({
  openshiftVersion,
  version: `rhcos-${openshiftVersion}`,
  url: `https://mirror.example/${openshiftVersion}/${cpuArchitecture ?? 'x86_64'}/live.iso`,
  ...(cpuArchitecture !== undefined && { cpuArchitecture }),
});

const images = [
  image('4.14'),
  image('4.16.3', 'x86_64'),
  image('4.16.10', 'x86_64'),
  image('4.16', 'aarch64'),
  image('4.9'),
];

describe('OS image selection', () => {
  it('takes the exact version, else its major.minor, else the newest patch of it', () => {
    expect(selectOsImage(images, '4.16.3', 'x86_64').openshiftVersion).toBe('4.16.3');
    expect(selectOsImage(images, '4.14.7', 'x86_64').openshiftVersion).toBe('4.14');
    expect(selectOsImage(images, '4.16.99', 'x86_64').openshiftVersion).toBe('4.16.10');
    expect(selectOsImage(images, '4.16', 'arm64').cpuArchitecture).toBe('aarch64');
  });

  it('takes the newest of the architecture when the InfraEnv names no version', () => {
    expect(selectOsImage(images, '', undefined).openshiftVersion).toBe('4.16.10');
    expect(selectOsImage(images, undefined, 'aarch64').openshiftVersion).toBe('4.16');
    expect(compareVersions('4.10', '4.9')).toBeGreaterThan(0);
    expect(compareVersions('4.18.0-ec.0', '4.18.0')).toBeLessThan(0);
  });

  it("says what is missing in assisted-service's words", () => {
    expect(() => selectOsImage(images, '4.12', 'x86_64')).toThrow(
      "No OS image for Openshift version 4.12 and architecture x86_64: The requested OS image for version (4.12) and CPU architecture (x86_64) isn't specified in OS images list",
    );
    expect(() => selectOsImage(images, '4.16', 's390x')).toThrow(
      "No OS image for Openshift version 4.16 and architecture s390x: The requested CPU architecture (s390x) isn't specified in OS images list",
    );
    expect(() => selectOsImage([], '', 'x86_64')).toThrow('No OS images are available');
  });
});
