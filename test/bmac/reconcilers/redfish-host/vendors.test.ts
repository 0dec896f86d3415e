import { afterEach, describe, expect, it } from 'vitest';
import { PERSONALITIES } from '../../../../src/bmac/redfish/sim/index.js';
import { Harness } from './harness.js';

/** The BMO scheme each vendor's hosts are usually given. */
const SCHEME: Readonly<Record<string, string>> = {
  idrac9: 'idrac-virtualmedia',
  idrac10: 'idrac-virtualmedia',
  ilo6: 'ilo5-virtualmedia',
};

describe('hosts of every simulated vendor', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('boot their image once, each with its vendor quirks, side by side', async () => {
    h = new Harness({ concurrency: 3 });
    const names = Object.keys(PERSONALITIES);
    for (const name of names) {
      const bmc = await h.addHost(name, {
        personality: PERSONALITIES[name]!,
        insertedImage: 'http://10.0.0.1/old.iso',
      });
      const scheme = SCHEME[name];
      if (scheme !== undefined)
        await h.edit(name, (bmh) => ({
          ...bmh,
          spec: {
            ...(bmh['spec'] as object),
            bmc: {
              address: bmc.address.replace('redfish-virtualmedia', scheme),
              credentialsName: `${name}-bmc-secret`,
            },
          },
        }));
    }
    await h.settle(names);
    for (const name of names) {
      expect({
        name,
        state: h.status(name).provisioning.state,
        error: h.status(name).errorMessage,
      }).toEqual({
        name,
        state: 'provisioned',
        error: '',
      });
      const bmc = h.bmcs.get(name)!;
      expect(h.images.issued, name).toContain(bmc.state().bootedImage);
      // Dell applies the boot mode in a BIOS job, which boots the disk once (as under ironic).
      const isoBoots = bmc.events.filter((e) => e.kind === 'boot' && e.detail.includes('/images/'));
      expect(isoBoots.length, name).toBe(1);
    }
    expect(h.images.issued).toHaveLength(names.length);
    expect(new Set(h.metrics.map((m) => m.vendor)).size).toBeGreaterThan(3);
  });
});
