/**
 * Records core/v1 Events, as client-go's recorder does: `source.component` is the controller's
 * name, and an Event repeated on the same object (same type, reason and message) is one Event
 * whose `count` and `lastTimestamp` grow, not a new object each time. Recording is fire and
 * forget: the writes run in the background, one at a time per aggregated Event, behind a token
 * bucket of their own (a storm of Events must not starve reconcile writes); a failure is logged.
 */
import type { KubeObject, RuntimeKubeClient } from '../../kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../../kube/index.js';
import { clip } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { EventRecorder, EventType } from './contract.js';
import type { RuntimeClock } from './runtime-clock.js';
import type { TokenBucket } from './token-bucket.js';

/** Options of KubeEventRecorder. */
export interface KubeEventRecorderOptions {
  readonly client: RuntimeKubeClient;
  /** `source.component` of every Event: the controller's name. */
  readonly component: string;
  readonly clock: RuntimeClock;
  readonly log: Logger;
  readonly bucket: TokenBucket;
  /** Aggregated Events remembered (oldest forgotten first). @default 4096 */
  readonly cacheSize?: number;
}

/** Longest message kept; the API server refuses much longer ones. */
const MESSAGE_LIMIT = 1_024;

interface Recorded {
  /** The Event as last written, with its resourceVersion. */
  event: KubeObject | undefined;
  count: number;
  readonly firstTimestamp: string;
  /** Writes of this Event run one after the other. */
  chain: Promise<void>;
}

/** EventRecorder writing core/v1 Events through the runtime client. */
export class KubeEventRecorder implements EventRecorder {
  private readonly recorded = new Map<string, Recorded>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: KubeEventRecorderOptions) {}

  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    const { metadata } = object;
    const text = clip(message, MESSAGE_LIMIT);
    const uid = typeof metadata['uid'] === 'string' ? metadata['uid'] : '';
    const key = [
      object.apiVersion,
      object.kind,
      metadata.namespace ?? '',
      metadata.name,
      uid,
      type,
      reason,
      text,
    ].join('\u0000');
    const now = timestamp(this.options.clock.now());
    let entry = this.recorded.get(key);
    if (entry === undefined) {
      entry = { event: undefined, count: 0, firstTimestamp: now, chain: Promise.resolve() };
      this.remember(key, entry);
    }
    const target = entry;
    target.count++;
    const count = target.count;
    const write = target.chain.then(() =>
      this.write(object, target, { type, reason, message: text, count, now }),
    );
    target.chain = write;
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Resolves when every Event recorded so far was written (or failed); for shutdown and tests. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async write(
    object: KubeObject,
    entry: Recorded,
    fields: { type: EventType; reason: string; message: string; count: number; now: string },
  ): Promise<void> {
    const { client, component, log } = this.options;
    try {
      await this.options.bucket.take();
      if (entry.event !== undefined) {
        try {
          entry.event = kept(
            await client.update({
              ...entry.event,
              count: fields.count,
              lastTimestamp: fields.now,
            }),
          );
          return;
        } catch (error) {
          // Deleted (Events expire) or changed by someone else: start a new one.
          if (
            !(error instanceof KubeApiError) ||
            (error.code !== KubeApiErrorCode.NotFound && error.code !== KubeApiErrorCode.Conflict)
          )
            throw error;
          await this.options.bucket.take();
        }
      }
      const { metadata } = object;
      const namespace = metadata.namespace ?? 'default';
      const involvedObject: Record<string, string> = {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: metadata.name,
      };
      if (metadata.namespace !== undefined) involvedObject['namespace'] = metadata.namespace;
      if (typeof metadata['uid'] === 'string') involvedObject['uid'] = metadata['uid'];
      if (metadata.resourceVersion !== undefined)
        involvedObject['resourceVersion'] = metadata.resourceVersion;
      entry.event = kept(
        await client.create({
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: this.eventName(metadata.name), namespace },
          involvedObject,
          reason: fields.reason,
          message: fields.message,
          type: fields.type,
          source: { component },
          count: fields.count,
          firstTimestamp: entry.firstTimestamp,
          lastTimestamp: fields.now,
        }),
      );
    } catch (error) {
      log.warn(
        {
          object: metadata(object),
          reason: fields.reason,
          error: error instanceof Error ? error.message : String(error),
        },
        'could not record an event',
      );
    }
  }

  /**
   * `<object name>.<hex time and sequence>`, unique as client-go's `name.%x(UnixNano)`. The
   * sequence is the process's, not this recorder's: two controllers record Events on the same
   * object in the same millisecond (the BMAC and the provisioner on one BareMetalHost).
   */
  private eventName(objectName: string): string {
    const suffix = (
      BigInt(this.options.clock.now()) * 1_000_000n +
      BigInt(nextSequence())
    ).toString(16);
    return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }

  private remember(key: string, entry: Recorded): void {
    const limit = this.options.cacheSize ?? 4_096;
    if (this.recorded.size >= limit) {
      const oldest = this.recorded.keys().next();
      if (oldest.done !== true) this.recorded.delete(oldest.value);
    }
    this.recorded.set(key, entry);
  }
}

/**
 * The Event as remembered for its next count: without managedFields, which an update that
 * omits them leaves as they are, and which were most of the memory of thousands of Events.
 */
function kept(event: KubeObject): KubeObject {
  if (!('managedFields' in event.metadata)) return event;
  const metadata = { ...event.metadata };
  delete metadata['managedFields'];
  return { ...event, metadata };
}

/** Starts anywhere, so that a restarted process does not repeat the names of its predecessor. */
let sequence = Math.floor(Math.random() * 1_000_000);

function nextSequence(): number {
  sequence = (sequence + 1) % 1_000_000;
  return sequence;
}

function metadata(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return `${object.kind} ${namespace === undefined ? name : `${namespace}/${name}`}`;
}

/** RFC 3339 to the second, as Event timestamps are. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
