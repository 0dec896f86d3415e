/**
 * The states a site moves through, in the order a ZTP user reads them, with the words the demo
 * and the dashboard print. Free of imports, so the dashboard's browser bundle shares it.
 */

/**
 * Where a site is in its provisioning. `failed` is terminal (an installation failed or was
 * cancelled: the cluster must be reset); every other state may carry a problem that keeps it
 * from moving on (a BMC error while booting, a disconnected agent), see SiteProblem.
 */
export const SiteState = {
  /** Its objects are on the hub; no host is being booted yet (waiting for the discovery ISO or the BMC). */
  Pending: 'pending',
  /** A BMC is booting a host from the discovery ISO, or the host is starting the ISO. */
  Booting: 'booting',
  /** Discovery agents are registering and sending their inventory; not every host has yet. */
  Discovering: 'discovering',
  /** Every host registered; validations, approval and the install trigger are under way. */
  Validating: 'validating',
  /** Validations fail (a host or the cluster): the site waits for someone to fix them. */
  Insufficient: 'insufficient',
  /** The installation runs (stage and percent say how far). */
  Installing: 'installing',
  /** The cluster is installed. */
  Installed: 'installed',
  /** The installation failed or was cancelled. */
  Failed: 'failed',
} as const;
export type SiteState = (typeof SiteState)[keyof typeof SiteState];

/** Every state, in the order of the flow (failed last). */
export const SITE_STATES: readonly SiteState[] = [
  SiteState.Pending,
  SiteState.Booting,
  SiteState.Discovering,
  SiteState.Validating,
  SiteState.Insufficient,
  SiteState.Installing,
  SiteState.Installed,
  SiteState.Failed,
];

/** A state as a person reads it (title case, for headings and tables). */
export const SITE_STATE_LABEL: Readonly<Record<SiteState, string>> = {
  pending: 'Pending',
  booting: 'Booting',
  discovering: 'Discovering',
  validating: 'Validating',
  insufficient: 'Insufficient',
  installing: 'Installing',
  installed: 'Installed',
  failed: 'Failed',
};

/**
 * What to look at when a site stays in a state for long without a problem being reported: the
 * places a ZTP user checks, in the order they usually find the cause.
 */
export const STUCK_HINT: Readonly<Record<SiteState, string>> = {
  pending:
    'Check that the InfraEnv has ImageCreated=True (the discovery ISO) and that the BareMetalHosts exist with the infraenvs.agent-install.openshift.io label and BMC credentials.',
  booting:
    'The BMC was asked to boot the ISO. Look at the host console: did it boot from virtual media, get an address, and reach the agent API (firewall, proxy, DNS)? `oc get bmh` shows the BMC side.',
  discovering:
    'Hosts are missing. For each BareMetalHost without an Agent, check its console and that its bootMACAddress matches a NIC of the host.',
  validating:
    'Check the Agents (approved, RequirementsMet) and the AgentClusterInstall conditions RequirementsMet and Completed (on hold?).',
  insufficient:
    'Read the failing validations of the Agent or AgentClusterInstall (status.validationsInfo) and fix the host or the SiteConfig.',
  installing:
    'Compare the stage with its timeout; a host that rebooted must boot its installed disk, not the ISO again.',
  installed: '',
  failed:
    'Read the AgentClusterInstall Failed condition and the Agent Installed condition; collect logs (debugInfo.logsURL), fix, and re-create the site (delete and re-sync in Argo CD).',
};

/** Whether a state is final (nothing more happens without a person). */
export function isFinal(state: SiteState): boolean {
  return state === SiteState.Installed || state === SiteState.Failed;
}
