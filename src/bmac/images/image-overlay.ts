/**
 * Bytes laid over a cached image as it is served: the per-InfraEnv ignition and kernel
 * arguments of a discovery ISO over the shared base ISO (assisted.md §6.2), so no per-InfraEnv
 * copy of the base is ever written. The base bytes are read as usual and patched in the buffer.
 */
import { createHash } from 'node:crypto';

/** One replaced range: `bytes`, then zeros up to `length`. */
export interface OverlayPart {
  readonly offset: number;
  readonly length: number;
  readonly bytes: Uint8Array;
}

/** Ranges of an image replaced, none overlapping, with the content hash that names them. */
export interface ImageOverlay {
  /** Hex SHA-256 of the parts (see {@link overlayOf}). */
  readonly id: string;
  readonly parts: readonly OverlayPart[];
}

/**
 * An overlay of `parts`, named by their content hash.
 * @throws Error when parts overlap, are negative, or carry more bytes than their length
 */
export function overlayOf(parts: readonly OverlayPart[]): ImageOverlay {
  const sorted = [...parts].sort((a, b) => a.offset - b.offset);
  const hash = createHash('sha256');
  let end = 0;
  for (const part of sorted) {
    if (!Number.isSafeInteger(part.offset) || part.offset < end || part.length < 0)
      throw new Error('overlay parts must not overlap');
    if (part.bytes.length > part.length)
      throw new Error(
        `content length (${String(part.bytes.length)}) exceeds embed area size (${String(part.length)})`,
      );
    end = part.offset + part.length;
    hash.update(`${String(part.offset)}:${String(part.length)}:${String(part.bytes.length)}:`);
    hash.update(part.bytes);
  }
  return { id: hash.digest('hex'), parts: sorted };
}

/** Writes the overlay's bytes over `chunk`, which holds the image's bytes from `position`. */
export function applyOverlay(overlay: ImageOverlay, chunk: Uint8Array, position: number): void {
  const chunkEnd = position + chunk.length;
  for (const part of overlay.parts) {
    const start = Math.max(part.offset, position);
    const end = Math.min(part.offset + part.length, chunkEnd);
    if (start >= end) continue;
    const bytesEnd = part.offset + part.bytes.length;
    if (start < bytesEnd)
      chunk.set(
        part.bytes.subarray(start - part.offset, Math.min(end, bytesEnd) - part.offset),
        start - position,
      );
    if (end > bytesEnd) chunk.fill(0, Math.max(start, bytesEnd) - position, end - position);
  }
}

/** The overlay as JSON-safe data (for the server's reference files). */
export function overlayToJson(overlay: ImageOverlay): unknown {
  return {
    id: overlay.id,
    parts: overlay.parts.map((p) => ({
      offset: p.offset,
      length: p.length,
      bytes: Buffer.from(p.bytes).toString('base64'),
    })),
  };
}

/** The overlay of {@link overlayToJson}'s data; undefined when it is not that. */
export function overlayFromJson(data: unknown): ImageOverlay | undefined {
  const d = data as { parts?: { offset?: unknown; length?: unknown; bytes?: unknown }[] } | null;
  if (d === null || typeof d !== 'object' || !Array.isArray(d.parts)) return undefined;
  const parts: OverlayPart[] = [];
  for (const p of d.parts) {
    if (typeof p.offset !== 'number' || typeof p.length !== 'number' || typeof p.bytes !== 'string')
      return undefined;
    parts.push({ offset: p.offset, length: p.length, bytes: Buffer.from(p.bytes, 'base64') });
  }
  try {
    return overlayOf(parts);
  } catch {
    return undefined;
  }
}
