/**
 * A server's start on a PostgreSQL store that may be away: what the start does on the store (migrations, the
 * secrets it keeps, the first owner token) is tried once before the server listens; when the store is away
 * for now, the server listens anyway, answers 503 with `Retry-After` on every route that needs the store
 * (./store-gate.ts), and tries again until the store answers, then serves. Every attempt that fails is logged
 * at warn with its reason and when the next one comes (0.5 s, doubling to 5 s between attempts).
 *
 * Which failures are waited for: the store not there or not answering (src/store/faults.ts: refused, reset,
 * timed out, starting up or shutting down, a host name that does not resolve yet). Which end the start at
 * once, with the code of the error table and a hint: the store refusing what DATABASE_URL asks for (a wrong
 * password, a role or database that does not exist: `config_invalid`, exit 2; src/store/connect-errors.ts),
 * and anything else the preparation fails with (a changed migration, sealed secrets without their key).
 *
 * The bound: `STORE_START_WAIT_S`, 300 s by default. Long enough for a database restart or failover, and for a
 * store started beside the server (a container, a host booting), during which /readyz keeps the server out of
 * rotation; short enough that a wrong host or port in DATABASE_URL, which looks the same as a store that is
 * down, ends the start with its error within minutes instead of leaving a server that never serves. 0 does not
 * wait: the start fails with the store's error (exit 6), as an orchestrator that restarts its servers may want.
 */
import { isTradesealError, TradesealError } from '../core/errors.js';
import { storeConnectionError } from '../store/connect-errors.js';
import { isStoreUnavailable } from '../store/faults.js';

/** The pause after the first failed attempt, doubling up to `RETRY_CAP_MS`. */
export const RETRY_FIRST_MS = 500;
export const RETRY_CAP_MS = 5000;

export interface StoreWaitLog {
  warn(msg: string): void;
  info(msg: string): void;
}

/**
 * What a failed preparation means: the store is away for now (the returned `service_unavailable` error,
 * worth waiting for), or the start must end with the thrown error.
 */
export function storeAwayOrThrow(err: unknown, databaseUrl: string): TradesealError {
  const mistake = storeConnectionError(err, databaseUrl);
  if (mistake?.code === 'config_invalid') throw mistake;
  if (mistake) return mistake;
  // A migration's failure carries the store's as its cause.
  const cause = isTradesealError(err) && err.code === 'store_error' ? (err as Error).cause : err;
  if (!isStoreUnavailable(cause)) throw err;
  const code = (cause as { code?: unknown }).code;
  return new TradesealError('service_unavailable', `the store does not answer (${String(code)}: ${(cause as Error).message})`, {
    hint: 'check that PostgreSQL runs and answers at the host and port of DATABASE_URL',
    cause,
  });
}

export interface StoreWait {
  /** Resolves once the preparation succeeded; rejects with the error that ends the start. */
  done: Promise<void>;
  /** Stops trying (the server closes); resolves once an attempt under way has finished. */
  stop(): Promise<void>;
}

export interface StoreWaitOptions {
  databaseUrl: string;
  /** STORE_START_WAIT_S, counted from the first failed attempt. */
  waitS: number;
  log: StoreWaitLog;
  /** Tests shorten the pauses. */
  retry?: { firstMs: number; capMs: number };
}

/** Tries `prepare` again and again after `first` (the failure of the attempt before the server listened). */
export function waitForStore(prepare: () => Promise<void>, first: TradesealError, options: StoreWaitOptions): StoreWait {
  const retry = options.retry ?? { firstMs: RETRY_FIRST_MS, capMs: RETRY_CAP_MS };
  const giveUpAt = Date.now() + options.waitS * 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();
  let settle!: { resolve: () => void; reject: (err: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => {});

  const schedule = (failure: TradesealError, failures: number): void => {
    if (stopped) return;
    const pause = Math.min(retry.capMs, retry.firstMs * 2 ** (failures - 1));
    if (Date.now() + pause > giveUpAt) {
      settle.reject(
        new TradesealError('service_unavailable', `the store did not answer within ${options.waitS} s of the start (STORE_START_WAIT_S): ${failure.message}`, {
          hint: `${failure.hint ?? 'start PostgreSQL, or correct DATABASE_URL'}; STORE_START_WAIT_S sets how long a start waits for the store`,
        }),
      );
      return;
    }
    options.log.warn(
      `the store is not available (${failure.message}); the server answers 503 meanwhile and tries again in ${pause / 1000} s (a start waits up to ${options.waitS} s: STORE_START_WAIT_S)`,
    );
    timer = setTimeout(() => {
      timer = undefined;
      attempt = prepare().then(
        () => {
          if (stopped) return;
          options.log.info(`the store answers: the server serves (${failures} attempt${failures === 1 ? '' : 's'} had failed)`);
          settle.resolve();
        },
        (err: unknown) => {
          if (stopped) return;
          try {
            schedule(storeAwayOrThrow(err, options.databaseUrl), failures + 1);
          } catch (fatal) {
            settle.reject(fatal);
          }
        },
      );
    }, pause);
  };
  schedule(first, 1);

  return {
    done,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await attempt;
    },
  };
}
