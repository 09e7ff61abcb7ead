/**
 * The comparison run (`bench/engine.ts --compare NAME=VALUE,...`): the headline scenario on two new stores, each
 * with its own server of the same build, one started with the given settings on top of the harness's (a setting
 * of tradeseal such as ENGINE_BATCH_IN_FLIGHT, or the benchmark server's BENCH_WORKERS and BENCH_POOL), the two
 * servers' floor, floor-verify, authorize and bind taken in turns in the same rounds (./slices.ts). A setting is
 * judged by the ratios the targets are stated in (authorize over its server's floor-verify, bind over its server's
 * floor) and by each route's req/s against the other server's, each with its per-round figures, so that what the
 * setting changes is read against how much the machine moves in the same minutes.
 */
import { pooled, roundRatios, type Slice } from './slices.js';

/** The settings a comparison gives its second server: NAME=VALUE pairs, in the order given. */
export type CompareSettings = ReadonlyArray<readonly [string, string]>;

const NAME = /^[A-Z][A-Z0-9_]*$/;
/** Settings the harness sets for each server itself (which store, which keys): the comparison may not change them. */
const OWN = new Set(['DATABASE_URL', 'LAYER2_ENABLED', 'REGIME_OPERATOR_PUBKEY', 'POLICY_PATH', 'BENCH_OWNER_TOKEN']);
/** The benchmark server's process and connection counts. */
const COUNTS = new Set(['BENCH_WORKERS', 'BENCH_POOL']);

/**
 * `NAME=VALUE[,NAME=VALUE...]`: names of environment settings (upper case, digits, `_`), each once, values not
 * empty and without a comma. Throws an Error naming the rule a part breaks.
 */
export function parseCompare(raw: string): CompareSettings {
  const parts = raw.split(',').map((p) => p.trim());
  const out: Array<readonly [string, string]> = [];
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`--compare: "${part}" is not NAME=VALUE`);
    const name = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (!NAME.test(name)) throw new Error(`--compare: "${name}" is not a setting's name (upper-case letters, digits and _, a letter first)`);
    if (OWN.has(name)) throw new Error(`--compare: ${name} is set by the benchmark for each server and cannot be compared`);
    if (value === '') throw new Error(`--compare: ${name} has no value`);
    // The benchmark server's own settings (bench/engine-server.ts), which it reads without checking; tradeseal's are checked at its start.
    if (COUNTS.has(name) && !/^[1-9][0-9]*$/.test(value)) throw new Error(`--compare: ${name} must be a whole number >= 1, got ${value}`);
    if (out.some(([n]) => n === name)) throw new Error(`--compare: ${name} is given twice`);
    out.push([name, value]);
  }
  return out;
}

/** The settings as they are given on the command line's terms: `NAME=VALUE NAME=VALUE`. */
export const settingsText = (settings: CompareSettings): string => settings.map(([n, v]) => `${n}=${v}`).join(' ');

/** The routes each server is measured on, in the order of an even round. */
export const COMPARE_ROUTES = ['floor', 'verifyFloor', 'authorize', 'bind'] as const;
export type CompareRoute = (typeof COMPARE_ROUTES)[number];
export type CompareSide = 'plain' | 'varied';
export type CompareKey = `${CompareSide} ${CompareRoute}`;

/**
 * The round's keys: the two servers' routes interleaved (plain floor, varied floor, plain floor-verify, …), so
 * that each route is measured on both servers one after the other and a drift of the machine between them is as
 * short as the rounds allow; the order is mirrored every other round (./slices.ts).
 */
export const COMPARE_KEYS: readonly CompareKey[] = COMPARE_ROUTES.flatMap((r) => [`plain ${r}`, `varied ${r}`] as const);

/** One line of the comparison: a route's figure on each server, their change, and per round. */
export interface CompareLine {
  /** `authorize ÷ floor-verify`, `bind ÷ floor`, or a route's req/s. */
  what: string;
  plain: number;
  varied: number;
  /** varied ÷ plain − 1, percent. */
  changePct: number;
  /** Per round, for a ratio: the ratio on the plain server (null for a route's req/s). */
  roundsPlain: number[] | null;
  /** Per round: for a ratio, the ratio on the varied server; for a route's req/s, varied ÷ plain. */
  roundsVaried: number[];
}

/** The comparison's lines from each key's slices (in round order): the targets' two ratios on each server, then each route's req/s. */
export function compareLines(slices: Readonly<Record<CompareKey, readonly Slice[]>>): CompareLine[] {
  const rps = (k: CompareKey): number => pooled(slices[k]).result.rps;
  const ratio = (what: string, route: CompareRoute, against: CompareRoute): CompareLine => {
    const plain = rps(`plain ${route}`) / rps(`plain ${against}`);
    const varied = rps(`varied ${route}`) / rps(`varied ${against}`);
    return {
      what,
      plain,
      varied,
      changePct: (varied / plain - 1) * 100,
      roundsPlain: roundRatios(slices[`plain ${route}`], slices[`plain ${against}`]),
      roundsVaried: roundRatios(slices[`varied ${route}`], slices[`varied ${against}`]),
    };
  };
  const route = (r: CompareRoute): CompareLine => {
    const plain = rps(`plain ${r}`);
    const varied = rps(`varied ${r}`);
    return {
      what: `${r} req/s`,
      plain,
      varied,
      changePct: (varied / plain - 1) * 100,
      roundsPlain: null,
      roundsVaried: roundRatios(slices[`varied ${r}`], slices[`plain ${r}`]),
    };
  };
  return [ratio('authorize ÷ floor-verify', 'authorize', 'verifyFloor'), ratio('bind ÷ floor', 'bind', 'floor'), ...COMPARE_ROUTES.map(route)];
}
