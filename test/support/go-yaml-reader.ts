import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../../scripts/hub/util.mjs';

/** The Go readers of go-yaml-reader/main.go, by the name its output uses. */
export const GO_READERS = ['sigs.k8s.io/yaml', 'gopkg.in/yaml.v2', 'gopkg.in/yaml.v3'] as const;
export type GoReader = (typeof GO_READERS)[number];

/** One reader's answer: the decoded value (as the program's JSON shows it) or its error. */
export type GoReading = { readonly value: unknown } | { readonly error: string };

/** How yaml.v2 and yaml.v3 resolve a plain scalar (see main.go). */
export interface GoResolution {
  readonly v2: string;
  readonly v3: string;
}

const SOURCE_DIR = join(import.meta.dirname, 'go-yaml-reader');
const SOURCES = ['main.go', 'go.mod', 'go.sum'];
const BUILD_TIMEOUT_MS = 240_000;
const RUN_TIMEOUT_MS = 60_000;

/**
 * Path of the go-yaml-reader binary, built from the module proxy the first time on this machine
 * (or after its sources change: the cache directory is named by their hash). Test workers that
 * build at the same time each write a file of their own and rename it into place, so none ever
 * runs a half-written binary.
 */
export function goYamlReader(): string {
  const hash = createHash('sha256');
  for (const name of SOURCES)
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(join(SOURCE_DIR, name)));
  const dir = join(cacheRoot(), `go-yaml-reader-${hash.digest('hex').slice(0, 16)}`);
  const bin = join(dir, 'go-yaml-reader');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.go-yaml-reader.tmp-${String(process.pid)}`);
  try {
    execFileSync('go', ['build', '-trimpath', '-o', tmp, '.'], {
      cwd: SOURCE_DIR,
      // go.sum pins every module; never fetch another toolchain.
      env: {
        ...process.env,
        GOFLAGS: '-mod=readonly -buildvcs=false',
        GOTOOLCHAIN: 'local',
        CGO_ENABLED: '0',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: BUILD_TIMEOUT_MS,
    });
  } catch (err) {
    rmSync(tmp, { force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `cannot build test/support/go-yaml-reader (Go and the module proxy are needed): ${stderr ?? String(err)}`,
    );
  }
  renameSync(tmp, bin);
  return bin;
}

/** Reads each YAML text (one document) with every Go reader. */
export function readWithGo(bin: string, texts: readonly string[]): Record<GoReader, GoReading>[] {
  return runReader(bin, [], texts) as Record<GoReader, GoReading>[];
}

/** Asks yaml.v2 and yaml.v3 how they resolve each plain scalar. */
export function resolveWithGo(bin: string, plains: readonly string[]): GoResolution[] {
  return runReader(bin, ['resolve'], plains) as GoResolution[];
}

function runReader(bin: string, args: string[], texts: readonly string[]): unknown[] {
  const stdout = execFileSync(bin, args, {
    input: JSON.stringify(texts),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: RUN_TIMEOUT_MS,
  });
  const out = JSON.parse(stdout) as unknown[];
  if (out.length !== texts.length)
    throw new Error(
      `go-yaml-reader answered ${String(out.length)} of ${String(texts.length)} texts`,
    );
  return out;
}
