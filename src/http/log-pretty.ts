/**
 * The server log as a person at a terminal reads it: each JSON line pino writes becomes one line of time, level
 * and message, then the other fields as `name=value` (a request as `GET /path`, an error's stack indented below).
 * It formats what pino has already written, after the redaction of ./log-redaction.ts, so it shows nothing the
 * JSON line would not. JSON stays the form when the log does not go to a terminal (log collectors read it), and
 * LOG_FORMAT forces either (`logDestination`).
 */
import type { LogFormat } from '../core/config.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every line has that the readable form shows in its own way, or not at all (pid, hostname, version). */
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v', 'err', 'req', 'res']);

/**
 * Control characters (C0, DEL, C1) as JSON escapes them (`\u001b`): a value a request put into a message must not
 * reach the terminal as an escape sequence or a forged line. Line breaks of a stack are kept by the caller.
 */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const safe = (s: string): string => s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** One line: its line breaks escaped as well. */
const oneLine = (s: string): string => safe(s).replace(/\n/g, '\\n');

const text = (value: unknown): string => (typeof value === 'string' && !/\s/.test(value) && value !== '' ? safe(value) : JSON.stringify(value));

/** One readable line (plus an error's stack) of one JSON log line; any other text is returned as it is. */
export function prettyLogLine(line: string): string {
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return line;
  }
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) return line;
  const r = rec as Record<string, unknown>;
  const time = typeof r.time === 'number' ? new Date(r.time).toISOString() : '';
  const level = (typeof r.level === 'number' ? LEVELS[r.level] : undefined) ?? String(r.level ?? '').toUpperCase();
  const fields: string[] = [];
  const req = r.req as { method?: unknown; url?: unknown } | undefined;
  if (req && typeof req === 'object') fields.push(oneLine(`${String(req.method)} ${String(req.url)}`));
  const res = r.res as { statusCode?: unknown } | undefined;
  if (res && typeof res === 'object') fields.push(`status=${String(res.statusCode)}`);
  for (const [name, value] of Object.entries(r)) if (!SHOWN_APART.has(name)) fields.push(`${name}=${text(value)}`);
  const head = [time, level.padEnd(5), typeof r.msg === 'string' ? oneLine(r.msg) : '', ...fields].filter((p) => p !== '').join(' ');
  const err = r.err as { type?: unknown; message?: unknown; stack?: unknown } | undefined;
  if (!err || typeof err !== 'object') return head;
  const detail = typeof err.stack === 'string' && err.stack !== '' ? err.stack : `${String(err.type)}: ${String(err.message)}`;
  return `${head}\n${safe(detail).replace(/^/gm, '    ')}`;
}

/** A destination that writes each complete JSON line to `out` in its readable form. */
function prettyStream(out: NodeJS.WritableStream): { write(chunk: string): void } {
  let rest = '';
  return {
    write(chunk: string): void {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(`${prettyLogLine(line)}\n`);
    },
  };
}

/** Where the server's logger writes: `out` as JSON, or readable when LOG_FORMAT=pretty or, unset, when `out` is a terminal. */
export function logDestination(format: LogFormat | null, out: NodeJS.WritableStream): { write(chunk: string): void } {
  const pretty = format === 'pretty' || (format === null && (out as { isTTY?: boolean }).isTTY === true);
  return pretty ? prettyStream(out) : out;
}
