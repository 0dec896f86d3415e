/**
 * The `simulated` installer backend, for the fleet simulation: no openshift-install, no release
 * image. It writes what openshift-install would hand over — Ignition v3 configs for each role and
 * an admin kubeconfig — but the cluster behind them does not exist: the kubeconfig's CA is
 * generated here, fresh for every cluster, and its client certificate is signed by that CA so
 * that clients which check the chain accept it. Never chosen by default.
 */
import 'reflect-metadata';
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { InstallerError } from './installer-backend.js';
import type {
  IgnitionV3,
  InstallerAvailability,
  InstallerBackend,
  InstallerOutput,
} from './installer-backend.js';

/** The name the simulated backend is selected by. */
export const SIMULATED_BACKEND = 'simulated';

x509.cryptoProvider.set(webcrypto as never);

/** Validity of the generated certificates. */
const CERT_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;
const IGNITION_VERSION = '3.2.0';
const EC_KEY: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = {
  name: 'ECDSA',
  namedCurve: 'P-256',
  hash: 'SHA-256',
};

interface ConfigFacts {
  readonly name: string;
  readonly baseDomain: string;
  readonly sshKey?: string;
}

function readConfig(installConfig: string): ConfigFacts {
  let parsed: unknown;
  try {
    parsed = parseYaml(installConfig);
  } catch (err) {
    throw new InstallerError(`install-config.yaml is not valid YAML: ${(err as Error).message}`);
  }
  const config = (parsed ?? {}) as {
    metadata?: { name?: unknown };
    baseDomain?: unknown;
    sshKey?: unknown;
  };
  const name = config.metadata?.name;
  const baseDomain = config.baseDomain;
  if (typeof name !== 'string' || name === '' || typeof baseDomain !== 'string')
    throw new InstallerError('install-config.yaml needs metadata.name and baseDomain');
  return {
    name,
    baseDomain,
    ...(typeof config.sshKey === 'string' && config.sshKey !== '' && { sshKey: config.sshKey }),
  };
}

function pem(label: string, der: ArrayBuffer): string {
  return x509.PemConverter.encode(der, label);
}

function dataUrl(text: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(text).toString('base64')}`;
}

/** A kubeadmin-style password: four groups of five letters and digits. */
function kubeadminPassword(): string {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(20);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]!);
  return [0, 5, 10, 15].map((i) => chars.slice(i, i + 5).join('')).join('-');
}

/** A fresh CA and an admin client certificate it signed. */
async function adminCredentials(
  clusterName: string,
  now: number,
): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const crypto = webcrypto;
  const notBefore = new Date(now - 60_000);
  const notAfter = new Date(now + CERT_VALIDITY_MS);
  const caKeys = await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=admin-kubeconfig-signer-${clusterName}, OU=openshift`,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: EC_KEY,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const clientKeys = await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const client = await x509.X509CertificateGenerator.create({
    subject: 'CN=system:admin, O=system:masters',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: clientKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: EC_KEY,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  const keyDer = await crypto.subtle.exportKey('pkcs8', clientKeys.privateKey);
  return {
    caPem: ca.toString('pem'),
    certPem: client.toString('pem'),
    keyPem: pem('PRIVATE KEY', keyDer),
  };
}

function kubeconfigYaml(
  server: string,
  creds: { caPem: string; certPem: string; keyPem: string },
): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'cluster', cluster: { server, 'certificate-authority-data': b64(creds.caPem) } },
    ],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate-data': b64(creds.certPem),
          'client-key-data': b64(creds.keyPem),
        },
      },
    ],
    contexts: [{ name: 'admin', context: { cluster: 'cluster', user: 'admin' } }],
    'current-context': 'admin',
    preferences: {},
  });
}

/** The pointer config a master or worker boots with (as openshift-install writes it). */
function pointerIgnition(facts: ConfigFacts, role: string, caPem: string): IgnitionV3 {
  return {
    ignition: {
      version: IGNITION_VERSION,
      config: {
        merge: [
          { source: `https://api-int.${facts.name}.${facts.baseDomain}:22623/config/${role}` },
        ],
      },
      security: { tls: { certificateAuthorities: [{ source: dataUrl(caPem) }] } },
    },
  };
}

function bootstrapIgnition(
  facts: ConfigFacts,
  kubeconfig: string,
  singleNode: boolean,
): IgnitionV3 {
  return {
    ignition: { version: IGNITION_VERSION },
    ...(facts.sshKey !== undefined && {
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: [facts.sshKey] }] },
    }),
    storage: {
      files: [
        {
          path: '/opt/openshift/auth/kubeconfig',
          mode: 0o600,
          contents: { source: dataUrl(kubeconfig) },
        },
        {
          path: '/opt/openshift/siteforge-simulated',
          mode: 0o644,
          contents: {
            source: dataUrl(
              `simulated ${singleNode ? 'single-node ' : ''}installation of ${facts.name}.${facts.baseDomain}\n`,
            ),
          },
        },
      ],
    },
  };
}

/** Options of {@link SimulatedInstallerBackend}. */
export interface SimulatedInstallerBackendOptions {
  /** Certificates are valid from this clock's now. @default the system clock */
  readonly clock?: Clock;
}

/** Generates valid-looking ignition and working credentials for a cluster that is simulated. */
export class SimulatedInstallerBackend implements InstallerBackend {
  readonly name = SIMULATED_BACKEND;
  private readonly clock: Clock;

  constructor(options: SimulatedInstallerBackendOptions = {}) {
    this.clock = options.clock ?? systemClock;
  }

  availability(): Promise<InstallerAvailability> {
    return Promise.resolve({
      available: true,
      description:
        'The simulated installer backend is in use: the ignition and credentials are generated for a fleet simulation, not by openshift-install, and the cluster they describe is not real',
    });
  }

  async generate(
    installConfig: string,
    _manifests: readonly unknown[],
    _workDir: string,
    options: { readonly singleNode: boolean },
  ): Promise<InstallerOutput> {
    const facts = readConfig(installConfig);
    const creds = await adminCredentials(facts.name, this.clock.now());
    const kubeconfig = kubeconfigYaml(`https://api.${facts.name}.${facts.baseDomain}:6443`, creds);
    const suffix = randomBytes(4).toString('hex').slice(0, 5);
    const ignitions = options.singleNode
      ? { bootstrap: bootstrapIgnition(facts, kubeconfig, true) }
      : {
          bootstrap: bootstrapIgnition(facts, kubeconfig, false),
          master: pointerIgnition(facts, 'master', creds.caPem),
          worker: pointerIgnition(facts, 'worker', creds.caPem),
        };
    return {
      ignitions,
      kubeconfig,
      kubeadminPassword: kubeadminPassword(),
      clusterId: randomUUID(),
      infraId: `${facts.name.slice(0, 21)}-${suffix}`,
    };
  }
}
