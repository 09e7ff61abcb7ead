/**
 * The messages between `tradeseal serve` and the thread that runs its FIX drop-copy session (thread.ts and
 * thread-main.ts), and how a log record crosses between them.
 *
 * A log record's object can hold anything (errors of the driver, of jspurefix, of the socket); what crosses the
 * thread boundary is its JSON form, with an Error reduced to its name, message, code and stack, and rebuilt as
 * an Error on the server's side so the server's logger prints it as it prints its own.
 */
import type { Config } from '../../core/config.js';
import type { MetricOp } from './metrics.js';

/** The `application_name` of the session thread's connections. */
export const DROPCOPY_APPLICATION_NAME = 'tradeseal-dropcopy';

/** What the server hands the thread at its start. */
export interface ThreadData {
  /** The PostgreSQL server's URL (the thread opens its own pool). */
  url: string;
  config: Config;
  retryMs: number | null;
}

export type LogLevel = 'info' | 'warn' | 'error';

export type FromThread =
  | { type: 'log'; level: LogLevel; obj: unknown; msg: string | undefined }
  | { type: 'metrics'; ops: MetricOp[] }
  | { type: 'holding'; holding: boolean; address: { address: string; family: string; port: number } | null }
  | { type: 'stopped' };

export type ToThread = { type: 'stop' };

interface ErrorShape {
  __error: true;
  name: string;
  message: string;
  code?: unknown;
  stack?: string;
}

/** `obj` in a form that survives postMessage: its JSON, errors by name, message, code and stack. */
export function toWire(obj: unknown): unknown {
  if (obj === undefined) return undefined;
  try {
    return JSON.parse(
      JSON.stringify(obj, (_key, value: unknown) => {
        if (value instanceof Error) {
          const shape: ErrorShape = { __error: true, name: value.name, message: value.message };
          const code = (value as { code?: unknown }).code;
          if (code !== undefined) shape.code = code;
          if (value.stack !== undefined) shape.stack = value.stack;
          return shape;
        }
        return typeof value === 'bigint' ? value.toString() : value;
      }),
    ) as unknown;
  } catch {
    return { unserializable: String(obj) };
  }
}

/** The inverse of `toWire` for what the logger cares about: errors become Errors again. */
export function fromWire(obj: unknown): unknown {
  if (obj === null || typeof obj !== 'object') return obj;
  if (Array.isArray(obj)) return obj.map(fromWire);
  const shape = obj as Partial<ErrorShape>;
  if (shape.__error === true) {
    const err = new Error(shape.message ?? '');
    err.name = shape.name ?? 'Error';
    if (shape.stack !== undefined) err.stack = shape.stack;
    if (shape.code !== undefined) (err as Error & { code?: unknown }).code = shape.code;
    return err;
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fromWire(v)]));
}
