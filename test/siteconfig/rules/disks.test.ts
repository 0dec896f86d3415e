import { describe, it } from 'vitest';
import {
  DISK_PARTITION_INVALID,
  SNO_ONLY_DISK_PARTITION,
} from '../../../src/siteconfig/rules/disks.js';
import { compactSite, expectRule } from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const partition = (start: number): string => `          diskPartition:
            - device: /dev/disk/by-path/pci-0000:00:17.0-ata-1
              partitions:
                - mount_point: /var/imageregistry
                  size: 102500
                  start: ${String(start)}
`;

describe('disk rules', () => {
  it('refuses diskPartition on a multi-node cluster', () => {
    expectRule(
      SNO_ONLY_DISK_PARTITION,
      compactSite({ node: partition(344844) }),
      snoSite({ node: partition(344844) }),
    );
  });

  it('refuses a partition that starts inside the OS', () => {
    expectRule(
      DISK_PARTITION_INVALID,
      snoSite({ node: partition(100) }),
      snoSite({ node: partition(344844) }),
    );
  });
});
