import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentApiTls } from '../../../src/assisted/config/agent-api-tls.js';
import {
  TLS_SECRET_KEYS,
  sharedAgentApiTls,
} from '../../../src/assisted/config/shared-agent-api-tls.js';
import type { SecretClient } from '../../../src/assisted/config/shared-agent-api-tls.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { FakeApiServer } from '../../fakes/fake-api-server.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const options = {
  namespace: 'siteforge',
  name: 'edge-agent-api-tls',
  hosts: ['agents.hub.example.com'],
  now: NOW,
};
const ref = {
  apiVersion: 'v1',
  kind: 'Secret',
  namespace: 'siteforge',
  name: 'edge-agent-api-tls',
};

function caOf(secret: KubeObject | undefined): string {
  const data = secret?.['data'] as Record<string, string>;
  return Buffer.from(data[TLS_SECRET_KEYS.ca]!, 'base64').toString();
}

describe('the agent API’s TLS shared through a Secret', () => {
  it('is made once and read by every other replica', async () => {
    const hub = new FakeApiServer();
    const first = await sharedAgentApiTls(hub, options);
    const second = await sharedAgentApiTls(hub, options);
    expect(second).toEqual(first);
    const secret = await hub.get(ref);
    expect(secret?.['type']).toBe('kubernetes.io/tls');
    expect(caOf(secret)).toBe(first.caBundle);
  });

  it('gives two replicas starting together the same CA: the loser of the create reads the winner', async () => {
    const hub = new FakeApiServer();
    const [a, b] = await Promise.all([
      sharedAgentApiTls(hub, options),
      sharedAgentApiTls(hub, options),
    ]);
    expect(a.caBundle).toBe(b.caBundle);
    expect(caOf(await hub.get(ref))).toBe(a.caBundle);
    // Both tried to create it; one was refused with 409 and read the other's.
    expect(hub.requests.filter((r) => r.startsWith('create'))).toHaveLength(2);
  });

  it('replaces a certificate that does not name the host agents are now given', async () => {
    const hub = new FakeApiServer();
    const old = await sharedAgentApiTls(hub, options);
    const moved = await sharedAgentApiTls(hub, { ...options, hosts: ['10.0.0.9'] });
    expect(moved.caBundle).not.toBe(old.caBundle);
    expect(new X509Certificate(moved.cert).checkIP('10.0.0.9')).toBe('10.0.0.9');
    expect(caOf(await hub.get(ref))).toBe(moved.caBundle);
  });

  it('replaces a certificate within 30 days of its end', async () => {
    const hub = new FakeApiServer();
    const old = await sharedAgentApiTls(hub, options);
    const later = new Date(NOW.getTime() + 340 * 24 * 3600_000);
    expect((await sharedAgentApiTls(hub, { ...options, now: later })).caBundle).not.toBe(
      old.caBundle,
    );
    const soon = new Date(NOW.getTime() + 300 * 24 * 3600_000);
    const hub2 = new FakeApiServer();
    const kept = await sharedAgentApiTls(hub2, options);
    expect((await sharedAgentApiTls(hub2, { ...options, now: soon })).caBundle).toBe(kept.caBundle);
  });

  it('replaces a Secret whose certificate its CA did not sign', async () => {
    const a = await agentApiTls({ hosts: options.hosts, now: NOW });
    const b = await agentApiTls({ hosts: options.hosts, now: NOW });
    const encode = (t: string) => Buffer.from(t).toString('base64');
    const hub = new FakeApiServer().seed({
      ...ref,
      metadata: { namespace: ref.namespace, name: ref.name },
      data: { 'tls.crt': encode(a.cert), 'tls.key': encode(a.key), 'ca.crt': encode(b.caBundle) },
    });
    const tls = await sharedAgentApiTls(hub, options);
    expect(tls.caBundle).not.toBe(b.caBundle);
    expect(new X509Certificate(tls.cert).verify(new X509Certificate(tls.caBundle).publicKey)).toBe(
      true,
    );
  });

  it('passes on a refusal other than a conflict', async () => {
    const hub: SecretClient = {
      get: () => Promise.resolve(undefined),
      create: () => Promise.reject(new Error('secrets is forbidden')),
      update: () => Promise.reject(new Error('unused')),
    };
    await expect(sharedAgentApiTls(hub, options)).rejects.toThrow('secrets is forbidden');
  });
});
