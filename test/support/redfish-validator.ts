/**
 * DMTF's Redfish Protocol Validator (PyPI `redfish-protocol-validator`) in a project-local
 * virtualenv, `.cache/redfish-validator-venv`, created on first use like the sushy-tools one.
 * Its dependency closure is pinned (as resolved with Python 3.11) so every machine runs the same.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './sites.js';

const run = promisify(execFile);

const PINS = [
  'redfish-protocol-validator==1.3.2',
  'aenum==3.1.17',
  'backports.zstd==1.8.0',
  'certifi==2026.10.18',
  'cffi==2.1.1',
  'charset-normalizer==3.5.2',
  'colorama==0.4.6',
  'cryptography==50.0.2',
  'et_xmlfile==2.0.0',
  'idna==3.20',
  'jsonpatch==1.47',
  'jsonpath-ng==1.16.0',
  'jsonpointer==3.12',
  'openpyxl==3.1.5',
  'pyasn1==0.6.5',
  'pyasn1_modules==0.4.2',
  'pycparser==3.12',
  'pyOpenSSL==26.4.0',
  'redfish==3.4.2',
  'redfish_service_validator==3.1.8',
  'redfish_utilities==3.5.2',
  'requests==2.34.2',
  'requests-toolbelt==1.0.0',
  'requests-unixsocket==0.4.1',
  'sseclient-py==1.9.0',
  'typing_extensions==4.16.0',
  'urllib3==2.8.0',
  'xlsxwriter==3.3.1',
];

const venv = join(repoRoot, '.cache', 'redfish-validator-venv');

/** Creates or reuses the virtualenv; returns the path of rf_protocol_validator. */
export async function ensureProtocolValidator(): Promise<string> {
  const exe = join(venv, 'bin', 'rf_protocol_validator');
  const marker = join(venv, '.siteforge-pins');
  const pins = `${PINS.join('\n')}\n`;
  if (existsSync(exe) && existsSync(marker) && readFileSync(marker, 'utf8') === pins) return exe;
  rmSync(venv, { recursive: true, force: true });
  await run('python3', ['-m', 'venv', venv]);
  const constraints = join(venv, 'constraints.txt');
  writeFileSync(constraints, pins);
  await run(
    join(venv, 'bin', 'pip'),
    ['install', '-q', '--disable-pip-version-check', PINS[0]!, '-c', constraints],
    { timeout: 300_000 },
  );
  if (!existsSync(exe)) throw new Error(`pip installed the validator but ${exe} is missing`);
  writeFileSync(marker, pins); // last, so a half-made venv is never taken for a good one
  return exe;
}

/** One row of the validator's TSV report. */
export interface ValidatorResult {
  readonly assertion: string;
  readonly method: string;
  readonly status: string;
  readonly uri: string;
  readonly result: 'PASS' | 'WARN' | 'FAIL' | 'NOT_TESTED';
  readonly message: string;
}

/**
 * Runs the validator against `rhost`; returns every row of its report.
 * @param caBundle the CA of an HTTPS service. Validator 1.3.2 ignores --no-cert-check and
 *   --ca-bundle on its unauthenticated requests (CERTIFICATE_VERIFY_FAILED: self-signed
 *   certificate), so the bundle also goes to REQUESTS_CA_BUNDLE, which requests always reads.
 */
export async function runProtocolValidator(
  rhost: string,
  credentials: { readonly username: string; readonly password: string },
  reportDir: string,
  caBundle?: string,
): Promise<ValidatorResult[]> {
  const exe = await ensureProtocolValidator();
  // It exits 1 when anything fails; the report says what.
  await run(
    exe,
    [
      '-r',
      rhost,
      '-u',
      credentials.username,
      '-p',
      credentials.password,
      '--report-dir',
      reportDir,
      '--report-type',
      'tsv',
      ...(caBundle === undefined ? [] : ['--ca-bundle', caBundle]),
    ],
    {
      cwd: reportDir.replace(/\/[^/]+$/, ''),
      timeout: 180_000,
      env: { ...process.env, ...(caBundle === undefined ? {} : { REQUESTS_CA_BUNDLE: caBundle }) },
    },
  ).catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 1) throw err;
  });
  const { readdirSync } = await import('node:fs');
  const tsv = readdirSync(reportDir).find((f) => f.endsWith('.tsv'));
  if (tsv === undefined)
    throw new Error(`rf_protocol_validator wrote no TSV report in ${reportDir}`);
  const [, ...rows] = readFileSync(join(reportDir, tsv), 'utf8').trim().split('\n');
  return rows.map((row) => {
    const [assertion = '', method = '', status = '', uri = '', result = '', message = ''] =
      row.split('\t');
    return { assertion, method, status, uri, result: result as ValidatorResult['result'], message };
  });
}
