/**
 * Who boots the hosts. Where the Bare Metal Operator (metal3) runs, it owns the BareMetalHosts
 * and boots them through Ironic, and SiteForge only feeds it images (metal3 mode). Where it
 * does not, SiteForge boots the hosts itself through Redfish (redfish mode). Both at once would
 * fight over the same machines, so `auto` looks for the operator's Deployment on the hub.
 */
// Not ../kube/index.js, which loads client-node: the CLI checks --mode before it connects.
import { KubeApiError, KubeApiErrorCode } from '../kube/errors.js';
import { objectName } from '../kube/kube-client.js';
import type { KubeClient, KubeObject } from '../kube/kube-client.js';
import { SiteForgeError } from '../shared/errors.js';

/** The two ways the controller works. */
export const ControllerMode = { Redfish: 'redfish', Metal3: 'metal3' } as const;
export type ControllerMode = (typeof ControllerMode)[keyof typeof ControllerMode];

/** What `--mode` accepts. */
export const MODE_FLAG_VALUES = ['redfish', 'metal3', 'auto'] as const;
export type ModeFlag = (typeof MODE_FLAG_VALUES)[number];

/** The mode and why, as a sentence for the log. */
export interface ModeDecision {
  readonly mode: ControllerMode;
  readonly reason: string;
}

/** Where the Bare Metal Operator's Deployment is found, by name. */
export interface DeploymentLocation {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The operator's Deployment as its installers name it: OpenShift's cluster-baremetal-operator
 * (`metal3-baremetal-operator`, and before it the combined `metal3` Deployment with Ironic) and
 * upstream's kustomize (`config/default`: namespace `baremetal-operator-system`, prefix
 * `baremetal-operator-` on `controller-manager`).
 */
export const BMO_DEPLOYMENTS: readonly DeploymentLocation[] = [
  { namespace: 'openshift-machine-api', name: 'metal3-baremetal-operator' },
  { namespace: 'openshift-machine-api', name: 'metal3' },
  { namespace: 'baremetal-operator-system', name: 'baremetal-operator-controller-manager' },
];

/**
 * Labels that mark the operator's Deployment wherever it was installed: upstream's manager
 * (`webhook: metal3-io-v1alpha1-baremetalhost`, next to the generic `control-plane:
 * controller-manager`) and cluster-baremetal-operator's.
 */
export const BMO_LABEL_SELECTORS: readonly string[] = [
  'webhook=metal3-io-v1alpha1-baremetalhost',
  'baremetal.openshift.io/cluster-baremetal-operator=metal3-baremetal-operator',
];

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

const METAL3_BOOTS = 'the Bare Metal Operator boots hosts';
const REDFISH_BOOTS = 'SiteForge boots hosts through Redfish';

/** The hub would not say whether the Bare Metal Operator runs; `--mode` must. */
export class ModeDetectionError extends SiteForgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MODE_UNDETECTABLE', message, options);
  }
}

/**
 * The mode `flag` asks for; for `auto`, the one the hub calls for.
 * @throws ModeDetectionError when `auto` may not look at Deployments
 * @throws KubeUnreachableError when `auto` cannot reach the hub
 */
export async function resolveMode(flag: ModeFlag, kube: KubeClient): Promise<ModeDecision> {
  switch (flag) {
    case 'redfish':
      return { mode: ControllerMode.Redfish, reason: `--mode redfish was given: ${REDFISH_BOOTS}` };
    case 'metal3':
      return { mode: ControllerMode.Metal3, reason: `--mode metal3 was given: ${METAL3_BOOTS}` };
    case 'auto':
      return detectMode(kube);
  }
}

/**
 * Looks for the Bare Metal Operator's Deployment: first where its installers put it, then by
 * its labels in every namespace. Its presence, not its readiness, decides: an operator scaled
 * down for a while still owns its hosts.
 */
export async function detectMode(kube: KubeClient): Promise<ModeDecision> {
  try {
    for (const location of BMO_DEPLOYMENTS) {
      const found = await kube.get({ ...DEPLOYMENT, ...location });
      if (found)
        return {
          mode: ControllerMode.Metal3,
          reason: `found Deployment ${objectName(found)}: ${METAL3_BOOTS}`,
        };
    }
    for (const labelSelector of BMO_LABEL_SELECTORS) {
      const [found] = sortByName(await kube.list(DEPLOYMENT, { labelSelector }));
      if (found)
        return {
          mode: ControllerMode.Metal3,
          reason: `found Deployment ${objectName(found)} labelled ${labelSelector}: ${METAL3_BOOTS}`,
        };
    }
  } catch (err) {
    // 401 (bad credentials) is not this: it passes through as it is.
    if (err instanceof KubeApiError && err.code === KubeApiErrorCode.Forbidden)
      throw new ModeDetectionError(
        `--mode auto cannot tell whether the Bare Metal Operator runs: the hub refused to let ` +
          `SiteForge read Deployments (${err.message}); grant get and list on deployments.apps ` +
          `in every namespace, or pass --mode redfish or --mode metal3`,
        { cause: err },
      );
    throw err;
  }
  const places = BMO_DEPLOYMENTS.map((l) => `${l.namespace}/${l.name}`).join(', ');
  return {
    mode: ControllerMode.Redfish,
    reason: `no Bare Metal Operator Deployment in ${places} nor one labelled ${BMO_LABEL_SELECTORS.join(' or ')}: ${REDFISH_BOOTS}`,
  };
}

/** Several matches name the first in a stable order, so the log line does not flap. */
function sortByName(objects: readonly KubeObject[]): KubeObject[] {
  return [...objects].sort((a, b) => objectName(a).localeCompare(objectName(b)));
}
