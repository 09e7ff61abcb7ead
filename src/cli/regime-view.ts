/** Terminal rendering of the regime in force: the broadcast, whether an operator's override holds, and how old its data are. */
import type { Freshness } from '../engine/policy/freshness.js';
import { humanAge, staleWarning } from '../engine/policy/freshness.js';
import type { RegimeBroadcast } from '../store/regime-broadcasts.js';
import { renderBroadcast } from './engine-views.js';

/** One line on the broadcast's source: a manual broadcast is an override that holds until released. */
export function overrideLine(b: RegimeBroadcast): string | null {
  if (b.source !== 'manual') return null;
  return `an operator's override is in force (#${b.id}, by ${b.published_by ?? 'unknown'}${b.reason ? `: "${b.reason}"` : ''}); pipeline runs do not replace it until \`tradeseal regime release\``;
}

export function freshnessLine(f: Freshness): string {
  return staleWarning(f) ?? `data of ${f.date}: ${humanAge(f.age_ms)} old (the policy allows ${humanAge(f.max_age_ms)})`;
}

export function renderRegimeStatus(b: RegimeBroadcast, f: Freshness): string {
  return [renderBroadcast(b), '', overrideLine(b), freshnessLine(f)].filter((l) => l !== null).join('\n');
}
