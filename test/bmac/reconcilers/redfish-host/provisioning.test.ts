import { afterEach, describe, expect, it } from 'vitest';
import { Gvk } from '../../../../src/bmac/api.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import { Harness, LONG_URL, NS, hasFinalizer, hostEvents } from './harness.js';

describe('a BareMetalHost in redfish mode', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('boots its image once through a short URL: the BMC sees only the short URL, a one-time CD boot and power on', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', { insertedImage: 'http://10.0.0.1/old.iso' });

    await h.settle(['host-0']);

    const [shortUrl] = h.images.issued;
    expect(shortUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/images\/[a-z2-7]{16}\.[0-9a-z]+\.[\w-]+\.iso$/,
    );
    expect(bmc.state().bootedImage).toBe(shortUrl);
    expect(hostEvents(bmc)).toEqual([
      'power Off',
      'eject CD1',
      'boot-mode UEFI',
      `insert CD1 ${shortUrl!}`,
      'boot-override Cd/Once',
      'power On',
      `boot ${shortUrl!}`,
    ]);
    expect(JSON.stringify(bmc.events)).not.toContain('assisted-image-service');

    const status = h.status('host-0');
    expect(status).toMatchObject({
      operationalStatus: 'OK',
      errorMessage: '',
      errorCount: 0,
      poweredOn: true,
      provisioning: { state: 'provisioned', image: { url: LONG_URL, format: 'live-iso' } },
      lastAttemptedImage: { url: LONG_URL },
    });
    expect(status.errorType).toBeUndefined();
    expect(status.lastUpdated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const op of ['register', 'provision'] as const) {
      expect(status.operationHistory[op]?.start).toBeTruthy();
      expect(status.operationHistory[op]?.end).toBeTruthy();
    }
    expect(h.states.get('host-0')).toEqual([
      'registering',
      'available',
      'provisioning',
      'provisioned',
    ]);
    expect(h.cluster.events.map((e) => e.reason)).toEqual([
      'BMCAccessValidated',
      'ProvisioningStarted',
      'ProvisioningComplete',
    ]);
    expect(hasFinalizer(h.bmh('host-0'))).toBe(true);

    // Later passes (a resync, an unrelated edit) never boot it again.
    h.now += 3_600_000;
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      metadata: { ...bmh.metadata, labels: { ...bmh.metadata.labels, extra: 'x' } },
    }));
    await h.settle(['host-0']);
    expect(bmc.events.filter((e) => e.kind === 'boot')).toHaveLength(1);
    expect(h.images.issued).toHaveLength(1);
  });

  it('adds its finalizer before the first BMC request', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    await h.pass('host-0');
    expect(h.cluster.writes[0]).toBe(`update BareMetalHost ${NS}/host-0`);
    expect(hasFinalizer(h.bmh('host-0'))).toBe(true);
    await h.controller.operations.idle();
    expect(bmc.requestCount).toBeGreaterThan(0);
  });

  it('stays available, powered as spec.online says, until it has an image and online: true', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0', {}, { online: false, image: undefined });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      provisioning: { state: 'available' },
      poweredOn: false,
    });
    expect(hostEvents(bmc)).toEqual(['power Off']);

    await h.edit('host-0', (bmh) => ({
      ...bmh,
      spec: {
        ...(bmh['spec'] as object),
        online: true,
        image: { url: LONG_URL, format: 'live-iso' },
      },
    }));
    await h.settle(['host-0']);
    expect(h.status('host-0').provisioning.state).toBe('provisioned');
    expect(bmc.state().bootedImage).toBe(h.images.issued[0]);
  });

  it('is unmanaged and discovered without BMC details, as BMO reports it', async () => {
    h = new Harness();
    await h.addHost('host-0', {}, { bmc: { address: '', credentialsName: '' } });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      operationalStatus: 'discovered',
      provisioning: { state: 'unmanaged' },
    });
    expect(h.cluster.events.map((e) => e.reason)).toEqual(['Discovered']);
  });

  it('reports a missing Secret as a registration error without calling the BMC', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    h.cluster.objects.delete(`v1/Secret/${NS}/host-0-bmc-secret`);
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      operationalStatus: 'error',
      errorType: 'registration error',
      errorMessage: `The BMC secret ${NS}/host-0-bmc-secret does not exist`,
      errorCount: 1,
      provisioning: { state: 'registering' },
    });
    expect(h.cluster.events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'BMCCredentialError' }),
    );
    expect(bmc.requestCount).toBe(0);

    // Passes again before the Secret appears do not count the same error twice.
    await h.settle(['host-0']);
    expect(h.status('host-0').errorCount).toBe(1);

    h.cluster.seed({
      ...Gvk.Secret,
      metadata: { name: 'host-0-bmc-secret', namespace: NS },
      data: {
        username: Buffer.from(bmc.credentials.username).toString('base64'),
        password: Buffer.from(bmc.credentials.password).toString('base64'),
      },
    });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      operationalStatus: 'OK',
      errorCount: 0,
      provisioning: { state: 'provisioned' },
    });
  });

  it('a rotated BMC password is used on the next call: the Secret’s change wakes its host', async () => {
    h = new Harness();
    const bmc = await h.addHost('host-0');
    const ref = { ...Gvk.Secret, namespace: NS, name: 'host-0-bmc-secret' };
    const withPassword = (password: string): KubeObject => ({
      ...h.cluster.peek(ref)!,
      data: {
        username: Buffer.from(bmc.credentials.username).toString('base64'),
        password: Buffer.from(password).toString('base64'),
      },
    });
    await h.cluster.asOtherActor((c) => c.update(withPassword('an-old-password')));
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      errorType: 'registration error',
      provisioning: { state: 'registering' },
    });
    expect(h.visibleText()).not.toContain('an-old-password');

    const old = h.cluster.peek(ref)!;
    await h.cluster.asOtherActor((c) => c.update(withPassword(bmc.credentials.password)));
    const rotated = h.cluster.peek(ref)!;
    const watch = h.controller.watches?.find((w) => w.gvk.kind === 'Secret');
    expect(watch?.labelSelector).toBe('agent-install.openshift.io/watch=true');
    expect(watch?.onUpdate?.(rotated, old)).toBe(true);
    expect(watch?.map(rotated, h.cluster)).toEqual([{ namespace: NS, name: 'host-0' }]);
    // The next attempt, once the failure's backoff has run out.
    h.now += 60_000;
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      errorCount: 0,
      provisioning: { state: 'provisioned' },
    });
  });

  it('refuses a Secret without a password with BMO words', async () => {
    h = new Harness();
    await h.addHost('host-0');
    h.cluster.objects.set(`v1/Secret/${NS}/host-0-bmc-secret`, {
      ...Gvk.Secret,
      metadata: { name: 'host-0-bmc-secret', namespace: NS, resourceVersion: '999' },
      data: { username: Buffer.from('root').toString('base64') },
    });
    await h.settle(['host-0']);
    expect(h.status('host-0')).toMatchObject({
      errorType: 'registration error',
      errorMessage: "Missing BMC connection details 'password' in credentials",
    });
  });

  it('counts Redfish calls by vendor and outcome', async () => {
    h = new Harness();
    await h.addHost('host-0');
    await h.settle(['host-0']);
    expect(h.metrics.length).toBeGreaterThan(5);
    expect(new Set(h.metrics.map((m) => m.outcome))).toEqual(new Set(['success']));
    expect(h.metrics.at(-1)?.vendor).toBe('dmtf');
  });
});
