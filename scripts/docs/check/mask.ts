/**
 * What the documented-output checker does not compare: the parts of an output that differ from run to run by
 * design (ids, instants, durations, keys, signatures, ports). Both the expected and the real output are
 * masked before comparing, so everything else (every figure, every word) must match exactly: a Sharpe ratio
 * that moved from 0.781 to 0.782 is a difference, a run id or a `12.3 s` is not.
 */
import { TOKEN_PREFIX } from '../../../src/engine/store/tokens.js';
import { KEY_PREFIX } from '../../../src/signals/store/keys.js';
import { SECRET_PREFIX } from '../../../src/signals/webhooks/signing.js';

/** The secrets' prefixes, from the code that issues them (`ts_` is the generic form the docs may use). */
const SECRET_PREFIXES = [TOKEN_PREFIX, KEY_PREFIX, SECRET_PREFIX, 'ts_'];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** In order: a UUID is masked before its hex runs are, an instant before its time of day reads as a duration. */
const MASKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?(?![\w:])/g, '<instant>'],
  [new RegExp(`(?<![A-Za-z0-9_])(?:${SECRET_PREFIXES.map(escape).join('|')})[A-Za-z0-9_-]*…?`, 'g'), '<secret>'],
  [/\b(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]):\d{1,5}\b/g, '$1:<port>'],
  // Hex with a letter in it, not after a decimal point: a fraction's digits are a figure, not a hash.
  [/(?<![\w.])(?=[0-9]*[a-f])[0-9a-f]{16,}\b/gi, '<hex>'],
  // A short id (the first 8 hex characters of a UUID, as listings and hints print them), with or without its `…`.
  // Digits alone too: one id in 40 has no letter in its first 8 characters. So an 8-digit figure is masked as
  // well; the documented outputs have none (dates print with dashes, amounts below 10^7 or with decimals).
  [/(?<![\w.-])[0-9a-f]{8}(?![\w-])…?/g, '<id>'],
  // Base64 (or base64url) of 40 or more characters with digits and both cases: signatures and keys, never words.
  [/(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*[0-9])(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{40,}={0,2}/g, '<base64>'],
  // Durations: `850 ms`, `12.3 s`, `1m 3s`, `1 min 43 s`, `2h`, alone or in a sequence.
  [/(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|µs|us|s|sec|min|m|h)\b(?:\s\d+(?:\.\d+)?\s?(?:ms|s|sec|min|m)\b)*/g, '<duration>'],
];

/** The text with every run-dependent part replaced by a placeholder naming its kind. */
export function mask(text: string): string {
  let out = text;
  for (const [re, to] of MASKS) out = out.replace(re, to);
  return out;
}

/** What is compared of an output: masked, trailing spaces of each line and trailing empty lines dropped. */
export function comparable(lines: readonly string[]): string[] {
  const out = lines.map((l) => mask(l).replace(/\s+$/, ''));
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}
