// Times and durations as operators read them: UTC always shown, local time beside it.

const pad = n => String(n).padStart(2, '0');

/** 2026-03-29 12:00:05 UTC */
export function utc(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return String(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** The browser's local time of an instant, e.g. 2026-03-29 14:00:05 */
export function local(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return String(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * UTC, and beside it the task's wall clock when the view carries it in its `local` map:
 * 2026-03-29 12:00:05 UTC (2026-03-29T08:00:05-04:00)
 */
export function utcAndLocal(iso, view, field) {
  const wall = iso && view && view.local ? view.local[field] : null;
  return wall ? `${utc(iso)} (${wall})` : utc(iso);
}

/** 1.2 s, 3 m 5 s, 2 h 4 m */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 100) / 10;
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} m`;
}

/** How long ago an instant was, from now. */
export function ago(iso, now) {
  if (!iso) return 'never';
  const ms = (now ? new Date(now) : new Date()) - new Date(iso);
  return ms < 0 ? 'in ' + duration(-ms) : duration(ms) + ' ago';
}
