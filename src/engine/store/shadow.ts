/** Shadow mode (dry-run) in the store: one row shared by every engine instance. */
import type { Sql } from 'postgres';
import type { SqlOrTx } from '../../store/transaction.js';

export interface ShadowMode {
  enabled: boolean;
  reason: string | null;
  changed_at: Date | null;
  changed_by: string | null;
}

export async function readShadowMode(sql: Sql): Promise<ShadowMode> {
  const [row] = await sql<ShadowMode[]>`select enabled, reason, changed_at, changed_by from engine_shadow_mode where singleton`;
  return row ?? { enabled: false, reason: null, changed_at: null, changed_by: null };
}

export async function setShadowMode(sql: SqlOrTx, enabled: boolean, reason: string | null, changedBy: string): Promise<ShadowMode> {
  const [row] = await sql<ShadowMode[]>`
    update engine_shadow_mode set enabled = ${enabled}, reason = ${reason}, changed_at = clock_timestamp(), changed_by = ${changedBy}
    where singleton returning enabled, reason, changed_at, changed_by`;
  return row as ShadowMode;
}
