/**
 * The per-InfraEnv agent token (assisted.md §6.3, local authentication): an ES256 JWT whose
 * claim `infra_env_id` names the InfraEnv, carried by the discovery ignition as
 * `PULL_SECRET_TOKEN` and sent back by the agent in `X-Secret-Key`. Like assisted-service's, it
 * has no expiry; one that carries `exp` is refused once past it.
 */
import { KeyObject, createPublicKey } from 'node:crypto';
import type { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/** A P-256 key: the private key signs; either half verifies. */
export type AgentTokenKey = KeyObject | webcrypto.CryptoKey;

/** Signs the agent token of an InfraEnv (its id is the InfraEnv's `metadata.uid`). */
export function signAgentToken(infraEnvId: string, key: AgentTokenKey): Promise<string> {
  return new SignJWT({ infra_env_id: infraEnvId })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .sign(key);
}

/**
 * Checks an agent token's signature (ES256 only), its expiry when it has one, and its claim.
 * @returns the InfraEnv it was issued for, or undefined for any token not to be trusted
 */
export async function verifyAgentToken(
  token: string,
  key: AgentTokenKey,
): Promise<{ infraEnvId: string } | undefined> {
  try {
    const { payload } = await jwtVerify(token, publicHalf(key), { algorithms: ['ES256'] });
    const id = payload['infra_env_id'];
    return typeof id === 'string' && id !== '' ? { infraEnvId: id } : undefined;
  } catch {
    return undefined;
  }
}

function publicHalf(key: AgentTokenKey): AgentTokenKey {
  const object = key instanceof KeyObject ? key : KeyObject.from(key);
  return object.type === 'private' ? createPublicKey(object) : object;
}
