/**
 * Executions from a FIX message log, for `tradeseal engine reconcile FILE`: the ExecutionReports (35=8) of an
 * exchange's drop copy as a FIX 4.4 session delivered them, one message per line, fields delimited by SOH
 * (\x01, as on the wire) or `|` (as most tools print them), after whatever prefix the logging tool writes
 * (QuickFIX's `20261127-14:30:00.412 : `). Pure: text in, executions and problems (each with its line) out.
 *
 * A message is checked as a FIX engine checks it before handing it on: BeginString (8) first, BodyLength (9)
 * second and equal to the bytes up to the CheckSum, CheckSum (10) last and equal to the byte sum modulo 256
 * (computed with SOH delimiters, whichever the log used). Only fills are executions: ExecutionReports whose
 * ExecType (150) is F (Trade); other messages (logons, heartbeats, new-order and cancel acknowledgements) are
 * skipped. A resent copy (PossDupFlag 43=Y or PossResend 97=Y) of an ExecID already read is skipped; any other
 * repeat of an ExecID is left to the drop copy's rule (each exchange_tx_id once).
 *
 * The mapping (docs/engine.md, "Reconciliation with the exchange"): ExecID 17 → exchange_tx_id, ClOrdID 11 →
 * client_order_id, Symbol 55 → asset, Side 54 → side (1 Buy: Long; 2 Sell, 5 Sell short, 6 Sell short exempt:
 * Short), LastQty 32 → quantity, LastPx 31 → price, Currency 15 → notional_currency, Account 1 → agent_id,
 * TransactTime 60 (UTCTimestamp) → execution_time, OrderID 37 → order_id, TradeDate 75 → trade_date.
 */

const SOH = '\x01';

/** FIX tags → the drop copy's fields, in the order a reader of the docs expects them. */
export const FIX_TAG_MAP: ReadonlyArray<{ tag: number; name: string; field: string; required: boolean }> = [
  { tag: 17, name: 'ExecID', field: 'exchange_tx_id', required: true },
  { tag: 11, name: 'ClOrdID', field: 'client_order_id', required: false },
  { tag: 55, name: 'Symbol', field: 'asset', required: true },
  { tag: 54, name: 'Side', field: 'side', required: true },
  { tag: 32, name: 'LastQty', field: 'quantity', required: true },
  { tag: 31, name: 'LastPx', field: 'price', required: true },
  { tag: 15, name: 'Currency', field: 'notional_currency', required: false },
  { tag: 1, name: 'Account', field: 'agent_id', required: true },
  { tag: 60, name: 'TransactTime', field: 'execution_time', required: true },
  { tag: 37, name: 'OrderID', field: 'order_id', required: false },
  { tag: 75, name: 'TradeDate', field: 'trade_date', required: false },
];

/** Side (54) → the drop copy's side: 1 Buy → Long; 2 Sell, 5 Sell short, 6 Sell short exempt → Short. */
export const SIDES: Readonly<Record<string, 'Long' | 'Short'>> = { 1: 'Long', 2: 'Short', 5: 'Short', 6: 'Short' };

export interface FixProblem {
  line: number;
  field: string;
  message: string;
}

export interface FixExecution {
  line: number;
  execution: Record<string, unknown>;
  /** The drop copy's fields its tags could not give (already reported as problems, by tag). */
  unmapped: ReadonlySet<string>;
}

/** Whether `text` reads as a FIX log: its first non-blank line holds a message (`8=FIX`). */
export function looksLikeFixLog(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '');
  return first !== undefined && /(^|[\s:|\x01])8=FIX/.test(first);
}

/** A FIX UTCTimestamp (`YYYYMMDD-HH:MM:SS[.sss…]`) as an ISO 8601 instant, or null when it is not one. */
export function isoOfUtcTimestamp(value: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac] = m;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}.${(frac ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const t = new Date(iso);
  // Date rolls 2026-02-30 over to March; a real instant reads back as written.
  return Number.isNaN(t.getTime()) || t.toISOString() !== iso || Number(s) > 59 ? null : iso;
}

/** The fields of one message as [tag, value] pairs, or the rule it breaks. */
export function fieldsOf(message: string, delimiter: string): Array<[number, string]> | string {
  const parts = message.split(delimiter);
  if (parts[parts.length - 1] === '') parts.pop();
  const out: Array<[number, string]> = [];
  for (const part of parts) {
    const eq = part.indexOf('=');
    const tag = eq > 0 ? part.slice(0, eq) : '';
    if (!/^[1-9]\d{0,5}$/.test(tag)) return `"${part.slice(0, 40)}" is not a tag=value field`;
    out.push([Number(tag), part.slice(eq + 1)]);
  }
  return out;
}

/** Checks the header and trailer of a message (as SOH-delimited text); the rule broken, or null. */
export function frameProblem(fields: Array<[number, string]>, wire: string): string | null {
  if (fields[0]?.[0] !== 8) return 'BeginString (8) must be the first field';
  if (fields[1]?.[0] !== 9) return 'BodyLength (9) must be the second field';
  const last = fields[fields.length - 1]!;
  if (last[0] !== 10) return 'CheckSum (10) must be the last field';
  const bodyStart = wire.indexOf(SOH, wire.indexOf(SOH) + 1) + 1;
  const trailer = wire.lastIndexOf(`${SOH}10=`) + 1;
  const length = Buffer.byteLength(wire.slice(bodyStart, trailer), 'latin1');
  // An int of FIX may carry leading zeros: jspurefix, for one, pads BodyLength to seven digits (9=0000079).
  if (!/^\d{1,9}$/.test(fields[1][1]) || Number(fields[1][1]) !== length) return `BodyLength (9) is ${fields[1][1]}, the body has ${length} bytes`;
  let sum = 0;
  for (const byte of Buffer.from(wire.slice(0, trailer), 'latin1')) sum += byte;
  const expected = String(sum % 256).padStart(3, '0');
  if (last[1] !== expected) return `CheckSum (10) is ${last[1]}, the message sums to ${expected}`;
  return null;
}

/** The fills of a FIX log as drop-copy executions (not yet checked against the drop copy's schema), and the problems. */
export function readFixLog(text: string): { executions: FixExecution[]; problems: FixProblem[]; skipped: number } {
  const executions: FixExecution[] = [];
  const problems: FixProblem[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const start = raw.search(/8=FIX/);
    if (start < 0) {
      problems.push({ line, field: '', message: 'holds no FIX message (8=FIX…)' });
      return;
    }
    const message = raw.slice(start).trimEnd();
    const delimiter = message.includes(SOH) ? SOH : '|';
    const fields = fieldsOf(message, delimiter);
    if (typeof fields === 'string') {
      problems.push({ line, field: '', message: fields });
      return;
    }
    const wire = fields.map(([t, v]) => `${t}=${v}${SOH}`).join('');
    const frame = frameProblem(fields, wire);
    if (frame) {
      problems.push({ line, field: '', message: frame });
      return;
    }
    const tags = new Map<number, string>();
    for (const [t, v] of fields) if (!tags.has(t)) tags.set(t, v);
    if (tags.get(35) !== '8' || tags.get(150) !== 'F') {
      skipped++;
      return;
    }
    const execId = tags.get(17);
    const resent = tags.get(43) === 'Y' || tags.get(97) === 'Y';
    if (execId !== undefined && resent && seen.has(execId)) {
      skipped++;
      return;
    }
    if (execId !== undefined) seen.add(execId);
    const execution: Record<string, unknown> = {};
    const unmapped = new Set<string>();
    for (const m of FIX_TAG_MAP) {
      const value = tags.get(m.tag);
      const where = `${m.name} (${m.tag})`;
      const before = problems.length;
      if (value === undefined || value === '') {
        if (m.required) problems.push({ line, field: where, message: `is required (it gives ${m.field})` });
        unmapped.add(m.field);
        continue;
      }
      if (m.tag === 54) {
        const side = SIDES[value];
        if (side) execution.side = side;
        else problems.push({ line, field: where, message: `is ${value}: a drop copy takes 1 (Buy), 2 (Sell), 5 or 6 (Sell short)` });
      } else if (m.tag === 60) {
        const iso = isoOfUtcTimestamp(value);
        if (iso) execution.execution_time = iso;
        else problems.push({ line, field: where, message: `is ${value}: not a UTCTimestamp (YYYYMMDD-HH:MM:SS[.sss])` });
      } else if (m.tag === 32 || m.tag === 31) {
        execution[m.field] = /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      } else execution[m.field] = value;
      if (problems.length > before) unmapped.add(m.field);
    }
    executions.push({ line, execution, unmapped });
  });
  return { executions, problems, skipped };
}

/** The tag mapping as a Markdown table (docs/engine.md, generated). */
export function fixTagTable(): string {
  const how: Readonly<Record<number, string>> = {
    54: '1 (Buy) → `Long`; 2 (Sell), 5 (Sell short), 6 (Sell short exempt) → `Short`; any other is refused',
    60: 'UTCTimestamp `YYYYMMDD-HH:MM:SS[.sss…]`, UTC, kept to the millisecond',
    1: "the agent's `agent_id` (each agent's orders carry its `agent_id` as their Account)",
    37: 'as sent: the fills of one order that carry no ClOrdID are told by it',
    75: 'LocalMktDate `YYYYMMDD`: the trading day that scopes the ExecID (default the UTC date of TransactTime)',
  };
  return [
    '| FIX tag | drop copy field | required | read as |',
    '|---|---|---|---|',
    ...FIX_TAG_MAP.map((m) => `| ${m.name} (${m.tag}) | \`${m.field}\` | ${m.required ? 'yes' : 'no'} | ${how[m.tag] ?? 'as sent'} |`),
  ].join('\n');
}
