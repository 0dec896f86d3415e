/**
 * Revisions of a git repository read from its objects: a revision resolved to its commit, the
 * commit's tree listed once (`git ls-tree`), and files read with `git cat-file --batch`, never
 * a checkout or a worktree. Planning a rollout compares two revisions of a fleet of thousands of
 * files; a worktree per revision writes the whole tree to disk and costs seconds, this costs one
 * listing per revision and one read of each file used.
 *
 * The repository is untrusted input: nothing outside it is read (an absolute path, a path that
 * climbs out of it, or a symbolic link that leaves it names no file), a file is admitted against
 * the run's limits from the size its tree lists before it is read, and every git process is
 * bounded in time (the run's deadline) and in output.
 *
 * simple-git resolves the repository and the revisions; listing a tree and reading files spawn
 * git directly, as simple-git buffers a command's whole output without a bound and cannot feed
 * `cat-file --batch` its list of objects on stdin.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { simpleGit } from 'simple-git';
import { SiteForgeError, UsageError, quote } from '../shared/errors.js';
import { LimitExceededError } from '../shared/limits.js';
import type { DirEntry, SiteFiles, SourceFile } from '../siteconfig/index.js';
import type { RunBudget } from './run-budget.js';

/** The most a tree listing may take: 64 MiB is a tree of about half a million files. */
const TREE_LISTING_BYTES = 64 * 1024 * 1024;
/** A symbolic link's target is a path; more than this is not one. */
const SYMLINK_TARGET_BYTES = 4096;
/** Links followed to resolve one path, as the kernel allows (ELOOP). */
const MAX_SYMLINK_HOPS = 40;
/**
 * Files read ahead, with one that is asked for, from its folder (a folder of templates or extra
 * manifests is read file after file): at most this many bytes and files per read...
 */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;
const READ_AHEAD_FILES = 256;
/** ...and at most this many bytes read ahead and not used yet, in all. */
const READ_AHEAD_UNUSED_BYTES = 64 * 1024 * 1024;

const REGULAR_FILE_MODES = new Set(['100644', '100755']);
const SYMLINK_MODE = '120000';

/** git failed in a way the user can act on (a repository it refuses, a damaged object). */
export class GitError extends SiteForgeError {
  constructor(message: string) {
    super('GIT', message);
  }
}

/** One file of a tree. */
export interface TreeEntry {
  /** `100644`, `100755` (regular files) or `120000` (a symbolic link). */
  readonly mode: string;
  readonly oid: string;
  readonly size: number;
}

/** Environment of the git processes: never a prompt for credentials, never an optional lock. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
}

/** A git repository: its top folder, and where the folder it was opened from lies in it. */
export class GitRepository {
  private constructor(
    /** The repository's top folder on disk. */
    readonly top: string,
    /** The folder it was opened from, relative to the top (`.` for the top itself). */
    readonly scope: string,
  ) {}

  /**
   * Opens the repository that holds `dir`.
   * @throws UsageError when `dir` is not a folder inside a git work tree
   */
  static async open(dir: string): Promise<GitRepository> {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`${dir}: no such directory`);
    let lines: string[];
    try {
      const out = await simpleGit({ baseDir: dir, timeout: { block: 30_000 } }).revparse([
        '--show-toplevel',
        '--show-prefix',
      ]);
      lines = out.split('\n');
    } catch (err) {
      throw new UsageError(`${dir} is not inside a git work tree (${gitMessage(err)})`);
    }
    const top = lines[0]?.trim();
    if (!top) throw new UsageError(`${dir} is not inside a git work tree`);
    const prefix = (lines[1] ?? '').trim().replace(/\/$/, '');
    return new GitRepository(resolve(top), prefix === '' ? '.' : prefix);
  }

  /** The URL of the remote `origin`, if the repository has one. */
  async originUrl(): Promise<string | undefined> {
    try {
      const url = (
        await simpleGit({ baseDir: this.top, timeout: { block: 30_000 } }).raw([
          'remote',
          'get-url',
          'origin',
        ])
      ).trim();
      return url === '' ? undefined : url;
    } catch {
      return undefined;
    }
  }

  /**
   * The commit a revision names (a branch, a tag, a commit id, `HEAD~3`).
   * @throws UsageError when it names no commit
   */
  async commitOf(revision: string): Promise<string> {
    if (revision === '' || revision.startsWith('-') || hasControlCharacter(revision))
      throw new UsageError(`${quote(revision)} is not a git revision`);
    try {
      const out = await simpleGit({ baseDir: this.top, timeout: { block: 30_000 } }).raw([
        'rev-parse',
        '--verify',
        '--quiet',
        `${revision}^{commit}`,
      ]);
      const commit = out.trim();
      if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) return commit;
    } catch {
      // reported below
    }
    throw new UsageError(
      `${quote(revision)} names no commit of the repository at ${this.top}; give a branch, a tag or a commit id (git log lists them)`,
    );
  }

  /** The files of a commit's tree. `label` names the revision in messages. */
  async tree(commit: string, label: string, budget: RunBudget): Promise<GitTree> {
    const out = await runGit(this.top, ['ls-tree', '-r', '-l', '-z', '--full-tree', commit], {
      maxBytes: TREE_LISTING_BYTES,
      timeoutMs: budget.remainingMs(),
      what: `the file list of ${label}`,
    });
    const entries = new Map<string, TreeEntry>();
    // <mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL
    for (const record of out.toString('utf8').split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
      if (type !== 'blob' || mode === undefined || oid === undefined) continue; // submodules
      entries.set(record.slice(tab + 1), { mode, oid, size: Number(size) });
    }
    return new GitTree(this, label, entries);
  }

  /**
   * Reads blobs, all at once, in one `git cat-file --batch --buffer`. Synchronous: the compiler
   * reads the files a site refers to synchronously, and a whole read of thousands of files is
   * cheaper this way (one buffer filled by libuv) than as the thousands of small chunks a
   * stream delivers.
   */
  readBlobs(
    oids: readonly string[],
    expectedBytes: number,
    budget: RunBudget,
    what: string,
  ): Map<string, Buffer> {
    const done = spawnSync('git', ['cat-file', '--batch', '--buffer'], {
      cwd: this.top,
      env: gitEnv(),
      input: `${oids.join('\n')}\n`,
      maxBuffer: expectedBytes + oids.length * 100,
      timeout: Math.max(1, Math.ceil(budget.remainingMs())),
    });
    if (done.signal === 'SIGTERM' && done.status === null) throw timeUp(what);
    if (done.error || done.status !== 0)
      throw new GitError(
        `git could not read ${what}: ${done.error?.message ?? done.stderr.toString('utf8').trim()}`,
      );
    return parseBatch(done.stdout, oids, what);
  }
}

/** The files of one revision, and a SiteFiles over them. */
export class GitTree {
  /** Folder → its entries (name → is a folder); built on first use. */
  private folders: Map<string, Map<string, boolean>> | undefined;
  /** Bytes of the blobs read so far, by object id. */
  private readonly blobs = new Map<string, Buffer>();
  /** Paths the run has admitted (and counted) as files a site reads. */
  private readonly admitted = new Set<string>();
  private unusedReadAhead = 0;

  constructor(
    readonly repository: GitRepository,
    /** How messages name the revision: `main`, `HEAD~3`. */
    readonly label: string,
    private readonly entries: ReadonlyMap<string, TreeEntry>,
  ) {}

  /** The entry of a file at a path as listed (no link followed), if any. */
  entry(path: string): TreeEntry | undefined {
    return this.entries.get(path);
  }

  /** Every path of the tree. */
  paths(): IterableIterator<string> {
    return this.entries.keys();
  }

  /**
   * The YAML files (`*.yaml`, `*.yml`, regular files) below folder `dir`, sorted, skipping
   * dot-files and dot-folders: what `siteforge generate DIR` reads from a checkout.
   */
  yamlFilesUnder(dir: string): string[] {
    const prefix = dir === '.' ? '' : `${dir}/`;
    const found: string[] = [];
    for (const [path, entry] of this.entries) {
      if (!path.startsWith(prefix) || !REGULAR_FILE_MODES.has(entry.mode)) continue;
      if (!/\.ya?ml$/i.test(path)) continue;
      if (
        path
          .slice(prefix.length)
          .split('/')
          .some((part) => part.startsWith('.'))
      )
        continue;
      found.push(path);
    }
    return found.sort(comparePaths);
  }

  /** True when the tree holds a symbolic link anywhere. */
  hasLinks(): boolean {
    for (const entry of this.entries.values()) if (entry.mode === SYMLINK_MODE) return true;
    return false;
  }

  /** True when `dir` is a folder of the tree. */
  isFolder(dir: string): boolean {
    return this.folderIndex().has(dir);
  }

  /**
   * Reads input files (paths as listed), each admitted against the run's limits before it is
   * read, its YAML documents counted; named in messages as `<label>:<path>`.
   */
  readInputs(paths: readonly string[], budget: RunBudget): SourceFile[] {
    const wanted: string[] = [];
    let bytes = 0;
    for (const path of paths) {
      const entry = this.entries.get(path);
      if (!entry) throw new Error(`internal: ${path} is not in the tree of ${this.label}`);
      budget.admitFile(entry.size, this.name(path));
      if (!this.blobs.has(entry.oid)) {
        wanted.push(entry.oid);
        bytes += entry.size;
      }
    }
    if (wanted.length > 0) {
      const read = this.repository.readBlobs(
        [...new Set(wanted)],
        bytes,
        budget,
        `the files of ${this.label}`,
      );
      for (const [oid, blob] of read) this.blobs.set(oid, blob);
    }
    return paths.map((path) => {
      const text = this.blobs.get(this.entries.get(path)!.oid)!.toString('utf8');
      budget.admitDocuments(text, this.name(path));
      return { path, text };
    });
  }

  /**
   * The files a SiteConfig refers to, read from this revision. Paths are relative to the top of
   * the repository; one that leaves it names nothing. Each file counts against the run's limits
   * once, however many sites read it.
   */
  siteFiles(budget: RunBudget): SiteFiles {
    return {
      identity: (path) => this.resolve(path, budget)?.path,
      readText: (path) => {
        const found = this.resolve(path, budget);
        return found?.kind === 'file' ? this.text(found.path, budget) : undefined;
      },
      listDir: (path): DirEntry[] | undefined => {
        const found = this.resolve(path, budget);
        if (found?.kind !== 'folder') return undefined;
        return [...this.folderIndex().get(found.path)!]
          .map(([name, isDirectory]) => ({ name, isDirectory }))
          .sort((a, b) => comparePaths(a.name, b.name));
      },
    };
  }

  /** `<label>:<path>`, how messages name a file of this revision. */
  name(path: string): string {
    return `${this.label}:${path}`;
  }

  /**
   * Where a path leads once every symbolic link on it is followed: a regular file, a folder,
   * or nothing (no such entry, a link out of the repository, a loop of links).
   */
  private resolve(
    path: string,
    budget: RunBudget,
  ): { path: string; kind: 'file' | 'folder' } | undefined {
    if (path.startsWith('/') || path.includes('\0')) return undefined;
    const done: string[] = [];
    const todo = path.split('/').reverse();
    let hops = 0;
    while (todo.length > 0) {
      const part = todo.pop()!;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (done.length === 0) return undefined; // above the top of the repository
        done.pop();
        continue;
      }
      const candidate = [...done, part].join('/');
      const entry = this.entries.get(candidate);
      if (entry?.mode === SYMLINK_MODE) {
        if (++hops > MAX_SYMLINK_HOPS || entry.size > SYMLINK_TARGET_BYTES) return undefined;
        const target = this.bytes(candidate, entry, budget).toString('utf8');
        if (target.startsWith('/')) return undefined;
        todo.push(...target.split('/').reverse());
        continue;
      }
      done.push(part);
    }
    const real = done.length === 0 ? '.' : done.join('/');
    const entry = this.entries.get(real);
    if (entry && REGULAR_FILE_MODES.has(entry.mode)) return { path: real, kind: 'file' };
    return this.folderIndex().has(real) ? { path: real, kind: 'folder' } : undefined;
  }

  private folderIndex(): Map<string, Map<string, boolean>> {
    if (this.folders) return this.folders;
    const folders = new Map<string, Map<string, boolean>>([['.', new Map()]]);
    for (const path of this.entries.keys()) {
      let child = path;
      let isDirectory = false;
      for (;;) {
        const slash = child.lastIndexOf('/');
        const parent = slash < 0 ? '.' : child.slice(0, slash);
        const name = slash < 0 ? child : child.slice(slash + 1);
        let listing = folders.get(parent);
        const known = listing !== undefined;
        if (!listing) folders.set(parent, (listing = new Map<string, boolean>()));
        listing.set(name, isDirectory);
        if (known || parent === '.') break;
        child = parent;
        isDirectory = true;
      }
    }
    this.folders = folders;
    return folders;
  }

  /** A site's file as text, admitted against the run's limits the first time it is read. */
  private text(path: string, budget: RunBudget): string {
    const entry = this.entries.get(path)!;
    if (!this.admitted.has(path)) {
      budget.admitFile(entry.size, this.name(path));
      this.admitted.add(path);
    }
    return this.bytes(path, entry, budget).toString('utf8');
  }

  /**
   * A blob's bytes. A blob not read yet is read with the files of its folder that are likely
   * to be read next (bounded: READ_AHEAD_*), in one git process.
   */
  private bytes(path: string, entry: TreeEntry, budget: RunBudget): Buffer {
    const known = this.blobs.get(entry.oid);
    if (known) {
      this.unusedReadAhead = Math.max(0, this.unusedReadAhead - known.length);
      return known;
    }
    const wanted = new Map<string, number>([[entry.oid, entry.size]]);
    let bytes = entry.size;
    const slash = path.lastIndexOf('/');
    const folder = slash < 0 ? '.' : path.slice(0, slash);
    for (const [name, isDirectory] of this.folderIndex().get(folder) ?? []) {
      if (isDirectory || wanted.size >= READ_AHEAD_FILES) continue;
      const sibling = this.entries.get(folder === '.' ? name : `${folder}/${name}`);
      if (!sibling || !REGULAR_FILE_MODES.has(sibling.mode) || this.blobs.has(sibling.oid))
        continue;
      if (sibling.size > budget.limits.fileBytes) continue;
      if (bytes + sibling.size > READ_AHEAD_BYTES) continue;
      if (this.unusedReadAhead + bytes + sibling.size > READ_AHEAD_UNUSED_BYTES) continue;
      wanted.set(sibling.oid, sibling.size);
      bytes += sibling.size;
    }
    const read = this.repository.readBlobs([...wanted.keys()], bytes, budget, this.name(path));
    for (const [oid, blob] of read) this.blobs.set(oid, blob);
    this.unusedReadAhead += bytes - entry.size;
    return this.blobs.get(entry.oid)!;
  }
}

/** The paths whose file differs between two trees: added, removed, or with other content or mode. */
export function changedPaths(a: GitTree, b: GitTree): Set<string> {
  const changed = new Set<string>();
  for (const path of a.paths()) {
    const x = a.entry(path)!;
    const y = b.entry(path);
    if (y?.oid !== x.oid || y.mode !== x.mode) changed.add(path);
  }
  for (const path of b.paths()) if (!a.entry(path)) changed.add(path);
  return changed;
}

/** Orders paths by their UTF-16 code units, as the CLI's folder walk orders names. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Splits `cat-file --batch` output into the blobs asked for. */
function parseBatch(out: Buffer, oids: readonly string[], what: string): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  for (const oid of oids) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) throw new GitError(`git gave a short answer reading ${what}`);
    const header = out.toString('utf8', at, eol).split(' ');
    if (header[0] !== oid || header[1] !== 'blob' || header[2] === undefined)
      throw new GitError(`git could not read object ${oid} of ${what} (${header.join(' ')})`);
    const size = Number(header[2]);
    const start = eol + 1;
    if (start + size > out.length) throw new GitError(`git gave a short answer reading ${what}`);
    blobs.set(oid, out.subarray(start, start + size));
    at = start + size + 1;
  }
  return blobs;
}

/** Runs git, bounded in time and output; resolves to its stdout. */
function runGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string; maxBytes: number; timeoutMs: number; what: string },
): Promise<Buffer> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: Math.max(1, Math.ceil(options.timeoutMs)),
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let failure: Error | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        failure ??= new GitError(
          `${options.what} is over ${String(options.maxBytes)} bytes; SiteForge refuses a repository that large`,
        );
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => undefined); // git may exit before it has read everything
    child.on('error', (err) => {
      failure ??= new GitError(`cannot run git: ${err.message}`);
    });
    child.on('close', (code, signal) => {
      if (failure) reject(failure);
      else if (signal === 'SIGTERM' && code === null) reject(timeUp(options.what));
      else if (code !== 0)
        reject(
          new GitError(
            `git could not read ${options.what}: ${stderr.trim() || `exit ${String(code)}`}`,
          ),
        );
      else resolveRun(Buffer.concat(chunks));
    });
    child.stdin.end(options.input ?? '');
  });
}

/** The run's deadline passed while git was reading. */
function timeUp(what: string): LimitExceededError {
  return new LimitExceededError(
    'totalMs',
    `the run's time was up while git read ${what}; nothing was planned`,
  );
}

function hasControlCharacter(text: string): boolean {
  for (const c of text) if (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) return true;
  return false;
}

function gitMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.trim().split('\n')[0] ?? text;
}
