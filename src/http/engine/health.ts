/**
 * What the engine adds to its health check: the regime in force and how old its data are. Missing or stale
 * regime data make the engine refuse every order (`regime_stale`), so health says so, with what to do.
 */
import type { HealthDetails } from '../health.js';
import type { EngineContext } from '../../engine/context.js';
import { freshnessOf, staleWarning } from '../../engine/policy/freshness.js';

export function engineHealth(ctx: EngineContext): HealthDetails {
  const b = ctx.state.regime;
  if (!b) {
    return {
      fields: { regime: null },
      warnings: [
        `no regime is published: authorize refuses every order (regime_stale) until you run the pipeline or publish a manual broadcast (\`tradeseal regime publish\`)`,
      ],
    };
  }
  const f = freshnessOf(b.date, ctx.policy.document.regime_max_age_ms, ctx.now());
  const warning = staleWarning(f);
  return {
    fields: {
      regime: {
        regime: b.regime,
        source: b.source,
        date: b.date,
        data_complete_at: f.data_complete_at,
        age_ms: f.age_ms,
        max_age_ms: f.max_age_ms,
        stale: f.stale,
      },
    },
    warnings: warning ? [warning] : [],
  };
}
