/**
 * Reading a drop copy file for `tradeseal engine reconcile FILE` (src/cli/drop-copy-file.ts): CSV and JSON
 * give the same request the API takes, and every problem is reported at once with the file, the line, the
 * field and the rule.
 */
import { describe, expect, it } from 'vitest';
import { readDropCopy } from '../../src/cli/drop-copy-file.js';
import type { TradesealError } from '../../src/core/errors.js';

const AGENT = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';

/** The problems `readDropCopy` reports, as `field: message` lines. */
function problems(file: string, text: string): string[] {
  try {
    readDropCopy(file, text);
  } catch (e) {
    const err = e as TradesealError;
    expect(err.code).toBe('drop_copy_invalid');
    expect(err.exit).toBe(2);
    return (err.errors ?? []).map((p) => `${p.field}: ${p.message}`);
  }
  throw new Error('expected the drop copy to be refused');
}

const CSV = [
  'exchange_tx_id,asset,side,quantity,price,agent_id,execution_time,client_order_id',
  `X-1,AAPL,Long,100,190.5,${AGENT},2026-03-02T14:30:00.412Z,ord-1`,
  '',
  `"X-2",MSFT,Short,5,410,${AGENT},2026-03-02T15:00:00+01:00,`,
  '',
].join('\r\n');

describe('readDropCopy', () => {
  it("reads CSV (any column order, quoting, CRLF, blank lines, empty optional cells) into the API's request", () => {
    expect(readDropCopy('drop.csv', `\uFEFF${CSV}`)).toEqual({
      executions: [
        {
          exchange_tx_id: 'X-1',
          asset: 'AAPL',
          side: 'Long',
          quantity: 100,
          price: 190.5,
          agent_id: AGENT,
          execution_time: '2026-03-02T14:30:00.412Z',
          client_order_id: 'ord-1',
        },
        { exchange_tx_id: 'X-2', asset: 'MSFT', side: 'Short', quantity: 5, price: 410, agent_id: AGENT, execution_time: '2026-03-02T15:00:00+01:00' },
      ],
    });
  });

  it("reads JSON: the API's body, or just its list of executions", () => {
    const executions = readDropCopy('drop.csv', CSV).executions;
    expect(readDropCopy('drop.json', JSON.stringify(executions, null, 2))).toEqual({ executions });
    const body = { executions, from: '2026-03-02T00:00:00Z', agent_ids: [AGENT] };
    expect(readDropCopy('export', JSON.stringify(body))).toEqual(body);
  });

  it('names the line, the field and the rule of every CSV problem', () => {
    const text = [
      'exchange_tx_id,asset,side,quantity,price,agent_id,execution_time',
      `X-1,AAPL,Buy,100,190,${AGENT},2026-03-02T14:30:00Z`,
      `X-2,AAPL,Long,-3,1e999,${AGENT},2026-03-02T14:30:00Z`,
      `X-3,AAPL,Long,1,2,not-an-agent,yesterday`,
      'X-4,AAPL',
      `has space,AAPL,Long,1,2,${AGENT},2026-03-02T14:30:00Z`,
    ].join('\n');
    expect(problems('drop.csv', text)).toEqual([
      'drop.csv:2 side: must be one of "Long", "Short"',
      'drop.csv:3 quantity: must be > 0',
      'drop.csv:3 price: must be number',
      'drop.csv:4 agent_id: must be a valid uuid',
      'drop.csv:4 execution_time: must be a valid date-time',
      'drop.csv:5: has 2 fields; the header has 7',
      'drop.csv:6 exchange_tx_id: must match pattern "^[\\x21-\\x7E]{1,128}$"',
    ]);
  });

  it('checks the header, then the rules across rows, naming lines', () => {
    expect(problems('d.csv', 'exchange_tx_id,asset,side,qty,price,agent_id\n')).toEqual([
      'd.csv:1 qty: is not a column of a drop copy (exchange_tx_id, client_order_id, asset, side, quantity, price, notional_currency, agent_id, execution_time, order_id, trade_date)',
      'd.csv:1 quantity: is a required column',
      'd.csv:1 execution_time: is a required column',
    ]);
    expect(problems('d.csv', '')).toEqual([expect.stringMatching(/^d\.csv:1: is empty/)]);
    const repeated = [
      'exchange_tx_id,asset,side,quantity,price,agent_id,execution_time',
      `X-1,AAPL,Long,1,2,${AGENT},2026-03-02T14:30:00Z`,
      `X-2,AAPL,Long,1,2,${AGENT},2026-03-02T14:31:00Z`,
      `X-1,AAPL,Long,1,2,${AGENT},2026-03-02T14:32:00Z`,
    ].join('\n');
    expect(problems('d.csv', repeated)).toEqual(['d.csv:4 exchange_tx_id: repeats line 2 (X-1): each execution is listed once']);
    expect(problems('d.csv', `exchange_tx_id,asset,side,quantity,price,agent_id,execution_time\n"X-1,AAPL,Long,1,2,${AGENT},2026-03-02T14:30:00Z\n`)).toEqual([
      expect.stringMatching(/^d\.csv:2: is not CSV: Quote Not Closed/),
    ]);
  });

  it('names the line of each JSON problem, and of a syntax error', () => {
    const text = `{
  "executions": [
    {"exchange_tx_id": "X-1", "asset": "AAPL", "side": "Long", "quantity": 1, "price": 2,
     "agent_id": "${AGENT}", "execution_time": "2026-03-02T14:30:00Z"},
    {"exchange_tx_id": "X-2", "asset": "AAPL", "side": "Long", "quantity": 0,
     "price": 2, "agent_id": "${AGENT}", "execution_time": "2026-03-02T14:30:00Z", "venue": "XNAS"},
    {"exchange_tx_id": "X-3", "asset": "AAPL", "side": "Long", "quantity": 1, "price": 2,
     "agent_id": "${AGENT}"}
  ],
  "to": "soon"
}`;
    expect(problems('drop.json', text)).toEqual([
      'drop.json:5 executions[1].quantity: must be > 0',
      'drop.json:6 executions[1].venue: is not a known field',
      'drop.json:7 executions[2].execution_time: is required',
      'drop.json:10 to: must be a valid date-time',
    ]);
    expect(problems('drop.json', '[\n  {"exchange_tx_id": "X-1",}\n]')).toEqual([
      expect.stringMatching(/^drop\.json:2: is not JSON: Unexpected token .* \(column \d+\)$/),
    ]);
    expect(
      problems(
        'list.json',
        `[\n{"exchange_tx_id": "X-1", "asset": "AAPL", "side": "Long", "quantity": 1, "price": 2, "agent_id": "${AGENT}", "execution_time": "2026-03-02T14:30:00Z"},\n{"exchange_tx_id": "X-1", "asset": "AAPL", "side": "Long", "quantity": 1, "price": 2, "agent_id": "${AGENT}", "execution_time": "2026-03-02T14:30:00Z"}\n]`,
      ),
    ).toEqual(['list.json:3 [1].exchange_tx_id: repeats executions[0] (X-1): each execution is listed once']);
  });
});
