/**
 * Test helper: the published strategy's daily returns as a subscriber recomputes them from what they have, the
 * exported regimes with their publication instants and SPY's prices (`data/macro/SPY.csv`), written from the
 * documented rule and formula (README, "What quants and analysts read") and sharing no code with
 * pipeline/reports/: the regime of day t is taken as SPY exposure at the first open at or after its
 * `available_at`, held overnight into the next day, and each day earns
 * r_s = (1 + e_gap·g_s)(1 + e_day·d_s)(1 − c·|e_day − e_gap|) − 1, the first position free, where the overnight
 * gap counts what the holder of a share at the previous close has at the open: its split shares and the cash
 * dividend that went ex, g_s = split · (open + dividend) / previous close − 1; buy-and-hold is exposure 1 from the
 * same first open. Plus the figures of the performance report in their plainest form.
 */
import fs from 'node:fs';

export interface SpyDay {
  open: number;
  close: number;
  /** Cash per share that went ex on the day (0 on other days). */
  dividend: number;
  /** Shares after per share before (1 on other days). */
  split: number;
}

/** SPY.csv as a subscriber's script reads it: by date, open, close, the dividend and the split. */
export function readSpy(file: string): { dates: string[]; prices: Map<string, SpyDay> } {
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const [o, c, dv, sp] = [head.indexOf('open'), head.indexOf('close'), head.indexOf('dividend'), head.indexOf('split')];
  const rows = lines.slice(1).map((l) => l.split(','));
  return {
    dates: rows.map((f) => f[0]!),
    prices: new Map(rows.map((f) => [f[0]!, { open: Number(f[o]), close: Number(f[c]), dividend: Number(f[dv]), split: Number(f[sp]) }])),
  };
}

const newYork = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** The SPY trading day whose 09:30 New York open is the first at or after the instant `iso`. */
export function firstOpenAtOrAfter(iso: string, spyDates: readonly string[]): string {
  const parts = Object.fromEntries(newYork.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}`;
  // Seconds are never set on a publication instant; at 09:30 sharp the open of that day is still ahead.
  const found = spyDates.find((d) => (time <= '09:30' ? d >= day : d > day));
  if (found === undefined) throw new Error(`no SPY open after ${iso}`);
  return found;
}

export interface PublishedRegime {
  date: string;
  regime: string;
  equity_exposure: number;
  available_at: string;
}

export interface SubscriberDay {
  date: string;
  /** The regime taken at this day's open. */
  held: string;
  strategy: number;
  buyAndHold: number;
}

/** The returns of every published day that holds a position (oldest first), at `costBps` per unit of change. */
export function subscriberReturns(
  regimes: readonly PublishedRegime[],
  spyDates: readonly string[],
  spy: ReadonlyMap<string, SpyDay>,
  costBps: number,
): SubscriberDay[] {
  const c = costBps / 10_000;
  const takenOn = regimes.map((r) => firstOpenAtOrAfter(r.available_at, spyDates));
  // What is held at the open of each published day: the newest regime taken on or before it.
  const heldAt = regimes.map((d) => {
    let held: PublishedRegime | null = null;
    regimes.forEach((r, k) => {
      if (takenOn[k]! <= d.date) held = r;
    });
    return held as PublishedRegime | null;
  });
  const out: SubscriberDay[] = [];
  for (let j = 1; j < regimes.length; j++) {
    const now = heldAt[j];
    if (now === null || now === undefined) continue;
    const before = heldAt[j - 1] ?? null;
    const p = spy.get(regimes[j - 1]!.date)!;
    const s = spy.get(regimes[j]!.date)!;
    const g = (s.split * (s.open + s.dividend)) / p.close - 1;
    const d = s.close / s.open - 1;
    const eGap = before === null ? 0 : before.equity_exposure;
    const cost = before === null ? 0 : c * Math.abs(now.equity_exposure - eGap);
    const hold = before === null ? 0 : 1;
    out.push({
      date: regimes[j]!.date,
      held: now.regime,
      strategy: (1 + eGap * g) * (1 + now.equity_exposure * d) * (1 - cost) - 1,
      buyAndHold: (1 + hold * g) * (1 + d) - 1,
    });
  }
  return out;
}

export const mean = (x: readonly number[]): number => x.reduce((a, b) => a + b, 0) / x.length;
export const sampleSd = (x: readonly number[]): number => Math.sqrt(x.reduce((a, b) => a + (b - mean(x)) ** 2, 0) / (x.length - 1));
export const sharpe = (x: readonly number[]): number => (mean(x) / sampleSd(x)) * Math.sqrt(252);
export const wealth = (x: readonly number[]): number => x.reduce((w, r) => w * (1 + r), 1);
export const annual = (x: readonly number[]): number => wealth(x) ** (252 / x.length) - 1;

export function maxDrawdown(x: readonly number[]): number {
  let w = 1;
  let peak = 1;
  let dd = 0;
  for (const r of x) {
    w *= 1 + r;
    peak = Math.max(peak, w);
    dd = Math.min(dd, w / peak - 1);
  }
  return dd;
}

/** Geometric alpha against `b`, annualised: (1 + mean(s − βb))^252 − 1, β = cov / var (population). */
export function alpha(s: readonly number[], b: readonly number[]): number {
  const beta = mean(s.map((r, i) => (r - mean(s)) * (b[i]! - mean(b)))) / mean(b.map((x) => (x - mean(b)) ** 2));
  return (1 + mean(s.map((r, i) => r - beta * b[i]!))) ** 252 - 1;
}
