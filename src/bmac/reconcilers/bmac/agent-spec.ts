/**
 * reconcileAgentSpec (assisted.md §1.5): what the user wrote on the BareMetalHost reaches its
 * Agent — role, hostname, machine config pool, installer args, ignition overrides, installation
 * disk from rootDeviceHints, cluster reference, node labels, Agent labels and fencing
 * credentials — and the Agent is approved, since a host the user declared is trusted.
 */
import { BmhAnnotation, Gvk, Label } from '../../api.js';
import { asKube } from './model.js';
import type { Agent, BareMetalHost, InfraEnv } from './model.js';
import { installationDiskId } from './installation-disk.js';
import { CONTINUE, STOP } from './pass.js';
import type { Pass, StepResult } from './pass.js';
import { BmacError } from './errors.js';
import type { KubeObject } from '../../../kube/index.js';

/** Event reasons of this step. */
export const AgentSpecEvent = {
  InvalidInstallerArgs: 'InvalidInstallerArgs',
  ClusterReferenceConflict: 'ClusterReferenceConflict',
  InvalidClusterReference: 'InvalidClusterReference',
  AgentApproved: 'AgentApproved',
} as const;

/** The annotations copied as they are into string fields of the Agent's spec. */
const COPIED = [
  [BmhAnnotation.Role, 'role'],
  [BmhAnnotation.Hostname, 'hostname'],
  [BmhAnnotation.MachineConfigPool, 'machineConfigPool'],
  [BmhAnnotation.InstallerArgs, 'installerArgs'],
  [BmhAnnotation.IgnitionConfigOverrides, 'ignitionConfigOverrides'],
] as const;

function isStringArray(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((v) => typeof v === 'string');
  } catch {
    return false;
  }
}

/** `<prefix><key>: value` annotations as `{key: value}`. */
function prefixed(bmh: BareMetalHost, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(bmh.metadata.annotations ?? {}))
    if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

function sameMap(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * The cluster-reference annotation (`<namespace>/<name>`) binds the Agent to a
 * ClusterDeployment, unless its InfraEnv already binds every Agent to one; present but empty,
 * it unbinds. @returns false when the annotation cannot be applied (an Event says why).
 */
function reconcileClusterReference(
  pass: Pass,
  agent: Agent,
  infraEnv: InfraEnv | undefined,
): boolean {
  const { bmh, ctx } = pass;
  const value = bmh.metadata.annotations?.[BmhAnnotation.ClusterReference];
  const spec = (agent.spec ??= {});
  const infraEnvRef = infraEnv?.spec?.clusterRef;
  if (value === undefined) return true;
  if (value === '') {
    if (spec.clusterDeploymentName && !infraEnvRef) delete spec.clusterDeploymentName;
    return true;
  }
  if (infraEnvRef) {
    const message = `${BmhAnnotation.ClusterReference} is ${value}, but InfraEnv ${infraEnv.metadata.name} already has cluster reference ${infraEnvRef.namespace}/${infraEnvRef.name}: remove one of them`;
    ctx.log.error(message);
    ctx.events.event(asKube(bmh), 'Warning', AgentSpecEvent.ClusterReferenceConflict, message);
    return false;
  }
  const parts = value.split('/');
  if (parts.length !== 2) {
    const message = `${BmhAnnotation.ClusterReference} ${JSON.stringify(value)} is not <namespace>/<name>`;
    ctx.log.error(message);
    ctx.events.event(asKube(bmh), 'Warning', AgentSpecEvent.InvalidClusterReference, message);
    return false;
  }
  const [namespace, name] = parts as [string, string];
  const current = spec.clusterDeploymentName;
  if (current?.namespace !== namespace || current.name !== name)
    spec.clusterDeploymentName = { namespace, name };
  return true;
}

function decode(secret: KubeObject, key: string): string {
  const data = secret['data'] as Record<string, string> | undefined;
  return Buffer.from(data?.[key] ?? '', 'base64').toString('utf8');
}

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Creates or refreshes `<agent>-fencing-credentials` from the host's BMC address and its BMC
 * credentials Secret, labelled for backup and watching.
 */
async function reconcileFencingSecret(pass: Pass, agent: Agent, name: string): Promise<void> {
  const { bmh, ctx } = pass;
  const namespace = bmh.metadata.namespace ?? '';
  const credentialsName = bmh.spec?.bmc?.credentialsName ?? '';
  const credentials = await ctx.writer.getLive({ ...Gvk.Secret, namespace, name: credentialsName });
  if (credentials === undefined)
    throw new BmacError(
      'BMC_SECRET_MISSING',
      `BMC credentials Secret ${namespace}/${credentialsName} of BareMetalHost ${bmh.metadata.name} not found`,
    );
  const data = {
    address: encode(bmh.spec?.bmc?.address ?? ''),
    username: encode(decode(credentials, 'username')),
    password: encode(decode(credentials, 'password')),
    certificateVerification: encode(
      bmh.spec?.bmc?.disableCertificateVerification === true ? 'Disabled' : 'Enabled',
    ),
  };
  const labels = { [Label.Backup]: 'true', [Label.Watch]: 'true' };
  const agentNamespace = agent.metadata.namespace ?? namespace;
  const existing = await ctx.writer.getLive({ ...Gvk.Secret, namespace: agentNamespace, name });
  if (existing === undefined) {
    await ctx.writer.create({
      ...Gvk.Secret,
      metadata: { name, namespace: agentNamespace, labels },
      data,
    });
    ctx.log.info({ secret: name }, 'created fencing credentials Secret');
    return;
  }
  const sameData = JSON.stringify(existing['data']) === JSON.stringify(data);
  const labelled = Object.entries(labels).every(([k, v]) => existing.metadata.labels?.[k] === v);
  if (sameData && labelled) return;
  await ctx.writer.update({
    ...existing,
    metadata: { ...existing.metadata, labels: { ...existing.metadata.labels, ...labels } },
    data,
  });
}

async function reconcileFencing(pass: Pass, agent: Agent): Promise<void> {
  const annotations = pass.bmh.metadata.annotations ?? {};
  const spec = (agent.spec ??= {});
  const named = annotations[BmhAnnotation.FencingCredentialsSecretName];
  if (named !== undefined) {
    spec.fencingCredentialsSecretRef = named;
    return;
  }
  if (annotations[BmhAnnotation.CreateFencingCredentialsSecret] === undefined) return;
  const name = `${agent.metadata.name}-fencing-credentials`;
  await reconcileFencingSecret(pass, agent, name);
  spec.fencingCredentialsSecretRef = name;
}

/** Copies the host's annotations to its Agent and approves it. */
export async function reconcileAgentSpec(pass: Pass): Promise<StepResult> {
  const { bmh, ctx } = pass;
  const agent = pass.agent;
  if (agent === undefined) return STOP;
  const spec = (agent.spec ??= {});
  const annotations = bmh.metadata.annotations ?? {};

  for (const [annotation, field] of COPIED) {
    const value = annotations[annotation];
    if (value !== undefined) spec[field] = value;
  }
  const installerArgs = annotations[BmhAnnotation.InstallerArgs];
  if (installerArgs !== undefined && !isStringArray(installerArgs)) {
    // Copied all the same, as upstream does: the Agent's SpecSynced condition then reports it.
    const message = `${BmhAnnotation.InstallerArgs} is not a JSON array of strings`;
    ctx.log.warn(message);
    ctx.events.event(asKube(bmh), 'Warning', AgentSpecEvent.InvalidInstallerArgs, message);
  }

  if (spec.approved !== true) {
    spec.approved = true;
    ctx.events.event(
      asKube(bmh),
      'Normal',
      AgentSpecEvent.AgentApproved,
      `Approved Agent ${agent.metadata.name}`,
    );
  }
  const labels = (agent.metadata.labels ??= {});
  labels[Label.AgentBmh] = bmh.metadata.name;

  const disk = installationDiskId(agent.status?.inventory?.disks, bmh.spec?.rootDeviceHints);
  if (disk !== undefined && disk !== '') spec.installation_disk_id = disk;

  if (!reconcileClusterReference(pass, agent, pass.infraEnv)) return STOP;

  const nodeLabels = prefixed(bmh, BmhAnnotation.NodeLabelPrefix);
  if (!sameMap(nodeLabels, spec.nodeLabels ?? {})) {
    if (Object.keys(nodeLabels).length === 0) delete spec.nodeLabels;
    else spec.nodeLabels = nodeLabels;
  }
  // Agent labels are only added: others (the agent controller's) live on the same map.
  Object.assign(labels, prefixed(bmh, BmhAnnotation.AgentLabelPrefix));

  await reconcileFencing(pass, agent);
  return CONTINUE;
}
