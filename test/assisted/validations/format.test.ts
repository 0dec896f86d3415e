import { describe, expect, it } from 'vitest';
import {
  bytesToString,
  goFixed,
  goUtcTimeString,
  preciseHumanizeBytes,
} from '../../../src/assisted/validations/index.js';
import { GIB, MIB } from './fixtures.js';

describe('Go formatting', () => {
  it('prints sizes as conversions.BytesToString', () => {
    expect(bytesToString(16384 * MIB)).toBe('16.00 GiB');
    expect(bytesToString(16284 * MIB - 1)).toBe('15.90 GiB');
    expect(bytesToString(512 * MIB)).toBe('512 MiB');
    expect(bytesToString(2048)).toBe('2 KiB');
    expect(bytesToString(12)).toBe('12 bytes');
    expect(bytesToString(1536 * GIB)).toBe('1.50 TiB');
  });

  it('rounds sizes up in the disk messages', () => {
    expect(preciseHumanizeBytes(1_000_000_000_000)).toBe('1 TB');
    expect(preciseHumanizeBytes(123_456_789)).toBe('123.457 MB');
    expect(preciseHumanizeBytes(999)).toBe('999 B');
  });

  it('rounds exact halves to even like fmt', () => {
    expect(goFixed(0.125, 2)).toBe('0.12');
    expect(goFixed(0.375, 2)).toBe('0.38');
    expect(goFixed(150, 2)).toBe('150.00');
  });

  it('prints times as time.Time.String', () => {
    expect(goUtcTimeString(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02 03:04:05 +0000 UTC');
    expect(goUtcTimeString(new Date('2026-01-02T03:04:05.120Z'))).toBe(
      '2026-01-02 03:04:05.12 +0000 UTC',
    );
  });
});
