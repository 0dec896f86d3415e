import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hubClient } from '../support/hub.js';

interface Crd {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string }[] };
}

describe('the hub', () => {
  it('serves every CRD of crds/, established', async () => {
    const dir = join(import.meta.dirname, '..', '..', 'crds');
    const ours = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => (parse(readFileSync(join(dir, f), 'utf8')) as Crd).metadata.name)
      .sort();
    expect(ours).toHaveLength(16);

    const served = (await hubClient().list({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
    })) as unknown as Crd[];
    const established = served
      .filter((crd) =>
        crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
      )
      .map((crd) => crd.metadata.name)
      .sort();
    expect(established).toEqual(ours);
  });
});
