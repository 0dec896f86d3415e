import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks, rules } from '../../../src/siteconfig/rules/index.js';
import { structureRules } from '../../../src/siteconfig/rules/structure.js';
import { withRuleTable } from '../../../src/siteconfig/rules/table.js';
import { repoRoot } from '../../support/sites.js';

describe('the rule registry', () => {
  it('is what docs/compatibility.md lists, rule by rule (npm run docs:rules rewrites it)', () => {
    const page = readFileSync(join(repoRoot, 'docs', 'compatibility.md'), 'utf8');
    expect(withRuleTable(page, rules)).toBe(page);
  });

  it('gives each code one severity per field it is on', () => {
    const seen = new Map<string, string>();
    for (const rule of rules) {
      const key = `${rule.code} ${rule.on ?? ''}`;
      expect(seen.get(key), key).toBeUndefined();
      seen.set(key, rule.severity);
    }
  });

  it('registers every rule a check reports', () => {
    for (const check of checks)
      for (const rule of check.rules) expect(rules, `${check.name}: ${rule.code}`).toContain(rule);
  });

  it('has a check for every rule, or names the module that reports it', () => {
    const checked = new Set([...checks.flatMap((check) => check.rules), ...structureRules]);
    for (const rule of rules) {
      if (rule.reportedBy === undefined) {
        expect(checked.has(rule), rule.code).toBe(true);
        continue;
      }
      const source = readFileSync(join(repoRoot, 'src', 'siteconfig', rule.reportedBy), 'utf8');
      expect(source, `${rule.code} in ${rule.reportedBy}`).toContain(`'${rule.code}'`);
    }
  });

  it('runs the site checks around the cluster checks, never between them', () => {
    const scopes = checks.map((check) => (check.scope === 'site' ? 's' : 'c')).join('');
    expect(scopes).toMatch(/^s*c*s*$/);
  });
});
