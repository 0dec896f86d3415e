/**
 * A rollout plan as people read it in a terminal: what changes, the waves as a table, then the
 * install-time-only changes, the held sites with why and what to do, and the warnings. Values
 * from the repository (names, labels, messages) are printed without control characters.
 */
import type { PlanSite, PlanWave, RolloutPlan } from './plan.js';

/** Held sites listed before "and N more". */
const MAX_LISTED = 50;

/** `1h30m`, `45s`: a number of seconds as people read it. */
export function formatDuration(seconds: number): string {
  if (seconds <= 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h > 0 ? `${String(h)}h` : '', m > 0 ? `${String(m)}m` : ''];
  if (h === 0 && s > 0) parts.push(`${String(s)}s`);
  return parts.join('') || '0s';
}

/** Text from the repository, made safe for a terminal. */
function safe(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    out += code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0) ? '?' : c;
  }
  return out;
}

function short(commit: string): string {
  return commit.slice(0, 12);
}

function siteList(sites: readonly string[]): string {
  if (sites.length <= 3) return sites.map(safe).join(', ');
  return `${safe(sites[0]!)} … ${safe(sites[sites.length - 1]!)}`;
}

function gateText(w: PlanWave): string {
  const succeeded = w.action === 'remove' ? 'removed' : 'installed';
  return `≥${String(w.gate.minSucceededPercent)}% ${succeeded}, ≤${String(w.gate.maxFailures)} failed, ${formatDuration(w.gate.timeoutSeconds)}`;
}

function paceText(w: PlanWave): string {
  return `${String(w.pacing.sitesPerHour)}/h, ${String(w.pacing.maxInFlight)} at once`;
}

/** Width of a cell in code points (names are ASCII; `≥`, `…` count one). */
function width(text: string): number {
  return Array.from(text).length;
}

/** Lays out rows as columns two spaces apart; `right` columns are aligned right. */
function table(rows: readonly (readonly string[])[], right: ReadonlySet<number>): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (i === row.length - 1) return cell;
        const pad = ' '.repeat(widths[i]! - width(cell));
        return right.has(i) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd(),
  );
}

/** The plan as text for a terminal. */
export function formatPlan(plan: RolloutPlan): string {
  const { summary } = plan;
  const lines: string[] = [
    `rollout plan ${safe(plan.from.revision)} (${short(plan.from.commit)}) → ${safe(plan.to.revision)} (${short(plan.to.commit)}) in ${safe(plan.path)}`,
    `policy: ${safe(plan.policy)}${plan.includeDangerous ? ' (dangerous changes included)' : ''}`,
    `sites: ${String(summary.added)} added, ${String(summary.changed)} changed, ${String(summary.removed)} removed (fleet after the change: ${String(summary.fleet)}); ${String(summary.planned)} in ${String(summary.waves)} wave(s), ${String(summary.held)} held`,
  ];
  if (plan.waves.length > 0) {
    lines.push('');
    const rows = [
      ['#', 'WAVE', 'TYPE', 'ACTION', 'SITES', 'GATE', 'PACE', 'RELEASE', 'FIRST … LAST'],
      ...plan.waves.map((w, i) => [
        String(i + 1),
        w.name,
        w.type,
        w.action,
        String(w.sites.length),
        gateText(w),
        paceText(w),
        formatDuration(w.releaseSeconds),
        siteList(w.sites),
      ]),
    ];
    lines.push(...table(rows, new Set([0, 4])));
    lines.push(
      `at least ${formatDuration(summary.releaseSeconds)} to release every wave, plus the time each wave takes to pass its gate`,
    );
  }
  const installTime = plan.sites.filter(
    (s) => s.wave !== null && s.findings.some((f) => f.impact === 'reinstall'),
  );
  if (installTime.length > 0) {
    lines.push(
      '',
      `install-time-only changes (${String(installTime.length)} site(s)): sites installed from now on get them; running sites keep what they were installed with:`,
    );
    lines.push(...listed(installTime, (s) => findingLines(s, 'reinstall')));
  }
  const held = plan.sites.filter((s) => s.held !== null);
  if (held.length > 0) {
    lines.push('', `held (${String(held.length)} site(s), in no wave):`);
    lines.push(
      ...listed(held, (s) => [
        `  ${safe(s.name)} (${s.change}) ${s.held!.reason}: ${safe(s.held!.message)}`,
        ...s.findings
          .filter((f) => f.impact === 'rejected' || f.impact === 'dangerous')
          .flatMap((f) => [`      ${f.code}: ${safe(f.message)}`, `      hint: ${safe(f.hint)}`]),
      ]),
    );
  }
  for (const warning of plan.warnings) lines.push('', `warning: ${safe(warning)}`);
  return `${lines.join('\n')}\n`;
}

function findingLines(site: PlanSite, impact: string): string[] {
  return site.findings
    .filter((f) => f.impact === impact)
    .map((f) => `  ${safe(site.name)}: ${safe(f.message)}`);
}

function listed(sites: readonly PlanSite[], lines: (s: PlanSite) => string[]): string[] {
  const out = sites.slice(0, MAX_LISTED).flatMap(lines);
  if (sites.length > MAX_LISTED)
    out.push(`  … and ${String(sites.length - MAX_LISTED)} more (--json lists every site)`);
  return out;
}
