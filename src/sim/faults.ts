/**
 * Faults of simulated hosts, by configuration: `TARGET=KIND[:STAGE]`, where TARGET is a
 * cluster name (every host of the site) or a BareMetalHost name (one host).
 */
import { UsageError } from '../shared/errors.js';

/** What can go wrong with a simulated host. */
export const FaultKind = {
  /** Its BMC answers every change (insert, boot override, power) with 500. */
  BmcErrors: 'bmc-errors',
  /** Its BMC answers a third of all requests with 503 (retries get through). */
  BmcFlaky: 'bmc-flaky',
  /** It never comes out of POST: the BMC powers it on, nothing boots. */
  NeverBoots: 'never-boots',
  /** Its network goes away after it reports STAGE (default `Writing image to disk`). */
  Disconnect: 'disconnect',
  /** Its installer hangs after reporting STAGE (default `Writing image to disk`); the agent still checks in. */
  StageTimeout: 'stage-timeout',
  /** Its NIC's MAC is not the boot MAC its BareMetalHost names (mis-wired or mistyped). */
  WrongMac: 'wrong-mac',
  /** 2 CPU cores and 4 GiB of RAM: below every role's minimum. */
  TooSmall: 'too-small',
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

/** The faults of one host. Plain data. */
export interface HostFaults {
  readonly bmcErrors?: boolean;
  readonly bmcFlaky?: boolean;
  readonly neverBoots?: boolean;
  /** The stage after which the host's network goes away. */
  readonly disconnectAfter?: string;
  /** The stage after which the installer reports nothing more. */
  readonly hangAfter?: string;
  readonly wrongMac?: boolean;
  readonly tooSmall?: boolean;
}

/** One `--fault` as given. */
export interface FaultRule {
  readonly target: string;
  readonly kind: FaultKind;
  readonly stage?: string;
}

const DEFAULT_STAGE = 'Writing image to disk';

/**
 * Parses `TARGET=KIND[:STAGE]`.
 * @throws UsageError saying what is wrong and what is expected
 */
export function parseFaultRule(text: string): FaultRule {
  const eq = text.indexOf('=');
  const kinds = Object.values(FaultKind).join(', ');
  if (eq <= 0)
    throw new UsageError(
      `--fault takes TARGET=KIND[:STAGE] (TARGET a cluster or BareMetalHost name, KIND one of ${kinds}), not "${text}"`,
    );
  const target = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  const kind = colon < 0 ? rest : rest.slice(0, colon);
  const stage = colon < 0 ? undefined : rest.slice(colon + 1);
  if (!(Object.values(FaultKind) as string[]).includes(kind))
    throw new UsageError(`--fault ${text}: "${kind}" is no fault; use one of ${kinds}`);
  if (stage !== undefined && kind !== FaultKind.Disconnect && kind !== FaultKind.StageTimeout)
    throw new UsageError(`--fault ${text}: only disconnect and stage-timeout take a :STAGE`);
  if (stage === '') throw new UsageError(`--fault ${text}: the stage after ':' is empty`);
  return { target, kind: kind as FaultKind, ...(stage !== undefined && { stage }) };
}

/** The faults `rules` give the host `name` of cluster `cluster`. */
export function faultsFor(
  rules: readonly FaultRule[],
  host: { readonly name: string; readonly cluster: string },
): HostFaults {
  const faults: { -readonly [K in keyof HostFaults]: HostFaults[K] } = {};
  for (const rule of rules) {
    if (rule.target !== host.name && rule.target !== host.cluster) continue;
    switch (rule.kind) {
      case FaultKind.BmcErrors:
        faults.bmcErrors = true;
        break;
      case FaultKind.BmcFlaky:
        faults.bmcFlaky = true;
        break;
      case FaultKind.NeverBoots:
        faults.neverBoots = true;
        break;
      case FaultKind.Disconnect:
        faults.disconnectAfter = rule.stage ?? DEFAULT_STAGE;
        break;
      case FaultKind.StageTimeout:
        faults.hangAfter = rule.stage ?? DEFAULT_STAGE;
        break;
      case FaultKind.WrongMac:
        faults.wrongMac = true;
        break;
      case FaultKind.TooSmall:
        faults.tooSmall = true;
        break;
    }
  }
  return faults;
}

/** Targets of `rules` that name neither a cluster nor a host (a typo the user must hear of). */
export function unmatchedTargets(
  rules: readonly FaultRule[],
  hosts: readonly { readonly name: string; readonly cluster: string }[],
): string[] {
  return rules
    .map((r) => r.target)
    .filter((t) => !hosts.some((h) => h.name === t || h.cluster === t));
}
