import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, connect, createServer } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { agentApiTls, hostOfUrl } from '../../../src/assisted/config/agent-api-tls.js';
import type { AgentApiTls } from '../../../src/assisted/config/agent-api-tls.js';
import { UsageError } from '../../../src/shared/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'siteforge-agent-tls-'));

/**
 * Serves `tls` on loopback and connects a client that trusts only `ca` and expects the server
 * to be `host`; resolves with the handshake's outcome.
 */
async function handshake(tls: AgentApiTls, ca: string, host: string): Promise<string> {
  const server = createServer({ cert: tls.cert, key: tls.key }, (socket) => {
    socket.end('hello agent\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const client = connect({
        host: '127.0.0.1',
        port,
        ca,
        // The client was told the API is at `host` (an IP address or a name), whatever
        // address it dialled: the check a client dialling that host makes.
        ...(isIP(host) === 0 && { servername: host }),
        checkServerIdentity: (_, cert) => checkServerIdentity(host, cert),
      });
      let text = '';
      client.setEncoding('utf8');
      client.on('data', (d: string) => (text += d));
      client.on('end', () => {
        resolve(text);
      });
      client.on('error', (err: NodeJS.ErrnoException) => {
        resolve(`error ${err.code ?? err.message}`);
      });
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the agent API’s TLS material', () => {
  it('makes a CA and a server certificate that a client trusting only the CA accepts', async () => {
    const tls = await agentApiTls({ hosts: ['127.0.0.1'] });
    expect(tls.generated).toBe(true);
    expect(await handshake(tls, tls.caBundle, '127.0.0.1')).toBe('hello agent\n');
  });

  it('is refused for another host than it was made for', async () => {
    const tls = await agentApiTls({ hosts: ['agents.hub.example.com'] });
    expect(await handshake(tls, tls.caBundle, 'other.hub.example.com')).toBe(
      'error ERR_TLS_CERT_ALTNAME_INVALID',
    );
    expect(await handshake(tls, tls.caBundle, 'agents.hub.example.com')).toBe('hello agent\n');
  });

  it('is refused by a client trusting another CA', async () => {
    const tls = await agentApiTls({ hosts: ['127.0.0.1'] });
    const other = await agentApiTls({ hosts: ['127.0.0.1'] });
    expect(await handshake(tls, other.caBundle, '127.0.0.1')).toBe(
      'error UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    );
  });

  it('names the host as an IP or DNS SAN, with a year of validity from a day back', async () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const tls = await agentApiTls({ hosts: ['[fd00::5]', 'agents.hub.example.com'], now });
    const cert = new X509Certificate(tls.cert);
    expect(cert.subjectAltName).toBe('IP Address:FD00:0:0:0:0:0:0:5, DNS:agents.hub.example.com');
    expect(new Date(cert.validFrom).toISOString()).toBe('2026-11-24T12:00:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2027-11-25T12:00:00.000Z');
    expect(cert.verify(new X509Certificate(tls.caBundle).publicKey)).toBe(true);
    expect(new X509Certificate(tls.caBundle).ca).toBe(true);
    expect(cert.ca).toBe(false);
  });

  it('serves the files it is given, whose certificate is what agents trust', async () => {
    const made = await agentApiTls({ hosts: ['127.0.0.1'] });
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, made.cert + made.caBundle);
    writeFileSync(keyFile, made.key);
    const tls = await agentApiTls({ certFile, keyFile, hosts: ['ignored'] });
    expect(tls).toEqual({
      cert: made.cert + made.caBundle,
      key: made.key,
      caBundle: made.cert + made.caBundle,
      generated: false,
    });
    expect(await handshake(tls, tls.caBundle, '127.0.0.1')).toBe('hello agent\n');
  });

  it('refuses a key that is not the certificate’s, and one file without the other', async () => {
    const a = await agentApiTls({ hosts: ['127.0.0.1'] });
    const b = await agentApiTls({ hosts: ['127.0.0.1'] });
    const certFile = join(dir, 'a.crt');
    const keyFile = join(dir, 'b.key');
    writeFileSync(certFile, a.cert);
    writeFileSync(keyFile, b.key);
    await expect(agentApiTls({ certFile, keyFile, hosts: [] })).rejects.toThrow(
      `--agent-api-tls-key-file ${keyFile} is not the key of the certificate in --agent-api-tls-cert-file ${certFile} (CN=127.0.0.1)`,
    );
    await expect(agentApiTls({ certFile, hosts: [] })).rejects.toThrow(
      'give both --agent-api-tls-cert-file and --agent-api-tls-key-file, or neither',
    );
    await expect(agentApiTls({ certFile: keyFile, keyFile, hosts: [] })).rejects.toThrow(
      `--agent-api-tls-cert-file ${keyFile} holds no PEM certificate`,
    );
    await expect(agentApiTls({ certFile, keyFile: certFile, hosts: [] })).rejects.toThrow(
      `--agent-api-tls-key-file ${certFile} holds no unencrypted PEM private key`,
    );
    await expect(
      agentApiTls({ certFile: join(dir, 'none.crt'), keyFile, hosts: [] }),
    ).rejects.toThrow(UsageError);
  });

  it('takes the host of the URL agents are given', () => {
    expect(hostOfUrl('https://10.1.2.3:8090')).toBe('10.1.2.3');
    expect(hostOfUrl('https://[fd00::5]:8090/')).toBe('fd00::5');
    expect(hostOfUrl('https://agents.hub.example.com')).toBe('agents.hub.example.com');
  });
});
