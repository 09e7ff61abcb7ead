/**
 * What the live drop-copy session does with one inbound application message, decided from its fields alone:
 * a fill (an ExecutionReport 35=8 with ExecType 150=F, mapped to a drop-copy execution and validated with the
 * schema `POST /engine/admin/reconcile` takes), a message that is handled but is not a fill, or a refusal with
 * the FIX answer it gets. Pure: tags in, a verdict out; the session sends the answer and records it.
 *
 * The mapping is the FIX log's (src/engine/reconcile/fix-log.ts: FIX_TAG_MAP, the sides, UTCTimestamp), so a
 * fill reads the same whether it came over the wire or from a log file. The answers:
 * - a required tag missing: Reject 35=3 with SessionRejectReason 373=1 and RefTagID 371;
 * - a field read (those below, and MsgType) holding a byte outside printable ASCII (0x20 to 0x7E): 373=6 and
 *   RefTagID the tag, before any other check. FIX 4.4's String fields are ASCII; only the Encoded* fields
 *   (data fields, whose bytes follow MessageEncoding 347) may hold other bytes, and the drop copy reads none of
 *   them (they stay in the message's stored bytes, untouched);
 * - a value out of range (54 not 1/2/5/6, 32 or 31 not above 0, 15 not an ISO 4217 code, a field too long):
 *   373=5; a value of the wrong form (32/31 not a number, 60 not a UTCTimestamp): 373=6;
 * - an Account (1) that is not an agent's id (a UUID): BusinessMessageReject 35=j, 380=0, the message is well
 *   formed but cannot be applied;
 * - a trade correction or cancel (150=G/H): 35=j, 380=0: they are not reconciled automatically, the officer
 *   sees them among the refused messages;
 * - any application message other than an ExecutionReport: 35=j, 380=3 (unsupported message type).
 */
import type { FieldError } from '../../core/errors.js';
import { validatePart } from '../../core/validation.js';
import { FIX_TAG_MAP, SIDES, frameProblem, isoOfUtcTimestamp } from '../reconcile/fix-log.js';
import { calendarDay } from '../reconcile/identity.js';
import { dropCopyExecution, type DropCopyExecution } from '../reconcile/schema.js';
import type { InboundFill } from './inbound.js';
import { nonPrintableAscii } from './wire-text.js';

/** SessionRejectReason (373) values the session sends. */
export const SESSION_REJECT = { requiredTagMissing: 1, valueIncorrect: 5, incorrectDataFormat: 6 } as const;
/** BusinessRejectReason (380) values the session sends. */
export const BUSINESS_REJECT = { other: 0, unsupportedMessageType: 3 } as const;

export interface InboundMessage {
  msgType: string;
  seq: number;
  possDup: boolean;
  receivedAt: Date;
  /** Each tag's first value. */
  tags: ReadonlyMap<number, string>;
}

export interface Refusal {
  kind: 'refuse';
  answer: 'reject' | 'business_reject';
  reasonCode: number;
  refTag: number | null;
  /** Text (58) of the answer. */
  text: string;
}

export type FieldsVerdict = { kind: 'fill'; fill: InboundFill } | { kind: 'handled' } | Refusal;

const reject = (reasonCode: number, refTag: number | null, text: string): Refusal => ({ kind: 'refuse', answer: 'reject', reasonCode, refTag, text });
const businessReject = (reasonCode: number, refTag: number | null, text: string): Refusal => ({
  kind: 'refuse',
  answer: 'business_reject',
  reasonCode,
  refTag,
  text,
});

const NUMBER = /^\d+(\.\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TAG_OF_FIELD = new Map(FIX_TAG_MAP.map((m) => [m.field, m]));

/** The names of the tags readInbound reads, for its answers. */
const TAG_NAMES = new Map<number, string>([[35, 'MsgType'], [150, 'ExecType'], ...FIX_TAG_MAP.map((f) => [f.tag, f.name] as [number, string])]);

/** The verdict on one inbound application message. */
export function readInbound(m: InboundMessage): FieldsVerdict {
  // The bytes first: every later answer may quote a value, and what this side sends is ASCII.
  for (const [tag, value] of [[35, m.msgType] as const, ...m.tags]) {
    const where = nonPrintableAscii(value);
    if (where !== null) {
      return reject(
        SESSION_REJECT.incorrectDataFormat,
        tag,
        `${TAG_NAMES.get(tag) ?? 'Tag'} (${tag}) holds a byte outside printable ASCII (${where}): a FIX String field is ASCII`,
      );
    }
  }
  if (m.msgType !== '8')
    return businessReject(BUSINESS_REJECT.unsupportedMessageType, null, `MsgType ${m.msgType} is not supported: a drop copy takes ExecutionReports (35=8)`);
  const execType = m.tags.get(150);
  if (execType === undefined || execType === '') return reject(SESSION_REJECT.requiredTagMissing, 150, 'Required tag missing: ExecType (150)');
  if (execType === 'G' || execType === 'H') {
    return businessReject(
      BUSINESS_REJECT.other,
      150,
      `ExecType ${execType} (trade ${execType === 'G' ? 'correction' : 'cancel'}) is not reconciled automatically: the compliance officer reviews it`,
    );
  }
  if (execType !== 'F') return { kind: 'handled' };

  const execution: Record<string, unknown> = {};
  for (const f of FIX_TAG_MAP) {
    const value = m.tags.get(f.tag);
    const name = `${f.name} (${f.tag})`;
    if (value === undefined || value === '') {
      if (f.required) return reject(SESSION_REJECT.requiredTagMissing, f.tag, `Required tag missing: ${name}`);
      continue;
    }
    switch (f.tag) {
      case 54: {
        const side = SIDES[value];
        if (!side) return reject(SESSION_REJECT.valueIncorrect, 54, `${name} is ${value}: a drop copy takes 1 (Buy), 2 (Sell), 5 or 6 (Sell short)`);
        execution.side = side;
        break;
      }
      case 32:
      case 31: {
        if (!NUMBER.test(value)) return reject(SESSION_REJECT.incorrectDataFormat, f.tag, `${name} is ${value}: not a number`);
        if (!(Number(value) > 0)) return reject(SESSION_REJECT.valueIncorrect, f.tag, `${name} is ${value}: it must be above 0`);
        execution[f.field] = Number(value);
        break;
      }
      case 60: {
        const iso = isoOfUtcTimestamp(value);
        if (!iso) return reject(SESSION_REJECT.incorrectDataFormat, 60, `${name} is ${value}: not a UTCTimestamp (YYYYMMDD-HH:MM:SS[.sss])`);
        execution.execution_time = iso;
        break;
      }
      case 15: {
        if (!/^[A-Z]{3}$/.test(value)) return reject(SESSION_REJECT.valueIncorrect, 15, `${name} is ${value}: not an ISO 4217 currency code`);
        execution.notional_currency = value;
        break;
      }
      case 75: {
        if (!/^\d{4}-?\d{2}-?\d{2}$/.test(value)) return reject(SESSION_REJECT.incorrectDataFormat, 75, `${name} is ${value}: not a LocalMktDate (YYYYMMDD)`);
        if (calendarDay(value) === null) return reject(SESSION_REJECT.valueIncorrect, 75, `${name} is ${value}: not a day of the calendar`);
        execution.trade_date = value;
        break;
      }
      case 1: {
        if (!UUID.test(value))
          return businessReject(BUSINESS_REJECT.other, 1, `${name} is ${value}: not an agent's agent_id (a UUID), so the fill maps to no agent`);
        execution.agent_id = value.toLowerCase();
        break;
      }
      default:
        execution[f.field] = value;
    }
  }
  // Lengths and characters (ExecID as bind takes it, Symbol, ClOrdID): the schema of the reconcile route.
  const problem: FieldError | undefined = validatePart(dropCopyExecution, execution, 'body')[0];
  if (problem) {
    const field = TAG_OF_FIELD.get(problem.field);
    return reject(SESSION_REJECT.valueIncorrect, field?.tag ?? null, `${field ? `${field.name} (${field.tag})` : problem.field} ${problem.message}`);
  }
  return { kind: 'fill', fill: { seq: m.seq, possDup: m.possDup, receivedAt: m.receivedAt, execution: execution as unknown as DropCopyExecution } };
}

/**
 * Why the bytes a FIX engine read as one message (latin1: one character per byte, SOH the delimiter) are not one:
 * bytes before BeginString (garbage, which the parser prepends to the next message), a BodyLength or CheckSum
 * that does not match the bytes. Such bytes are not processed at all: their MsgSeqNum cannot be trusted, so the
 * next good message shows a gap and the peer resends what they should have been.
 */
export function frameProblemOf(text: string): string | null {
  // Every message of a session passes here: the common case, a sound frame, is recognized in one pass over the
  // characters; anything else takes the general reading below, which names the rule broken.
  return frameIsSound(text) ? null : frameProblemRead(text);
}

/**
 * FIX 4.4's data fields, by the tag of the length field that precedes each: the value of a data field is that
 * many bytes, any bytes, SOH included (SecureData, Signature, RawData, XmlData, and the Encoded* fields whose
 * bytes follow MessageEncoding 347). jspurefix's parser reads them the same way.
 */
export const DATA_FIELD_OF_LENGTH = new Map<number, number>([
  [90, 91],
  [93, 89],
  [95, 96],
  [212, 213],
  [348, 349],
  [350, 351],
  [352, 353],
  [354, 355],
  [356, 357],
  [358, 359],
  [360, 361],
  [362, 363],
  [364, 365],
  [445, 446],
  [618, 619],
  [621, 622],
]);

/** The fields of an SOH-delimited message, a data field taken by its length; or why they are not fields. */
export function wireFieldsOf(text: string): Array<[number, string]> | string {
  const out: Array<[number, string]> = [];
  let dataLength = -1;
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    const tag = eq > i ? text.slice(i, eq) : '';
    if (!/^[1-9]\d{0,5}$/.test(tag)) return `${JSON.stringify(text.slice(i, Math.min(text.indexOf(SOH, i) >>> 0, i + 40)))} is not a tag=value field`;
    let end = dataLength >= 0 ? eq + 1 + dataLength : text.indexOf(SOH, eq + 1);
    if (end < 0 || end > text.length || (end < text.length && text[end] !== SOH)) {
      if (dataLength >= 0) return `the data field ${tag} is not ${dataLength} bytes long, as its length field says`;
      end = text.length;
    }
    const value = text.slice(eq + 1, end);
    out.push([Number(tag), value]);
    dataLength = DATA_FIELD_OF_LENGTH.has(Number(tag)) && /^\d{1,9}$/.test(value) ? Number(value) : -1;
    i = end + 1;
  }
  return out;
}

/** frameProblemOf's general reading: the message split into its fields, each rule checked in turn. */
export function frameProblemRead(text: string): string | null {
  const start = text.indexOf('8=FIX');
  if (start !== 0)
    return start < 0 ? 'no BeginString (8=FIX…)' : `${start} bytes before BeginString (8): ${JSON.stringify(text.slice(0, Math.min(start, 40)))}`;
  const fields = wireFieldsOf(text);
  if (typeof fields === 'string') return fields;
  return frameProblem(fields, text.endsWith(SOH) ? text : `${text}${SOH}`);
}

const SOH = '\x01';
const SOH_CODE = 1;
const EQUALS = 61;
const ZERO = 48;
const NINE = 57;

/**
 * Whether `text` (SOH-delimited, one character per byte) is a frame that frameProblemOf's general reading
 * accepts, in one pass: each field a tag of 1 to 6 digits without a leading zero, `=`, a value (a data field's
 * as long as its length field says); BeginString (8) first, BodyLength (9) second, equal to the bytes from the
 * third field to CheckSum (10), the last field, equal to the sum of the bytes before it modulo 256. False is not
 * a verdict: the general reading then decides, and names why.
 */
export function frameIsSound(text: string): boolean {
  if (!text.startsWith('8=FIX')) return false;
  let sum = 0;
  let field = 0;
  let bodyStart = -1;
  let bodyLength = -1;
  let fieldStart = 0;
  let dataLength = -1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    // The tag: 1 to 6 digits, the first not 0, then `=`.
    let tag = 0;
    let digits = 0;
    let tagSum = 0;
    let c = text.charCodeAt(i);
    while (c >= ZERO && c <= NINE) {
      if (digits === 0 && c === ZERO) return false;
      tag = tag * 10 + (c - ZERO);
      digits += 1;
      if (digits > 6) return false;
      tagSum += c;
      c = text.charCodeAt(++i);
    }
    if (digits === 0 || c !== EQUALS) return false;
    if (tag === 10) {
      // CheckSum: the last field; what precedes it is what it sums, and the body ends where it begins.
      // (The final delimiter may be absent, as the general reading allows.)
      const value = text.slice(i + 1, text.charCodeAt(n - 1) === SOH_CODE ? n - 1 : n);
      if (field < 2 || dataLength >= 0 || !/^\d{3}$/.test(value)) return false;
      return fieldStart - bodyStart === bodyLength && Number(value) === sum % 256;
    }
    if ((field === 0 && tag !== 8) || (field === 1 && tag !== 9)) return false;
    sum += tagSum + c;
    i += 1;
    const end = dataLength >= 0 ? i + dataLength : text.indexOf(SOH, i);
    if (end < 0 || end >= n || text.charCodeAt(end) !== SOH_CODE) return false;
    for (let j = i; j < end; j++) {
      const byte = text.charCodeAt(j);
      if (byte > 0xff) return false;
      sum += byte;
    }
    sum += SOH_CODE;
    const value = dataLength >= 0 || (field !== 1 && !DATA_FIELD_OF_LENGTH.has(tag)) ? '' : text.slice(i, end);
    if (field === 1) {
      if (!/^\d{1,9}$/.test(value)) return false;
      bodyLength = Number(value);
      bodyStart = end + 1;
    }
    dataLength = dataLength < 0 && DATA_FIELD_OF_LENGTH.has(tag) && /^\d{1,9}$/.test(value) ? Number(value) : -1;
    field += 1;
    i = end + 1;
    fieldStart = i;
  }
  return false;
}
