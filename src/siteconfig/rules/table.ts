/**
 * docs/compatibility.md's rule table, rendered from the registry: one row per rule, or per run
 * of rules with the same severity and notes, laid out as prettier lays out a Markdown table so
 * that the committed page and `npm run docs:rules` agree byte for byte.
 */
import type { Rule } from './rule.js';

/** The line before the generated table in docs/compatibility.md. */
export const RULE_TABLE_BEGIN =
  '<!-- rules:begin (generated from src/siteconfig/rules by `npm run docs:rules`; do not edit) -->';
/** The line after the generated table. */
export const RULE_TABLE_END = '<!-- rules:end -->';

const HEADER = ['code', 'severity', 'upstream', 'why'] as const;

function severityCell(rule: Rule): string {
  return rule.was === undefined ? rule.severity : `**${rule.severity}** (was ${rule.was})`;
}

/** True when two rules can share a row: the same severity and notes, neither on one field. */
function sameRow(a: Rule, b: Rule): boolean {
  return (
    a.on === undefined &&
    b.on === undefined &&
    a.severity === b.severity &&
    a.was === b.was &&
    a.upstream === b.upstream &&
    a.why === b.why
  );
}

/** The rows of the table: code(s), severity, what upstream does, why. */
export function ruleTableRows(rules: readonly Rule[]): string[][] {
  const groups: Rule[][] = [];
  for (const rule of rules) {
    const last = groups[groups.length - 1];
    if (last && sameRow(last[0]!, rule)) last.push(rule);
    else groups.push([rule]);
  }
  return groups.map((group) => {
    const first = group[0]!;
    const codes = group.map((rule) => `\`${rule.code}\``).join(', ');
    return [
      first.on === undefined ? codes : `${codes} on ${first.on}`,
      severityCell(first),
      first.upstream,
      first.why,
    ];
  });
}

/** The Markdown table of `rules`, with the begin and end markers, as prettier formats it. */
export function renderRuleTable(rules: readonly Rule[]): string {
  const rows = [[...HEADER], ...ruleTableRows(rules)];
  const widths = HEADER.map((_, column) => Math.max(3, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [
    RULE_TABLE_BEGIN,
    '',
    line(rows[0]!),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.slice(1).map(line),
    '',
    RULE_TABLE_END,
  ].join('\n');
}

/** `page` with the text between the markers replaced by the table of `rules`. */
export function withRuleTable(page: string, rules: readonly Rule[]): string {
  const begin = page.indexOf(RULE_TABLE_BEGIN);
  const end = page.indexOf(RULE_TABLE_END);
  if (begin < 0 || end < begin)
    throw new Error(`the page has no ${RULE_TABLE_BEGIN} ... ${RULE_TABLE_END} section`);
  return page.slice(0, begin) + renderRuleTable(rules) + page.slice(end + RULE_TABLE_END.length);
}
