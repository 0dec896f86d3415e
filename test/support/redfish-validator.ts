/**
 * DMTF's Redfish Protocol Validator (PyPI `redfish-protocol-validator`) and Service Validator
 * (PyPI `redfish_service_validator`, part of the same dependency closure) in a project-local
 * virtualenv, `.cache/redfish-validator-venv`, created on first use like the sushy-tools one.
 * Its dependency closure is pinned (as resolved with Python 3.11) so every machine runs the same.
 *
 * The Service Validator checks every resource against DMTF's CSDL schemas (DSP8010). It would
 * download them from the DMTF site; these tests reach loopback only, so the schemas come from
 * the crates.io package `nv-redfish-schema`, which bundles DSP8010's CSDL files, fetched by cargo
 * with its checksum pinned in a lock file, into `.cache/redfish-csdl`.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The crate that carries DSP8010's CSDL, and its lock file (checksums verified by cargo). */
const CSDL_CRATE = { name: 'nv-redfish-schema', version: '0.10.1' };
const CSDL_LOCK = `version = 4

[[package]]
name = "csdl-fetch"
version = "0.0.0"
dependencies = [
 "nv-redfish-schema",
]

[[package]]
name = "glob"
version = "0.3.4"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "e4eba85ea1d0a966a983acd07deee566e67395d2d96b6fb39e62b5a833f1eb0b"

[[package]]
name = "nv-redfish-schema"
version = "0.10.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "1bdee22eb005df9021012e5014584c282b50b6d80c3aa49aca5480760920b05d"
dependencies = [
 "glob",
]
`;

const csdlDir = join(repoRoot, '.cache', 'redfish-csdl');

/**
 * Fetches DSP8010's CSDL schema files once (cargo, from crates.io, checksum-locked) and returns
 * the directory that holds them, for `rf_service_validator --schema_directory`.
 */
export async function ensureRedfishCsdl(): Promise<string> {
  const marker = join(csdlDir, '.siteforge-pins');
  const pins = `${CSDL_LOCK}\n`;
  if (existsSync(marker) && readFileSync(marker, 'utf8') === pins) return csdlDir;
  rmSync(csdlDir, { recursive: true, force: true });
  const project = join(csdlDir, 'fetch');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'Cargo.toml'),
    [
      '[package]',
      'name = "csdl-fetch"',
      'version = "0.0.0"',
      'edition = "2021"',
      'publish = false',
      '[lib]',
      'path = "lib.rs"',
      '[dependencies]',
      `${CSDL_CRATE.name} = "=${CSDL_CRATE.version}"`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(project, 'lib.rs'), '');
  writeFileSync(join(project, 'Cargo.lock'), CSDL_LOCK);
  const cargo = (args: string[]) =>
    run('cargo', args, { cwd: project, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  await cargo(['fetch', '--locked']).catch((err: unknown) => {
    throw new Error(
      `cargo could not fetch ${CSDL_CRATE.name} ${CSDL_CRATE.version} (the Redfish CSDL ` +
        `schemas for the Service Validator): ${(err as Error).message}`,
    );
  });
  const { stdout } = await cargo(['metadata', '--locked', '--offline', '--format-version', '1']);
  const crate = (
    JSON.parse(stdout) as { packages: { name: string; manifest_path: string }[] }
  ).packages.find((p) => p.name === CSDL_CRATE.name);
  if (crate === undefined) throw new Error(`cargo metadata does not list ${CSDL_CRATE.name}`);
  const from = join(dirname(crate.manifest_path), 'redfish-csdl', 'csdl');
  const files = readdirSync(from).filter((f) => f.endsWith('.xml'));
  if (files.length < 100) throw new Error(`${from} holds only ${String(files.length)} schemas`);
  for (const file of files) copyFileSync(join(from, file), join(csdlDir, file));
  rmSync(project, { recursive: true, force: true });
  writeFileSync(marker, pins); // last, so a half-made directory is never taken for a good one
  return csdlDir;
}

/** One property (or resource-level) result of the Service Validator. */
export interface ServiceValidatorResult {
  /** The resource, e.g. `/redfish/v1/Managers/BMC`. */
  readonly uri: string;
  /** The property path, e.g. `/@odata.type`; empty for the resource as a whole. */
  readonly property: string;
  readonly result: 'PASS' | 'WARN' | 'FAIL' | 'SKIP';
  /** How the value read, e.g. `[Not Present]` or `[Link to: /redfish/v1/Managers/1]`. */
  readonly value: string | null;
  readonly message: string;
}

/**
 * Runs the validator as its console script does, and writes every result it collected as JSON
 * to the file named by argv[1] (its own reports are HTML and XLSX). Version-pinned, so the
 * private `_resources` it reads is stable.
 */
const SERVICE_VALIDATOR_DRIVER = `
import json, sys
from redfish_service_validator import console_scripts, report
out = sys.argv.pop(1)
html_report = report.html_report
def dump_then_report(sut, *args, **kwargs):
    with open(out, "w") as f:
        json.dump([
            {"uri": uri, "property": prop, "result": r["Result"], "value": r["Value"],
             "message": r["Message"]}
            for uri, resource in sut._resources.items()
            for prop, r in resource["Results"].items()
        ], f)
    return html_report(sut, *args, **kwargs)
report.html_report = dump_then_report
sys.exit(console_scripts.main())
`;

/**
 * Runs DMTF's Redfish Service Validator against `rhost` with the local CSDL schemas (no
 * download), logging in with a session as a BMC client would; returns every result.
 * @param caBundle the CA of an HTTPS service (requests reads REQUESTS_CA_BUNDLE)
 */
export async function runServiceValidator(
  rhost: string,
  credentials: { readonly username: string; readonly password: string },
  reportDir: string,
  caBundle?: string,
): Promise<ServiceValidatorResult[]> {
  await ensureProtocolValidator(); // the same virtualenv
  const schemas = await ensureRedfishCsdl();
  mkdirSync(reportDir, { recursive: true });
  const out = join(reportDir, 'results.json');
  // It exits 1 when anything fails; the results say what.
  await run(
    join(venv, 'bin', 'python'),
    [
      '-c',
      SERVICE_VALIDATOR_DRIVER,
      out,
      ...['-r', rhost, '-u', credentials.username, '-p', credentials.password],
      ...['--authtype', 'Session', '--schema_directory', schemas, '--skipschema'],
      ...['--logdir', reportDir],
    ],
    {
      cwd: reportDir,
      timeout: 180_000,
      env: { ...process.env, ...(caBundle === undefined ? {} : { REQUESTS_CA_BUNDLE: caBundle }) },
    },
  ).catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 1) throw err;
  });
  if (!existsSync(out)) throw new Error(`rf_service_validator wrote no results in ${out}`);
  return JSON.parse(readFileSync(out, 'utf8')) as ServiceValidatorResult[];
}
