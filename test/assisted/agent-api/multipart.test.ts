import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  multipartBoundary,
  storeMultipartField,
} from '../../../src/assisted/agent-api/multipart.js';

const BOUNDARY = 'XyZ123';

function body(parts: readonly { name: string; content: Buffer }[], close = true): Buffer {
  const pieces = parts.flatMap((part) => [
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="f"\r\n\r\n`,
    ),
    part.content,
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([
    Buffer.from('preamble\r\n'),
    ...pieces,
    Buffer.from(close ? `--${BOUNDARY}--\r\n` : ''),
  ]);
}

/** The body cut into chunks of `size` bytes, so delimiters straddle chunks. */
function chunked(data: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) chunks.push(data.subarray(at, at + size));
  return Readable.from(chunks);
}

describe('multipart uploads', () => {
  // Content that contains a near-delimiter and CRLFs, as a gzip archive may.
  const archive = Buffer.concat([
    Buffer.from(`\r\n--${BOUNDARY.slice(0, 4)}\r\n`),
    Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 7) % 256)),
  ]);

  it('stores the named field whatever the chunking, skipping other fields', async () => {
    for (const size of [1, 3, 7, 64, 100_000]) {
      const dir = mkdtempSync(join(tmpdir(), 'multipart-'));
      const data = body([
        { name: 'note', content: Buffer.from('ignored') },
        { name: 'upfile', content: archive },
      ]);
      const result = await storeMultipartField(
        chunked(data, size),
        BOUNDARY,
        'upfile',
        join(dir, 'out'),
        1e6,
      );
      expect(result).toEqual({ ok: true, bytes: archive.length, filename: 'f' });
      expect(readFileSync(join(dir, 'out'))).toEqual(archive);
      expect(readdirSync(dir)).toEqual(['out']);
    }
  });

  it('keeps nothing when the body is cut short, lacks the field or exceeds the budget', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'multipart-'));
    const target = join(dir, 'out');
    const cut = await storeMultipartField(
      chunked(body([{ name: 'upfile', content: archive }], false), 512),
      BOUNDARY,
      'upfile',
      target,
      1e6,
    );
    expect(cut).toEqual({
      ok: false,
      kind: 'malformed',
      message: 'multipart body ends before its closing boundary',
    });
    const missing = await storeMultipartField(
      chunked(body([{ name: 'other', content: archive }]), 512),
      BOUNDARY,
      'upfile',
      target,
      1e6,
    );
    expect(missing).toEqual({ ok: false, kind: 'missing-field', field: 'upfile' });
    const large = await storeMultipartField(
      chunked(body([{ name: 'upfile', content: archive }]), 512),
      BOUNDARY,
      'upfile',
      target,
      1_000,
    );
    expect(large).toEqual({ ok: false, kind: 'too-large', limit: 1_000 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads the boundary of a multipart/form-data content type only', () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('Multipart/Form-Data;boundary=abc')).toBe('abc');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary('multipart/form-data')).toBeUndefined();
  });
});
