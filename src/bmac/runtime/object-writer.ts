/**
 * The ObjectWriter a reconcile pass receives: the runtime client behind the write token bucket,
 * bound to the pass's AbortSignal, so that once leadership is lost (or the process stops) no
 * further write leaves this process, not even one already waiting for a token.
 */
import type { DeleteOptions, KubeObject, ObjectRef, RuntimeKubeClient } from '../../kube/index.js';
import type { ObjectWriter } from './contract.js';
import type { TokenBucket } from './token-bucket.js';

/** ObjectWriter over a RuntimeKubeClient, writes rate-limited by a shared TokenBucket. */
export class RateLimitedObjectWriter implements ObjectWriter {
  /** @param written told of every object the API server answered a write with (the cache) */
  constructor(
    private readonly client: RuntimeKubeClient,
    private readonly bucket: TokenBucket,
    private readonly signal: AbortSignal,
    private readonly written: (object: KubeObject) => void = () => undefined,
  ) {}

  async create(object: KubeObject): Promise<KubeObject> {
    await this.permit();
    return this.told(await this.client.create(object));
  }

  async update(object: KubeObject): Promise<KubeObject> {
    await this.permit();
    return this.told(await this.client.update(object));
  }

  async updateStatus(object: KubeObject): Promise<KubeObject> {
    await this.permit();
    return this.told(await this.client.updateStatus(object));
  }

  private told(object: KubeObject): KubeObject {
    this.written(object);
    return object;
  }

  async delete(ref: ObjectRef, options?: DeleteOptions): Promise<boolean> {
    await this.permit();
    return this.client.delete(ref, options);
  }

  /** Reads are not rate-limited, but a stopped pass makes none. */
  getLive(ref: ObjectRef): Promise<KubeObject | undefined> {
    this.signal.throwIfAborted();
    return this.client.get(ref);
  }

  private async permit(): Promise<void> {
    this.signal.throwIfAborted();
    await this.bucket.take(this.signal);
  }
}
