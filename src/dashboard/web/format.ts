/** How the page writes times, durations and counts. */

/** `1,234`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A duration in ms as `45s`, `12m`, `3h 05m`, `2d 4h`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${String(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${String(m)}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${String(h)}h ${String(m % 60).padStart(2, '0')}m`;
  return `${String(Math.floor(h / 24))}d ${String(h % 24)}h`;
}

/** The time between two RFC 3339 times, or from one to `now`. */
export function between(from: string | undefined, to: string | number | undefined): string {
  if (from === undefined) return '–';
  const end = typeof to === 'number' ? to : to === undefined ? Date.now() : Date.parse(to);
  return duration(end - Date.parse(from));
}

/** A time of day in the browser's zone (`14:03:22`), with the date when not today. */
export function clock(iso: string | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const time = date.toLocaleTimeString('en-GB', { hour12: false });
  const today = new Date().toDateString() === date.toDateString();
  return today ? time : `${date.toLocaleDateString('en-CA')} ${time}`;
}
