/**
 * The identity of a fill as FIX scopes it: an ExecID (17) is unique within a session and a trading day, not
 * forever. The trading day is TradeDate (75) when the fill carries one, else the UTC date of its TransactTime (60).
 * A fill repeating the ExecID of one recorded on the same day in the same session is a duplicate when its fields
 * are the same (a resend, or the same report sent again) and a conflict when they differ; on another trading day
 * it is a new execution. Pure.
 *
 * The fields compared are the fill's, not the message's: asset, side, quantity, price, currency, account, the
 * execution time, and the order it belongs to (ClOrdID 11, OrderID 37). Sequence number, PossDupFlag and sending
 * time change with every resend and are not compared.
 */
import { DEFAULT_CURRENCY } from './orphan.js';
import type { DropCopyExecution } from './schema.js';

/** `YYYY-MM-DD`: TradeDate when given (FIX's LocalMktDate `YYYYMMDD`, or ISO), else the UTC date of execution_time. */
export function tradingDay(e: Pick<DropCopyExecution, 'trade_date' | 'execution_time'>): string {
  return (e.trade_date ? calendarDay(e.trade_date) : null) ?? new Date(e.execution_time).toISOString().slice(0, 10);
}

/**
 * A TradeDate (`YYYYMMDD` or `YYYY-MM-DD`) as the ISO day it names, or null when it names none: a day that does not
 * read back as written (Date rolls 2026-02-30 over to March), or year 0000, which PostgreSQL's dates do not hold.
 * Both the live session and a file refuse such a TradeDate rather than put the fill on another day.
 */
export function calendarDay(text: string): string | null {
  const given = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (!given || given[1] === '0000') return null;
  const iso = `${given[1]}-${given[2]}-${given[3]}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : null;
}

/** The fields of a fill that make it the fill it is, as stored in dropcopy_executions. */
export interface FillContent {
  asset: string | null;
  side: string | null;
  quantity: number | null;
  price: number | null;
  notional_currency: string | null;
  agent_id: string | null;
  client_order_id: string | null;
  order_id: string | null;
  execution_time: string | null;
}

export const CONTENT_FIELDS = ['asset', 'side', 'quantity', 'price', 'notional_currency', 'agent_id', 'client_order_id', 'order_id', 'execution_time'] as const;

export function contentOf(e: DropCopyExecution): FillContent {
  return {
    asset: e.asset,
    side: e.side,
    quantity: e.quantity,
    price: e.price,
    notional_currency: e.notional_currency ?? DEFAULT_CURRENCY,
    agent_id: e.agent_id.toLowerCase(),
    client_order_id: e.client_order_id ?? null,
    order_id: e.order_id ?? null,
    execution_time: new Date(e.execution_time).toISOString(),
  };
}

export interface ContentDifference {
  field: string;
  recorded: string | number | null;
  received: string | number | null;
}

/**
 * The fields in which `received` differs from the fill recorded first. A row recorded before the fields were kept
 * (all null) cannot be compared: no difference, so its repeat is a duplicate, as it was then.
 */
export function contentDifferences(recorded: FillContent, received: FillContent): ContentDifference[] {
  if (CONTENT_FIELDS.every((f) => recorded[f] === null)) return [];
  return CONTENT_FIELDS.filter((f) => !sameValue(recorded[f], received[f])).map((f) => ({ field: f, recorded: recorded[f], received: received[f] }));
}

function sameValue(a: string | number | null, b: string | number | null): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}
