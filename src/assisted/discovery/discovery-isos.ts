/**
 * Discovery ISOs served by the image server: each base ISO (an `osImages` entry) is downloaded
 * once into the server's cache and its embed areas read once; with xorriso, a minimal ISO
 * template is built once per base and rootfs URL. An InfraEnv's ISO is then only an overlay
 * reference, streamed as base (or template) + overlay with ranges.
 */
import { createHash } from 'node:crypto';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ImageServer, PositionalReader } from '../../bmac/images/image-server.js';
import { SiteForgeError } from '../../shared/errors.js';
import type { CpioFile } from './cpio.js';
import { ImageType } from './ignition.js';
import { locateEmbedAreas } from './iso9660.js';
import type { EmbedAreas } from './iso9660.js';
import { buildMinimalTemplate } from './minimal-template.js';
import type { OsImage } from './os-images.js';
import { discoveryOverlay } from './overlay.js';

/** An InfraEnv's ISO, as the InfraEnv controller asks for it. */
export interface DiscoveryIsoRequest {
  readonly osImage: OsImage;
  readonly imageType: ImageType;
  /** The discovery ignition (JSON text). */
  readonly ignition: string;
  /** The minimal ISO's ramdisk files (static network). */
  readonly initrdFiles?: readonly CpioFile[];
  /** `spec.kernelArguments` values to append. */
  readonly kernelArguments?: readonly string[];
}

/**
 * The base ISO is being downloaded (or its minimal template built): the image will be there
 * later (assisted-service's 409 "image being created"). The work runs on; asking again later
 * gives the URL, or the failure once.
 */
export class DiscoveryImageNotReadyError extends SiteForgeError {
  constructor(what: string) {
    super('DISCOVERY_IMAGE_NOT_READY', `${what} is being prepared`);
  }
}

/** Where the InfraEnv controller gets ISO URLs: the port it is given. */
export interface DiscoveryIsoStore {
  /**
   * Whether minimal ISOs are served (a template without the rootfs, which fetches it from
   * `coreos.live.rootfs_url`); when false a minimal-iso InfraEnv gets the full ISO, and its
   * ignition is made as a full ISO's.
   */
  readonly minimalIso: boolean;
  /**
   * The URL of the discovery ISO of `request`. A minimal ISO needs the OS image's rootfs URL.
   * @throws DiscoveryImageNotReadyError while the base is being downloaded, ImageSourceError
   *   when it could not be fetched, IsoLayoutError when it is not a CoreOS live ISO,
   *   DiscoveryIgnitionError when the content does not fit
   */
  isoUrl(request: DiscoveryIsoRequest): Promise<string>;
}

/** Options of {@link ImageServerDiscoveryIsos}. */
export interface ImageServerDiscoveryIsosOptions {
  /**
   * How long an ISO URL works. By default it never expires, as assisted-service's local-auth
   * image URLs (a JWT without `exp`): the same content always gets the same URL, so the
   * InfraEnv's `isoDownloadURL` and `createdTime` move only when the content does.
   * @default Infinity
   */
  readonly ttlSeconds?: number;
  /** Serve minimal ISOs: templates built with this xorriso into `templateDir`. @default full ISOs only */
  readonly minimal?: { readonly xorriso: string; readonly templateDir: string };
}

interface Task {
  state: 'running' | 'ready' | 'failed';
  error?: unknown;
  done?: Promise<void>;
}

/** DiscoveryIsoStore on SiteForge's image server. */
export class ImageServerDiscoveryIsos implements DiscoveryIsoStore {
  readonly minimalIso: boolean;
  /** Embed areas by the image's content hash. */
  private readonly areas = new Map<string, EmbedAreas>();
  /** Base downloads and template builds, by key; a failure is told once, then retried. */
  private readonly tasks = new Map<string, Task>();
  private readonly ttlSeconds: number;

  constructor(
    private readonly server: Pick<ImageServer, 'readSource' | 'urlForOverlay' | 'prefetch'>,
    private readonly options: ImageServerDiscoveryIsosOptions = {},
  ) {
    this.minimalIso = options.minimal !== undefined;
    this.ttlSeconds = options.ttlSeconds ?? Infinity;
  }

  /**
   * Downloads a base ISO into the cache (at startup, for every configured image, as the image
   * service does), resolving once it is there.
   * @throws ImageSourceError when it cannot be fetched
   */
  prefetch(baseUrl: string): Promise<void> {
    return this.run(`base ${baseUrl}`, () => this.server.prefetch(baseUrl));
  }

  /** Builds the minimal template of a base ISO now, resolving with its source URL. */
  async prepareMinimal(osImage: OsImage): Promise<string> {
    await this.prefetch(osImage.url);
    const { key, run } = this.templateTask(osImage);
    await this.run(key, run);
    return this.templateUrl(osImage);
  }

  async isoUrl(request: DiscoveryIsoRequest): Promise<string> {
    const base = request.osImage.url;
    this.ready(`base ${base}`, () => this.server.prefetch(base), `the base ISO ${base}`);
    let source = base;
    const rootfs = request.osImage.rootFSUrl;
    if (request.imageType === ImageType.MinimalIso && this.minimalIso && rootfs) {
      const { key, run } = this.templateTask(request.osImage);
      this.ready(key, run, `the minimal ISO template of ${base}`);
      source = this.templateUrl(request.osImage);
    }
    const areas = await this.server.readSource(source, async (reader, blob) => {
      const known = this.areas.get(blob.sha256);
      if (known) return known;
      const found = await locateEmbedAreas(randomAccess(reader, blob.size));
      this.areas.set(blob.sha256, found);
      return found;
    });
    const overlay = discoveryOverlay(areas, {
      ignition: request.ignition,
      initrdFiles: request.initrdFiles,
      kernelArguments: request.kernelArguments,
    });
    return this.server.urlForOverlay(source, overlay, this.ttlSeconds);
  }

  /** The template's file, named by base URL and rootfs URL. */
  private templateUrl(osImage: OsImage): string {
    const name = createHash('sha256')
      .update(`${osImage.url}\n${osImage.rootFSUrl ?? ''}`)
      .digest('hex')
      .slice(0, 32);
    return pathToFileURL(join(this.options.minimal!.templateDir, `minimal-${name}.iso`)).href;
  }

  private templateTask(osImage: OsImage): { key: string; run: () => Promise<void> } {
    const minimal = this.options.minimal!;
    const out = new URL(this.templateUrl(osImage)).pathname;
    return {
      key: `template ${out}`,
      run: async () => {
        if (
          await access(out).then(
            () => true,
            () => false,
          )
        )
          return; // built by an earlier run
        await mkdir(minimal.templateDir, { recursive: true });
        await this.server.readSource(osImage.url, (_reader, blob) =>
          buildMinimalTemplate({
            xorriso: minimal.xorriso,
            baseIso: blob.path,
            rootfsUrl: osImage.rootFSUrl ?? '',
            out,
            workDir: `${out}.work`,
          }),
        );
      },
    };
  }

  /**
   * Returns when the work of `key` is done; else starts it if needed and throws
   * DiscoveryImageNotReadyError, or throws its failure (once: the next call starts it again).
   */
  private ready(key: string, start: () => Promise<void>, what: string): void {
    const task = this.tasks.get(key);
    if (task?.state === 'ready') return;
    if (task?.state === 'failed') {
      this.tasks.delete(key);
      throw task.error;
    }
    this.run(key, start).catch(() => undefined); // told to the next call
    throw new DiscoveryImageNotReadyError(what);
  }

  /** Runs the work of `key` once at a time, recording how it ended. */
  private run(key: string, start: () => Promise<void>): Promise<void> {
    const task = this.tasks.get(key);
    if (task?.state === 'ready') return Promise.resolve();
    if (task?.state === 'running') return task.done!;
    const next: Task = { state: 'running' };
    next.done = start().then(
      () => {
        next.state = 'ready';
      },
      (err: unknown) => {
        next.state = 'failed';
        next.error = err;
        throw err;
      },
    );
    next.done.catch(() => undefined);
    this.tasks.set(key, next);
    return next.done;
  }
}

/** The embed-area reader's view of a cached image. */
function randomAccess(reader: PositionalReader, size: number) {
  return {
    async read(position: number, length: number): Promise<Buffer> {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
      let done = 0;
      while (done < buffer.length) {
        const { bytesRead } = await reader.read(
          buffer,
          done,
          buffer.length - done,
          position + done,
        );
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buffer.subarray(0, done);
    },
  };
}
