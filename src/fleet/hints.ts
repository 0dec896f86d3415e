/**
 * What a ZTP user should look at or do for a problem the hub reports: keyed by the failing
 * validation id (assisted.md §5.2, §5.3), the condition reason (§3) or the BareMetalHost error
 * type (docs/redfish-host.md). The messages themselves are shown verbatim beside the hint.
 */

/** Hints for failing host and cluster validations, by validation id. */
const VALIDATION_HINTS: Readonly<Record<string, string>> = {
  connected:
    'The agent stopped checking in: check the host is up, and its network path to the agent API.',
  'media-connected':
    'The host lost its virtual media: the BMC ejected the ISO or its network to the image server broke. Re-insert by re-provisioning the BareMetalHost.',
  'has-inventory': 'The agent has not sent its inventory yet; wait a minute, then check its logs.',
  'has-min-cpu-cores':
    'The host has too few CPU cores for any role: check the BIOS (cores, hyper-threading) or use a larger host.',
  'has-min-memory': 'The host has too little RAM for any role: add memory or use a larger host.',
  'has-min-valid-disks':
    'No disk is eligible (too small, removable or the installation media): add a disk of at least 100 GB, or wipe the one you want.',
  'has-cpu-cores-for-role':
    'Too few CPU cores for this role (a single-node cluster needs 8): use a larger host or change the role in the SiteConfig.',
  'has-memory-for-role':
    'Too little RAM for this role (control plane and single node need 16 GiB): add memory.',
  'hostname-unique':
    'Two hosts report the same hostname: set hostName per node in the SiteConfig, or fix DHCP/DNS.',
  'hostname-valid':
    'The hostname is not allowed (localhost, or not a DNS label): set hostName in the SiteConfig.',
  'belongs-to-machine-cidr':
    'The host has no address in the machine network: check nodeNetwork (static IPs), DHCP, and machineNetwork in the SiteConfig.',
  'belongs-to-majority-group':
    'The host cannot reach most of the other hosts on the machine network: check VLANs, cabling and firewalls.',
  'machine-cidr-defined': 'Set machineNetwork (or the VIPs) in the SiteConfig.',
  'has-default-route':
    'The host has no default route: add one to nodeNetwork, or fix the DHCP options.',
  'api-domain-name-resolved-correctly':
    'DNS: api.<cluster>.<baseDomain> must resolve (to the API VIP) from the host.',
  'api-int-domain-name-resolved-correctly':
    'DNS: api-int.<cluster>.<baseDomain> must resolve from the host.',
  'apps-domain-name-resolved-correctly':
    'DNS: *.apps.<cluster>.<baseDomain> must resolve (to the ingress VIP) from the host.',
  'dns-wildcard-not-configured':
    'DNS has a wildcard at the base domain; remove it, or installation traffic goes astray.',
  'ntp-synced': 'The host clock is not synchronised: set additionalNTPSources or fix NTP access.',
  'time-synced-between-host-and-service':
    "The host's clock differs from the hub's by too much: fix NTP or the BIOS clock.",
  'sufficient-installation-disk-speed':
    'The installation disk is too slow (etcd needs fsync under 10 ms): use an SSD/NVMe disk, or check rootDeviceHints.',
  'container-images-available':
    'The host cannot pull the release images: check the pull secret, proxy and mirror registry settings.',
  'sufficient-network-latency-requirement-for-role':
    'Network latency between hosts is too high for this role.',
  'sufficient-packet-loss-requirement-for-role':
    'Packet loss between hosts is too high for this role.',
  'no-ip-collisions-in-network': 'Two hosts use the same IP address: fix nodeNetwork or DHCP.',
  'mtu-valid': 'The MTU of the machine network does not fit the path: check the switch and NICs.',
  'compatible-agent':
    'The discovery agent is older than the service expects: regenerate the discovery ISO.',
  'non-overlapping-subnets': 'Host subnets overlap the cluster or service networks.',
  'sufficient-masters-count':
    'The number of control plane hosts does not match the cluster: add or remove nodes, or change their roles in the SiteConfig.',
  'all-hosts-are-ready-to-install': 'Some host is not ready; see the hosts below.',
  'api-vips-valid':
    'The API VIP must be a free address inside the machine network: fix apiVIPs in the SiteConfig.',
  'ingress-vips-valid':
    'The ingress VIP must be a free address inside the machine network: fix ingressVIPs in the SiteConfig.',
  'api-vips-defined': 'Set apiVIPs in the SiteConfig.',
  'ingress-vips-defined': 'Set ingressVIPs in the SiteConfig.',
  'pull-secret-set': 'The pull secret named by pullSecretRef is missing or empty.',
  'dns-domain-defined': 'Set baseDomain in the SiteConfig.',
  'network-prefix-valid': 'The cluster network hostPrefix does not fit its CIDR.',
  'no-cidrs-overlapping': 'Machine, cluster and service networks overlap: change one of them.',
  'ntp-server-configured': 'Host clocks differ by more than 4 minutes: configure NTP.',
  'machine-cidr-equals-to-calculated-cidr':
    'The machine network does not match the hosts addresses and VIPs.',
};

/** Hints for condition reasons and BareMetalHost error types. */
const REASON_HINTS: Readonly<Record<string, string>> = {
  // Agent and AgentClusterInstall
  InputError:
    'The spec was refused: fix the field the message names (in the SiteConfig, or the BareMetalHost annotations the BMAC copies).',
  BackendError: 'The controller failed to apply the spec; it retries. Check the controller logs.',
  AgentIsDisconnected:
    'The agent stopped checking in: is the host up and still booted from the ISO (not its disk)? Check its network path to the agent API.',
  AgentIsNotApproved:
    'The BMAC approves Agents paired with a BareMetalHost (by bootMACAddress): check the BareMetalHost exists and its MAC matches, or approve the Agent (spec.approved: true).',
  UnapprovedAgents:
    'Agents wait for approval: the BMAC approves those paired with a BareMetalHost. Check each Agent has one.',
  InsufficientAgents:
    'The registered hosts do not match the roles the cluster needs: check every node booted, and the roles in the SiteConfig.',
  UnsyncedAgents: 'An Agent has a spec error: read its SpecSynced condition.',
  InstallationOnHold:
    'The installation is on hold: set spec.holdInstallation false on the AgentClusterInstall (or remove hive.openshift.io/reconcile-pause from the ClusterDeployment).',
  InstallationFailed:
    'The installation failed: read the message, collect the logs (AgentClusterInstall status.debugInfo.logsURL), fix the cause, then delete and re-create the site.',
  InstallationCancelled: 'The installation was cancelled: delete and re-create the site.',
  UnbindingPendingUserAction:
    'The host was unbound and must boot the discovery ISO again: the BMAC re-provisions its BareMetalHost.',
  // InfraEnv
  ImageCreationError:
    'The discovery ISO could not be built: read the message (osImages for this version, pull secret, ignitionConfigOverride).',
  MissingClusterDeployment:
    'The InfraEnv names a ClusterDeployment that does not exist (yet): check clusterRef and that the site was applied whole.',
  // BareMetalHost errorType
  'registration error':
    'The BMC could not be reached or refused the credentials: check bmcAddress, the BMC Secret (username/password) and the network path from the hub to the BMC.',
  'provisioning error':
    'The BMC could not boot the ISO: check the virtual media (is another ISO inserted? licence for virtual media?), and that the BMC can reach the image server URL.',
  'power management error':
    'The BMC refused a power change: check the BMC (locked by another session, firmware update in progress).',
};

/** The hint for a failing validation id, if one is known. */
export function validationHint(id: string): string | undefined {
  if (id.endsWith('-requirements-satisfied'))
    return 'An operator the cluster installs has requirements the host does not meet (CPU, RAM, disks): read the message.';
  return VALIDATION_HINTS[id];
}

/** The hint for a condition reason or a BareMetalHost error type, if one is known. */
export function reasonHint(reason: string): string | undefined {
  return REASON_HINTS[reason];
}
