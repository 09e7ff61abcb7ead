/**
 * What the primary and the workers of `serve --workers N` tell each other over the cluster's IPC channel.
 * Every message carries `t`, prefixed so that it never meets prom-client's own messages on the same channel.
 */
import { isErrorCode, isTradesealError, TradesealError, type FieldError } from '../../core/errors.js';

/** A worker listens: the URL it serves, and what the health check warns of at start (stale regime data). */
export interface ReadyMessage {
  t: 'tradeseal:ready';
  url: string;
  store: string;
  warnings: string[];
}
/** A worker could not start (the port is taken, bad TLS files, the store refused); it exits next. */
export interface FailedMessage {
  t: 'tradeseal:failed';
  error: WireError;
}
/** A worker asks for the metrics of every worker, to answer a scrape. */
export interface MetricsRequest {
  t: 'tradeseal:metrics?';
  id: number;
}
/** The primary's answer: the aggregated exposition, or why there is none. */
export interface MetricsAnswer {
  t: 'tradeseal:metrics';
  id: number;
  text?: string;
  error?: string;
}

export type WorkerMessage = ReadyMessage | FailedMessage | MetricsRequest;

/**
 * Credential changes between workers (credential-relay.ts). A worker says it applies changes from now on
 * (`changes-ready`, before it builds its server); one that made a change asks the primary to tell the others
 * (`change?`, answered by `change-held` with the pids that did not confirm within `within_ms`); each other
 * worker applies it and confirms (`change` then `change-applied`). `change` is a src/credentials/change.ts value.
 */
export interface ChangesReady {
  t: 'tradeseal:changes-ready';
}
export interface ChangeRequest {
  t: 'tradeseal:change?';
  id: number;
  change: unknown;
  within_ms: number;
}
export interface ChangeHeld {
  t: 'tradeseal:change-held';
  id: number;
  unconfirmed: number[];
}
export interface ChangeToApply {
  t: 'tradeseal:change';
  id: number;
  change: unknown;
}
export interface ChangeApplied {
  t: 'tradeseal:change-applied';
  id: number;
}

export type ChangeMessageToPrimary = ChangesReady | ChangeRequest | ChangeApplied;
export type ChangeMessageToWorker = ChangeHeld | ChangeToApply;

export interface WireError {
  code: string;
  message: string;
  hint?: string;
  errors?: FieldError[];
}

const hasType = (msg: unknown): msg is { t: string } => typeof msg === 'object' && msg !== null && typeof (msg as { t?: unknown }).t === 'string';

export const isWorkerMessage = (msg: unknown): msg is WorkerMessage =>
  hasType(msg) && ['tradeseal:ready', 'tradeseal:failed', 'tradeseal:metrics?'].includes(msg.t);
export const isMetricsAnswer = (msg: unknown): msg is MetricsAnswer => hasType(msg) && msg.t === 'tradeseal:metrics';
const hasId = (msg: { t: string }): boolean => typeof (msg as { id?: unknown }).id === 'number';
export const isChangeMessageToPrimary = (msg: unknown): msg is ChangeMessageToPrimary =>
  hasType(msg) && (msg.t === 'tradeseal:changes-ready' || ((msg.t === 'tradeseal:change?' || msg.t === 'tradeseal:change-applied') && hasId(msg)));
export const isChangeMessageToWorker = (msg: unknown): msg is ChangeMessageToWorker =>
  hasType(msg) && (msg.t === 'tradeseal:change-held' || msg.t === 'tradeseal:change') && hasId(msg);

/** An error as it crosses the channel: its code, detail, hint and field errors. */
export function toWire(err: unknown): WireError {
  if (isTradesealError(err)) {
    return { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), ...(err.errors ? { errors: err.errors } : {}) };
  }
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** The error again on the primary's side, with its code (and so the command's exit code). */
export function fromWire(wire: WireError): TradesealError {
  return new TradesealError(isErrorCode(wire.code) ? wire.code : 'internal', wire.message, {
    ...(wire.hint ? { hint: wire.hint } : {}),
    ...(wire.errors ? { errors: wire.errors } : {}),
  });
}
