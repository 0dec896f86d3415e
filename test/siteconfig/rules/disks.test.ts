import { describe, expect, it } from 'vitest';
import { filesFromMap, loadSiteConfigs } from '../../../src/siteconfig/index.js';
import { buildExtraManifests } from '../../../src/siteconfig/extra-manifests/index.js';
import {
  CPUSET_INVALID,
  DISK_ENCRYPTION_FIELD_IGNORED,
  DISK_ENCRYPTION_INVALID,
  DISK_PARTITION_CONFLICT,
  DISK_PARTITION_INVALID,
  SNO_ONLY_DISK_PARTITION,
} from '../../../src/siteconfig/rules/disks.js';
import { INVALID_VALUE } from '../../../src/siteconfig/rules/structure.js';
import {
  compactSite,
  defaultExtraManifests,
  expectRule,
  withExtraManifests,
  worker,
} from '../../support/rule-cases.js';
import { snoSite } from '../../support/sites.js';

const partition = (
  start: number,
  device = '/dev/disk/by-path/pci-0000:00:17.0-ata-1',
): string => `          diskPartition:
            - device: ${device}
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

  it('refuses workers whose disk layouts differ', () => {
    const workers = (second: string): string =>
      snoSite() +
      worker('w1', 'aa:bb:cc:00:00:08', partition(344844)) +
      worker('w2', 'aa:bb:cc:00:00:09', partition(344844, second));
    expectRule(
      DISK_PARTITION_CONFLICT,
      withExtraManifests(workers('/dev/sdc')),
      withExtraManifests(workers('/dev/disk/by-path/pci-0000:00:17.0-ata-1')),
    );
  });

  it('refuses Tang encryption without Tang servers', () => {
    const encryption = (type: string): string =>
      snoSite({ cluster: `      diskEncryption:\n        type: ${type}\n` });
    expectRule(
      DISK_ENCRYPTION_INVALID,
      withExtraManifests(encryption('nbde')),
      withExtraManifests(encryption('tpm2')),
    );
  });

  it('warns about TPM settings with encryption off', () => {
    const encryption = (tpm2: string): string =>
      snoSite({ cluster: `      diskEncryption:\n        type: none\n${tpm2}` });
    expectRule(
      DISK_ENCRYPTION_FIELD_IGNORED,
      withExtraManifests(encryption('        tpm2:\n          pcrList: "7"\n')),
      withExtraManifests(encryption('')),
    );
  });

  it('refuses a cpuset that is no CPU list (the schema refuses it first when loading)', () => {
    const cpuset = (value: string): string[] => {
      const { sites } = loadSiteConfigs([{ path: 'sites/site.yaml', text: snoSite() }]);
      const site = sites[0]!.siteConfig;
      const cluster = site.spec.clusters[0]!;
      const node = { ...cluster.nodes[0]!, cpuset: value };
      const built = buildExtraManifests({
        site: { ...site, spec: { ...site.spec, clusters: [{ ...cluster, nodes: [node] }] } },
        clusterIndex: 0,
        siteFile: 'sites/site.yaml',
        files: filesFromMap({}),
        defaults: defaultExtraManifests(),
      });
      return built.problems.map((p) => `${p.severity} ${p.code}`);
    };
    const reported = `${CPUSET_INVALID.severity} ${CPUSET_INVALID.code}`;
    expect(cpuset('two-three')).toContain(reported);
    expect(cpuset('2-3')).not.toContain(reported);
    expectRule(INVALID_VALUE, snoSite({ node: '          cpuset: "two-three"\n' }), snoSite());
  });
});
