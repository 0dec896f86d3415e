/**
 * The Secrets the controllers read (BMC credentials, pull secrets), from a cache of only those
 * labelled `agent-install.openshift.io/watch: "true"`, as upstream's assisted-service caches
 * them (BMO does the same with a label of its own): a hub holds many Secrets, of which the
 * controllers need few. A Secret read for the first time comes from the API server and is
 * labelled there, so from then on the watch carries it and its changes: a rotated BMC password
 * or pull secret is seen with the next watch event, and no use costs a request.
 */
import { KubeApiError, KubeApiErrorCode } from '../kube/index.js';
import type { KubeObject } from '../kube/index.js';
import { Gvk, Label } from './api.js';
import type { ObjectReader, ObjectWriter, Request, Watch } from './runtime/contract.js';

/** The label selector of the Secrets the controllers cache. */
export const WATCHED_SECRETS_SELECTOR = `${Label.Watch}=true`;

/**
 * A watch of the labelled Secrets for a controller: `map` names the objects a Secret's change
 * concerns. Only a change of `data` (or `stringData` folded in by the API server) wakes them.
 */
export function watchedSecrets(map: Watch['map']): Watch {
  return {
    gvk: Gvk.Secret,
    labelSelector: WATCHED_SECRETS_SELECTOR,
    map,
    onUpdate: (object, previous) =>
      JSON.stringify(object['data'] ?? {}) !== JSON.stringify(previous['data'] ?? {}),
  };
}

/**
 * A Secret, from the cache of labelled Secrets, else from the API server, labelled on the way
 * so the cache holds it from then on. The caller's controller must watch the Secrets through
 * {@link watchedSecrets} (reading an unwatched kind from the cache throws).
 * @returns undefined when the Secret does not exist
 */
export async function readWatchedSecret(
  reader: ObjectReader,
  writer: ObjectWriter,
  request: Request,
): Promise<KubeObject | undefined> {
  const ref = { ...Gvk.Secret, ...request };
  const cached = reader.get(ref);
  if (cached !== undefined) return cached;
  const live = await writer.getLive(ref);
  if (live === undefined || live.metadata.labels?.[Label.Watch] === 'true') return live;
  try {
    return await writer.update({
      ...live,
      metadata: { ...live.metadata, labels: { ...live.metadata.labels, [Label.Watch]: 'true' } },
    });
  } catch (err) {
    // Changed or deleted meanwhile: what was read serves this use; the next one labels it.
    if (
      err instanceof KubeApiError &&
      (err.code === KubeApiErrorCode.Conflict || err.code === KubeApiErrorCode.NotFound)
    )
      return live;
    throw err;
  }
}
