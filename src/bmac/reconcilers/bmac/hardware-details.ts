/**
 * The `inspect.metal3.io/hardwaredetails` annotation (assisted.md §1.8): in the non-converged
 * flow Ironic does not inspect the host, so the BMAC hands the BMO what the agent found, once,
 * in BMO's HardwareDetails JSON. Written only while the BMO has not taken it (no hostname in
 * status yet), since rewriting it on every pass would wake BMO and BMAC in turn forever.
 */
import { BmhAnnotation } from '../../api.js';
import { annotationsOf, hasAnnotation } from './model.js';
import type { Agent, BareMetalHost } from './model.js';
import { CONTINUE, STOP } from './pass.js';
import type { Pass, StepResult } from './pass.js';

const BYTES_PER_MIB = 1024 * 1024;

/**
 * BMO's HardwareDetails for `agent`, with BMO's field order and its Go encoder's omissions
 * (empty strings, zeros and empty lists are left out; the nested structs always appear).
 */
export function hardwareDetailsJson(agent: Agent): string {
  const inventory = agent.status?.inventory ?? {};
  const omit = <T extends object>(o: T): T =>
    Object.fromEntries(
      Object.entries(o).filter(
        ([, v]) =>
          v !== undefined &&
          v !== '' &&
          v !== 0 &&
          v !== false &&
          !(Array.isArray(v) && v.length === 0),
      ),
    ) as T;
  const nics = (inventory.interfaces ?? []).flatMap((nic) =>
    [...(nic.ipV6Addresses ?? []), ...(nic.ipV4Addresses ?? [])].map((ip) =>
      omit({
        name: nic.name,
        model: nic.vendor,
        mac: nic.macAddress,
        ip: ip.split('/')[0],
        speedGbps: Math.trunc((nic.speedMbps ?? 0) / 1024),
      }),
    ),
  );
  const storage = (inventory.disks ?? []).map((disk) =>
    omit({
      name: disk.byPath !== undefined && disk.byPath !== '' ? disk.byPath : disk.path,
      rotational: (disk.driveType ?? '').toUpperCase() === 'HDD',
      sizeBytes: disk.sizeBytes,
      vendor: disk.vendor,
      model: disk.model,
      serialNumber: disk.serial,
      wwn: disk.wwn,
      hctl: disk.hctl,
    }),
  );
  const physicalBytes = inventory.memory?.physicalBytes ?? 0;
  const cpu = inventory.cpu ?? {};
  const vendor = inventory.systemVendor ?? {};
  const hostname =
    agent.spec?.hostname !== undefined && agent.spec.hostname !== ''
      ? agent.spec.hostname
      : inventory.hostname;
  return JSON.stringify(
    omit({
      systemVendor: omit({
        manufacturer: vendor.manufacturer,
        productName: vendor.productName,
        serialNumber: vendor.serialNumber,
      }),
      firmware: { bios: {} },
      ramMebibytes: physicalBytes > 0 ? Math.trunc(physicalBytes / BYTES_PER_MIB) : 0,
      nics,
      storage,
      cpu: omit({
        arch: cpu.architecture,
        model: cpu.modelName,
        clockMegahertz: cpu.clockMegahertz,
        flags: cpu.flags,
        count: cpu.count,
      }),
      hostname,
    }),
  );
}

/**
 * Writes the annotation on `bmh` when the agent has reported NICs, the annotation is absent and
 * the BMO has no hostname in the host's status yet. @returns whether it wrote it
 */
export function setHardwareDetails(bmh: BareMetalHost, agent: Agent): boolean {
  if ((agent.status?.inventory?.interfaces ?? []).length === 0) return false;
  if (hasAnnotation(bmh.metadata, BmhAnnotation.HardwareDetails)) return false;
  const hostname = bmh.status?.hardware?.hostname;
  if (hostname !== undefined && hostname !== '') return false;
  annotationsOf(bmh.metadata)[BmhAnnotation.HardwareDetails] = hardwareDetailsJson(agent);
  return true;
}

/** reconcileAgentInventory: the pass ends after writing the annotation. */
export function reconcileHardwareDetails(pass: Pass): StepResult {
  if (pass.agent === undefined) return CONTINUE;
  if (!setHardwareDetails(pass.bmh, pass.agent)) return CONTINUE;
  pass.ctx.log.debug('hardware details from the agent inventory set on the host');
  return STOP;
}
