import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks, rules } from '../../../src/siteconfig/rules/index.js';
import type { Rule } from '../../../src/siteconfig/rules/index.js';
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
      // The module reports the code by name, as a string or as the rule of that name.
      expect(source, `${rule.code} in ${rule.reportedBy}`).toMatch(
        new RegExp(`\\b${rule.code}\\b`),
      );
    }
  });

  it('has a test file per topic that names every rule of the topic', async () => {
    const dir = join(repoRoot, 'src', 'siteconfig', 'rules');
    let named = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      const own = Object.entries(module).filter(([, value]) => rules.includes(value as Rule));
      if (own.length === 0) continue;
      const test = join(repoRoot, 'test', 'siteconfig', 'rules', file.replace(/\.ts$/, '.test.ts'));
      expect(existsSync(test), test).toBe(true);
      const text = readFileSync(test, 'utf8');
      for (const [name] of own)
        expect(text, `${name} in ${test}`).toMatch(new RegExp(`\\b${name}\\b`));
      named += own.length;
    }
    expect(named).toBe(rules.length);
  });

  it('runs the site checks around the cluster checks, never between them', () => {
    const scopes = checks.map((check) => (check.scope === 'site' ? 's' : 'c')).join('');
    expect(scopes).toMatch(/^s*c*s*$/);
  });
});
