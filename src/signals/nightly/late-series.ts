/** A series whose file lacks a row the night's day needs: what the nightly run reports and the store keeps. */
export interface LateSeries {
  series: string;
  file: string;
  /** The file's last row (a FRED holiday row without a value counts), or null when the file has none. */
  last_row: string | null;
  /** The row the day needs that the file lacks: the one after `last_row`. Null when the file is empty. */
  needed_row: string | null;
  /** When that row was released by its rule (ISO 8601, UTC). */
  released_at: string | null;
  /** The rule, in the publisher's words. */
  rule: string;
}
