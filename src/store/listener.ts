/**
 * A PostgreSQL LISTEN that outlives store outages, on one connection of its own.
 *
 * postgres.js has `sql.listen`, which listens again once when its connection closes, but gives up (silently)
 * when that one attempt fails, as it does while the store is down. Here the listening connection is a pool of
 * one that is watched: when it closes, `onLost` is told and LISTEN is sent again, with the pool's pause
 * (`reconnectDelay`: 25 ms doubling to a quarter of a second) between attempts, until it succeeds or `stop()`.
 * Every successful LISTEN, the first and each after an outage, calls `onListen`: notifications sent while
 * nobody listened are lost, so the caller catches up there.
 *
 * Nothing here logs at error: an outage is not a bug.
 */
import postgres from 'postgres';
import { reconnectDelay } from './driver.js';

export interface ListenHandlers {
  onNotify(payload: string): void;
  /** LISTEN took effect (at start, and again after every loss). */
  onListen(): void;
  /** The listening connection is gone (or the first attempt failed); notifications may be missed until `onListen`. */
  onLost(err: unknown): void;
}

export interface Listening {
  stop(): Promise<void>;
}

export interface ListenOptions {
  /** How long opening the connection may take (STORE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

export function listenTo(url: string, channel: string, handlers: ListenHandlers, options: ListenOptions = {}): Listening {
  let stopped = false;
  let listening = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | null = null;

  // `onnotify` is an option of postgres.js (what its own `sql.listen` uses) that its type declarations omit.
  const sql = postgres(url, {
    max: 1,
    max_lifetime: null,
    fetch_types: false,
    // The driver's own pause before it opens the connection again (its default grows to 20 s over an outage).
    backoff: reconnectDelay,
    onnotice: () => {},
    ...(options.connectTimeoutMs === undefined ? {} : { connect_timeout: options.connectTimeoutMs / 1000 }),
    connection: { application_name: 'tradeseal-listen' },
    onnotify: (name: string, payload: string) => {
      if (name === channel) handlers.onNotify(payload);
    },
    onclose: () => {
      if (!listening || stopped) return;
      listening = false;
      handlers.onLost(new Error('the listening connection closed'));
      schedule(0);
    },
  } as postgres.Options<Record<string, never>>);

  const schedule = (ms: number): void => {
    if (stopped || timer || attempt) return;
    timer = setTimeout(() => {
      timer = undefined;
      attempt = listenOnce().finally(() => (attempt = null));
    }, ms);
    timer.unref();
  };

  const listenOnce = async (): Promise<void> => {
    try {
      await sql.unsafe(`listen "${channel.replace(/"/g, '""')}"`);
      if (stopped) return;
      failures = 0;
      listening = true;
      handlers.onListen();
    } catch (err) {
      if (stopped) return;
      if (failures === 0) handlers.onLost(err);
      failures++;
      attempt = null;
      schedule(reconnectDelay(failures) * 1000);
    }
  };

  attempt = listenOnce().finally(() => (attempt = null));
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await sql.end({ timeout: 0 }).catch(() => {});
    },
  };
}
