/**
 * The key that signs agent tokens: the ES256 JWT a discovery ignition carries as
 * `PULL_SECRET_TOKEN` and the agent sends back in `X-Secret-Key` (assisted-service's local
 * authentication, `EC_PRIVATE_KEY_PEM`). Every replica must hold the same key, or a host booted
 * from an ISO one replica made is refused by the next leader; the chart shares it in a Secret.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

/** The signing pair of agent tokens (EC P-256, for ES256). */
export interface AgentTokenKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** True when made for this process alone (no `--agent-token-key-file`). */
  readonly generated: boolean;
}

/** How to make a key file, as every error about one says. */
export const AGENT_TOKEN_KEY_HOWTO =
  'openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out agent-token-key.pem';

/** Bytes of a key file: a P-256 PEM is about 240. */
const KEY_FILE_LIMIT = 64 * 1024;

/**
 * The agent token key: from `file` (a PEM EC P-256 private key, PKCS#8 `PRIVATE KEY` or SEC1
 * `EC PRIVATE KEY` as Helm's genPrivateKey writes it), else a random one for this process, with
 * a warning that ISOs made now stop working after a restart or failover.
 * @throws UsageError naming the file and how to make a good one
 */
export function agentTokenKey(
  file: string | undefined,
  log: Pick<Logger, 'warn'>,
): AgentTokenKeyPair {
  if (file === undefined) {
    log.warn(
      'no --agent-token-key-file: agent tokens are signed with a key of this process alone; discovery ISOs made now stop working after a restart or failover',
    );
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { privateKey, publicKey, generated: true };
  }
  let pem: string;
  try {
    const size = statSync(file).size;
    if (size > KEY_FILE_LIMIT)
      throw new UsageError(
        `--agent-token-key-file ${file} is ${String(size)} bytes, not a PEM key; make one with: ${AGENT_TOKEN_KEY_HOWTO}`,
      );
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read --agent-token-key-file ${file}: ${(err as Error).message}`);
  }
  const privateKey = agentTokenKeyOfPem(pem, `--agent-token-key-file ${file}`);
  return { privateKey, publicKey: createPublicKey(privateKey), generated: false };
}

/**
 * An EC P-256 private key from PEM text.
 * @param what names the key's source in errors
 * @throws UsageError when it is not one
 */
export function agentTokenKeyOfPem(pem: string, what: string): KeyObject {
  const wrong = (why: string): UsageError =>
    new UsageError(
      `${what} ${why}; the agent token key is an EC P-256 private key in PEM (PKCS#8), made with: ${AGENT_TOKEN_KEY_HOWTO}`,
    );
  if (!/-----BEGIN (?:EC )?PRIVATE KEY-----/.test(pem)) {
    if (pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
      throw wrong('holds an encrypted key (it would need a passphrase)');
    throw wrong(/-----BEGIN [A-Z ]+-----/.test(pem) ? 'holds no private key' : 'is not PEM');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw wrong('does not parse as a private key');
  }
  if (key.asymmetricKeyType !== 'ec')
    throw wrong(`holds a ${(key.asymmetricKeyType ?? 'unknown').toUpperCase()} key, not EC`);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve !== 'prime256v1')
    throw wrong(`holds a key on curve ${curve ?? 'unknown'}, not P-256 (prime256v1)`);
  return key;
}
