/**
 * What a reconciliation takes: an exchange drop copy, the list of executions the exchange reports, as JSON
 * Schemas. `POST /engine/admin/reconcile` validates its body with `reconcileBody`; `tradeseal engine reconcile
 * FILE` validates each row of a CSV file, or the same body in a JSON file, with the same schemas.
 *
 * An execution: `exchange_tx_id` (as bind takes it: printable ASCII, 1-128 characters), `asset`, `side`
 * (`Long` or `Short`, the words of `executed_side`), `quantity` and `price` (> 0), `agent_id`, `execution_time`
 * (ISO 8601 date-time with a zone), and optionally `client_order_id`, `notional_currency` (ISO 4217,
 * default USD as in authorize; the currency of `price`), `order_id` (the exchange's OrderID) and `trade_date`. `from` and `to` bound the window in which bound
 * traces are expected in the drop copy (default: its first and last execution_time); `agent_ids` the agents
 * (default: the drop copy's).
 */
import { bindBody } from '../authorize-schemas.js';
import { positive, safeText, shortText, uuid } from '../schemas.js';

/** RFC 3339 date-time with a zone; Postgres has no year 0000, which the format admits. */
const instant = { type: 'string', format: 'date-time', pattern: '^(?!0000)' } as const;

export const EXECUTION_SIDES = ['Long', 'Short'] as const;

export const dropCopyExecution = {
  type: 'object',
  additionalProperties: false,
  required: ['exchange_tx_id', 'asset', 'side', 'quantity', 'price', 'agent_id', 'execution_time'],
  properties: {
    exchange_tx_id: bindBody.properties.exchange_tx_id,
    client_order_id: { type: ['string', 'null'], minLength: 1, maxLength: 128, pattern: safeText },
    asset: shortText,
    side: { type: 'string', enum: [...EXECUTION_SIDES] },
    quantity: positive,
    price: positive,
    notional_currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the price (default USD)' },
    agent_id: uuid,
    execution_time: { ...instant, description: 'when the exchange executed it (ISO 8601 date-time with a zone; kept to the millisecond)' },
    order_id: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 128,
      pattern: safeText,
      description: "the exchange's id of the order (OrderID 37): the fills of one order without a ClOrdID",
    },
    trade_date: {
      type: 'string',
      pattern: '^(?!0000)[0-9]{4}-?(0[1-9]|1[0-2])-?(0[1-9]|[12][0-9]|3[01])$',
      description: 'the trading day (TradeDate 75: YYYYMMDD, or YYYY-MM-DD); default the UTC date of execution_time',
    },
  },
} as const;

export const reconcileBody = {
  type: 'object',
  additionalProperties: false,
  required: ['executions'],
  properties: {
    executions: { type: 'array', items: dropCopyExecution, description: 'the drop copy: every execution the exchange reports for the window' },
    from: { ...instant, description: 'start of the window the drop copy covers (default: its earliest execution_time)' },
    to: { ...instant, description: 'end of the window the drop copy covers, inclusive (default: its latest execution_time)' },
    agent_ids: { type: 'array', items: uuid, uniqueItems: true, maxItems: 10000, description: 'the agents the drop copy covers (default: those it names)' },
  },
} as const;

export type ExecutionSide = (typeof EXECUTION_SIDES)[number];

export interface DropCopyExecution {
  exchange_tx_id: string;
  client_order_id?: string | null;
  asset: string;
  side: ExecutionSide;
  quantity: number;
  price: number;
  notional_currency?: string;
  agent_id: string;
  execution_time: string;
  order_id?: string | null;
  trade_date?: string;
}

export interface ReconcileRequest {
  executions: DropCopyExecution[];
  from?: string;
  to?: string;
  agent_ids?: string[];
}
