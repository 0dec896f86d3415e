/**
 * A streaming reader of one file field of a `multipart/form-data` body (RFC 7578), enough for
 * the agent's log upload (`upfile`, a tar.gz of up to 250 MB upstream): the file goes to disk
 * as it arrives, never whole into memory, and the body is cut off at a byte budget.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Why an upload was refused. */
export type MultipartFailure =
  | { readonly kind: 'too-large'; readonly limit: number }
  | { readonly kind: 'malformed'; readonly message: string }
  | { readonly kind: 'missing-field'; readonly field: string };

/** The stored file, or why there is none. */
export type MultipartResult =
  | { readonly ok: true; readonly bytes: number; readonly filename?: string }
  | ({ readonly ok: false } & MultipartFailure);

/** The boundary of a `multipart/form-data` content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (value.length >= 1 && value.length <= 70) return value;
  }
  return undefined;
}

/** Bytes of one part's headers we read before calling the body malformed. */
const MAX_PART_HEADER_BYTES = 16 * 1024;

/**
 * Reads `body` and writes the part named `field` to `target` (through a temporary file, renamed
 * only when the whole body was read). Other parts are skipped. At most `maxBytes` of body are
 * read; beyond that the upload is refused and nothing is kept.
 */
export async function storeMultipartField(
  body: Readable,
  boundary: string,
  field: string,
  target: string,
  maxBytes: number,
): Promise<MultipartResult> {
  // A name of its own per upload: two uploads of one host never write the same file.
  const partial = `${target}.${randomUUID()}.partial`;
  const out = createWriteStream(partial);
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let state: 'preamble' | 'headers' | 'body' | 'after-delimiter' | 'done' = 'preamble';
  let buffer: Buffer = Buffer.alloc(0);
  let total = 0;
  let writing = false;
  let found: { bytes: number; filename?: string } | undefined;
  let failure: MultipartFailure | undefined;

  const write = async (chunk: Buffer): Promise<void> => {
    if (!writing || chunk.length === 0 || !found) return;
    found.bytes += chunk.length;
    if (!out.write(chunk))
      await new Promise<void>((resolve) =>
        out.once('drain', () => {
          resolve();
        }),
      );
  };

  // Iterated by hand: leaving a for-await loop early would destroy the request and its socket,
  // and the refusal could no longer be sent.
  const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
      const chunk = next.value;
      total += chunk.length;
      if (total > maxBytes) {
        failure = { kind: 'too-large', limit: maxBytes };
        break;
      }
      if (state === 'done') continue;
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        if (state === 'preamble') {
          const at = buffer.indexOf(opening);
          if (at < 0) {
            buffer = buffer.subarray(Math.max(0, buffer.length - opening.length));
            break;
          }
          buffer = buffer.subarray(at + opening.length);
          state = 'after-delimiter';
        } else if (state === 'after-delimiter') {
          if (buffer.length < 2) break;
          if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
            state = 'done';
            break;
          }
          const lineEnd = buffer.indexOf('\r\n');
          if (lineEnd < 0) break;
          buffer = buffer.subarray(lineEnd + 2);
          state = 'headers';
        } else if (state === 'headers') {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) {
            if (buffer.length > MAX_PART_HEADER_BYTES) {
              failure = { kind: 'malformed', message: 'multipart part headers too long' };
              break;
            }
            break;
          }
          const disposition = partDisposition(buffer.subarray(0, end).toString('latin1'));
          buffer = buffer.subarray(end + 4);
          writing = disposition.name === field && found === undefined;
          if (writing) {
            found = {
              bytes: 0,
              ...(disposition.filename !== undefined ? { filename: disposition.filename } : {}),
            };
          }
          state = 'body';
        } else {
          const at = buffer.indexOf(delimiter);
          if (at < 0) {
            // Keep what could be the start of a delimiter split across chunks.
            const keep = Math.min(buffer.length, delimiter.length - 1);
            await write(buffer.subarray(0, buffer.length - keep));
            buffer = buffer.subarray(buffer.length - keep);
            break;
          }
          await write(buffer.subarray(0, at));
          writing = false;
          buffer = buffer.subarray(at + delimiter.length);
          state = 'after-delimiter';
        }
      }
      if (failure) break;
    }
  } catch (error) {
    failure = { kind: 'malformed', message: `upload interrupted: ${(error as Error).message}` };
  }

  out.end();
  await finished(out).catch(() => undefined);
  if (!failure && state !== 'done')
    failure = { kind: 'malformed', message: 'multipart body ends before its closing boundary' };
  if (!failure && !found) failure = { kind: 'missing-field', field };
  if (failure) {
    await rm(partial, { force: true });
    return { ok: false, ...failure };
  }
  await rename(partial, target);
  return { ok: true, ...found! };
}

function partDisposition(headers: string): { name?: string; filename?: string } {
  for (const line of headers.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1);
    const name = /;\s*name="([^"]*)"/i.exec(value)?.[1];
    const filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1];
    return {
      ...(name !== undefined ? { name } : {}),
      ...(filename !== undefined ? { filename } : {}),
    };
  }
  return {};
}
