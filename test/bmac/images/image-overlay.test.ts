import { describe, expect, it } from 'vitest';
import { applyOverlay, overlayOf } from '../../../src/bmac/images/index.js';

describe('image overlays', () => {
  const overlay = overlayOf([
    { offset: 10, length: 8, bytes: Buffer.from('ABC') },
    { offset: 2, length: 3, bytes: Buffer.from('xyz') },
  ]);

  it('replaces the parts of any chunk that crosses them, zero-filling past their bytes', () => {
    const image = Buffer.alloc(24, '.');
    const whole = Buffer.from(image);
    applyOverlay(overlay, whole, 0);
    expect(whole.toString('latin1')).toBe('..xyz.....ABC\0\0\0\0\0......');
    // Any split into chunks gives the same bytes.
    for (let cut = 1; cut < image.length; cut++) {
      const a = Buffer.from(image.subarray(0, cut));
      const b = Buffer.from(image.subarray(cut));
      applyOverlay(overlay, a, 0);
      applyOverlay(overlay, b, cut);
      expect(Buffer.concat([a, b])).toEqual(whole);
    }
  });

  it('is named by its content, whatever the order of its parts', () => {
    const same = overlayOf([
      { offset: 2, length: 3, bytes: Buffer.from('xyz') },
      { offset: 10, length: 8, bytes: Buffer.from('ABC') },
    ]);
    expect(same.id).toBe(overlay.id);
    expect(overlayOf([{ offset: 2, length: 3, bytes: Buffer.from('xyZ') }]).id).not.toBe(
      overlay.id,
    );
  });

  it('refuses overlapping parts and bytes longer than their part', () => {
    expect(() =>
      overlayOf([
        { offset: 0, length: 4, bytes: Buffer.alloc(0) },
        { offset: 3, length: 4, bytes: Buffer.alloc(0) },
      ]),
    ).toThrow(/overlap/);
    expect(() => overlayOf([{ offset: 0, length: 2, bytes: Buffer.alloc(3) }])).toThrow(
      'content length (3) exceeds embed area size (2)',
    );
  });
});
