/** Days and points as the planning screens show them. */

/** Story points of a list of tickets. */
export const sumPoints = (list: { storyPoints: number | null }[]) =>
  list.reduce((n, t) => n + (t.storyPoints ?? 0), 0);

/** YYYY-MM-DD of a stored sprint date (midnight UTC) or of today. */
export const dayOf = (iso: string | null | undefined) => (iso ?? new Date().toISOString()).slice(0, 10);

/** A YYYY-MM-DD day plus n days. */
export function addDays(day: string, n: number) {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** A short readable date of a stored day. */
export function shortDate(iso: string | null | undefined) {
  if (!iso) return '';
  const d = new Date(`${iso.slice(0, 10)}T00:00:00.000Z`);
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
