import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAgentToken, verifyAgentToken } from '../../../src/assisted/discovery/index.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ID = '7b1c5a0e-58b2-4c1f-9a55-0f3a1b2c3d4e';

describe('agent tokens', () => {
  it('carries the InfraEnv id, verified with the private or the public key', async () => {
    const token = await signAgentToken(ID, privateKey);
    expect(token.split('.')).toHaveLength(3);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as object;
    expect(header).toMatchObject({ alg: 'ES256' });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as object;
    expect(claims).toEqual({ infra_env_id: ID });
    expect(await verifyAgentToken(token, privateKey)).toEqual({ infraEnvId: ID });
    expect(await verifyAgentToken(token, publicKey)).toEqual({ infraEnvId: ID });
  });

  it('refuses a token signed by another key, tampered with, or garbage', async () => {
    const forged = await signAgentToken(ID, other.privateKey);
    expect(await verifyAgentToken(forged, privateKey)).toBeUndefined();
    const token = await signAgentToken(ID, privateKey);
    const [head, , sig] = token.split('.');
    const body = Buffer.from(JSON.stringify({ infra_env_id: 'someone-else' })).toString(
      'base64url',
    );
    expect(await verifyAgentToken(`${head!}.${body}.${sig!}`, privateKey)).toBeUndefined();
    expect(await verifyAgentToken('not-a-token', privateKey)).toBeUndefined();
    expect(await verifyAgentToken('', privateKey)).toBeUndefined();
  });

  it('refuses an expired token, and one without the claim', async () => {
    const expired = await new SignJWT({ infra_env_id: ID })
      .setProtectedHeader({ alg: 'ES256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(privateKey);
    expect(await verifyAgentToken(expired, privateKey)).toBeUndefined();
    const later = await new SignJWT({ infra_env_id: ID })
      .setProtectedHeader({ alg: 'ES256' })
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await verifyAgentToken(later, privateKey)).toEqual({ infraEnvId: ID });
    const clusterToken = await new SignJWT({ cluster_id: ID })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(privateKey);
    expect(await verifyAgentToken(clusterToken, privateKey)).toBeUndefined();
  });

  it('refuses an HMAC token, whatever its claim', async () => {
    const hmac = await new SignJWT({ infra_env_id: ID })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a-secret-of-thirty-two-bytes-at-least!'));
    expect(await verifyAgentToken(hmac, privateKey)).toBeUndefined();
  });
});
