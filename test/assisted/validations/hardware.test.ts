import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HW_REQUIREMENTS,
  diskNotEligibleReasons,
  hwRequirementsFor,
  listEligibleDisks,
  roleRequirements,
  selectInstallationDisk,
  withDiskEligibility,
  type InventoryDisk,
} from '../../../src/assisted/validations/index.js';
import { cluster, host, inventory, snoCluster } from './fixtures.js';

describe('hardware requirements table', () => {
  it('holds table 5.1 for the default version', () => {
    const hw = hwRequirementsFor('4.20.0');
    expect(hw.master).toEqual({
      cpuCores: 4,
      ramMib: 16384,
      diskSizeGb: 100,
      installationDiskSpeedThresholdMs: 10,
      networkLatencyThresholdMs: 100,
      packetLossPercentage: 0,
    });
    expect(hw.arbiter).toMatchObject({
      cpuCores: 2,
      ramMib: 8192,
      diskSizeGb: 50,
      networkLatencyThresholdMs: 1000,
    });
    expect(hw.worker).toMatchObject({
      cpuCores: 2,
      ramMib: 8192,
      diskSizeGb: 100,
      packetLossPercentage: 10,
    });
    expect(hw.sno).toEqual({
      cpuCores: 8,
      ramMib: 16384,
      diskSizeGb: 100,
      installationDiskSpeedThresholdMs: 10,
    });
    expect(hw.edgeWorker).toMatchObject({ cpuCores: 2, ramMib: 8192, diskSizeGb: 15 });
  });

  it('lowers single-node cores to 4 from OpenShift 4.22, pre-releases included', () => {
    expect(hwRequirementsFor('4.21.9').sno.cpuCores).toBe(8);
    expect(hwRequirementsFor('4.22').sno.cpuCores).toBe(4);
    expect(hwRequirementsFor('4.22.0-ec.2').sno.cpuCores).toBe(4);
    expect(hwRequirementsFor('4.23.1').sno).toMatchObject({ cpuCores: 4, ramMib: 16384 });
    expect(hwRequirementsFor('4.22.0').master.cpuCores).toBe(4);
  });

  it('prefers an exact version entry and merges it over the default', () => {
    const table = [...DEFAULT_HW_REQUIREMENTS, { version: '4.19.3', worker: { ramMib: 4096 } }];
    expect(hwRequirementsFor('4.19.3', table).worker).toMatchObject({ cpuCores: 2, ramMib: 4096 });
    expect(hwRequirementsFor('4.19.4', table).worker.ramMib).toBe(8192);
  });

  it('picks the requirements of the effective role', () => {
    const hw = hwRequirementsFor('4.20.0');
    expect(roleRequirements(host(), cluster(), hw)).toBe(hw.master);
    expect(roleRequirements(host(), snoCluster(), hw)).toBe(hw.sno);
    expect(
      roleRequirements(host({ role: 'auto-assign', suggestedRole: 'worker' }), cluster(), hw),
    ).toBe(hw.worker);
    expect(
      roleRequirements(host({ role: 'auto-assign', suggestedRole: 'auto-assign' }), cluster(), hw),
    ).toBe(hw.worker);
    const bluefield = host({
      role: 'worker',
      inventory: inventory('192.168.111.20', {
        cpu: { count: 8, architecture: 'aarch64' },
        system_vendor: { product_name: 'BlueField SoC' },
      }),
    });
    expect(roleRequirements(bluefield, cluster(), hw)).toBe(hw.edgeWorker);
    // Unbound: the role with the smallest disk requirement.
    expect(roleRequirements(host(), undefined, hw)).toBe(hw.arbiter);
  });
});

describe('disk eligibility', () => {
  const inv = inventory();
  const disk = (overrides: Partial<InventoryDisk>): InventoryDisk => ({
    name: 'sda',
    drive_type: 'SSD',
    size_bytes: 200_000_000_000,
    ...overrides,
  });

  it('says how small a disk is in SI units', () => {
    expect(
      diskNotEligibleReasons(disk({ size_bytes: 50_000_000_000 }), inv, 100, '4.20.0'),
    ).toEqual(['Disk is too small (disk only has 50 GB, but 100 GB are required)']);
    expect(
      diskNotEligibleReasons(disk({ size_bytes: 99_500_000_000 }), inv, 100, '4.20.0'),
    ).toEqual(['Disk is too small (disk only has 99.5 GB, but 100 GB are required)']);
    expect(
      diskNotEligibleReasons(disk({ size_bytes: 99_999_999_999 }), inv, 100, '4.20.0'),
    ).toEqual(['Disk is too small (disk only has 100 GB (short by 1 B), but 100 GB are required)']);
    expect(
      diskNotEligibleReasons(disk({ size_bytes: 100_000_000_000 }), inv, 100, '4.20.0'),
    ).toEqual([]);
  });

  it('keeps the agent reasons and recomputes its own', () => {
    const reasons = diskNotEligibleReasons(
      disk({
        installation_eligibility: {
          eligible: false,
          not_eligible_reasons: [
            'Disk is removable',
            'Disk is too small (disk only has 1 GB, but 100 GB are required)',
          ],
        },
      }),
      inv,
      100,
      '4.20.0',
    );
    expect(reasons).toEqual(['Disk is removable']);
  });

  it('accepts drive types by version and architecture', () => {
    expect(diskNotEligibleReasons(disk({ drive_type: 'ODD' }), inv, 100, '4.20.0')).toEqual([
      'Drive type is ODD, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC.',
    ]);
    expect(diskNotEligibleReasons(disk({ drive_type: 'RAID' }), inv, 100, '4.13.0')).toEqual([
      'Drive type is RAID, it must be one of HDD, SSD, Multipath, FC.',
    ]);
  });

  it('refuses a member of a multipath device, and a multipath device without FC or iSCSI paths', () => {
    const disks: InventoryDisk[] = [
      disk({ name: 'dm-0', drive_type: 'Multipath' }),
      disk({ name: 'sdb', drive_type: 'FC', holders: 'dm-0' }),
    ];
    const multi = { ...inv, disks };
    expect(diskNotEligibleReasons(disks[1]!, multi, 100, '4.20.0')).toEqual([
      'Disk is a member of multipath device dm-0 and is not eligible for installation. Use the multipath device instead.',
    ]);
    expect(diskNotEligibleReasons(disks[0]!, multi, 100, '4.20.0')).toEqual([]);
    const lonely = { ...inv, disks: [disks[0]!] };
    expect(diskNotEligibleReasons(disks[0]!, lonely, 100, '4.20.0')).toEqual([
      'Multipath device has path of unsupported type. It must be FC, iSCSI',
    ]);
  });

  it('chooses the installation disk as upstream: bootable, not NVMe, HDD before SSD, smallest', () => {
    const disks = withDiskEligibility(
      {
        ...inv,
        disks: [
          disk({ id: 'nvme', name: 'nvme0n1', bootable: true, size_bytes: 150_000_000_000 }),
          disk({ id: 'big', name: 'sdb', bootable: true, size_bytes: 900_000_000_000 }),
          disk({ id: 'small', name: 'sdc', bootable: true, size_bytes: 120_000_000_000 }),
          disk({
            id: 'hdd',
            name: 'sdd',
            drive_type: 'HDD',
            bootable: true,
            size_bytes: 990_000_000_000,
          }),
          disk({ id: 'nonboot', name: 'sde', bootable: false, drive_type: 'HDD' }),
          disk({ id: 'tiny', name: 'sdf', bootable: true, size_bytes: 1_000_000_000 }),
        ],
      },
      100,
      '4.20.0',
    );
    expect(listEligibleDisks(disks).map((d) => d.id)).toEqual([
      'hdd',
      'small',
      'big',
      'nvme',
      'nonboot',
    ]);
    expect(selectInstallationDisk(disks, undefined)?.id).toBe('hdd');
    expect(selectInstallationDisk(disks, 'big')?.id).toBe('big');
    expect(selectInstallationDisk(disks, '/dev/sdc')?.id).toBe('small');
    // A requested disk that is not eligible gives way to the preferred one.
    expect(selectInstallationDisk(disks, 'tiny')?.id).toBe('hdd');
  });
});
