import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { StepType } from '../../../src/assisted/model.js';
import {
  HOST_ID,
  NS,
  World,
  clusterDeployment,
  infraEnvObject,
  inventory,
  snoCluster,
} from './fixtures.js';

interface Schema {
  readonly type?: string;
  readonly properties?: Record<string, Schema>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
}

const crd = parse(
  readFileSync(
    join(import.meta.dirname, '../../../crds/agent-install.openshift.io_agents.yaml'),
    'utf8',
  ),
) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
const root = crd.spec.versions[0]!.schema.openAPIV3Schema;

/** Every place `value` breaks `schema`: fields the API server would prune, wrong types, missing required fields. */
function problems(value: unknown, schema: Schema, path: string): string[] {
  const out: string[] = [];
  switch (schema.type ?? '') {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return [`${path} is not an object`];
      const record = value as Record<string, unknown>;
      for (const name of schema.required ?? [])
        if (record[name] === undefined) out.push(`${path}.${name} is required`);
      for (const [key, child] of Object.entries(record)) {
        const sub =
          schema.properties?.[key] ??
          (typeof schema.additionalProperties === 'object'
            ? schema.additionalProperties
            : undefined);
        if (sub === undefined) {
          if (schema.properties !== undefined || schema.additionalProperties !== true)
            if (path !== '.metadata') out.push(`${path}.${key} is not in the CRD (pruned)`);
          continue;
        }
        out.push(...problems(child, sub, `${path}.${key}`));
      }
      return out;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${path} is not an array`];
      return value.flatMap((v, i) => problems(v, schema.items ?? {}, `${path}[${String(i)}]`));
    case 'integer':
      return Number.isInteger(value) ? [] : [`${path} is not an integer`];
    case 'string':
      return typeof value === 'string' ? [] : [`${path} is not a string`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${path} is not a boolean`];
    default:
      return [];
  }
}

describe('the Agent the controller writes fits the Agent CRD', () => {
  it('nothing in spec or status would be pruned or refused, from registration to installing', async () => {
    const w = new World(
      infraEnvObject({ clusterRef: { name: 'sno-1', namespace: NS } }),
      clusterDeployment(),
    );
    w.clusters.records.set('cd-uid-1', snoCluster());
    await w.registered(inventory());
    const ie = w.infraEnvRef();
    await w.service.postStepReply(
      ie,
      HOST_ID,
      {
        stepType: StepType.NtpSynchronizer,
        stepId: 'ntp-synchronizer-1',
        exitCode: 0,
        error: '',
        output: JSON.stringify({
          ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
        }),
      },
      w.now(),
    );
    await w.editSpec({ approved: true, hostname: 'edge-1', nodeLabels: { a: 'b' } });
    await w.reconcile();
    w.service.apply(HOST_ID, { type: 'InstallHost' }, w.now());
    await w.service.updateProgress(
      ie,
      HOST_ID,
      { currentStage: 'Writing image to disk', progressInfo: '12%' },
      w.now(),
    );
    w.monitor().runOnce();
    await w.flush();
    const agent = w.agent();
    expect(agent?.['status']).toMatchObject({
      ntpSources: [{}],
      progress: { progressInfo: '12%' },
    });
    expect(problems(agent, root, '')).toEqual([]);
  });

  it('the check itself finds a pruned field and a float where an integer goes', () => {
    expect(
      problems(
        { status: { kind: 'Host', extra: 1, progress: { installationPercentage: 12.5 } } },
        root,
        '',
      ),
    ).toEqual([
      '.status.extra is not in the CRD (pruned)',
      '.status.progress.installationPercentage is not an integer',
    ]);
  });
});
