/**
 * The IRL Engine Go SDK (./fixtures/ax-go.ts) against tradeseal's IRL-compatible API: every method's request
 * as `net/http` and `encoding/json` send it, every field decoded into the SDK's typed structs with the JSON
 * type the struct needs (./sdk-suite.ts; `GetTrace`'s `{trace_id, reasoning_hash, trace}` included), and an
 * unknown trace read as `APIError{ErrorCode: "TRACE_NOT_FOUND"}`.
 */
import { randomUUID } from 'node:crypto';
import { axGo } from './fixtures/ax-go.js';
import { describeSdk } from './sdk-suite.js';

describeSdk(axGo, {
  title: 'an unknown trace is 404 TRACE_NOT_FOUND',
  async make(t) {
    return { call: axGo.getTrace(t.client, randomUUID()), status: 404, error: 'TRACE_NOT_FOUND' };
  },
});
