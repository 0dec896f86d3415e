/**
 * The agent API's TLS material: a certificate and key from files (`--agent-api-tls-cert-file`,
 * `--agent-api-tls-key-file`), else a CA and a server certificate made at start-up for the
 * address agents are given. The CA bundle goes into the discovery ignition as the agent's
 * `--cacert`, so agents trust this server and nothing else.
 */
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate, createPrivateKey, webcrypto } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { UsageError } from '../../shared/errors.js';

/** PEM text for a TLS server and the bundle its clients trust. */
export interface AgentApiTls {
  /** The server certificate, followed by its chain when the file has one. */
  readonly cert: string;
  readonly key: string;
  /** What agents trust (`--cacert`): the generated CA, or the certificate file's chain. */
  readonly caBundle: string;
  /** True when made at start-up (then another process has another CA). */
  readonly generated: boolean;
}

/** Options of {@link agentApiTls}. */
export interface AgentApiTlsOptions {
  readonly certFile?: string;
  readonly keyFile?: string;
  /**
   * The hosts agents reach the API at (IP addresses or DNS names), as the generated server
   * certificate's subject alternative names; the first is also its common name.
   */
  readonly hosts: readonly string[];
  /** @default new Date() */
  readonly now?: Date;
  /** Days the generated certificates are valid. @default 365 */
  readonly validityDays?: number;
}

/** Bytes of a certificate or key file. */
const PEM_FILE_LIMIT = 1024 * 1024;

/**
 * A discovery host's clock may be off until NTP runs (an RTC kept in local time is hours
 * out): generated certificates are valid from a day before they are made.
 */
const CLOCK_SKEW_MS = 24 * 3600_000;

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * The agent API's certificate, key and CA bundle.
 * @throws UsageError when only one of the files is given, one cannot be read, or the key is not
 *   the certificate's
 */
export async function agentApiTls(options: AgentApiTlsOptions): Promise<AgentApiTls> {
  if (options.certFile !== undefined || options.keyFile !== undefined) return fromFiles(options);
  return generateAgentApiTls(options);
}

function fromFiles(options: AgentApiTlsOptions): AgentApiTls {
  if (options.certFile === undefined || options.keyFile === undefined)
    throw new UsageError(
      'give both --agent-api-tls-cert-file and --agent-api-tls-key-file, or neither (then a CA and certificate are made at start-up)',
    );
  const cert = readPem(options.certFile, '--agent-api-tls-cert-file');
  const key = readPem(options.keyFile, '--agent-api-tls-key-file');
  let leaf: NodeX509Certificate;
  try {
    leaf = new NodeX509Certificate(cert);
  } catch {
    throw new UsageError(
      `--agent-api-tls-cert-file ${options.certFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  }
  let privateKey;
  try {
    privateKey = createPrivateKey({ key, format: 'pem' });
  } catch {
    throw new UsageError(
      `--agent-api-tls-key-file ${options.keyFile} holds no unencrypted PEM private key`,
    );
  }
  if (!leaf.checkPrivateKey(privateKey))
    throw new UsageError(
      `--agent-api-tls-key-file ${options.keyFile} is not the key of the certificate in --agent-api-tls-cert-file ${options.certFile} (${leaf.subject.replace(/\n/g, ', ')})`,
    );
  return { cert, key, caBundle: cert, generated: false };
}

function readPem(file: string, flag: string): string {
  try {
    const size = statSync(file).size;
    if (size > PEM_FILE_LIMIT)
      throw new UsageError(`${flag} ${file} is ${String(size)} bytes, too large for PEM`);
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${flag} ${file}: ${(err as Error).message}`);
  }
}

/**
 * A fresh CA (EC P-256) and a server certificate it signs for `hosts`.
 * @throws UsageError when no host is given
 */
export async function generateAgentApiTls(options: AgentApiTlsOptions): Promise<AgentApiTls> {
  const hosts = options.hosts.map((h) => (h.startsWith('[') ? h.slice(1, -1) : h));
  const first = hosts[0];
  if (first === undefined || first === '')
    throw new UsageError('the agent API certificate needs the host agents reach it at');
  const crypto = webcrypto;
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  const notAfter = new Date(now.getTime() + (options.validityDays ?? 365) * 24 * 3600_000);

  const caKeys = await crypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: 'CN=siteforge agent API CA',
      notBefore,
      notAfter,
      keys: caKeys,
      signingAlgorithm: EC_P256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const serverKeys = await crypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
  const server = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: `CN=${first.replace(/[,+"\\<>;=]/g, '_')}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: serverKeys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: EC_P256,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          [...new Set(hosts)].map((h) => ({ type: isIP(h) === 0 ? 'dns' : 'ip', value: h })),
        ),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        await x509.SubjectKeyIdentifierExtension.create(serverKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return {
    cert: `${server.toString('pem')}\n`,
    key: `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n`,
    caBundle: `${ca.toString('pem')}\n`,
    generated: true,
  };
}

/** A random positive 128-bit serial number, in hex. */
function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0]! & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

/**
 * The host (IP address or DNS name) in an agent API URL, without IPv6 brackets: what the
 * generated certificate is made for.
 */
export function hostOfUrl(url: string): string {
  const host = new URL(url).hostname;
  return host.startsWith('[') ? host.slice(1, -1) : host;
}
