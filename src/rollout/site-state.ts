/**
 * The state of one site from its hub objects, reduced to what a rollout gate needs: installed,
 * failed, waiting for a person (validations failing), or on its way; with the condition that
 * says why, in the hub's own words (assisted.md §3).
 *
 * Provisional: the fleet status model (src/fleet, the dashboard's) replaces this once it is in
 * main, so that the runner and the dashboard read sites the same way.
 */
import type { KubeObject } from '../kube/index.js';

/** The objects of one site. */
export interface SiteObjects {
  readonly namespace: string;
  readonly name: string;
  readonly clusterDeployment?: KubeObject;
  readonly agentClusterInstall?: KubeObject;
  readonly infraEnvs: readonly KubeObject[];
  readonly agents: readonly KubeObject[];
  readonly bareMetalHosts: readonly KubeObject[];
}

/** Why a site does not move on. */
export interface SiteProblem {
  readonly source: { readonly kind: string; readonly namespace: string; readonly name: string };
  readonly condition?: string;
  readonly reason: string;
  readonly message: string;
}

/** The state of a site, in the dashboard's words. */
export interface SiteStateView {
  readonly state:
    | 'pending'
    | 'booting'
    | 'discovering'
    | 'validating'
    | 'insufficient'
    | 'installing'
    | 'installed'
    | 'failed';
  readonly problem?: SiteProblem;
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

function conditions(object: KubeObject | undefined): Condition[] {
  const status = object?.['status'];
  if (typeof status !== 'object' || status === null) return [];
  const list = (status as Record<string, unknown>)['conditions'];
  if (!Array.isArray(list)) return [];
  return list
    .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null)
    .map((c) => ({
      type: text(c['type']),
      status: text(c['status']),
      reason: text(c['reason']),
      message: text(c['message']),
    }));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function condition(object: KubeObject | undefined, type: string): Condition | undefined {
  return conditions(object).find((c) => c.type === type);
}

function problem(object: KubeObject, c: Condition): SiteProblem {
  return {
    source: {
      kind: object.kind,
      namespace: object.metadata.namespace ?? '',
      name: object.metadata.name,
    },
    condition: c.type,
    reason: c.reason,
    message: c.message,
  };
}

/** The state of a site. */
export function siteState(site: SiteObjects): SiteStateView {
  const aci = site.agentClusterInstall;
  const completed = condition(aci, 'Completed');
  const installed =
    completed?.status === 'True' ||
    (site.clusterDeployment?.['spec'] as { installed?: unknown } | undefined)?.installed === true;
  if (installed) return { state: 'installed' };
  const failed = condition(aci, 'Failed');
  if (aci && failed?.status === 'True') return { state: 'failed', problem: problem(aci, failed) };
  for (const agent of site.agents) {
    const c = condition(agent, 'Installed');
    if (c?.status === 'False' && c.reason === 'InstallationFailed')
      return { state: 'failed', problem: problem(agent, c) };
  }
  if (completed?.reason === 'InstallationInProgress') return { state: 'installing' };
  for (const agent of site.agents) {
    const c = condition(agent, 'Validated');
    if (c?.status === 'False') return { state: 'insufficient', problem: problem(agent, c) };
  }
  const validated = condition(aci, 'Validated');
  if (aci && validated?.status === 'False' && site.agents.length > 0)
    return { state: 'insufficient', problem: problem(aci, validated) };
  if (site.agents.length > 0) return { state: 'validating' };
  return { state: 'pending' };
}
