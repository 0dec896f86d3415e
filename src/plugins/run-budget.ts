/**
 * The edge's side of the limits of one run (src/shared/limits.ts): reading files without ever
 * holding more than a limit's worth of one of them, counting the input, and a deadline checked
 * between files and between sites. One RunBudget per command run; every reader of that run
 * (input files, files the sites refer to, credentials) draws on it.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { LimitExceededError } from '../shared/limits.js';
import type { Limits } from '../shared/limits.js';

/** A point where a long run may stop because its time is up. */
export interface Deadline {
  /** Throws LimitExceededError (`totalMs`) once the run has taken longer than its limit. */
  check(): void;
}

/** Why a file could not be read; the caller turns it into its own message. */
export class UnreadableFileError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A document start (`---` at the start of a line, then a blank or the end of the line). */
const DOCUMENT_START = /^---(?:[ \t\r\n]|$)/gm;

/** What one run may still read, and until when. */
export class RunBudget implements Deadline {
  private readonly started: number;
  private inputBytes = 0;
  private documents = 0;

  constructor(
    readonly limits: Limits,
    /** A monotonic clock in milliseconds; the deadline is `limits.totalMs` after construction. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  check(): void {
    const elapsed = this.now() - this.started;
    if (elapsed > this.limits.totalMs)
      throw new LimitExceededError(
        'totalMs',
        `the run took ${String(elapsed)} ms, over the limit of ${String(this.limits.totalMs)} ms; nothing was generated`,
      );
  }

  /** Milliseconds left before the deadline (0 once it has passed). */
  remainingMs(): number {
    return Math.max(0, this.limits.totalMs - (this.now() - this.started));
  }

  /**
   * Admits a file of `bytes` that is about to be read from elsewhere than the file system (a git
   * object whose size is known before it is read): refused when it is over the file limit or
   * would take the run over the total input limit, as {@link RunBudget.readBytes} refuses.
   */
  admitFile(bytes: number, name: string): void {
    this.check();
    if (bytes > this.limits.fileBytes) throw this.overFileLimit(bytes, name);
    this.admitTotal(bytes, name);
  }

  /** Counts the YAML documents of an input file read elsewhere against the documents limit. */
  admitDocuments(text: string, name: string): void {
    this.documents += countDocuments(text);
    if (this.documents > this.limits.documents)
      throw new LimitExceededError(
        'documents',
        `the input holds more than ${String(this.limits.documents)} YAML documents (this file brings it to ${String(this.documents)})`,
        name,
      );
  }

  /** Reads a file as UTF-8, within the limits of {@link RunBudget.readBytes}. */
  readText(path: string, name: string): string {
    return this.readBytes(path, name).toString('utf8');
  }

  /**
   * Reads a file's bytes, refusing it before it is read when it is over the file limit or
   * would take the run over the total input limit. The bytes are counted as read, never more
   * than the limit plus one: a file that grows while it is read, or a device, cannot get
   * past it. `name` is how messages name the file. Throws UnreadableFileError for I/O errors.
   */
  readBytes(path: string, name: string): Buffer {
    this.check();
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      throw new UnreadableFileError(errorCode(err));
    }
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory()) throw new UnreadableFileError('EISDIR');
      if (stats.size > this.limits.fileBytes) throw this.overFileLimit(stats.size, name);
      this.admitTotal(stats.size, name);
      const buffer = readBounded(fd, stats.size, this.limits.fileBytes, name);
      // A file that grew since fstat, or a device that reports no size.
      if (buffer.length > stats.size) this.admitTotal(buffer.length - stats.size, name);
      return buffer;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Reads an input file of YAML documents (readText), and counts its documents against the
   * documents limit.
   */
  readYaml(path: string, name: string): string {
    const text = this.readText(path, name);
    this.admitDocuments(text, name);
    return text;
  }

  private overFileLimit(bytes: number, name: string): LimitExceededError {
    return new LimitExceededError(
      'fileBytes',
      `file is ${String(bytes)} bytes, over the limit of ${String(this.limits.fileBytes)}`,
      name,
    );
  }

  /** Counts `bytes` more input, checking the total first. */
  private admitTotal(bytes: number, name: string): void {
    if (this.inputBytes + bytes > this.limits.totalInputBytes)
      throw new LimitExceededError(
        'totalInputBytes',
        `the input files add up to ${String(this.inputBytes + bytes)} bytes with this one, over the limit of ${String(this.limits.totalInputBytes)}`,
        name,
      );
    this.inputBytes += bytes;
  }
}

/** Reads at most `limit` bytes of an open file; more is an error (the file grew, or a device). */
function readBounded(fd: number, size: number, limit: number, name: string): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(size, limit) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > limit)
        throw new LimitExceededError(
          'fileBytes',
          `file is over the limit of ${String(limit)} bytes`,
          name,
        );
      const bigger = Buffer.allocUnsafe(Math.min(Math.max(length * 2, 64 * 1024), limit + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    let read: number;
    try {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    } catch (err) {
      throw new UnreadableFileError(errorCode(err));
    }
    if (read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

/**
 * The YAML documents of a stream: its `---` lines (YAML forbids them inside scalars), plus the
 * content before the first one. At most one more than the reader finds (a leading comment).
 */
export function countDocuments(text: string): number {
  const starts = text.match(DOCUMENT_START)?.length ?? 0;
  // Content before the first `---` is a document of its own.
  return text.startsWith('---') ? starts : starts + (/\S/.test(text) ? 1 : 0);
}

function errorCode(err: unknown): string {
  return err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
}
