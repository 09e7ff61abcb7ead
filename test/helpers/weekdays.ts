/** `n` weekdays from `from` (a weekday), as YYYY-MM-DD: a synthetic trading calendar for tests. */
export function weekdays(from: string, n: number): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); out.length < n; t += 86_400_000) {
    const day = new Date(t).getUTCDay();
    if (day !== 0 && day !== 6) out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}
