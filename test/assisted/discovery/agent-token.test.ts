import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyAgentToken } from '../../../src/assisted/agent-api/auth.js';
import { signAgentToken } from '../../../src/assisted/discovery/index.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ID = '7b1c5a0e-58b2-4c1f-9a55-0f3a1b2c3d4e';
const NOW = new Date('2026-11-25T12:00:00.000Z');

describe('agent tokens', () => {
  it('signs an ES256 token without expiry that the agent API takes for its InfraEnv', async () => {
    const token = await signAgentToken(ID, privateKey);
    expect(token.split('.')).toHaveLength(3);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as object;
    expect(header).toMatchObject({ alg: 'ES256' });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as object;
    expect(claims).toEqual({ infra_env_id: ID });
    expect(await verifyAgentToken(token, publicKey, NOW)).toBe(ID);
  });

  it('is refused when signed by another key or tampered with', async () => {
    const forged = await signAgentToken(ID, other.privateKey);
    expect(await verifyAgentToken(forged, publicKey, NOW)).toBeUndefined();
    const token = await signAgentToken(ID, privateKey);
    const [head, , sig] = token.split('.');
    const body = Buffer.from(JSON.stringify({ infra_env_id: 'someone-else' })).toString(
      'base64url',
    );
    expect(await verifyAgentToken(`${head!}.${body}.${sig!}`, publicKey, NOW)).toBeUndefined();
  });
});
