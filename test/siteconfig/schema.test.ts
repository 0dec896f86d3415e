import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JS script without type declarations
import { generate } from '../../scripts/generate-schema-validator.js';
import { siteConfigSchema } from '../../src/siteconfig/index.js';
import { repoRoot } from '../support/sites.js';

describe('the precompiled schema validator', () => {
  it('matches src/siteconfig/schema.ts (run npm run schema:generate after changing the schema)', () => {
    const committed = readFileSync(
      join(repoRoot, 'src', 'siteconfig', 'schema-validator.generated.ts'),
      'utf8',
    );
    expect(committed).toBe((generate as (schema: object) => string)(siteConfigSchema));
  });
});
