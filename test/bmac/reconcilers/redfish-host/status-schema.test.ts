import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Gvk } from '../../../../src/bmac/api.js';
import { Harness, NS } from './harness.js';

/** The status schema of our BareMetalHost CRD, as the API server would check it. */
function statusValidator() {
  const crd = parse(
    readFileSync(
      join(import.meta.dirname, '../../../../crds/metal3.io_baremetalhosts.yaml'),
      'utf8',
    ),
  ) as {
    spec: { versions: { schema: { openAPIV3Schema: { properties: { status: object } } } }[] };
  };
  const schema = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status;
  // Kubernetes' own keywords (x-kubernetes-*) are not JSON Schema; formats are checked apart.
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  return ajv.compile(schema);
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('every status the controller writes', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('is one the BareMetalHost CRD accepts: through boot, errors, detach and deletion', async () => {
    h = new Harness();
    await h.addHost('host-0');
    await h.addHost('host-5', {}, { bootMode: 'legacy' });
    await h.addHost('host-1', {}, { bmc: { address: '', credentialsName: '' } });
    const broken = await h.addHost('host-2');
    broken.script({ method: 'POST', path: /Reset/, times: 2, action: { status: 500 } });
    await h.addHost('host-3', {}, { bmc: { address: 'ipmi://10.0.0.9', credentialsName: 'x' } });
    const off = await h.addHost('host-4', {}, { online: false, image: undefined });
    off.script({ method: 'POST', path: /Reset/, times: 1, action: { status: 500 } });
    const names = ['host-0', 'host-1', 'host-2', 'host-3', 'host-4', 'host-5'];
    await h.settle(names);
    h.now += 60_000;
    await h.settle(names);
    await h.edit('host-0', (bmh) => ({
      ...bmh,
      metadata: {
        ...bmh.metadata,
        annotations: { ...bmh.metadata.annotations, 'baremetalhost.metal3.io/detached': 'x' },
      },
    }));
    await h.settle(names);
    await h.cluster.asOtherActor((c) =>
      c.delete({ ...Gvk.BareMetalHost, namespace: NS, name: 'host-2' }),
    );
    await h.settle(names);

    const validate = statusValidator();
    // The check can fail: BMO's `detach error` is not in its CRD's enum.
    const detachError = { ...(h.statuses[0] as object), errorType: 'detach error' };
    expect(validate(detachError)).toBe(false);
    const states = new Set<string>();
    const errorTypes = new Set<string>();
    for (const status of h.statuses) {
      expect(validate(status), JSON.stringify(validate.errors)).toBe(true);
      const s = status as Record<string, unknown> & {
        provisioning: { state: string };
        operationHistory?: Record<string, { start: string | null; end: string | null }>;
      };
      states.add(s.provisioning.state);
      if (typeof s['errorType'] === 'string') errorTypes.add(s['errorType']);
      expect(s['lastUpdated']).toMatch(RFC3339);
      for (const metric of Object.values(s.operationHistory ?? {}))
        for (const t of [metric.start, metric.end]) if (t !== null) expect(t).toMatch(RFC3339);
    }
    expect([...states].sort()).toEqual(
      [
        'available',
        'deleting',
        'deprovisioning',
        'powering off before delete',
        'provisioned',
        'provisioning',
        'registering',
        'unmanaged',
      ].sort(),
    );
    expect([...errorTypes].sort()).toEqual([
      'power management error',
      'provisioning error',
      'registration error',
    ]);
    expect(h.status('host-5').provisioning).toMatchObject({
      state: 'provisioned',
      bootMode: 'legacy',
    });
    expect(h.status('host-4')).toMatchObject({ poweredOn: false, errorCount: 0 });
    expect(h.status('host-3').errorMessage).toMatch(/^Invalid BMC address: .*ipmi.*not Redfish/);
  });
});
