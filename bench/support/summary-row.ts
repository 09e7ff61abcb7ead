/**
 * A row of the table of bench/all.ts, and reading a benchmark's JSON defensively: its shape belongs to the
 * benchmark and changes with it, so a member that is missing or of another type is an error naming it.
 */

export interface SummaryRow {
  benchmark: string;
  /** The run within the benchmark (mode, workers, connections), or ''. */
  run: string;
  /** The route or stage. */
  what: string;
  figure: string;
  floor: string;
  /** figure / floor: req/s over the floor's req/s, or ms over the floor's ms; null without a floor. */
  ratio: number | null;
  target: string;
  result: 'MET' | 'NOT MET' | '';
}

/** A member of a JSON object; throws naming the path when `value` is not an object. */
export function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`expected an object holding "${key}"`);
  return (value as Record<string, unknown>)[key];
}

export function numberAt(value: unknown, ...keys: string[]): number {
  const v = keys.reduce<unknown>((acc, k) => field(acc, k), value);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`"${keys.join('.')}" is not a number`);
  return v;
}

export function listAt(value: unknown, key: string): unknown[] {
  const v = field(value, key);
  if (!Array.isArray(v)) throw new Error(`"${key}" is not a list`);
  return v;
}

export const textAt = (value: unknown, key: string): string | null => {
  const v = field(value, key);
  return typeof v === 'string' ? v : null;
};

export const fmt = (n: number, digits: number): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const met = (ok: boolean): 'MET' | 'NOT MET' => (ok ? 'MET' : 'NOT MET');
