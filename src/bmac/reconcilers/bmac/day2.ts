/**
 * Day-2 hosts (assisted.md §1.9): a host added to a cluster that is already installed (its
 * ClusterDeployment has `spec.installed`). Two steps need the spoke cluster itself:
 * ensureMCSCert puts the spoke's Machine Config Server CA into the host's ignition overrides, so
 * the new node trusts the MCS it fetches its config from; reconcileDay2SpokeBMH creates, once the
 * host installs, the spoke's Machine and BareMetalHost for it, as the spoke's own installer
 * would have for a day-1 node.
 */
import { X509Certificate } from 'node:crypto';
import {
  BmacAnnotation,
  BmacGvk,
  BmacLabel,
  BmhAnnotation,
  Gvk,
  Label,
  OPENSHIFT_MACHINE_API_NAMESPACE,
} from '../../api.js';
import type { KubeObject } from '../../../kube/index.js';
import { BmacError } from './errors.js';
import { hardwareDetailsJson } from './hardware-details.js';
import { caIgnition, mergeIgnition } from './ignition.js';
import { annotationsOf, asKube, hasAnnotation, view } from './model.js';
import type { Agent, BareMetalHost, ClusterDeployment, ClusterReference } from './model.js';
import { CONTINUE, STOP } from './pass.js';
import type { Pass, StepResult } from './pass.js';
import type { SpokeClient } from './spoke.js';

/** Where the spoke keeps the CA of its Machine Config Server, in order of authority. */
const CA_SOURCES = [
  {
    namespace: 'openshift-machine-config-operator',
    name: 'machine-config-server-ca',
    key: 'ca-bundle.crt',
  },
  { namespace: 'kube-system', name: 'root-ca', key: 'ca.crt' },
  // HyperShift hosted clusters.
  { namespace: 'openshift-config', name: 'kube-root-ca', key: 'ca.crt' },
  { namespace: 'openshift-config', name: 'kube-root-ca.crt', key: 'ca.crt' },
] as const;

/** Agent states in which the spoke's Machine and BareMetalHost are created. */
const INSTALLING_STATES: readonly string[] = ['installing', 'installing-in-progress'];

/**
 * The ClusterDeployment the Agent is bound to, if it exists and is installed, for a worker (a
 * day-2 host). Only workers are added on day 2 (upstream's validateWorkerForDay2): a control
 * plane host, such as a single-node cluster's, was installed with its cluster, and its spoke
 * need not even be reachable from the hub.
 */
function installedClusterDeployment(pass: Pass, agent: Agent): ClusterDeployment | undefined {
  const ref = agent.spec?.clusterDeploymentName;
  if (!ref || agent.status?.role !== 'worker') return undefined;
  const object = pass.ctx.reader.get({ ...Gvk.ClusterDeployment, ...ref });
  // Not an error (upstream's is): the ClusterDeployment watch wakes the host once it is installed.
  if (object === undefined) {
    pass.ctx.log.debug(`ClusterDeployment ${ref.namespace}/${ref.name} not found`);
    return undefined;
  }
  const cd = view<ClusterDeployment>(object);
  return cd.spec?.installed === true ? cd : undefined;
}

/** The admin kubeconfig Secret's name: the CD's clusterMetadata says, else `<cd>-admin-kubeconfig`. */
export function adminKubeconfigSecretName(
  cd: ClusterDeployment | undefined,
  ref: ClusterReference,
): string {
  const named = cd?.spec?.clusterMetadata?.adminKubeconfigSecretRef?.name;
  return named !== undefined && named !== '' ? named : `${ref.name}-admin-kubeconfig`;
}

/**
 * A client on the spoke cluster of `ref`, from its admin kubeconfig Secret (which is labelled
 * for backup and watching on the way, as every Secret the controllers read).
 */
export async function spokeClientFor(
  pass: Pass,
  ref: ClusterReference,
  cd: ClusterDeployment | undefined,
): Promise<SpokeClient> {
  const { ctx } = pass;
  const name = adminKubeconfigSecretName(cd, ref);
  const secret = await ctx.writer.getLive({ ...Gvk.Secret, namespace: ref.namespace, name });
  if (secret === undefined)
    throw new BmacError('SPOKE_KUBECONFIG_MISSING', `Secret ${ref.namespace}/${name} not found`);
  const labels = { [Label.Backup]: 'true', [Label.Watch]: 'true' };
  if (Object.entries(labels).some(([k, v]) => secret.metadata.labels?.[k] !== v))
    await ctx.writer.update({
      ...secret,
      metadata: { ...secret.metadata, labels: { ...secret.metadata.labels, ...labels } },
    });
  const encoded = (secret['data'] as Record<string, string> | undefined)?.['kubeconfig'];
  if (encoded === undefined || encoded === '')
    throw new BmacError(
      'SPOKE_KUBECONFIG_MISSING',
      `Secret ${ref.namespace}/${name} has no kubeconfig`,
    );
  if (pass.spokeClients === undefined)
    throw new BmacError('NO_SPOKE_CLIENTS', 'the BMAC was started without spoke cluster access');
  return pass.spokeClients.fromKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'));
}

function validPemBundle(text: string): boolean {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return false;
  try {
    for (const block of blocks) new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

/** The spoke's MCS CA bundle, base64. */
async function mcsCa(spoke: SpokeClient): Promise<string> {
  for (const source of CA_SOURCES) {
    const cm = await spoke.getConfigMap(source.namespace, source.name);
    if (cm === undefined) continue;
    const where = `ConfigMap ${source.namespace}/${source.name}`;
    const pem = ((cm['data'] as Record<string, string> | undefined)?.[source.key] ?? '').trim();
    if (pem === '')
      throw new BmacError('MCS_CA_MISSING', `${where} does not contain CA certificate data`);
    if (!validPemBundle(pem))
      throw new BmacError('MCS_CA_INVALID', `${where} contains invalid CA certificate data`);
    return Buffer.from(pem, 'utf8').toString('base64');
  }
  throw new BmacError(
    'MCS_CA_MISSING',
    'the spoke cluster has no Machine Config Server CA ConfigMap',
  );
}

/** ensureMCSCert: the spoke's MCS CA in the host's ignition overrides (merged with the user's). */
export async function ensureMcsCert(pass: Pass): Promise<StepResult> {
  const { bmh, agent, ctx } = pass;
  if (agent === undefined) return CONTINUE;
  const cd = installedClusterDeployment(pass, agent);
  const ref = agent.spec?.clusterDeploymentName;
  if (cd === undefined || !ref) return CONTINUE;
  const spoke = await spokeClientFor(pass, ref, cd);
  const b64 = await mcsCa(spoke);
  const annotations = annotationsOf(bmh.metadata);
  const user = annotations[BmhAnnotation.IgnitionConfigOverrides];
  if (user?.includes(b64)) return CONTINUE;
  if (user === undefined) annotations[BmhAnnotation.IgnitionConfigOverrides] = caIgnition(b64);
  else {
    try {
      annotations[BmhAnnotation.IgnitionConfigOverrides] = mergeIgnition(caIgnition(b64), user);
    } catch {
      const message = `${BmhAnnotation.IgnitionConfigOverrides} is not a JSON ignition config: cannot add the spoke's Machine Config Server CA`;
      ctx.log.error(message);
      ctx.events.event(asKube(bmh), 'Warning', 'InvalidIgnitionConfigOverrides', message);
      return STOP;
    }
  }
  ctx.log.info('added the spoke Machine Config Server CA to the ignition overrides');
  return STOP;
}

/**
 * Whether the spoke has no Machine API for the host: platform None (user-managed networking or
 * a single node), or bare metal with the Machine API capability disabled. The AgentClusterInstall
 * is read live (the BMAC does not watch it); missing, the answer is "skip" until the next event.
 */
async function spokeHasNoMachineApi(pass: Pass, cd: ClusterDeployment): Promise<boolean> {
  const name = cd.spec?.clusterInstallRef?.name;
  const where = `ClusterDeployment ${cd.metadata.namespace ?? ''}/${cd.metadata.name}`;
  if (name === undefined || name === '') {
    pass.ctx.log.error(`${where} has no clusterInstallRef`);
    return true;
  }
  const aci = await pass.ctx.writer.getLive({
    ...BmacGvk.AgentClusterInstall,
    namespace: cd.metadata.namespace ?? '',
    name,
  });
  if (aci === undefined) {
    pass.ctx.log.error(`AgentClusterInstall ${name} of ${where} not found`);
    return true;
  }
  const spec = (aci['spec'] ?? {}) as {
    platformType?: string;
    networking?: { userManagedNetworking?: boolean };
    provisionRequirements?: { controlPlaneAgents?: number; workerAgents?: number };
  };
  const sno =
    spec.provisionRequirements?.controlPlaneAgents === 1 &&
    (spec.provisionRequirements.workerAgents ?? 0) === 0;
  if (spec.networking?.userManagedNetworking === true || sno) return true;
  if (spec.platformType !== 'BareMetal') return false;
  const overrides = aci.metadata.annotations?.[BmacAnnotation.InstallConfigOverrides];
  if (overrides === undefined) return false;
  try {
    const caps = (JSON.parse(overrides) as { capabilities?: Record<string, unknown> }).capabilities;
    const extra = Array.isArray(caps?.['additionalEnabledCapabilities'])
      ? (caps['additionalEnabledCapabilities'] as unknown[])
      : [];
    return (
      caps?.['baselineCapabilitySet'] === 'None' &&
      extra.includes('baremetal') &&
      !extra.includes('MachineAPI')
    );
  } catch {
    return false;
  }
}

/** The image of the spoke's control-plane Machines, which the new Machine copies. */
async function masterImage(
  spoke: SpokeClient,
): Promise<{ checksum: string; url: string } | undefined> {
  const machines = await spoke.listMachines({ [BmacLabel.MachineType]: 'master' });
  const first = machines[0];
  if (first === undefined) return undefined;
  const value = (first['spec'] as { providerSpec?: { value?: { image?: unknown } } } | undefined)
    ?.providerSpec?.value;
  const image = value?.image as { checksum?: unknown; url?: unknown } | undefined;
  if (typeof image !== 'object')
    throw new BmacError(
      'SPOKE_MACHINE_IMAGE',
      "the spoke's master Machine has no providerSpec image",
    );
  return {
    checksum: typeof image.checksum === 'string' ? image.checksum : '',
    url: typeof image.url === 'string' ? image.url : '',
  };
}

function spokeBmh(bmh: BareMetalHost, agent: Agent, machineName: string): KubeObject {
  const annotations: Record<string, string> = { [BmhAnnotation.Inspect]: 'disabled' };
  // The spoke's BMO takes the hardware details from this annotation (CSR approval needs them).
  if ((agent.status?.inventory?.interfaces ?? []).length > 0)
    annotations[BmhAnnotation.HardwareDetails] = hardwareDetailsJson(agent);
  return {
    apiVersion: bmh.apiVersion,
    kind: bmh.kind,
    metadata: { name: bmh.metadata.name, namespace: OPENSHIFT_MACHINE_API_NAMESPACE, annotations },
    spec: {
      ...bmh.spec,
      // Without BMC credentials the spoke's BMO leaves the host unmanaged. The CRD requires
      // both fields, so they are there, empty (as Go's encoder writes an empty BMCDetails).
      bmc: { address: '', credentialsName: '' },
      consumerRef: {
        apiVersion: BmacGvk.Machine.apiVersion,
        kind: BmacGvk.Machine.kind,
        name: machineName,
        namespace: OPENSHIFT_MACHINE_API_NAMESPACE,
      },
    },
  };
}

function spokeMachine(
  bmh: BareMetalHost,
  cd: ClusterDeployment,
  machineName: string,
  image: { checksum: string; url: string },
  role: string,
): KubeObject {
  return {
    ...BmacGvk.Machine,
    metadata: {
      name: machineName,
      namespace: OPENSHIFT_MACHINE_API_NAMESPACE,
      annotations: {
        [BmacAnnotation.MachineBareMetalHost]: `${OPENSHIFT_MACHINE_API_NAMESPACE}/${bmh.metadata.name}`,
      },
      labels: {
        [BmacLabel.MachineCluster]: cd.metadata.name,
        [BmacLabel.MachineRole]: role,
        [BmacLabel.MachineType]: role,
      },
    },
    spec: {
      providerSpec: {
        value: {
          apiVersion: 'baremetal.cluster.k8s.io/v1alpha1',
          kind: 'BareMetalMachineProviderSpec',
          image: { checksum: image.checksum, url: image.url },
        },
      },
    },
  };
}

/** reconcileDay2SpokeBMH: the spoke's BareMetalHost and Machine for an installing day-2 host. */
export async function reconcileDay2SpokeBmh(pass: Pass): Promise<StepResult> {
  const { bmh, agent, ctx } = pass;
  if (agent === undefined) return CONTINUE;
  if (hasAnnotation(bmh.metadata, BmhAnnotation.SpokeBmhMachineCreated)) return CONTINUE;
  const cd = installedClusterDeployment(pass, agent);
  const ref = agent.spec?.clusterDeploymentName;
  if (cd === undefined || !ref) return CONTINUE;
  if (await spokeHasNoMachineApi(pass, cd)) return CONTINUE;
  if (!INSTALLING_STATES.includes(agent.status?.debugInfo?.state ?? '')) return CONTINUE;

  const spoke = await spokeClientFor(pass, ref, cd);
  const image = await masterImage(spoke);
  if (image === undefined) {
    ctx.log.error('the spoke cluster has no Machine labelled master: no spoke Machine created');
    return STOP;
  }
  const machineName = `${cd.metadata.name}-${bmh.metadata.name}`;
  await spoke.createOrUpdate(spokeBmh(bmh, agent, machineName));
  await spoke.createOrUpdate(spokeMachine(bmh, cd, machineName, image, agent.status?.role ?? ''));
  annotationsOf(bmh.metadata)[BmhAnnotation.SpokeBmhMachineCreated] = new Date(
    ctx.clock.now(),
  ).toISOString();
  ctx.events.event(
    asKube(bmh),
    'Normal',
    'SpokeHostCreated',
    `Created BareMetalHost and Machine ${OPENSHIFT_MACHINE_API_NAMESPACE}/${machineName} on the spoke cluster`,
  );
  return CONTINUE;
}
