import { ClientNodeRuntimeKubeClient } from '../../src/kube/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { hubKubeconfig } from './hub.js';

const ACI = { apiVersion: 'extensions.hive.openshift.io/v1beta1', kind: 'AgentClusterInstall' };

/**
 * Plays the assisted installer on the test hub, where nothing reconciles our kinds: every
 * AgentClusterInstall of the sites it is told about moves to installing, then to installed (or
 * failed), with the conditions and messages assisted-service writes (assisted.md §3.3). A site
 * held stays installing until let go. For runner tests until the simulated fleet can run them.
 */
export class ScriptedInstaller {
  private readonly client = ClientNodeRuntimeKubeClient.fromKubeconfig(hubKubeconfig());
  private readonly failures = new Map<string, string>();
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** Sites whose installation it started (their ACI appeared), in order. */
  readonly seen: string[] = [];

  constructor(private readonly sites: ReadonlySet<string>) {}

  /** The installation of `site` fails with this statusInfo. */
  fail(site: string, statusInfo: string): this {
    this.failures.set(site, statusInfo);
    return this;
  }

  /** `site` stays installing until `letGo`. */
  hold(...sites: string[]): this {
    for (const s of sites) this.held.add(s);
    return this;
  }

  letGo(...sites: string[]): this {
    for (const s of sites) this.held.delete(s);
    return this;
  }

  start(): this {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.pass()
        .catch(() => undefined)
        .finally(() => {
          this.busy = false;
        });
    }, 200);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async pass(): Promise<void> {
    const { items } = await this.client.list(ACI);
    for (const aci of items) {
      const site = aci.metadata.namespace ?? '';
      if (!this.sites.has(site)) continue;
      const conditions = conditionsOf(aci);
      const completed = conditions.find((c) => c['type'] === 'Completed');
      if (completed?.['status'] === 'True' || completed?.['reason'] === 'InstallationFailed')
        continue;
      if (!this.seen.includes(site)) this.seen.push(site);
      if (completed === undefined) {
        await this.write(aci, installing());
        continue;
      }
      if (this.held.has(site)) continue;
      const failure = this.failures.get(site);
      await this.write(aci, failure === undefined ? installed() : failed(failure));
    }
  }

  private async write(aci: KubeObject, conditions: Record<string, string>[]): Promise<void> {
    const now = new Date().toISOString();
    await this.client.updateStatus({
      ...aci,
      status: {
        ...(aci['status'] ?? {}),
        conditions: conditions.map((c) => ({ ...c, lastTransitionTime: now, lastProbeTime: now })),
      },
    });
  }
}

function conditionsOf(aci: KubeObject): Record<string, unknown>[] {
  const status = aci['status'] as { conditions?: Record<string, unknown>[] } | undefined;
  return status?.conditions ?? [];
}

function installing(): Record<string, string>[] {
  return [
    {
      type: 'Completed',
      status: 'False',
      reason: 'InstallationInProgress',
      message: 'The installation is in progress: Installation in progress',
    },
    {
      type: 'Failed',
      status: 'False',
      reason: 'InstallationNotFailed',
      message: 'The installation has not failed',
    },
  ];
}

function installed(): Record<string, string>[] {
  return [
    {
      type: 'Completed',
      status: 'True',
      reason: 'InstallationCompleted',
      message: 'The installation has completed: Cluster is installed',
    },
    {
      type: 'Failed',
      status: 'False',
      reason: 'InstallationNotFailed',
      message: 'The installation has not failed',
    },
  ];
}

function failed(statusInfo: string): Record<string, string>[] {
  return [
    {
      type: 'Completed',
      status: 'False',
      reason: 'InstallationFailed',
      message: `The installation has failed: ${statusInfo}`,
    },
    {
      type: 'Failed',
      status: 'True',
      reason: 'InstallationFailed',
      message: `The installation failed: ${statusInfo}`,
    },
  ];
}
