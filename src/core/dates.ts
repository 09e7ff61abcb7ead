/** Calendar arithmetic on ISO dates (`YYYY-MM-DD`), in UTC so that no time zone shifts a day. */

/** `date + days` for ISO dates, in UTC so no time zone shifts a day. */
export function addDays(isoDate: string, days: number): string {
  const t = Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
