/**
 * The three-way comparison (src/engine/reconcile/compare.ts) on hand-made cases: a fill agreeing with its
 * authorization and bind has no difference; each rule, broken alone, names its field, ours, theirs and the rule;
 * partial fills are cumulated against the authorized quantity; a limit binds a buy from above and a sell from
 * below; and the fill's identity (src/engine/reconcile/identity.ts): its trading day, duplicates and conflicts.
 */
import { describe, expect, it } from 'vitest';
import { compareFill, RECONCILE_RULES, reconcileRulesTable, type ComparisonInput } from '../../../src/engine/reconcile/compare.js';
import { contentDifferences, contentOf, tradingDay } from '../../../src/engine/reconcile/identity.js';

const AGENT = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';
const OTHER = '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11';
const AUTHORIZED_AT = new Date('2026-03-02T10:00:00.000Z');

const input = (
  over: {
    fill?: Partial<ComparisonInput['fill']>;
    order?: Partial<ComparisonInput['order']>;
    bind?: Partial<NonNullable<ComparisonInput['bind']>> | null;
    filled_before?: number;
  } = {},
): ComparisonInput => ({
  fill: {
    asset: 'AAPL',
    side: 'Long',
    quantity: 100,
    price: 189.97,
    notional_currency: 'USD',
    agent_id: AGENT,
    execution_time: '2026-03-02T10:00:01.000Z',
    ...over.fill,
  },
  order: {
    agent_id: AGENT,
    action: 'Long',
    asset: 'AAPL',
    quantity: 100,
    limit_price: 190,
    notional_currency: 'USD',
    txn_time: AUTHORIZED_AT,
    status: 'PENDING',
    ...over.order,
  },
  bind: over.bind === null ? null : { executed_asset: 'AAPL', executed_side: 'Long', executed_quantity: 100, execution_price: 189.97, ...over.bind },
  filled_before: over.filled_before ?? 0,
  tolerance: 1e-4,
  expiry_ms: 86_400_000,
  clock_tolerance_ms: 30_000,
});

const fields = (c: ComparisonInput): string[] => compareFill(c).map((d) => d.field);

describe('compareFill', () => {
  it('finds nothing in a fill that is what was authorized and bound', () => {
    expect(compareFill(input())).toEqual([]);
    expect(compareFill(input({ bind: null }))).toEqual([]);
  });

  it('names every field of a fill that contradicts its bind and authorization (AAPL Long 100 @ 189.97 read as TSLA Sell 9,999 @ 1.5)', () => {
    const d = compareFill(input({ fill: { asset: 'TSLA', side: 'Short', quantity: 9999, price: 1.5 } }));
    expect(d.map((x) => [x.field, x.ours, x.theirs])).toEqual([
      ['asset', 'AAPL', 'TSLA'],
      ['action', 'Long', 'Short'],
      ['quantity', 100, 9999],
      ['limit_price', 190, 1.5],
      ['executed_asset', 'AAPL', 'TSLA'],
      ['executed_side', 'Long', 'Short'],
      ['executed_quantity', 100, 9999],
      ['execution_price', 189.97, 1.5],
    ]);
    for (const x of d) expect(x.rule).toBe(RECONCILE_RULES.find((r) => r.field === x.field)?.rule);
  });

  it("names another agent's Account and another currency", () => {
    expect(compareFill(input({ fill: { agent_id: OTHER.toUpperCase() } }))).toEqual([
      { field: 'agent_id', ours: AGENT, theirs: OTHER, rule: expect.stringContaining('agent') },
    ]);
    expect(fields(input({ fill: { notional_currency: 'EUR' } }))).toEqual(['notional_currency']);
    expect(fields(input({ fill: { notional_currency: null } }))).toEqual([]);
  });

  it('cumulates partial fills of one order against the authorized quantity, within the tolerance', () => {
    expect(fields(input({ fill: { quantity: 60 }, bind: null }))).toEqual([]);
    expect(fields(input({ fill: { quantity: 40 }, bind: null, filled_before: 60 }))).toEqual([]);
    expect(compareFill(input({ fill: { quantity: 10 }, bind: null, filled_before: 100 }))).toEqual([
      { field: 'quantity', ours: 100, theirs: 110, rule: expect.stringContaining('cumulative') },
    ]);
    expect(fields(input({ fill: { quantity: 100.005 }, bind: null }))).toEqual([]);
    // The bind may report this fill's quantity or the order's cumulative one.
    expect(fields(input({ fill: { quantity: 40 }, bind: { executed_quantity: 100 }, filled_before: 60 }))).toEqual([]);
    expect(fields(input({ fill: { quantity: 40 }, bind: { executed_quantity: 40 }, filled_before: 60 }))).toEqual([]);
    expect(fields(input({ fill: { quantity: 40 }, bind: { executed_quantity: 70 }, filled_before: 60 }))).toEqual(['executed_quantity']);
  });

  it('holds a buy at or below its limit and a sell at or above it; no limit, no rule', () => {
    expect(compareFill(input({ fill: { price: 190.5 }, bind: null }))).toEqual([{ field: 'limit_price', ours: 190, theirs: 190.5, rule: expect.any(String) }]);
    expect(fields(input({ fill: { price: 190 }, bind: null }))).toEqual([]);
    const sell = { order: { action: 'Short' }, fill: { side: 'Short' }, bind: null } as const;
    expect(fields(input({ ...sell, fill: { side: 'Short', price: 189 } }))).toEqual(['limit_price']);
    expect(fields(input({ ...sell, fill: { side: 'Short', price: 191 } }))).toEqual([]);
    expect(fields(input({ order: { limit_price: null }, fill: { price: 500 }, bind: null }))).toEqual([]);
  });

  it("holds the fill within the authorization's validity: not before it was sealed, nor after it expired (clock tolerance both ways)", () => {
    // Sent to the exchange at 09:55, authorized at 10:00: the authorization came after the execution.
    expect(compareFill(input({ fill: { execution_time: '2026-03-02T09:55:00.000Z' } }))).toEqual([
      { field: 'execution_time', ours: '2026-03-02T10:00:00.000Z', theirs: '2026-03-02T09:55:00.000Z', rule: expect.any(String) },
    ]);
    // Within the clock tolerance (30 s) before, and up to the expiry (24 h) plus the tolerance: kept.
    expect(compareFill(input({ fill: { execution_time: '2026-03-02T09:59:30.000Z' } }))).toEqual([]);
    expect(compareFill(input({ fill: { execution_time: new Date('2026-03-03T10:00:30.000Z') } }))).toEqual([]);
    expect(compareFill(input({ fill: { execution_time: '2026-03-03T10:00:31.000Z' } }))).toEqual([
      { field: 'execution_time', ours: '2026-03-03T10:00:00.000Z', theirs: '2026-03-03T10:00:31.000Z', rule: expect.any(String) },
    ]);
  });

  it('holds the fill to a trace that authorizes: not EXPIRED, SHADOW_HALTED nor ORPHAN', () => {
    for (const status of ['PENDING', 'MATCHED', 'DIVERGENT', 'MISMATCH']) expect(fields(input({ order: { status } }))).toEqual([]);
    for (const status of ['EXPIRED', 'SHADOW_HALTED', 'ORPHAN']) {
      expect(compareFill(input({ order: { status } }))).toEqual([{ field: 'status', ours: status, theirs: null, rule: expect.any(String) }]);
    }
  });

  it('generates the documented table from the same rules', () => {
    const table = reconcileRulesTable().split('\n');
    expect(table).toHaveLength(RECONCILE_RULES.length + 2);
    for (const r of RECONCILE_RULES) expect(table.some((line) => line.startsWith(`| \`${r.field}\` |`) && line.includes(r.tag))).toBe(true);
  });
});

describe('the identity of a fill', () => {
  const fill = {
    exchange_tx_id: 'E-1',
    asset: 'AAPL',
    side: 'Long' as const,
    quantity: 100,
    price: 190,
    agent_id: AGENT,
    execution_time: '2026-03-02T23:59:59.999Z',
  };

  it('is scoped by TradeDate when sent (FIX or ISO form), else the UTC date of TransactTime', () => {
    expect(tradingDay(fill)).toBe('2026-03-02');
    expect(tradingDay({ ...fill, trade_date: '20260303' })).toBe('2026-03-03');
    expect(tradingDay({ ...fill, trade_date: '2026-03-01' })).toBe('2026-03-01');
    expect(tradingDay({ ...fill, trade_date: '20260230' })).toBe('2026-03-02');
  });

  it('tells a duplicate (the same fields, however sent) from a conflict (other fields)', () => {
    expect(contentDifferences(contentOf(fill), contentOf({ ...fill, agent_id: AGENT.toUpperCase(), notional_currency: 'USD' }))).toEqual([]);
    expect(contentDifferences(contentOf(fill), contentOf({ ...fill, quantity: 7, order_id: 'O-2' }))).toEqual([
      { field: 'quantity', recorded: 100, received: 7 },
      { field: 'order_id', recorded: null, received: 'O-2' },
    ]);
    const unknown = {
      asset: null,
      side: null,
      quantity: null,
      price: null,
      notional_currency: null,
      agent_id: null,
      client_order_id: null,
      order_id: null,
      execution_time: null,
    };
    expect(contentDifferences(unknown, contentOf(fill))).toEqual([]);
  });
});
