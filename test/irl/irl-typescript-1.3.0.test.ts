/**
 * The IRL TypeScript SDK v1.3.0 (./fixtures/irl-typescript-1.3.0.ts) against tradeseal's IRL-compatible API:
 * every method's request as the SDK sends it (`execution_time_ms`, `executed_side`, `asset` on bind; a
 * generated `irl-…` client_order_id), every field it reads (./sdk-suite.ts), and a revoked token read as
 * `IRLError("UNAUTHORIZED", …)`.
 */
import { irlTypescript130 } from './fixtures/irl-typescript-1.3.0.js';
import { describeSdk } from './sdk-suite.js';

describeSdk(irlTypescript130, {
  title: 'a revoked token is 401 UNAUTHORIZED',
  async make(t) {
    const issued = await t.server.engine('POST', '/engine/admin/tokens', { client_name: 'soon revoked', agent_ids: [t.client.agentId] });
    const revoked = await t.server.engine('DELETE', `/engine/admin/tokens/${issued.json.token_id}`);
    if (revoked.status !== 200) throw new Error(`revoke failed: ${revoked.text}`);
    return { call: irlTypescript130.getPending({ ...t.client, token: issued.json.token }, 0), status: 401, error: 'UNAUTHORIZED' };
  },
});
