/**
 * The agent's credential: the `X-Secret-Key` header (swagger `agentAuth`) carries an ES256 JWT
 * whose claim `infra_env_id` names the InfraEnv it speaks for, as assisted-service's local
 * authenticator checks it (`pkg/auth/local_authenticator.go`). The ignition puts the same token
 * in `PULL_SECRET_TOKEN`, which the agent sends on every call. Upstream's local tokens carry no
 * `exp`; one that does is refused once it has passed (as the agent-local authenticator does).
 */
import { errors, importSPKI, jwtVerify } from 'jose';
import type { CryptoKey, KeyObject } from 'jose';

/** The header the agent sends its token in (swagger securityDefinitions `agentAuth`). */
export const AGENT_AUTH_HEADER = 'x-secret-key';
/** The header of `userAuth`, which local authentication refuses. */
export const USER_AUTH_HEADER = 'authorization';
/** The JWT claim naming the InfraEnv (assisted-service `gencrypto.InfraEnvKey`). */
export const INFRA_ENV_CLAIM = 'infra_env_id';

/** A public key that verifies agent tokens. */
export type AgentTokenKey = CryptoKey | KeyObject;

/** Reads the PEM (SPKI) public key that matches the signer of agent tokens. */
export async function importAgentTokenKey(publicKeyPem: string): Promise<AgentTokenKey> {
  return importSPKI(publicKeyPem, 'ES256');
}

/**
 * The InfraEnv id a token proves, or undefined when it proves nothing: not a JWT, not ES256,
 * not signed by `key`, expired at `now`, or without a string `infra_env_id`. Callers answer
 * every undefined the same way, so no refusal says which check failed.
 */
export async function verifyAgentToken(
  token: string,
  key: AgentTokenKey,
  now: Date,
): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], currentDate: now });
    const infraEnvId = payload[INFRA_ENV_CLAIM];
    return typeof infraEnvId === 'string' && infraEnvId !== '' ? infraEnvId : undefined;
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
    throw error;
  }
}
