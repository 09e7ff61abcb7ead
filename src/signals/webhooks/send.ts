/**
 * One webhook request: check the target again (DNS may have changed since the URL was set), then POST the
 * signed body to an approved address (target-guard.ts `pinnedLookup`), within a deadline. Never throws:
 * the outcome is data, `{delivered, status, error}`, and only a 2xx answer counts as delivered. Redirects
 * are not followed (a 3xx is not a delivery: the signed body must go to the URL the customer set).
 */
import http from 'node:http';
import https from 'node:https';
import { isTradesealError } from '../../core/errors.js';
import { signatureHeader } from './signing.js';
import { checkTarget, pinnedLookup, type Resolve, type ResolvedAddress } from './target-guard.js';

export type WebhookEvent = 'regime_change' | 'log_head' | 'test';

export interface WebhookMessage {
  deliveryId: string;
  event: WebhookEvent;
  /** The exact body: what is signed is what is sent. */
  body: string;
}

export interface SendOptions {
  allowPrivate: boolean;
  /** Deadline of the whole attempt: resolving, connecting, and the answer's status line and headers. */
  timeoutMs: number;
  resolve?: Resolve;
  /** Aborts the attempt (a worker that stops). */
  signal?: AbortSignal;
}

export interface SendResult {
  delivered: boolean;
  /** The receiver's HTTP status, or null when none came (refused target, connection error, timeout). */
  status: number | null;
  /** Why it was not delivered; null when it was. */
  error: string | null;
  /** True when `options.signal` ended the attempt (not the receiver's fault, not a failed attempt). */
  aborted?: boolean;
}

export const USER_AGENT = 'tradeseal-signals-webhook/1';

export async function sendWebhook(target: { url: string; secret: string }, message: WebhookMessage, options: SendOptions): Promise<SendResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const why = (): SendResult =>
    options.signal?.aborted
      ? { delivered: false, status: null, error: 'the attempt was cut short: the server is stopping', aborted: true }
      : { delivered: false, status: null, error: `no answer within ${options.timeoutMs} ms` };
  try {
    const checked = await untilAborted(
      checkTarget(target.url, { allowPrivate: options.allowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) }),
      signal,
    );
    if (checked === null) return why();
    const bytes = Buffer.from(message.body, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      'user-agent': USER_AGENT,
      'x-signals-event': message.event,
      'x-signals-delivery': message.deliveryId,
      'x-signals-signature': signatureHeader(target.secret, bytes),
    };
    const status = await post(checked.url, checked.addresses, headers, bytes, signal);
    if (status === null) return why();
    if (status >= 200 && status < 300) return { delivered: true, status, error: null };
    return {
      delivered: false,
      status,
      error: status >= 300 && status < 400 ? `the receiver answered ${status}; redirects are not followed` : `the receiver answered ${status}`,
    };
  } catch (err) {
    if (signal.aborted) return why();
    if (isTradesealError(err)) return { delivered: false, status: null, error: err.errors?.[0]?.message ?? err.message };
    const e = err as NodeJS.ErrnoException;
    return { delivered: false, status: null, error: e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message };
  }
}

/** `p`, or null once `signal` aborts (a DNS lookup cannot itself be cancelled). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** POSTs on a fresh connection to one of `addresses`; the status, or null when `signal` aborted it. */
function post(url: URL, addresses: ResolvedAddress[], headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<number | null> {
  return new Promise<number | null>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method: 'POST', headers, agent: false, lookup: pinnedLookup(addresses), signal }, (res) => {
      // Only the status matters; the body is read and dropped so the socket closes.
      res.resume();
      res.on('error', () => {});
      resolve(res.statusCode ?? null);
    });
    req.on('error', (err) => (signal.aborted ? resolve(null) : reject(err)));
    req.end(body);
  });
}
