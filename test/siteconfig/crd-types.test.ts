import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JS script without type declarations
import { generate as generateUntyped } from '../../scripts/generate-crd-types.js';
import { repoRoot } from '../support/sites.js';

const generate = generateUntyped as (crdDir?: string) => Record<string, string>;

describe('the types generated from crds/', () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  it('match the committed src/imports byte for byte (run npm run imports after changing crds/)', () => {
    const generated = generate();
    const committed = readdirSync(join(repoRoot, 'src', 'imports')).map((f) =>
      join('src', 'imports', f),
    );
    expect(Object.keys(generated).sort()).toEqual(committed.sort());
    for (const [path, text] of Object.entries(generated))
      expect(readFileSync(join(repoRoot, path), 'utf8'), path).toBe(text);
  });

  it('keep the field names of the JSON the API server takes, not camelCased ones', () => {
    const generated = generate();
    const metal3 = generated[join('src', 'imports', 'metal3.io.ts')]!;
    expect(metal3).toContain('readonly bootMACAddress?: string;');
    const hive = generated[join('src', 'imports', 'extensions.hive.openshift.io.ts')]!;
    expect(hive).toContain('readonly apiVIPs?: readonly string[];');
  });

  it('lets a required field with a default be left out, as the API server fills it in', () => {
    const generated = generate();
    const ci = generated[join('src', 'imports', 'siteconfig.open-cluster-management.io.ts')]!;
    expect(ci).toContain("readonly preservationMode?: 'None' | 'All' | 'ClusterIdentity';");
    expect(ci).toContain('readonly generation: string;');
  });

  it('refuses a schema it cannot type instead of guessing', () => {
    scratch = mkdtempSync(join(tmpdir(), 'crd-types-'));
    cpSync(join(repoRoot, 'crds'), scratch, { recursive: true });
    const file = join(scratch, 'metal3.io_hostfirmwaresettings.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '                  additionalProperties:\n                    anyOf:',
        '                  additionalProperties:\n                    oneOf:',
      ),
    );
    expect(() => generate(scratch)).toThrow(
      'HostFirmwareSettings.spec.settings.*: schema keyword oneOf has no TypeScript rendering here',
    );
  });
});
