/**
 * Reads and writes Rollout objects. Every write carries the resourceVersion it read, so a write
 * based on a stale read fails with KUBE_CONFLICT instead of losing someone else's change (a
 * pause written while the runner updated its status, a second runner); callers read again and
 * decide again.
 */
import type { KubeObject, RuntimeKubeClient } from '../kube/index.js';
import { KubeApiError, KubeApiErrorCode } from '../kube/index.js';
import { SiteForgeError } from '../shared/errors.js';
import type { Rollout, RolloutSpec, RolloutStatus } from './rollout-resource.js';
import { rolloutObject, rolloutOf, RolloutGvk } from './rollout-resource.js';

/** The hub does not serve the Rollout kind: its CRD is not installed. */
export class RolloutCrdMissingError extends SiteForgeError {
  constructor() {
    super(
      'ROLLOUT_CRD_MISSING',
      'the hub does not serve rollouts.siteforge.io; install the CRD first: kubectl apply -f crds/siteforge.io_rollouts.yaml (it ships in the siteforge package)',
    );
  }
}

/** Label with the rollout's plan target commit, for `kubectl get rollouts -l`. */
export const TO_COMMIT_LABEL = 'rollout.siteforge.io/to-commit';

/** Rollouts on the hub. */
export class RolloutStore {
  constructor(private readonly client: RuntimeKubeClient) {}

  /** The Rollout, or undefined when there is none. @throws RolloutInvalidError */
  async get(namespace: string, name: string): Promise<Rollout | undefined> {
    const object = await this.call(() => this.client.get({ ...RolloutGvk, namespace, name }));
    return object && rolloutOf(object);
  }

  /** Every Rollout of a namespace (raw objects: one invalid Rollout must not hide the others). */
  async list(namespace: string): Promise<readonly KubeObject[]> {
    return (await this.call(() => this.client.list(RolloutGvk, { namespace }))).items;
  }

  /** Creates it; KUBE_CONFLICT when one of that name exists. */
  async create(rollout: Rollout): Promise<Rollout> {
    const labels = { [TO_COMMIT_LABEL]: rollout.spec.to.commit.slice(0, 63) };
    return rolloutOf(await this.call(() => this.client.create(rolloutObject(rollout, labels))));
  }

  /** Replaces the spec, if the Rollout still has `rollout.resourceVersion`. */
  async updateSpec(rollout: Rollout, spec: RolloutSpec): Promise<Rollout> {
    const current = await this.call(() =>
      this.client.get({ ...RolloutGvk, namespace: rollout.namespace, name: rollout.name }),
    );
    if (current === undefined)
      throw new KubeApiError(
        404,
        'NotFound',
        `Rollout ${rollout.namespace}/${rollout.name} is gone`,
      );
    const object: KubeObject = {
      ...current,
      metadata: { ...current.metadata, resourceVersion: rollout.resourceVersion },
      spec,
    };
    return rolloutOf(await this.call(() => this.client.update(object)));
  }

  /** Writes the status, if the Rollout still has `rollout.resourceVersion`. */
  async updateStatus(rollout: Rollout, status: RolloutStatus): Promise<Rollout> {
    return rolloutOf(
      await this.call(() => this.client.updateStatus(rolloutObject({ ...rollout, status }))),
    );
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      if (err instanceof KubeApiError && err.code === KubeApiErrorCode.KindUnknown)
        throw new RolloutCrdMissingError();
      throw err;
    }
  }
}

/** Whether an error is a stale-resourceVersion conflict. */
export function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.code === KubeApiErrorCode.Conflict;
}
