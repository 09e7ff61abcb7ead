/** The terminal view of a policy document: identity and hash, the per-regime rules, the caps and limits. */
import type { Policy } from '../engine/policy/policy.js';
import { REGIMES } from '../core/vocabulary.js';
import { renderFields } from './engine-views.js';
import { renderTable, type TableStyle } from './table.js';

const list = (items: readonly string[] | null | undefined, none: string): string => (items ? (items.length ? items.join(', ') : 'none') : none);

/** `style` fits the tables to a terminal (the prose is wrapped by the command). */
export function renderPolicy(policy: Policy, file: string, style: TableStyle = {}): string {
  const d = policy.document;
  const caps = Object.entries(d.currency_caps);
  const assetCaps = Object.entries(d.asset_caps ?? {});
  return [
    renderFields([
      ['policy', `${d.id} ${d.version}`],
      ['hash', policy.hash],
      ['file', file],
      ['description', d.description],
    ]),
    '',
    renderTable(
      ['regime', 'allowed_sides', 'max_notional_scale'],
      REGIMES.map((r) => [
        r,
        d.regimes[r].allowed_sides.length ? d.regimes[r].allowed_sides.join(', ') : 'none (reduce_only orders only)',
        d.regimes[r].max_notional_scale,
      ]),
      style,
    ),
    '',
    caps.length ? renderTable(['currency', 'notional cap'], caps, style) : 'currency caps: none (every order is refused: currency_not_allowed)',
    '',
    assetCaps.length ? renderTable(['asset', 'notional cap'], assetCaps, style) : 'asset caps: none',
    '',
    renderFields([
      ['max_quantity', d.max_quantity ?? 'no limit'],
      ['allowed_venues', list(d.allowed_venues, 'any')],
      ['allowed_order_types', list(d.allowed_order_types, 'any')],
      ['max_orders_per_second', d.max_orders_per_second ?? 'no limit'],
      ['notional_tolerance', d.notional_tolerance],
      ['regime_max_age_ms', d.regime_max_age_ms],
      ['agent_valid_time_max_lag_ms', d.agent_valid_time_max_lag_ms],
    ]),
  ].join('\n');
}
