/**
 * The IRL Engine Python SDK (./fixtures/ax-python.ts) against tradeseal's IRL-compatible API: every
 * method's request as `requests` sends it, every key the SDK indexes or documents (./sdk-suite.ts), and an
 * order type without a tradeseal equivalent (`IOC`) refused as a 422 whose message names the supported values.
 */
import { randomUUID } from 'node:crypto';
import { axPython } from './fixtures/ax-python.js';
import { describeSdk } from './sdk-suite.js';

describeSdk(axPython, {
  title: 'order_type "IOC" is 422 VALIDATION_FAILED naming the supported order types',
  async make(t) {
    const call = axPython.authorize(t.client, {
      side: 'Long',
      quantity: 0.5,
      asset: 'BTC-PERP',
      notional: 30_000,
      venueId: 'BINANCE',
      clientOrderId: randomUUID(),
      validTimeMs: Date.now(),
    });
    // `authorize(..., order_type="IOC")`: the only difference from the default call is the order type.
    const body = call.request.body!.replace('"order_type": "MARKET"', '"order_type": "IOC"');
    if (body === call.request.body) throw new Error('the fixture body no longer holds "order_type": "MARKET"');
    return { call: { ...call, request: { ...call.request, body } }, status: 422, error: 'VALIDATION_FAILED', message: /MARKET.*LIMIT/s };
  },
});
