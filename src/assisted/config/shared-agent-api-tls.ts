/**
 * The agent API's generated TLS material, shared by every replica through a `kubernetes.io/tls`
 * Secret on the hub. A CA made per process would be replaced at every restart or failover, and
 * the hosts booted from ISOs carrying the old CA would be refused; with the Secret the first
 * replica to start makes the CA and the others read it. Used when the agent API has a stable
 * URL (`--agent-api-url`) but no certificate files; a pod's address changes with the pod, so
 * without a URL each process makes its own.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { Gvk } from '../../bmac/api.js';
import { KubeApiError } from '../../kube/errors.js';
import type { KubeObject, ObjectRef } from '../../kube/kube-client.js';
import { generateAgentApiTls } from './agent-api-tls.js';
import type { AgentApiTls } from './agent-api-tls.js';

/** What sharing needs of the hub: read the Secret live, create it, replace it. */
export interface SecretClient {
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  create(object: KubeObject): Promise<KubeObject>;
  update(object: KubeObject): Promise<KubeObject>;
}

/** Options of {@link sharedAgentApiTls}. */
export interface SharedAgentApiTlsOptions {
  readonly namespace: string;
  /** The Secret's name, e.g. `<release>-agent-api-tls`. */
  readonly name: string;
  /** The hosts agents reach the API at; a Secret whose certificate misses one is replaced. */
  readonly hosts: readonly string[];
  /** @default new Date() */
  readonly now?: Date;
  /** Days the generated certificates are valid. @default 365 */
  readonly validityDays?: number;
}

/** A certificate closer than this to its end is replaced (with a new CA). */
const RENEW_BEFORE_MS = 30 * 24 * 3600_000;
/** Rounds of read-then-write before giving up on a Secret other replicas keep changing. */
const ATTEMPTS = 5;

/**
 * The agent API's TLS from the shared Secret, made and stored first when the Secret is missing,
 * incomplete, for other hosts or near its end. Concurrent replicas agree: a create or update
 * that loses the race (409) reads the winner's Secret.
 * @throws KubeApiError other than a conflict (e.g. 403 without `create` on secrets)
 */
export async function sharedAgentApiTls(
  client: SecretClient,
  options: SharedAgentApiTlsOptions,
): Promise<AgentApiTls> {
  const ref: ObjectRef = { ...Gvk.Secret, namespace: options.namespace, name: options.name };
  const now = options.now ?? new Date();
  for (let attempt = 1; ; attempt++) {
    const existing = await client.get(ref);
    const stored = existing === undefined ? undefined : tlsOf(existing);
    if (stored !== undefined && usable(stored, options.hosts, now)) return stored;
    const made = await generateAgentApiTls({
      hosts: options.hosts,
      now,
      ...(options.validityDays !== undefined && { validityDays: options.validityDays }),
    });
    const secret = secretOf(ref, made, existing);
    try {
      if (existing === undefined) await client.create(secret);
      else await client.update(secret);
      return made;
    } catch (err) {
      const lostRace = err instanceof KubeApiError && err.status === 409;
      if (!lostRace || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** The Secret's keys: those of `kubernetes.io/tls`, and the CA agents trust. */
export const TLS_SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } as const;

function tlsOf(secret: KubeObject): AgentApiTls | undefined {
  const data = (secret['data'] ?? {}) as Readonly<Record<string, string>>;
  const decode = (key: string): string | undefined => {
    const value = data[key];
    return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
  };
  const cert = decode(TLS_SECRET_KEYS.cert);
  const key = decode(TLS_SECRET_KEYS.key);
  const caBundle = decode(TLS_SECRET_KEYS.ca);
  if (cert === undefined || key === undefined || caBundle === undefined) return undefined;
  return { cert, key, caBundle, generated: true };
}

/** Whether a stored certificate names every host and is not near its end. */
function usable(tls: AgentApiTls, hosts: readonly string[], now: Date): boolean {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(tls.cert);
    if (!cert.verify(new X509Certificate(tls.caBundle).publicKey)) return false;
  } catch {
    return false;
  }
  if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return false;
  return hosts
    .map((h) => (h.startsWith('[') ? h.slice(1, -1) : h))
    .every((h) => (isIP(h) === 0 ? cert.checkHost(h) : cert.checkIP(h)) !== undefined);
}

function secretOf(ref: ObjectRef, tls: AgentApiTls, existing: KubeObject | undefined): KubeObject {
  const encode = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: {
      ...(existing?.metadata ?? {}),
      name: ref.name,
      namespace: ref.namespace,
    },
    type: 'kubernetes.io/tls',
    data: {
      [TLS_SECRET_KEYS.cert]: encode(tls.cert),
      [TLS_SECRET_KEYS.key]: encode(tls.key),
      [TLS_SECRET_KEYS.ca]: encode(tls.caBundle),
    },
  };
}
