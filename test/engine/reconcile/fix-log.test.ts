/**
 * A FIX message log read as a drop copy (src/engine/reconcile/fix-log.ts and `engine reconcile FILE`): the
 * fills of a session's log, SOH or `|` delimited, after a logging tool's prefix, mapped tag by tag; a message
 * whose frame a FIX engine would refuse (BodyLength, CheckSum, field order) is refused with its line; a resent
 * copy of a fill is read once.
 */
import { describe, expect, it } from 'vitest';
import { readDropCopy } from '../../../src/cli/drop-copy-file.js';
import { isoOfUtcTimestamp, looksLikeFixLog, readFixLog } from '../../../src/engine/reconcile/fix-log.js';
import type { TradesealError } from '../../../src/core/errors.js';
import { fillReport, fixMessage } from '../../helpers/fix-message.js';

const AGENT = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';
/** The logon example of the FIX protocol's Wikipedia page, with its published BodyLength 65 and CheckSum 062. */
const WIKIPEDIA_LOGON = '8=FIX.4.2|9=65|35=A|49=SERVER|56=CLIENT|34=177|52=20090107-18:15:16|98=0|108=30|10=062|';

function refusal(file: string, text: string): string[] {
  try {
    readDropCopy(file, text);
  } catch (e) {
    const err = e as TradesealError;
    expect(err.code).toBe('drop_copy_invalid');
    return (err.errors ?? []).map((p) => `${p.field}: ${p.message}`);
  }
  throw new Error('expected the FIX log to be refused');
}

describe('FIX framing', () => {
  it("accepts the published example and this test's own framing of it", () => {
    expect(readFixLog(WIKIPEDIA_LOGON)).toEqual({ executions: [], problems: [], skipped: 1 });
    const body = WIKIPEDIA_LOGON.split('|')
      .slice(2, -2)
      .map((f) => f.split('=') as [string, string])
      .map(([t, v]) => [Number(t), v] as const);
    expect(fixMessage(body, '|', 'FIX.4.2')).toBe(WIKIPEDIA_LOGON);
  });

  it('reads a BodyLength written with leading zeros, as an int of FIX may be (jspurefix writes 9=0000065)', () => {
    const padded = WIKIPEDIA_LOGON.replace('9=65', '9=0000065').replace('10=062', '10=046');
    expect(readFixLog(padded)).toEqual({ executions: [], problems: [], skipped: 1 });
    expect(readFixLog(WIKIPEDIA_LOGON.replace('9=65', '9=+65').replace('10=062', '10=105')).problems[0]!.message).toBe(
      'BodyLength (9) is +65, the body has 65 bytes',
    );
  });

  it('refuses a message whose checksum, body length or field order is wrong, naming the line and the rule', () => {
    expect(readFixLog(WIKIPEDIA_LOGON.replace('34=177', '34=178')).problems).toEqual([
      { line: 1, field: '', message: 'CheckSum (10) is 062, the message sums to 063' },
    ]);
    expect(readFixLog(WIKIPEDIA_LOGON.replace('9=65', '9=64')).problems[0]!.message).toBe('BodyLength (9) is 64, the body has 65 bytes');
    expect(readFixLog(`x\n${WIKIPEDIA_LOGON.replace('8=FIX.4.2|9=65|35=A|', '8=FIX.4.2|35=A|9=65|')}`).problems).toEqual([
      { line: 1, field: '', message: 'holds no FIX message (8=FIX…)' },
      { line: 2, field: '', message: 'BodyLength (9) must be the second field' },
    ]);
    expect(readFixLog('8=FIX.4.4|9=5|garbage|10=000|').problems[0]!.message).toBe('"garbage" is not a tag=value field');
  });

  it('reads UTCTimestamps as instants and refuses what is not one', () => {
    expect(isoOfUtcTimestamp('20260203-10:04:59.412')).toBe('2026-02-03T10:04:59.412Z');
    expect(isoOfUtcTimestamp('20260203-10:04:59')).toBe('2026-02-03T10:04:59.000Z');
    expect(isoOfUtcTimestamp('20260203-10:04:59.412345')).toBe('2026-02-03T10:04:59.412Z');
    for (const bad of ['20260230-10:04:59', '2026-02-03T10:04:59Z', '20260203-24:00:00', '20260203-10:04']) expect(isoOfUtcTimestamp(bad)).toBeNull();
  });
});

describe('a FIX log as a drop copy', () => {
  it('maps the fills of a QuickFIX-style log (prefix, SOH) tag by tag, skipping session messages and resent copies', () => {
    const log = [
      `20260203-10:00:00.001 : ${fixMessage([
        [35, 'A'],
        [49, 'XNAS'],
        [56, 'DESK'],
        [34, 1],
        [52, '20260203-10:00:00.000'],
        [98, 0],
        [108, 30],
      ])}`,
      `20260203-10:05:00.002 : ${fillReport({ seq: 2, execId: 'E-1', account: AGENT, clOrdId: 'ord-1' })}`,
      `20260203-10:05:30.000 : ${fixMessage([
        [35, '0'],
        [49, 'XNAS'],
        [56, 'DESK'],
        [34, 3],
        [52, '20260203-10:05:30.000'],
      ])}`,
      `20260203-10:06:00.003 : ${fillReport({ seq: 4, execId: 'E-2', account: AGENT, symbol: 'MSFT', side: '5', qty: 7, px: 410.5, time: '20260203-10:05:59' })}`,
      `20260203-10:07:00.004 : ${fillReport({ seq: 2, execId: 'E-1', account: AGENT, clOrdId: 'ord-1', possDup: true })}`,
    ].join('\n');
    expect(looksLikeFixLog(log)).toBe(true);
    expect(readDropCopy('session.log', log)).toEqual({
      executions: [
        {
          exchange_tx_id: 'E-1',
          client_order_id: 'ord-1',
          asset: 'AAPL',
          side: 'Long',
          quantity: 100,
          price: 190.25,
          notional_currency: 'USD',
          agent_id: AGENT,
          execution_time: '2026-02-03T10:04:59.412Z',
          order_id: 'O-E-1',
        },
        {
          exchange_tx_id: 'E-2',
          asset: 'MSFT',
          side: 'Short',
          quantity: 7,
          price: 410.5,
          notional_currency: 'USD',
          agent_id: AGENT,
          execution_time: '2026-02-03T10:05:59.000Z',
          order_id: 'O-E-2',
        },
      ],
    });
  });

  it("reads `|`-delimited logs the same, checksums computed on the wire's SOH bytes", () => {
    const soh = readDropCopy('a.fix', fillReport({ seq: 1, execId: 'E-9', account: AGENT }));
    expect(readDropCopy('b.fix', fillReport({ seq: 1, execId: 'E-9', account: AGENT }, '|'))).toEqual(soh);
  });

  it('refuses a fill it cannot map, naming the line, the FIX tag and the rule, and a repeated ExecID that is not a resend', () => {
    const log = [
      fillReport({ seq: 1, execId: 'E-1', account: AGENT, side: '8' }, '|'),
      fillReport({ seq: 2, execId: 'E-2', account: 'not-an-agent', time: '20260203-25:00:00' }, '|'),
      fixMessage(
        [
          [35, '8'],
          [34, 3],
          [17, 'E-3'],
          [150, 'F'],
          [55, 'AAPL'],
          [54, '1'],
          [32, 1],
          [31, 1],
          [60, '20260203-10:00:00'],
        ],
        '|',
      ),
    ].join('\n');
    expect(refusal('drop.fix', log)).toEqual([
      'drop.fix:1 Side (54): is 8: a drop copy takes 1 (Buy), 2 (Sell), 5 or 6 (Sell short)',
      'drop.fix:2 TransactTime (60): is 20260203-25:00:00: not a UTCTimestamp (YYYYMMDD-HH:MM:SS[.sss])',
      expect.stringMatching(/^drop\.fix:2 Account \(1\): /),
      'drop.fix:3 Account (1): is required (it gives agent_id)',
    ]);
    const twice = [fillReport({ seq: 1, execId: 'E-1', account: AGENT }, '|'), fillReport({ seq: 2, execId: 'E-1', account: AGENT }, '|')].join('\n');
    expect(refusal('twice.fix', twice).join('\n')).toContain('twice.fix:2');
  });

  it('refuses a log with no fill in it rather than reconciling nothing', () => {
    expect(refusal('quiet.fix', WIKIPEDIA_LOGON)).toEqual(['quiet.fix:1: holds no fills: no ExecutionReport (35=8) with ExecType (150) F']);
  });
});
