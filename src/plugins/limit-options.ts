/**
 * Where the limits of a run come from at the edges: the defaults of src/shared/limits.ts, then
 * `SITEFORGE_LIMIT_<NAME>` variables, then `--limit NAME=VALUE` flags (the CLI only). In Argo CD
 * only the sidecar's own environment can set them: Applications reach the plugin through
 * `ARGOCD_ENV_*` and `PARAM_*` variables, which never carry these names.
 */
import { UsageError } from '../shared/errors.js';
import { defaultLimits, limitEnvName, limitFlagName } from '../shared/limits.js';
import type { Limits } from '../shared/limits.js';

const LIMIT_NAMES = Object.keys(defaultLimits) as (keyof Limits)[];

/** Suffixes a byte limit may carry, as in Kubernetes quantities. */
const BYTE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
};

/**
 * The limits of a run: `env` (`SITEFORGE_LIMIT_FILE_BYTES=64Mi`) over the defaults, `flags`
 * (`file-bytes=64Mi`, as given to `--limit`) over both. Throws a UsageError listing every
 * unknown name and bad value.
 */
export function readLimits(
  env: Readonly<Record<string, string | undefined>>,
  flags: readonly string[] = [],
): Limits {
  const limits: Record<keyof Limits, number> = { ...defaultLimits };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('SITEFORGE_LIMIT_') || value === undefined) continue;
    const name = LIMIT_NAMES.find((n) => limitEnvName(n) === key);
    if (name === undefined) problems.push(`unknown limit ${key}; ${known('env')}`);
    else setLimit(limits, name, value, key, problems);
  }
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const given = eq < 0 ? flag : flag.slice(0, eq);
    const name = LIMIT_NAMES.find((n) => limitFlagName(n) === given);
    if (eq < 0) problems.push(`--limit ${flag}: give NAME=VALUE, e.g. --limit file-bytes=64Mi`);
    else if (name === undefined) problems.push(`--limit ${given}: unknown limit; ${known('flag')}`);
    else setLimit(limits, name, flag.slice(eq + 1), `--limit ${given}`, problems);
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n  '));
  return limits;
}

function setLimit(
  limits: Record<keyof Limits, number>,
  name: keyof Limits,
  text: string,
  source: string,
  problems: string[],
): void {
  const bytes = name.endsWith('Bytes');
  const match = /^([0-9]{1,15})(Ki|Mi|Gi)?$/.exec(text.trim());
  const value = match && (bytes || !match[2]) ? Number(match[1]) * BYTE_UNITS[match[2] ?? '']! : 0;
  if (value >= 1 && Number.isSafeInteger(value)) limits[name] = value;
  else
    problems.push(
      `${source}: "${text.slice(0, 40)}" is not a whole number above 0${bytes ? ' (Ki, Mi and Gi suffixes allowed)' : ''}`,
    );
}

function known(form: 'env' | 'flag'): string {
  const names = LIMIT_NAMES.map(form === 'env' ? limitEnvName : limitFlagName);
  return `the limits are ${names.join(', ')}`;
}
