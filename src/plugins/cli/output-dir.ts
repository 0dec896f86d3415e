/**
 * Replacing an output directory as a whole, as `siteforge generate -o` does: the new tree is
 * built beside DIR and swapped in, so a failure never leaves half an output, and a DIR that
 * SiteForge did not write (no marker file) is never replaced.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../../shared/errors.js';

/** The file that marks a directory as written by SiteForge (the same one `generate -o` uses). */
export const OUTPUT_MARKER = '.siteforge-output';

/** A file to write, by its path relative to the output directory. */
export interface OutputFile {
  readonly path: string;
  readonly text: string;
}

/**
 * Replaces `dir` with exactly `files`; `command` names the writer in the marker file. Each file
 * is written as `files` yields it (generate renders them one cluster at a time), and `dir` is
 * swapped only once the last one is written: an error on the way leaves `dir` as it was.
 */
export function replaceOutputDir(dir: string, files: Iterable<OutputFile>, command: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, OUTPUT_MARKER))) {
    throw new UsageError(
      `${dir} exists and was not written by siteforge; choose an empty or new directory`,
    );
  }
  const staging = `${dir}.tmp-${String(process.pid)}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    writeFileSync(
      join(staging, OUTPUT_MARKER),
      `written by siteforge ${command}; replaced on every run\n`,
    );
    for (const { path, text } of files) {
      mkdirSync(dirname(join(staging, path)), { recursive: true });
      writeFileSync(join(staging, path), text);
    }
    const previous = `${dir}.old-${String(process.pid)}`;
    if (existsSync(dir)) renameSync(dir, previous);
    renameSync(staging, dir);
    rmSync(previous, { recursive: true, force: true });
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
