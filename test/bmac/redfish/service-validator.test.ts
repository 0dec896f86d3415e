import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONALITIES, startSimulatedBmc } from '../../../src/bmac/redfish/sim/index.js';
import { runServiceValidator } from '../../support/redfish-validator.js';
import type { ServiceValidatorResult } from '../../support/redfish-validator.js';

/**
 * What the validator reports on purpose: a vendor's layout that the simulator reproduces
 * because the client must cope with it. Any other FAIL or WARN is a regression. (docs/redfish.md
 * lists the same.)
 */
const DELIBERATE: readonly {
  readonly personalities: readonly string[];
  readonly result: 'FAIL' | 'WARN';
  readonly uri: RegExp;
  readonly property: RegExp;
  readonly message: RegExp;
  readonly why: string;
}[] = [
  {
    personalities: ['ilo6', 'supermicro', 'lenovo-xcc'],
    result: 'WARN',
    uri: /^\/redfish\/v1\/Managers\/[^/]+(\/VirtualMedia(\/[^/]+)?)?$/,
    property: /^\/(@odata\.id|VirtualMedia)$/,
    message: /^Deprecated (URI|Property) Warning/,
    why:
      'HPE iLO, Supermicro and Lenovo XCC serve VirtualMedia under the Manager, the location ' +
      'DMTF deprecated (VirtualMedia 1.6, 2022.3); the client falls back to it from the System',
  },
  {
    personalities: ['ilo6'],
    result: 'WARN',
    uri: /^\/redfish\/v1\/Managers\/1\/VirtualMedia\/[12]$/,
    property: /^\/ImageName$/,
    message: /^Empty String Warning/,
    why: 'HPE iLO reports an empty slot with Image and ImageName "" instead of null',
  },
  {
    personalities: ['idrac9', 'idrac10'],
    result: 'FAIL',
    uri: /^\/redfish\/v1\/Managers\/iDRAC\.Embedded\.1$/,
    property:
      /^\/Actions\/Oem\/#OemManager\.v1_4_0\.OemManager#OemManager\.ImportSystemConfiguration$/,
    message: /^Unknown Property Error/,
    why:
      'Dell’s OEM ImportSystemConfiguration action (what idrac-virtualmedia:// boots with) is ' +
      'defined by Dell’s OEM CSDL, which a real iDRAC serves and the simulator does not have',
  },
];

/** Which entry of DELIBERATE explains a FAIL or WARN on personality `name`, if any. */
function explained(name: string, r: ServiceValidatorResult): number {
  return DELIBERATE.findIndex(
    (d) =>
      d.personalities.includes(name) &&
      d.result === r.result &&
      d.uri.test(r.uri) &&
      d.property.test(r.property) &&
      d.message.test(r.message),
  );
}

const findings = (results: readonly ServiceValidatorResult[]) =>
  results.filter((r) => r.result === 'FAIL' || r.result === 'WARN');

// DMTF's Redfish Service Validator reads every resource the simulated BMC links, against the
// CSDL schemas, for every vendor personality: the simulator must look like a conformant BMC
// (or a faithfully reproduced vendor), or the client is tested against something no BMC is.
describe('the DMTF Redfish Service Validator on every simulated personality', () => {
  const dir = mkdtempSync(join(tmpdir(), 'siteforge-rfsv-'));
  const reports = new Map<string, ServiceValidatorResult[]>();

  beforeAll(async () => {
    // One at a time: each run is a Python process and the machine has two cores.
    for (const [name, personality] of Object.entries(PERSONALITIES)) {
      const bmc = await startSimulatedBmc({ personality: { ...personality, powerDelayMs: 0 } });
      try {
        reports.set(name, await runServiceValidator(bmc.origin, bmc.credentials, join(dir, name)));
      } finally {
        await bmc.stop();
      }
    }
  }, 600_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(PERSONALITIES))('validates %s: no FAIL or WARN left unexplained', (name) => {
    const results = reports.get(name) ?? [];
    // It read the whole tree: the System, its slots and the validator's own session.
    const validated = new Set(results.filter((r) => r.result === 'PASS').map((r) => r.uri));
    expect(validated.size).toBeGreaterThanOrEqual(8);
    expect([...validated].some((uri) => /\/VirtualMedia\/[^/]+$/.test(uri))).toBe(true);
    expect([...validated].some((uri) => /\/SessionService\/Sessions\/[^/]+$/.test(uri))).toBe(true);

    const unexplained = findings(results)
      .filter((r) => explained(name, r) < 0)
      .map((r) => `${r.result} ${r.uri} ${r.property} ${r.value ?? ''}: ${r.message}`);
    expect(unexplained).toEqual([]);
  });

  it('still sees every deliberate finding on each personality it names', () => {
    const seen = DELIBERATE.map(() => new Set<string>());
    for (const [name, results] of reports)
      for (const r of findings(results)) seen[explained(name, r)]?.add(name);
    expect(seen.map((names) => [...names].sort())).toEqual(
      DELIBERATE.map((d) => [...d.personalities].sort()),
    );
  });
});
