/**
 * From a BareMetalHost `spec.bmc.address` to where the Redfish service is, the way BMO maps it
 * for ironic (`pkg/hardwareutils/bmc/redfish.go getRedfishAddress/DriverInfo`).
 */
import { parseBmcLocation } from '../../shared/bmc-address.js';
import { RedfishError, RedfishErrorCode } from './errors.js';

/** Where a BMC's Redfish service is and how to reach it. */
export interface RedfishEndpoint {
  /** `http(s)://host[:port]`: the `+http`/`+https` suffix of the scheme, else https. */
  readonly origin: string;
  /**
   * The System the address names, e.g. `/redfish/v1/Systems/1`.
   * @default - none: the BMC's only System is used
   */
  readonly systemPath: string | undefined;
  /** The BMO scheme without transport, e.g. `idrac-virtualmedia`. */
  readonly scheme: string;
  /** Whether the scheme boots through virtual media. */
  readonly virtualMedia: boolean;
}

/** BMO schemes that are not Redfish at all. */
const NOT_REDFISH = new Set(['ipmi', 'libvirt']);

/**
 * Parses every scheme a BareMetalHost may carry (`redfish`, `redfish-virtualmedia`,
 * `ilo5-*`, `idrac-*`, `redfish-uefihttp`, each with `+http`/`+https`, the opaque
 * `redfish:1.2.3.4` form, IPv6 literals).
 * @throws RedfishError `REDFISH_ADDRESS` for IPMI/libvirt, a broken URL, or a Manager path
 */
export function parseRedfishAddress(address: string): RedfishEndpoint {
  const parsed = parseBmcLocation(address);
  const fail = (summary: string): never => {
    throw new RedfishError(RedfishErrorCode.Address, summary, {
      method: 'PARSE',
      path: address,
    });
  };
  if ('problem' in parsed) return fail(`${parsed.problem}; ${parsed.hint}`);
  if (NOT_REDFISH.has(parsed.scheme))
    return fail(`scheme "${parsed.scheme}" is not Redfish; use redfish-virtualmedia://`);
  const trimmed = parsed.path.replace(/^\/+|\/+$/g, '');
  let systemPath: string | undefined;
  if (trimmed !== '' && trimmed !== 'redfish/v1') {
    systemPath = `/${trimmed}`;
    // BMO passes the path to ironic as redfish_system_id, which must be a System
    // (metal3-io/baremetal-operator#896); a Manager path would fail much later.
    if (!/^\/redfish\/v1\/Systems\/[^/]+$/.test(systemPath))
      return fail(`path "${systemPath}" is not a System; use /redfish/v1/Systems/{id} or none`);
  }
  const port = parsed.port === undefined ? '' : `:${String(parsed.port)}`;
  return {
    origin: `${parsed.transport}://${parsed.host}${port}`,
    systemPath,
    scheme: parsed.scheme,
    virtualMedia: parsed.virtualMedia,
  };
}
