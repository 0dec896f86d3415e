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

/**
 * verifyAgentToken with the results of good tokens remembered (agents send the same token on
 * every call; an ES256 verification costs far more than the rest of a poll). Only tokens that
 * verified are kept, with their `exp`, which is checked again on every use; at most `size`
 * tokens, the oldest forgotten first.
 */
export class AgentTokenVerifier {
  private readonly verified = new Map<string, { infraEnvId: string; expiresAt?: number }>();

  constructor(
    private readonly key: AgentTokenKey,
    private readonly size = 20_000,
  ) {}

  /** The InfraEnv id the token proves at `now`, or undefined. */
  async verify(token: string, now: Date): Promise<string | undefined> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt !== undefined && known.expiresAt <= now.getTime()) {
        this.verified.delete(token);
        return undefined;
      }
      return known.infraEnvId;
    }
    const infraEnvId = await verifyAgentToken(token, this.key, now);
    if (infraEnvId === undefined) return undefined;
    if (this.verified.size >= this.size) {
      const oldest = this.verified.keys().next();
      if (oldest.done !== true) this.verified.delete(oldest.value);
    }
    const exp = decodeExp(token);
    this.verified.set(token, {
      infraEnvId,
      ...(exp !== undefined ? { expiresAt: exp * 1000 } : {}),
    });
    return infraEnvId;
  }
}

/** The `exp` of a token that already verified. */
function decodeExp(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  return typeof claims['exp'] === 'number' ? claims['exp'] : undefined;
}
