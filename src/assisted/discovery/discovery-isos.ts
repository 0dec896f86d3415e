/**
 * Discovery ISOs served by the image server: each base ISO (an `osImages` entry) is downloaded
 * once into the server's cache and its embed areas read once; an InfraEnv's ISO is then only an
 * overlay reference, streamed as base + overlay with ranges.
 */
import type { ImageServer } from '../../bmac/images/image-server.js';
import { SiteForgeError } from '../../shared/errors.js';
import type { CpioFile } from './cpio.js';
import type { ImageType } from './ignition.js';
import { locateEmbedAreas } from './iso9660.js';
import type { EmbedAreas } from './iso9660.js';
import type { OsImage } from './os-images.js';
import { discoveryOverlay } from './overlay.js';

/** An InfraEnv's ISO, as the InfraEnv controller asks for it. */
export interface DiscoveryIsoRequest {
  readonly osImage: OsImage;
  readonly imageType: ImageType;
  /** The discovery ignition (JSON text). */
  readonly ignition: string;
  /** Files for the embed area's initrd (the minimal ISO's static network). */
  readonly initrdFiles?: readonly CpioFile[];
  /** `spec.kernelArguments` values to append. */
  readonly kernelArguments?: readonly string[];
}

/**
 * The base ISO is being downloaded: the image will be there later (assisted-service's 409
 * "image being created"). The download runs on; asking again later gives the URL, or the
 * download's failure once.
 */
export class DiscoveryImageNotReadyError extends SiteForgeError {
  constructor(baseUrl: string) {
    super('DISCOVERY_IMAGE_NOT_READY', `the base ISO ${baseUrl} is being downloaded`);
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
   * The URL of the discovery ISO of `request`, the base downloaded first if needed.
   * @throws DiscoveryImageNotReadyError while the base is being downloaded, ImageSourceError
   *   when it could not be fetched, IsoLayoutError when it is not a CoreOS live ISO,
   *   DiscoveryIgnitionError when the content does not fit
   */
  isoUrl(request: DiscoveryIsoRequest): Promise<string>;
}

/** DiscoveryIsoStore on SiteForge's image server. */
export class ImageServerDiscoveryIsos implements DiscoveryIsoStore {
  /**
   * No minimal template yet: that needs the base ISO's file system rewritten once (rootfs
   * removed, a ramdisk placeholder added), which the overlay alone cannot do.
   */
  readonly minimalIso = false;
  /** Embed areas by the base's content hash. */
  private readonly areas = new Map<string, EmbedAreas>();
  /** Bases downloaded (once in the cache, a later eviction only costs a new download). */
  private readonly ready = new Set<string>();
  /** Downloads under way, by base URL. */
  private readonly downloads = new Map<string, Promise<void>>();
  /** Failed downloads, told once to the next request. */
  private readonly failures = new Map<string, unknown>();

  /** @param ttlSeconds how long an ISO URL works @default 7 days */
  constructor(
    private readonly server: Pick<ImageServer, 'readSource' | 'urlForOverlay' | 'prefetch'>,
    private readonly ttlSeconds = 7 * 86_400,
  ) {}

  /**
   * Downloads a base ISO into the cache (at startup, for every configured image, as the image
   * service does), resolving once it is there.
   * @throws ImageSourceError when it cannot be fetched
   */
  prefetch(baseUrl: string): Promise<void> {
    let download = this.downloads.get(baseUrl);
    if (download === undefined) {
      download = this.server.prefetch(baseUrl).then(
        () => {
          this.ready.add(baseUrl);
          this.failures.delete(baseUrl);
        },
        (err: unknown) => {
          this.failures.set(baseUrl, err);
          throw err;
        },
      );
      const settled = download.finally(() => this.downloads.delete(baseUrl));
      settled.catch(() => undefined);
      this.downloads.set(baseUrl, settled);
      download = settled;
    }
    return download;
  }

  async isoUrl(request: DiscoveryIsoRequest): Promise<string> {
    const base = request.osImage.url;
    if (!this.ready.has(base)) {
      if (this.failures.has(base)) {
        const failure = this.failures.get(base);
        this.failures.delete(base);
        throw failure;
      }
      this.prefetch(base).catch(() => undefined); // told to the next request
      throw new DiscoveryImageNotReadyError(base);
    }
    const areas = await this.server.readSource(base, async (reader, blob) => {
      const known = this.areas.get(blob.sha256);
      if (known) return known;
      const found = await locateEmbedAreas({
        async read(position, length) {
          const buffer = Buffer.alloc(Math.max(0, Math.min(length, blob.size - position)));
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
      });
      this.areas.set(blob.sha256, found);
      return found;
    });
    const overlay = discoveryOverlay(areas, {
      ignition: request.ignition,
      initrdFiles: request.initrdFiles,
      kernelArguments: request.kernelArguments,
    });
    return this.server.urlForOverlay(base, overlay, this.ttlSeconds);
  }
}
