import { SignJWT, UnsecuredJWT, exportSPKI, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AgentTokenVerifier,
  importAgentTokenKey,
  verifyAgentToken,
} from '../../../src/assisted/agent-api/auth.js';
import type { AgentTokenKey } from '../../../src/assisted/agent-api/auth.js';

const INFRA_ENV = '6a1f3c2e-0d5b-4e8f-9a7c-1b2d3e4f5a60';
const NOW = new Date('2026-11-25T12:00:00.000Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let privateKey: PrivateKey;
let key: AgentTokenKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  key = await importAgentTokenKey(await exportSPKI(pair.publicKey));
});

function sign(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
}

describe('agent tokens', () => {
  it('proves the InfraEnv of its infra_env_id claim (no exp, as upstream signs them)', async () => {
    expect(await verifyAgentToken(await sign({ infra_env_id: INFRA_ENV }), key, NOW)).toBe(
      INFRA_ENV,
    );
  });

  it('proves nothing when expired, unsigned, HMAC-signed, claim-less or not a JWT', async () => {
    const hmac = await new SignJWT({ infra_env_id: INFRA_ENV })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'));
    const candidates = [
      await sign({ infra_env_id: INFRA_ENV, exp: nowSeconds - 1 }),
      new UnsecuredJWT({ infra_env_id: INFRA_ENV }).encode(),
      hmac,
      await sign({ cluster_id: INFRA_ENV }),
      await sign({ infra_env_id: 42 }),
      'not.a.jwt',
      '',
    ];
    for (const candidate of candidates)
      expect(await verifyAgentToken(candidate, key, NOW)).toBeUndefined();
  });

  it('remembers good tokens but still refuses one whose exp has passed since', async () => {
    const verifier = new AgentTokenVerifier(key, 2);
    const token = await sign({ infra_env_id: INFRA_ENV, exp: nowSeconds + 60 });
    expect(await verifier.verify(token, NOW)).toBe(INFRA_ENV);
    expect(await verifier.verify(token, new Date(NOW.getTime() + 59_000))).toBe(INFRA_ENV);
    expect(await verifier.verify(token, new Date(NOW.getTime() + 60_000))).toBeUndefined();
    expect(await verifier.verify('forged', NOW)).toBeUndefined();
  });
});
