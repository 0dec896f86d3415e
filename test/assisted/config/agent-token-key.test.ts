import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN_KEY_HOWTO,
  agentTokenKey,
  agentTokenKeyOfPem,
} from '../../../src/assisted/config/agent-token-key.js';
import { UsageError } from '../../../src/shared/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-token-key-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function quiet() {
  const warnings: string[] = [];
  return { warnings, log: { warn: (message: string) => void warnings.push(message) } };
}

/** An agent token as the InfraEnv controller will make it, and its check. */
async function roundTrip(key: ReturnType<typeof agentTokenKey>): Promise<unknown> {
  const token = await new SignJWT({ infra_env_id: '0b6e2ea1-4ad7-4c7d-9b38-1c4c0f6b2f70' })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(key.privateKey);
  return (await jwtVerify(token, key.publicKey)).payload['infra_env_id'];
}

describe('the agent token key', () => {
  it('reads the key the documented openssl command makes, and signs ES256 tokens with it', async () => {
    const path = join(dir, 'agent-token-key.pem');
    const [cmd = '', ...args] = AGENT_TOKEN_KEY_HOWTO.replace('agent-token-key.pem', path).split(
      ' ',
    );
    execFileSync(cmd, args);
    const { log, warnings } = quiet();
    const key = agentTokenKey(path, log);
    expect(key.generated).toBe(false);
    expect(warnings).toEqual([]);
    expect(await roundTrip(key)).toBe('0b6e2ea1-4ad7-4c7d-9b38-1c4c0f6b2f70');
  });

  it('reads a SEC1 "EC PRIVATE KEY", as Helm’s genPrivateKey "ecdsa" writes it', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    expect(pem).toContain('BEGIN EC PRIVATE KEY');
    expect(await roundTrip(agentTokenKey(file('sec1.pem', pem), quiet().log))).toBeTruthy();
  });

  it('without a file, makes a key for this process and warns that ISOs stop working after a restart', async () => {
    const { log, warnings } = quiet();
    const key = agentTokenKey(undefined, log);
    expect(key.generated).toBe(true);
    expect(warnings).toEqual([
      expect.stringContaining('discovery ISOs made now stop working after a restart or failover'),
    ]);
    expect(await roundTrip(key)).toBeTruthy();
    expect(agentTokenKey(undefined, log).publicKey.export({ format: 'jwk' })).not.toEqual(
      key.publicKey.export({ format: 'jwk' }),
    );
  });

  it('refuses a key that is not EC P-256, naming the file and how to make one', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    const cases: [string, string, string][] = [
      ['rsa.pem', rsa.toString(), 'holds a RSA key, not EC'],
      ['p384.pem', p384.toString(), 'holds a key on curve secp384r1, not P-256 (prime256v1)'],
      ['text.pem', 'hello\n', 'is not PEM'],
      [
        'cert.pem',
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        'holds no private key',
      ],
      [
        'broken.pem',
        '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
        'does not parse as a private key',
      ],
      [
        'enc.pem',
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n',
        'holds an encrypted key',
      ],
    ];
    for (const [name, text, why] of cases) {
      const path = file(name, text);
      expect(() => agentTokenKey(path, quiet().log)).toThrow(UsageError);
      expect(() => agentTokenKey(path, quiet().log)).toThrow(
        `--agent-token-key-file ${path} ${why}`,
      );
      expect(() => agentTokenKey(path, quiet().log)).toThrow(AGENT_TOKEN_KEY_HOWTO);
    }
  });

  it('says which file it cannot read', () => {
    expect(() => agentTokenKey(join(dir, 'missing.pem'), quiet().log)).toThrow(
      /^cannot read --agent-token-key-file .*missing\.pem: ENOENT/,
    );
    expect(() => agentTokenKeyOfPem('x', 'the Secret')).toThrow(/^the Secret is not PEM/);
  });
});
