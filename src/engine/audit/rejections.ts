/**
 * Every refused authorization (403) is written to the audit log (`authorize.reject`): no trace is stored for
 * it, so this entry is the only record that the agent tried. The entry names the agent (`target_id`), the
 * rule (`code`, with its `detail`) and the order as sent, less what does not belong in a log that is never
 * rewritten: the regulatory block (personal data, which an erasure must be able to destroy) and the
 * heartbeat's signature (its other fields stay).
 *
 * Each refusal is one append, and appends are serialized (append.ts): a flood of refused orders queues on the
 * chain's lock. The README gives the measured rate.
 */
import type { Sql } from 'postgres';
import { isTradesealError } from '../../core/errors.js';
import { actorOf } from '../auth.js';
import type { AuthorizeRequest } from '../authorize.js';
import type { TokenRecord } from '../store/tokens.js';
import { appendAudit } from './append.js';

/** The order as the audit log keeps it. */
export function rejectedOrder(body: AuthorizeRequest): Record<string, unknown> {
  const { regulatory: _personal, heartbeat, ...order } = body;
  if (!heartbeat) return order;
  const { signature: _signature, ...beat } = heartbeat;
  return { ...order, heartbeat: beat };
}

/** Runs `authorizeOrder`; when it refuses the order (a 403), appends the refusal to the audit log and rethrows. */
export async function auditingRefusals<T>(sql: Sql, principal: TokenRecord | undefined, body: AuthorizeRequest, authorizeOrder: () => Promise<T>): Promise<T> {
  try {
    return await authorizeOrder();
  } catch (error) {
    if (isTradesealError(error) && error.status === 403) {
      await appendAudit(sql, {
        actor: actorOf(principal),
        action: 'authorize.reject',
        target_id: body.agent_id,
        details: { code: error.code, detail: error.message, order: rejectedOrder(body) },
      });
    }
    throw error;
  }
}
