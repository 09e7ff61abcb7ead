/**
 * The one GET of every data source (FRED, Yahoo Finance, EODHD): the project's only implementation of
 * timeouts, retries and backoff for the vendors it reads.
 *
 * - Each attempt has its own timeout (an `AbortSignal` that covers the headers and the whole body).
 * - 408, 429, 5xx, timeouts, network faults and a body cut short are retried with exponential backoff
 *   (`backoffMs`, doubled each time, at most `maxBackoffMs`). A `Retry-After` header (seconds or an HTTP date,
 *   RFC 9110 §10.2.3) lengthens the wait to what the server asked, up to `maxBackoffMs`: a nightly run does
 *   not hold its other series for a longer wait, it ends in `source_unavailable` and the next run asks again.
 * - The body is streamed and refused past `maxBytes` (`source_answer_invalid`), never read into memory whole.
 * - A body that ends before its `Content-Length`, or a chunked body whose connection closes before the last
 *   chunk, is a fault of the transfer, not an answer: it is retried and never handed on to be parsed.
 * - Every other answer is returned: 2xx for the vendor to parse, and any other status (a 4xx) with its body,
 *   so that each vendor decides what it means (a rejected key, an unknown symbol). `refuse` lets a vendor stop
 *   at once on an answer the retry rule would repeat (EODHD's used-up daily quota comes as a 429 too).
 *
 * Messages name the vendor, what was asked and the request URL with secrets (`secretParams`) replaced by
 * `***`; the secret itself never appears in a message, a hint or a cause.
 */
import { TradesealError } from '../../src/core/errors.js';
import type { RequestOptions } from './market-source.js';

export type Sleep = (ms: number) => Promise<void>;

export interface HttpOptions extends RequestOptions {
  /** Waits between attempts (default: a timer); tests pass one that records the delay and returns at once. */
  sleep?: Sleep;
}

/** What a market source takes besides its settings: the wait between attempts, for tests. */
export type SourceDeps = Pick<HttpOptions, 'sleep'>;

/**
 * What is wrong with an answer, in words (`the day 2025-06-20 appears twice`), thrown by a vendor's pure parser;
 * the source turns it into `source_answer_invalid` with the vendor, the symbol and the request (`answerInvalid`).
 */
export class AnswerFault extends Error {
  override name = 'AnswerFault';
}

/** Whether `v` is a JSON object (not an array, not null): what a parser of a vendor's answer checks first. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses the answer being parsed: an `AnswerFault` with what is wrong, which the request turns into its error. */
export const fault = (text: string): never => {
  throw new AnswerFault(text);
};

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpRequest {
  /** The vendor, as messages name it: `FRED`, `Yahoo Finance`, `EODHD`. */
  source: string;
  /** What is asked for, as messages name it: a series id or the vendor's symbol. */
  subject: string;
  url: URL;
  /** Query parameters that hold a secret (`api_key`, `api_token`), shown as `***`. */
  secretParams?: readonly string[];
  headers?: Readonly<Record<string, string>>;
  /** The vendor's error text in an answer (default: `describeBody`). */
  errorText?: (answer: HttpAnswer) => string;
  /** Sees every answer that is not 2xx before the retry rule does: an error to throw at once, or undefined. */
  refuse?: (answer: HttpAnswer) => TradesealError | undefined;
}

export const DEFAULTS = { timeoutMs: 30_000, retries: 4, backoffMs: 1_000, maxBackoffMs: 30_000, maxBytes: 64 * 1024 * 1024 } as const;

const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request URL as messages and logs show it: every secret parameter's value replaced by `***`. */
export function shownUrl(url: URL, secretParams: readonly string[] = []): string {
  const copy = new URL(url);
  for (const name of secretParams) if (copy.searchParams.has(name)) copy.searchParams.set(name, '***');
  return copy.toString();
}

/**
 * `<source>, <subject>: <text>. Request: GET <url>`: the shape of every message about a request. A secret that
 * found its way into `text` (a vendor echoing the query in its error page) is replaced too.
 */
export function requestMessage(request: HttpRequest, text: string): string {
  let message = `${request.source}, ${request.subject}: ${text}. Request: GET ${shownUrl(request.url, request.secretParams)}`;
  for (const name of request.secretParams ?? []) {
    const secret = request.url.searchParams.get(name);
    if (secret) message = message.split(secret).join('***');
  }
  return message;
}

/** An answer that is not the vendor's data (an HTML page, a bar out of order): `source_answer_invalid`. */
export const answerInvalid = (request: HttpRequest, fault: string): TradesealError =>
  new TradesealError('source_answer_invalid', requestMessage(request, `the answer is not ${request.source}'s data: ${fault}`), {
    hint: `nothing ${request.source} sent was used; if this persists, ${request.source}'s answers have changed shape or carry wrong data`,
  });

/** A vendor that did not answer usefully: `source_unavailable`. */
export const sourceUnavailable = (request: HttpRequest, text: string, hint?: string): TradesealError =>
  new TradesealError('source_unavailable', requestMessage(request, text), {
    hint: hint ?? `${request.source} may be down, slow or limiting requests; nothing it sent was used, and the next run asks again`,
  });

/**
 * What a body is, in a few words for a message: an HTML page by its `<title>` (or first text), anything else by
 * its first 200 characters on one line.
 */
export function describeBody(answer: HttpAnswer): string {
  const text = answer.text.trim();
  if (isHtml(answer)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    const words = (title || text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
    return `an HTML page ("${words.slice(0, 120)}")`;
  }
  if (text === '') return 'an empty body';
  const line = text.replace(/\s+/g, ' ');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Whether an answer is an HTML page: by its content type, or by its first character when it names none. */
export const isHtml = (answer: HttpAnswer): boolean => /html/i.test(answer.headers.get('content-type') ?? '') || /^\s*</.test(answer.text);

/** Whether the content type says JSON (`application/json`, `…+json`), or the answer names none. */
export const isJsonType = (answer: HttpAnswer): boolean => {
  const type = answer.headers.get('content-type');
  return type === null || /\bjson\b/i.test(type);
};

const retryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** The wait a `Retry-After` header asks for, in ms (`null` when there is none or it cannot be read). */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The wait before retry number `attempt + 1`: the backoff, or the server's `Retry-After` (never above the cap: a longer one ends the request, see `httpGet`). */
export function retryDelay(attempt: number, retryAfter: number | null, options: RequestOptions): number {
  const cap = options.maxBackoffMs ?? DEFAULTS.maxBackoffMs;
  const backoff = Math.min((options.backoffMs ?? DEFAULTS.backoffMs) * 2 ** attempt, cap);
  return retryAfter === null ? backoff : Math.min(Math.max(backoff, retryAfter), cap);
}

/** A fault worth another attempt, in words, with the server's `Retry-After` when it sent one. */
interface Fault {
  fault: string;
  retryAfter: number | null;
}

class BodyTooLarge extends Error {}

/**
 * GETs `request.url`. Returns the answer of a 2xx, or of any other status that is not retried; throws
 * `source_unavailable` when the retries are used up, `source_answer_invalid` for a body over `maxBytes`, and
 * whatever `request.refuse` returns.
 */
export async function httpGet(request: HttpRequest, options: HttpOptions = {}): Promise<HttpAnswer> {
  const retries = options.retries ?? DEFAULTS.retries;
  const sleep = options.sleep ?? timerSleep;
  let last: Fault = { fault: '', retryAfter: null };
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await sleep(retryDelay(attempt - 1, last.retryAfter, options));
    const outcome = await attemptGet(request, options);
    if ('fault' in outcome) {
      last = outcome;
      continue;
    }
    const answer = outcome;
    if (answer.status >= 200 && answer.status < 300) return answer;
    const refusal = request.refuse?.(answer);
    if (refusal) throw refusal;
    if (!retryableStatus(answer.status)) return answer;
    last = {
      fault: `HTTP ${answer.status}: ${(request.errorText ?? describeBody)(answer)}`,
      retryAfter: retryAfterMs(answer.headers.get('retry-after'), Date.now()),
    };
    // A source that asks to be left alone for longer than this request may wait is not asked again now: the
    // caller (a night, which tries again later) decides when.
    const cap = options.maxBackoffMs ?? DEFAULTS.maxBackoffMs;
    if (last.retryAfter !== null && last.retryAfter > cap && attempt < retries) {
      throw sourceUnavailable(
        request,
        `the source asked to be asked again in ${Math.round(last.retryAfter / 1000)} s (Retry-After), longer than a retry here waits (${cap / 1000} s): not asked again now (last: ${last.fault})`,
      );
    }
  }
  const attempts = retries + 1;
  throw sourceUnavailable(request, `no useful answer after ${attempts} attempt${attempts === 1 ? '' : 's'} (last: ${last.fault})`);
}

/** One attempt: the answer, or the fault that makes it worth another. */
async function attemptGet(request: HttpRequest, options: HttpOptions): Promise<HttpAnswer | Fault> {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, { signal, headers: { ...request.headers } });
  } catch (e) {
    return { fault: signal.aborted ? `no answer within ${timeoutMs} ms` : `network error: ${networkCause(e)}`, retryAfter: null };
  }
  try {
    const text = await readBody(response, options.maxBytes ?? DEFAULTS.maxBytes);
    return { status: response.status, headers: response.headers, text };
  } catch (e) {
    if (e instanceof BodyTooLarge) throw answerInvalid(request, `HTTP ${response.status} with ${e.message}`);
    if (signal.aborted) return { fault: `HTTP ${response.status}, but the body did not arrive within ${timeoutMs} ms`, retryAfter: null };
    return { fault: `HTTP ${response.status}, but the body was cut short (${(e as Error).message})`, retryAfter: null };
  }
}

/** The body as text, streamed: refused past `maxBytes`, and checked against `Content-Length`. */
async function readBody(response: Response, maxBytes: number): Promise<string> {
  const declared = response.headers.get('content-length');
  const length = declared === null ? null : Number(declared);
  if (length !== null && length > maxBytes) {
    await response.body?.cancel();
    throw new BodyTooLarge(`a body of ${length} bytes (Content-Length), more than the ${maxBytes} read`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      // A connection that closes early makes read() throw (undici: "terminated", "other side closed").
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel();
        throw new BodyTooLarge(`a body of more than ${maxBytes} bytes, the most read`);
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  }
  // A compressed body is counted after decompression, so the declared length checks only an identity body.
  const identity = (response.headers.get('content-encoding') ?? 'identity') === 'identity';
  if (identity && length !== null && received !== length) throw new Error(`${received} of ${length} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

/** The system's word for a network fault (`ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`), else the message. */
function networkCause(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (e as Error).message;
}
