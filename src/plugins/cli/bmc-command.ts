/**
 * `siteforge bmc info|power|boot-iso|eject`: drive one BMC by hand, for operators debugging a
 * host, through the same RedfishClient and bootFromIso the controller uses. Credentials are
 * read from files (never from argv, where `ps` shows them) and never printed. Results go to
 * stdout as JSON; progress goes to stderr.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { credentialText } from '../../shared/credential-text.js';
import { UsageError } from '../../shared/errors.js';
import { bootFromIso, RedfishError, UndiciRedfishClient } from '../../bmac/redfish/index.js';
import type { PowerAction, UndiciRedfishClientOptions } from '../../bmac/redfish/index.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from './cli-io.js';

const USAGE = `Usage: siteforge bmc <command> --address URL --username-file FILE --password-file FILE

Commands:
  info                 the System, its power and boot override, the virtual-media slots
  power on|off|restart|status
                       power the host on (On), off (ForceOff) or restart it (ForceRestart),
                       waiting until the BMC reports the new state
  boot-iso --image URL one-time boot from URL through virtual media (power off, eject, insert,
                       boot override, power on), as the controller does it
  eject                eject every virtual CD; fails when a slot holds media that it
                       offers no way to eject (eject it from the BMC's console)

Options:
  --address URL        the BareMetalHost spec.bmc.address, e.g.
                       redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1
  --username-file FILE, --password-file FILE
                       files holding the BMC credentials (a trailing newline is ignored)
  --disable-certificate-verification
                       do not verify the BMC's TLS certificate (BMH disableCertificateVerification)
  --ca FILE            trust this CA bundle for the BMC's certificate
  --boot-mode UEFI|Legacy
                       boot-iso: firmware boot mode (default UEFI)

Exit codes: 0 success, 1 the BMC refused or failed, 2 usage error, 3 the BMC is unreachable.
`;

interface BmcArgs {
  command: string | undefined;
  positional: string[];
  address?: string;
  usernameFile?: string;
  passwordFile?: string;
  insecure: boolean;
  ca?: string;
  image?: string;
  bootMode?: string;
  help: boolean;
}

const VALUED = new Set([
  '--address',
  '--username-file',
  '--password-file',
  '--ca',
  '--image',
  '--boot-mode',
]);

function parseBmcArgs(argv: readonly string[]): BmcArgs {
  const args: BmcArgs = { command: undefined, positional: [], insecure: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (VALUED.has(name)) {
      const value = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
      const key = {
        '--address': 'address',
        '--username-file': 'usernameFile',
        '--password-file': 'passwordFile',
        '--ca': 'ca',
        '--image': 'image',
        '--boot-mode': 'bootMode',
      }[name] as 'address' | 'usernameFile' | 'passwordFile' | 'ca' | 'image' | 'bootMode';
      args[key] = value;
    } else if (arg === '--disable-certificate-verification' || arg === '--insecure') {
      args.insecure = true;
    } else if (arg === '-h' || arg === '--help') {
      args.help = true;
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown bmc option ${arg}`);
    } else if (args.command === undefined) {
      args.command = arg;
    } else {
      args.positional.push(arg);
    }
  }
  return args;
}

const POWER: Readonly<Record<string, PowerAction | 'status'>> = {
  on: 'On',
  off: 'ForceOff',
  restart: 'ForceRestart',
  status: 'status',
};

/**
 * Runs a `siteforge bmc` command.
 * @param clientOptions extra client options (tests: fast polling)
 */
export async function runBmcCommand(
  argv: readonly string[],
  io: CliIo,
  clientOptions: Partial<UndiciRedfishClientOptions> = {},
): Promise<number> {
  const args = parseBmcArgs(argv);
  if (args.help || args.command === undefined) {
    (args.help ? io.stdout : io.stderr)(USAGE);
    return args.help ? ExitCode.Ok : ExitCode.Usage;
  }
  const command = args.command;
  if (!['info', 'power', 'boot-iso', 'eject'].includes(command))
    throw new UsageError(`unknown bmc command "${command}"`);
  const power = command === 'power' ? POWER[args.positional[0] ?? ''] : undefined;
  if (command === 'power' && (power === undefined || args.positional.length !== 1))
    throw new UsageError('bmc power needs one of on, off, restart, status');
  if (command !== 'power' && args.positional.length > 0)
    throw new UsageError(`bmc ${command} takes no arguments`);
  if (command === 'boot-iso' && args.image === undefined)
    throw new UsageError('bmc boot-iso needs --image URL');
  if (command !== 'boot-iso' && (args.image !== undefined || args.bootMode !== undefined))
    throw new UsageError('--image and --boot-mode only apply to boot-iso');
  if (args.bootMode !== undefined && args.bootMode !== 'UEFI' && args.bootMode !== 'Legacy')
    throw new UsageError('--boot-mode must be UEFI or Legacy');
  if (args.address === undefined) throw new UsageError('bmc needs --address URL');
  if (args.usernameFile === undefined || args.passwordFile === undefined)
    throw new UsageError('bmc needs --username-file and --password-file');

  const credentials = {
    username: readSecret(args.usernameFile, io.cwd, '--username-file'),
    password: readSecret(args.passwordFile, io.cwd, '--password-file'),
  };
  const client = new UndiciRedfishClient({
    // An operator at a terminal wants an answer within seconds, not the controller's ~100 s
    // of patience with a BMC that does not answer.
    retry: { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 4_000 },
    ...clientOptions,
    address: args.address,
    credentials,
    disableCertificateVerification: args.insecure,
    ...(args.ca === undefined ? {} : { ca: readOptionFile(args.ca, io.cwd, '--ca') }),
  });
  const print = (value: unknown): void => {
    io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  };
  try {
    switch (command) {
      case 'info':
        print(await client.discover());
        break;
      case 'power':
        print({
          powerState:
            power === 'status' || power === undefined
              ? (await client.getSystem()).powerState
              : await client.setPower(power),
        });
        break;
      case 'eject':
        await client.ejectMedia();
        print({ slots: await client.getMediaSlots() });
        break;
      case 'boot-iso': {
        const result = await bootFromIso(client, args.image!, {
          bootMode: args.bootMode === 'Legacy' ? 'Legacy' : 'UEFI',
          checkpoint: (progress) => {
            io.stderr(`siteforge bmc: ${progress.step}\n`);
          },
        });
        print(result);
        break;
      }
    }
    return ExitCode.Ok;
  } catch (err) {
    // A BMC that cannot be reached at all (not one that answered, nor a wait that ran out).
    if (err instanceof RedfishError && err.status === undefined && err.cause !== undefined) {
      io.stderr(`siteforge: ${err.message}\n`);
      if (isCertificateError(err.cause))
        io.stderr(
          'hint: the BMC’s TLS certificate is not signed by a CA this machine trusts: give its ' +
            'CA with --ca FILE, or skip verification with --disable-certificate-verification ' +
            '(disableCertificateVerification: true on the BareMetalHost)\n',
        );
      return ExitCode.Unreachable;
    }
    throw err;
  } finally {
    await client.close();
  }
}

/** OpenSSL's verification failures, as Node names them. */
const CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function isCertificateError(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CERTIFICATE_ERRORS.has(code);
}

/** Reads the file an option names; a file that cannot be read is a usage error. */
function readOptionFile(file: string, cwd: string, option: string): Buffer {
  try {
    return readFileSync(resolve(cwd, file));
  } catch (err) {
    throw new UsageError(
      `${option} ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}

/** Reads a credential file, without its trailing newline (as `fromDirectory` credentials). */
function readSecret(file: string, cwd: string, option: string): string {
  const text = credentialText(readOptionFile(file, cwd, option));
  if ('problem' in text)
    throw new UsageError(
      text.problem === 'empty'
        ? `${option} ${file} is empty`
        : `${option} ${file} is not UTF-8 text`,
    );
  return text.value;
}
