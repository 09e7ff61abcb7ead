/**
 * Turning shadow mode on or off, for the HTTP API (`POST /engine/admin/shadow-mode`) and the CLI
 * (`tradeseal engine shadow on|off`) alike. Shadow mode lets orders that break the policy pass, so turning
 * it on requires a reason, kept with the state for the officer who later reads the SHADOW_HALTED traces:
 * without one it is `validation_failed` on `reason` (422, exit 2). Turning it off needs none. Each change is
 * written to the audit log (`shadow.enable`, `shadow.disable`) in the same transaction.
 */
import type { Sql } from 'postgres';
import { validationError } from '../../core/errors.js';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import { setShadowMode, type ShadowMode } from '../store/shadow.js';

export interface ShadowModeChange {
  enabled: boolean;
  reason?: string | null | undefined;
}

export async function changeShadowMode(sql: Sql, change: ShadowModeChange, changedBy: string): Promise<ShadowMode> {
  const reason = change.reason ?? null;
  if (change.enabled && (reason === null || reason.trim() === '')) {
    throw validationError([{ field: 'reason', message: 'is required to turn shadow mode on' }]);
  }
  return withTransaction(sql, async (tx) => {
    const state = await setShadowMode(tx, change.enabled, reason, changedBy);
    await appendAudit(tx, { actor: changedBy, action: change.enabled ? 'shadow.enable' : 'shadow.disable', target_id: null, details: { reason } });
    return state;
  });
}
