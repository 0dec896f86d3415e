/**
 * Carries one fact from the assisted core to the Redfish provisioner in process: a host's
 * installer has written the installed system to the disk. The provisioner must set the
 * one-time disk boot before the installer's reboot; learning it from the Agent's status means
 * a write and a watch round trip, minutes late when thousands of hosts install at once, and a
 * host whose firmware lists virtual media first would boot the ISO again.
 */
import type { HostService } from '../assisted/hosts/host-service.js';
import type { HostRecord } from '../assisted/model.js';
import { IMAGE_WRITTEN_AFTER } from './reconcilers/redfish-host/index.js';
import type { RedfishHostController } from './reconcilers/redfish-host/index.js';
import type { Controller, ObjectReader } from './runtime/contract.js';

/** Whether `controller` is the Redfish provisioner of BareMetalHosts. */
export function isRedfishHostController(
  controller: Controller,
): controller is RedfishHostController {
  return 'imageWritten' in controller && typeof controller.imageWritten === 'function';
}

/**
 * Tells `provisioner` about every host whose reported stage moves past writing the image.
 * @returns unsubscribe
 */
export function relayImageWritten(
  hosts: HostService,
  provisioner: Pick<RedfishHostController, 'imageWritten'>,
  reader: ObjectReader,
): () => void {
  const written = (host: HostRecord): boolean => {
    const stage = host.progress.currentStage;
    if (stage === undefined) return false;
    const stages: readonly string[] = hosts.progressStagesOf(host);
    const at = stages.indexOf(IMAGE_WRITTEN_AFTER);
    return at !== -1 && stages.indexOf(stage) > at;
  };
  return hosts.subscribe((host, previous) => {
    if (!written(host) || (previous !== undefined && written(previous))) return;
    provisioner.imageWritten({ namespace: host.namespace, name: host.id }, reader);
  });
}
