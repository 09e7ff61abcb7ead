/**
 * Reading an exchange drop copy for `tradeseal engine reconcile FILE`: CSV, JSON (the body of
 * `POST /engine/admin/reconcile`, or just its list of executions), or a FIX message log (its fills; see
 * ../engine/reconcile/fix-log.ts), told apart by the extension (`.csv`, `.json`, `.fix`) or else by the first
 * line (a FIX message, `8=FIX…`) or character (`[` or `{`). Every row is checked with the API's own schemas
 * (src/engine/reconcile/schema.ts) and the rules across rows (each exchange_tx_id once, …) before anything
 * is written, and every problem is reported at once (`drop_copy_invalid`, exit 2), each naming the file, the
 * line, the field and the rule: `drop.csv:12 price: must be > 0`.
 *
 * CSV: a header line naming the columns, the execution's fields (`exchange_tx_id, client_order_id, asset,
 * side, quantity, price, notional_currency, agent_id, execution_time`) in any order, the optional ones
 * optional; an empty cell is an absent field; blank lines are skipped. RFC 4180 quoting (csv-parse).
 * JSON: strict JSON; line numbers of its values come from a JSON parser that keeps them (momoa), run only
 * when there is a problem to place.
 */
import path from 'node:path';
import { parse as parseWithLocations, type AnyNode } from '@humanwhocodes/momoa';
import { readCsvRecords } from '../../pipeline/ingest/csv-records.js';
import { FIX_TAG_MAP, looksLikeFixLog, readFixLog } from '../engine/reconcile/fix-log.js';
import { checkDropCopy } from '../engine/reconcile/reconcile.js';
import { dropCopyExecution, reconcileBody, type ReconcileRequest } from '../engine/reconcile/schema.js';
import { isTradesealError, TradesealError, type FieldError } from '../core/errors.js';
import { validatePart } from '../core/validation.js';
import { numberOf } from './engine-input.js';

/** At most this many problems are listed; the detail gives the total. */
export const MAX_LISTED_PROBLEMS = 100;

const COLUMNS = Object.keys(dropCopyExecution.properties);
const NUMERIC = new Set(['quantity', 'price']);

interface Problem {
  line: number;
  field: string;
  message: string;
}

export function readDropCopy(file: string, text: string): ReconcileRequest {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const ext = path.extname(file).toLowerCase();
  if (ext === '.fix' || (ext !== '.csv' && ext !== '.json' && looksLikeFixLog(body))) return readFix(file, body);
  const json = ext === '.json' || (ext !== '.csv' && /^\s*[[{]/.test(body));
  return json ? readJson(file, body) : readCsv(file, body);
}

function refuse(file: string, problems: Problem[]): never {
  const listed = [...problems].sort((a, b) => a.line - b.line).slice(0, MAX_LISTED_PROBLEMS);
  const errors: FieldError[] = listed.map((p) => ({ field: `${file}:${p.line}${p.field ? ` ${p.field}` : ''}`, message: p.message }));
  const more = problems.length > listed.length ? ` (the first ${listed.length} are listed)` : '';
  throw new TradesealError('drop_copy_invalid', `${file} is not a valid drop copy: ${problems.length} problem${problems.length === 1 ? '' : 's'}${more}`, {
    errors,
    hint: 'a row is exchange_tx_id, asset, side (Long|Short), quantity, price, agent_id, execution_time (ISO 8601 with a zone), optionally client_order_id and notional_currency',
  });
}

/** The cross-row problems of a request whose rows are valid, as field errors (none when it passes). */
function crossRowErrors(request: ReconcileRequest): FieldError[] {
  try {
    checkDropCopy(request);
    return [];
  } catch (e) {
    if (isTradesealError(e) && e.errors) return e.errors;
    throw e;
  }
}

function readCsv(file: string, text: string): ReconcileRequest {
  const { records, syntaxErrors } = readCsvRecords(text);
  const problems: Problem[] = syntaxErrors.map((e) => ({ line: e.line, field: '', message: `is not CSV: ${e.message}` }));
  const [header, ...rows] = records.filter((r) => r.fields.some((f) => f.trim() !== ''));
  if (!header) refuse(file, [...problems, { line: 1, field: '', message: `is empty: the first line names the columns (${COLUMNS.join(', ')})` }]);
  const columns = header.fields.map((f) => f.trim());
  columns.forEach((c, i) => {
    if (!COLUMNS.includes(c))
      problems.push({ line: header.line, field: c || `column ${i + 1}`, message: `is not a column of a drop copy (${COLUMNS.join(', ')})` });
    else if (columns.indexOf(c) !== i) problems.push({ line: header.line, field: c, message: 'is named twice' });
  });
  for (const required of dropCopyExecution.required) {
    if (!columns.includes(required)) problems.push({ line: header.line, field: required, message: 'is a required column' });
  }
  if (problems.length > 0) refuse(file, problems);

  const executions: object[] = [];
  const lines: number[] = [];
  for (const row of rows) {
    if (row.fields.length !== columns.length) {
      problems.push({ line: row.line, field: '', message: `has ${row.fields.length} fields; the header has ${columns.length}` });
      continue;
    }
    const execution: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const cell = row.fields[i]!.trim();
      if (cell !== '') execution[c] = NUMERIC.has(c) ? numberOf(cell) : cell;
    });
    for (const e of validatePart(dropCopyExecution, execution, 'body'))
      problems.push({ line: row.line, field: e.field === 'body' ? '' : e.field, message: e.message });
    executions.push(execution);
    lines.push(row.line);
  }
  if (problems.length > 0) refuse(file, problems);
  return checkedAcrossRows(file, { executions } as ReconcileRequest, lines, header.line);
}

/** The request when the rules across rows hold; else refused with each problem at the line of its row. */
function checkedAcrossRows(file: string, request: ReconcileRequest, lines: number[], fallbackLine: number): ReconcileRequest {
  const cross = crossRowErrors(request);
  if (cross.length > 0) {
    refuse(
      file,
      cross.map((e) => {
        const m = /^executions\[(\d+)\]\.?(.*)$/.exec(e.field);
        return m
          ? {
              line: lines[Number(m[1])] ?? 0,
              field: m[2] ?? '',
              message: e.message.replace(/executions\[(\d+)\]/g, (_, i: string) => `line ${lines[Number(i)]}`),
            }
          : { line: fallbackLine, field: e.field, message: e.message };
      }),
    );
  }
  return request;
}

/** A FIX log's fills, each checked as a CSV row is, its problems named by line and FIX tag. */
function readFix(file: string, text: string): ReconcileRequest {
  const { executions, problems } = readFixLog(text);
  const tagOf = new Map(FIX_TAG_MAP.map((m) => [m.field, `${m.name} (${m.tag})`] as const));
  for (const { line, execution, unmapped } of executions) {
    for (const e of validatePart(dropCopyExecution, execution, 'body')) {
      // A field its tag could not give is reported once, by the tag, not again by the schema.
      if (!unmapped.has(e.field)) problems.push({ line, field: e.field === 'body' ? '' : (tagOf.get(e.field) ?? e.field), message: e.message });
    }
  }
  if (problems.length > 0) refuse(file, problems);
  if (executions.length === 0) refuse(file, [{ line: 1, field: '', message: 'holds no fills: no ExecutionReport (35=8) with ExecType (150) F' }]);
  return checkedAcrossRows(
    file,
    { executions: executions.map((e) => e.execution) } as unknown as ReconcileRequest,
    executions.map((e) => e.line),
    1,
  );
}

function readJson(file: string, text: string): ReconcileRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      parseWithLocations(text, { mode: 'json' });
    } catch (e) {
      const where = e as { line?: number; column?: number; message: string };
      refuse(file, [
        { line: where.line ?? 1, field: '', message: `is not JSON: ${where.message.replace(/\s*\(\d+:\d+\)$/, '')} (column ${where.column ?? 1})` },
      ]);
    }
    refuse(file, [{ line: 1, field: '', message: 'is not JSON' }]);
  }
  const bare = Array.isArray(value);
  const request = (bare ? { executions: value } : value) as ReconcileRequest;
  const errors = validatePart(reconcileBody, request, 'body');
  const all = errors.length > 0 ? errors : crossRowErrors(request);
  if (all.length === 0) return request;
  const root = parseWithLocations(text, { mode: 'json' }).body;
  refuse(
    file,
    all.map((e) => {
      const field = bare ? e.field.replace(/^executions(?=\[|$)/, '') || 'body' : e.field;
      return { line: lineOf(root, bare ? field.replace(/^body$/, '') : field), field, message: e.message };
    }),
  );
}

/** The line of the value at `field` (`executions[3].price`), or of the deepest value on its way that exists. */
function lineOf(root: AnyNode, field: string): number {
  let node: AnyNode = root;
  for (const step of field.match(/[^.[\]]+/g) ?? []) {
    let next: AnyNode | undefined;
    if (node.type === 'Object') next = node.members.find((m) => (m.name.type === 'String' ? m.name.value : m.name.name) === step)?.value;
    else if (node.type === 'Array' && /^\d+$/.test(step)) next = node.elements[Number(step)]?.value;
    if (!next) break;
    node = next;
  }
  return node.loc?.start.line ?? 1;
}
