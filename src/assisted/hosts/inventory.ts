/**
 * The inventory in its three forms: as the agent sends it (wire, snake_case), as the host
 * record keeps it (virtual interfaces dropped, disk ids filled in, as upstream's
 * updateInventory), and as the Agent's `status.inventory` shows it (the CRD's camelCase form,
 * which the BMAC reads to pair Agents with BareMetalHosts by `interfaces[].macAddress`).
 * Also the inventory labels the agent controller puts on an Agent (assisted.md §8).
 */
import type { WireDisk, WireInventory } from '../model.js';
import { AgentLabel } from './agent-names.js';

type Json = Record<string, unknown>;

/** Interface types kept by default (an empty type is an older agent's physical interface). */
const KEPT_INTERFACE_TYPES = new Set(['', 'physical', 'vlan', 'bond']);

/** `/dev/<name>`, the disk's device path as upstream names it. */
export function deviceFullName(disk: WireDisk): string {
  return `/dev/${disk.name ?? ''}`;
}

/** The disk's identifier: its id, else its device path. */
export function diskIdentifier(disk: WireDisk): string {
  return disk.id !== undefined && disk.id !== '' ? disk.id : deviceFullName(disk);
}

/** The inventory the host record keeps from an inventory reply. */
export function normalizeInventory(inventory: WireInventory): WireInventory {
  return {
    ...inventory,
    ...(inventory.interfaces !== undefined && {
      interfaces: inventory.interfaces.filter((i) => KEPT_INTERFACE_TYPES.has(i.type ?? '')),
    }),
    ...(inventory.disks !== undefined && {
      disks: inventory.disks.map((d) => ({ ...d, id: diskIdentifier(d) })),
    }),
  };
}

/** The disk `path` names: its id, device path, by-path or by-id name. */
export function findDisk(inventory: WireInventory | undefined, path: string): WireDisk | undefined {
  return inventory?.disks?.find(
    (d) =>
      diskIdentifier(d) === path ||
      deviceFullName(d) === path ||
      (d.by_path !== undefined && d.by_path === path) ||
      (d.by_id !== undefined && d.by_id === path),
  );
}

function defined(entries: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out;
}

/** `status.inventory` of an Agent, in the fields and spelling of the Agent CRD. */
export function agentInventory(inventory: WireInventory): Json {
  const { cpu, memory, boot, system_vendor: vendor } = inventory;
  return defined({
    hostname: inventory.hostname,
    bmcAddress: inventory.bmc_address,
    bmcV6Address: inventory.bmc_v6address,
    memory:
      memory && defined({ physicalBytes: memory.physical_bytes, usableBytes: memory.usable_bytes }),
    cpu:
      cpu &&
      defined({
        count: cpu.count,
        clockMegahertz: cpu.frequency === undefined ? undefined : Math.trunc(cpu.frequency),
        flags: cpu.flags,
        modelName: cpu.model_name,
        architecture: cpu.architecture,
      }),
    boot:
      boot &&
      defined({
        currentBootMode: boot.current_boot_mode,
        pxeInterface: boot.pxe_interface,
        deviceType: boot.device_type,
      }),
    systemVendor:
      vendor &&
      defined({
        serialNumber: vendor.serial_number,
        productName: vendor.product_name,
        manufacturer: vendor.manufacturer,
        virtual: vendor.virtual,
      }),
    interfaces: inventory.interfaces?.map((i) =>
      defined({
        ipV6Addresses: i.ipv6_addresses ?? [],
        ipV4Addresses: i.ipv4_addresses ?? [],
        flags: i.flags ?? [],
        vendor: i.vendor,
        name: i.name,
        hasCarrier: i.has_carrier,
        product: i.product,
        mtu: i.mtu,
        biosDevName: i.biosdevname,
        clientID: i.client_id,
        macAddress: i.mac_address,
        speedMbps: i.speed_mbps,
      }),
    ),
    disks: inventory.disks?.map((d) =>
      defined({
        id: d.id ?? '',
        byID: d.by_id,
        driveType: d.drive_type,
        vendor: d.vendor,
        name: d.name,
        path: d.path,
        hctl: d.hctl,
        byPath: d.by_path,
        model: d.model,
        wwn: d.wwn,
        serial: d.serial,
        sizeBytes: d.size_bytes,
        bootable: d.bootable,
        smart: d.smart,
        installationEligibility: defined({
          eligible: d.installation_eligibility?.eligible,
          notEligibleReasons: d.installation_eligibility?.not_eligible_reasons ?? [],
        }),
        ioPerf: d.io_perf && defined({ syncDurationMilliseconds: d.io_perf.sync_duration }),
      }),
    ),
    gpus: inventory.gpus?.map((g) =>
      defined({
        address: g['address'],
        deviceID: g['device_id'],
        name: g['name'],
        vendor: g['vendor'],
        vendorID: g['vendor_id'],
      }),
    ),
  });
}

/** Label values may hold only alphanumerics, `-`, `_`, `.`, and start and end alphanumeric. */
function labelValue(value: string): string | undefined {
  const cleaned = value.replace(/[^-A-Za-z0-9_.]+/g, '');
  return /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(cleaned) && cleaned.length <= 63
    ? cleaned
    : undefined;
}

/**
 * The inventory labels of an Agent (upstream's updateLabels); a value that cannot be a label
 * value is left out, as upstream skips it. `clusterDeploymentNamespace` is `''` when unbound.
 */
export function inventoryLabels(
  inventory: WireInventory,
  clusterDeploymentNamespace: string,
): Record<string, string> {
  const flags = inventory.cpu?.flags ?? [];
  const candidates: Record<string, string> = {
    [AgentLabel.HasNonrotationalDisk]: String(
      (inventory.disks ?? []).some((d) => d.drive_type === 'SSD'),
    ),
    [AgentLabel.CpuArchitecture]: inventory.cpu?.architecture ?? '',
    [AgentLabel.CpuVirtEnabled]: String(flags.includes('vmx') || flags.includes('svm')),
    [AgentLabel.HostManufacturer]: inventory.system_vendor?.manufacturer ?? '',
    [AgentLabel.HostProductName]: inventory.system_vendor?.product_name ?? '',
    [AgentLabel.HostIsVirtual]: String(inventory.system_vendor?.virtual ?? false),
    [AgentLabel.ClusterDeploymentNamespace]: clusterDeploymentNamespace,
  };
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(candidates)) {
    const v = labelValue(value);
    if (v !== undefined) labels[key] = v;
  }
  return labels;
}
