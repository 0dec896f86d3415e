/**
 * Where an installation's generated files live, and the Secrets hive and users read:
 * - `<cd>-assisted-installer-output` (ours): the ignition of each role, the admin kubeconfig, the
 *   kubeadmin password and the installer's ids, written once the backend has produced them, so a
 *   restarted controller (and the agent API serving a host its ignition) finds them again;
 * - `<cd>-admin-kubeconfig` (key `kubeconfig`, secret-type `kubeconfig`) and
 *   `<cd>-admin-password` (keys `username`, `password`, label secret-type `kubeadmincreds`), both
 *   labelled with the ClusterDeployment's name and owned by it, as upstream (assisted.md §3.3).
 */
import { KubeApiError } from '../../kube/index.js';
import type { KubeObject } from '../../kube/index.js';
import type { ObjectWriter } from '../../bmac/runtime/contract.js';
import type { InstallerOutput } from '../installer/installer-backend.js';
import { ClusterGvk, ClusterLabel } from './kinds.js';
import type { ClusterDeployment } from './kinds.js';

/** Names of the Secrets of a ClusterDeployment. */
export const secretNames = (cdName: string) =>
  ({
    output: `${cdName}-assisted-installer-output`,
    kubeconfig: `${cdName}-admin-kubeconfig`,
    password: `${cdName}-admin-password`,
  }) as const;

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

function fromB64(text: unknown): string | undefined {
  return typeof text === 'string' ? Buffer.from(text, 'base64').toString() : undefined;
}

function ownedSecret(
  cd: ClusterDeployment,
  name: string,
  secretType: string,
  data: Record<string, string>,
  type = 'Opaque',
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: cd.metadata.namespace ?? '',
      labels: {
        [ClusterLabel.ClusterDeploymentName]: cd.metadata.name,
        [ClusterLabel.SecretType]: secretType,
      },
      ownerReferences: [
        {
          apiVersion: cd.apiVersion,
          kind: cd.kind,
          name: cd.metadata.name,
          uid: cd.metadata.uid ?? '',
          blockOwnerDeletion: true,
        },
      ],
    },
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

/** Stores the backend's output in the installation's own Secret. */
export async function storeInstallerOutput(
  writer: ObjectWriter,
  cd: ClusterDeployment,
  output: InstallerOutput,
  generatedAt: Date,
): Promise<void> {
  const data: Record<string, string> = {
    'generated-at': generatedAt.toISOString(),
    'bootstrap.ign': JSON.stringify(output.ignitions.bootstrap),
    kubeconfig: output.kubeconfig,
    'kubeadmin-password': output.kubeadminPassword,
    'metadata.json': JSON.stringify({ clusterID: output.clusterId, infraID: output.infraId }),
  };
  if (output.ignitions.master) data['master.ign'] = JSON.stringify(output.ignitions.master);
  if (output.ignitions.worker) data['worker.ign'] = JSON.stringify(output.ignitions.worker);
  const secret = ownedSecret(cd, secretNames(cd.metadata.name).output, 'installer-output', data);
  // Created without a read first: a first attempt is the common case (409 says otherwise).
  if (await createdAnew(writer, secret)) return;
  const existing = await writer.getLive({
    ...ClusterGvk.Secret,
    name: secret.metadata.name,
    namespace: secret.metadata.namespace ?? '',
  });
  if (existing === undefined) await writer.create(secret);
  else
    await writer.update({
      ...secret,
      metadata: { ...secret.metadata, resourceVersion: existing.metadata.resourceVersion },
    });
}

/** Creates `secret`; false when it exists already (409), so the caller reads and updates it. */
async function createdAnew(writer: ObjectWriter, secret: KubeObject): Promise<boolean> {
  try {
    await writer.create(secret);
    return true;
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 409) return false;
    throw err;
  }
}

/**
 * The backend's output stored for a ClusterDeployment, if any.
 * @param notBefore an output generated before this (RFC 3339) is an earlier attempt's: ignored
 */
export async function loadInstallerOutput(
  writer: ObjectWriter,
  namespace: string,
  cdName: string,
  notBefore: string | undefined,
): Promise<InstallerOutput | undefined> {
  const secret = await writer.getLive({
    ...ClusterGvk.Secret,
    name: secretNames(cdName).output,
    namespace,
  });
  const data = (secret?.['data'] ?? {}) as Record<string, unknown>;
  const bootstrap = fromB64(data['bootstrap.ign']);
  const kubeconfig = fromB64(data['kubeconfig']);
  const password = fromB64(data['kubeadmin-password']);
  const metadata = fromB64(data['metadata.json']);
  if (bootstrap === undefined || kubeconfig === undefined || password === undefined)
    return undefined;
  const generatedAt = fromB64(data['generated-at']) ?? '';
  if (notBefore !== undefined && generatedAt < notBefore) return undefined;
  const ids = JSON.parse(metadata ?? '{}') as { clusterID?: string; infraID?: string };
  const master = fromB64(data['master.ign']);
  const worker = fromB64(data['worker.ign']);
  return {
    ignitions: {
      bootstrap: JSON.parse(bootstrap) as InstallerOutput['ignitions']['bootstrap'],
      ...(master !== undefined && {
        master: JSON.parse(master) as InstallerOutput['ignitions']['bootstrap'],
      }),
      ...(worker !== undefined && {
        worker: JSON.parse(worker) as InstallerOutput['ignitions']['bootstrap'],
      }),
    },
    kubeconfig,
    kubeadminPassword: password,
    clusterId: ids.clusterID ?? '',
    infraId: ids.infraID ?? '',
  };
}

/**
 * Creates `name` when missing, or replaces its data when it differs.
 * @param likelyNew create first (no read) when the Secret is most likely not there yet
 */
async function ensureSecret(
  writer: ObjectWriter,
  secret: KubeObject,
  likelyNew = false,
): Promise<void> {
  if (likelyNew && (await createdAnew(writer, secret))) return;
  const existing = await writer.getLive({
    ...ClusterGvk.Secret,
    name: secret.metadata.name,
    namespace: secret.metadata.namespace ?? '',
  });
  if (existing === undefined) {
    await writer.create(secret);
    return;
  }
  if (JSON.stringify(existing['data']) === JSON.stringify(secret['data'])) return;
  await writer.update({ ...existing, data: secret['data'] });
}

/**
 * The kubeconfig Secret (during the installation upstream keeps a no-ingress one there).
 * @param likelyNew create it without reading first (the installation's first publication)
 */
export async function ensureKubeconfigSecret(
  writer: ObjectWriter,
  cd: ClusterDeployment,
  kubeconfig: string,
  likelyNew = false,
): Promise<string> {
  const name = secretNames(cd.metadata.name).kubeconfig;
  await ensureSecret(writer, ownedSecret(cd, name, 'kubeconfig', { kubeconfig }), likelyNew);
  return name;
}

/**
 * The kubeadmin password Secret.
 * @param likelyNew create it without reading first
 */
export async function ensurePasswordSecret(
  writer: ObjectWriter,
  cd: ClusterDeployment,
  password: string,
  likelyNew = false,
): Promise<string> {
  const name = secretNames(cd.metadata.name).password;
  await ensureSecret(
    writer,
    // Upstream labels it `hive.openshift.io/secret-type=kubeadmincreds` and leaves the type
    // Opaque (clusterdeployments_controller.go createClusterCredentialSecret): code over docs.
    ownedSecret(cd, name, 'kubeadmincreds', { username: 'kubeadmin', password }),
    likelyNew,
  );
  return name;
}

/**
 * The ignition a host installs with: the bootstrap's for the bootstrap host (a single node's
 * bootstrap-in-place config too), else its role's pointer config.
 */
export function ignitionForHost(
  output: InstallerOutput,
  host: { readonly role: string; readonly bootstrap: boolean },
): InstallerOutput['ignitions']['bootstrap'] | undefined {
  if (host.bootstrap || host.role === 'bootstrap') return output.ignitions.bootstrap;
  if (host.role === 'master' || host.role === 'arbiter') return output.ignitions.master;
  if (host.role === 'worker') return output.ignitions.worker;
  return undefined;
}
