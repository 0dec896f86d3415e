/**
 * Signing the per-InfraEnv agent token (assisted.md §6.3, local authentication): an ES256 JWT
 * whose claim `infra_env_id` names the InfraEnv, carried by the discovery ignition as
 * `PULL_SECRET_TOKEN` and sent back by the agent in `X-Secret-Key`. Like assisted-service's, it
 * has no expiry. The agent API checks it with `verifyAgentToken` of `agent-api/auth.ts`, the one
 * place tokens are verified.
 */
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { INFRA_ENV_CLAIM } from '../agent-api/auth.js';

/**
 * Signs the agent token of an InfraEnv (its id is the InfraEnv's `metadata.uid`).
 * @param privateKey the EC P-256 private key of the agent token key pair
 */
export function signAgentToken(infraEnvId: string, privateKey: KeyObject): Promise<string> {
  return new SignJWT({ [INFRA_ENV_CLAIM]: infraEnvId })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .sign(privateKey);
}
