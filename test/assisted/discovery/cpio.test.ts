import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressedCpio, cpioArchive } from '../../../src/assisted/discovery/index.js';

interface Entry {
  name: string;
  mode: number;
  nlink: number;
  data: Buffer;
}

/** Reads a newc archive the way the kernel's initramfs unpacker does. */
function readNewc(archive: Buffer): Entry[] {
  const entries: Entry[] = [];
  let at = 0;
  for (;;) {
    expect(archive.toString('ascii', at, at + 6)).toBe('070701');
    expect(at % 4).toBe(0);
    const field = (i: number) =>
      parseInt(archive.toString('ascii', at + 6 + i * 8, at + 14 + i * 8), 16);
    const size = field(6);
    const nameSize = field(11);
    const name = archive.toString('utf8', at + 110, at + 110 + nameSize - 1);
    expect(archive[at + 110 + nameSize - 1]).toBe(0);
    const dataAt = Math.ceil((at + 110 + nameSize) / 4) * 4;
    if (name === 'TRAILER!!!') return entries;
    entries.push({
      name,
      mode: field(1),
      nlink: field(4),
      data: archive.subarray(dataAt, dataAt + size),
    });
    at = Math.ceil((dataAt + size) / 4) * 4;
  }
}

describe('newc cpio', () => {
  it('writes each file after its parent directories, with modes, names and 4-byte alignment', () => {
    const entries = readNewc(
      cpioArchive([
        { path: 'config.ign', contents: '{"ignition":{"version":"3.1.0"}}' },
        {
          path: 'etc/assisted/network/host0/mac_interface.ini',
          contents: 'aa:bb=eth0',
          mode: 0o600,
        },
        { path: 'etc/assisted/network/host1/ymlFile1.yml', contents: 'x: 1\n' },
      ]),
    );
    expect(entries.map((e) => [e.name, e.mode.toString(8)])).toEqual([
      ['config.ign', '100644'],
      ['etc', '40755'],
      ['etc/assisted', '40755'],
      ['etc/assisted/network', '40755'],
      ['etc/assisted/network/host0', '40755'],
      ['etc/assisted/network/host0/mac_interface.ini', '100600'],
      ['etc/assisted/network/host1', '40755'],
      ['etc/assisted/network/host1/ymlFile1.yml', '100644'],
    ]);
    expect(entries[0]!.data.toString()).toBe('{"ignition":{"version":"3.1.0"}}');
    expect(entries[5]!.data.toString()).toBe('aa:bb=eth0');
  });

  it('gives the same bytes for the same files (content-addressed overlays)', () => {
    const files = [{ path: 'config.ign', contents: 'same' }];
    expect(compressedCpio(files)).toEqual(compressedCpio(files));
  });

  it('compresses with gzip and pads to a multiple of 4 bytes with zeros', () => {
    for (const text of ['a', 'ab', 'abc', 'abcd', 'x'.repeat(1000)]) {
      const payload = compressedCpio([{ path: 'config.ign', contents: text }]);
      expect(payload.length % 4).toBe(0);
      expect(payload.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      // The zeros after the gzip member are skipped, as the kernel skips them.
      const entries = readNewc(gunzipSync(payload));
      expect(entries[0]!.data.toString()).toBe(text);
    }
  });

  it('refuses paths that climb out or repeat', () => {
    expect(() => cpioArchive([{ path: '../etc/shadow', contents: '' }])).toThrow(
      /not a relative file path/,
    );
    expect(() => cpioArchive([{ path: '/', contents: '' }])).toThrow(/not a relative file path/);
    expect(() =>
      cpioArchive([
        { path: 'a', contents: '' },
        { path: 'a', contents: '' },
      ]),
    ).toThrow(/given twice/);
  });
});
