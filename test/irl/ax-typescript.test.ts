/**
 * The IRL Engine TypeScript SDK (v1.2.0, ./fixtures/ax-typescript.ts) against tradeseal's IRL-compatible API:
 * every method's request as the SDK sends it, every field it reads (./sdk-suite.ts), and a policy refusal
 * read as `IRLError(errorCode, message)`.
 */
import { randomUUID } from 'node:crypto';
import { axTypescript } from './fixtures/ax-typescript.js';
import { describeSdk } from './sdk-suite.js';

describeSdk(axTypescript, {
  title: 'an order over the notional cap is 403 NOTIONAL_EXCEEDS_LIMIT',
  async make(t) {
    const call = axTypescript.authorize(t.client, {
      side: 'Long',
      quantity: 100,
      asset: 'BTC-PERP',
      notional: 6_000_000,
      venueId: 'BINANCE',
      clientOrderId: randomUUID(),
      validTimeMs: Date.now(),
    });
    return { call, status: 403, error: 'NOTIONAL_EXCEEDS_LIMIT', message: /exceeds cap/ };
  },
});
