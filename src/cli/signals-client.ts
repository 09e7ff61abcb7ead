/**
 * The `tradeseal signals …` commands as clients of a remote regime signal service: with `--url` (or
 * SIGNALS_URL) they ask the service over HTTP with `--key` (or SIGNALS_KEY) in `X-Signals-Key`, instead of
 * reading the local store. An error the service answers keeps its code (and so its exit code): a 403
 * `history_limit` there is exit 5 here. A service that cannot be reached is `service_unavailable` (exit 6).
 */
import { Flags } from '@oclif/core';
import type { Config } from '../core/config.js';
import { activeProfile } from './profiles.js';
import { profileFlag } from './profile-flag.js';
import { reviveTimes } from './engine-client.js';
import { bytesAnswer, checkRemoteUrl, errorAnswer, jsonAnswer, textAnswer, unreachable } from './remote-errors.js';

export const remoteFlags = {
  url: Flags.string({
    summary: "Ask this regime signal service instead of the local store (default: SIGNALS_URL, else the profile's signals_url)",
    helpValue: 'URL',
  }),
  key: Flags.string({ summary: "The API key sent to --url (default: SIGNALS_KEY, else the profile's key)", helpValue: 'rsk_…' }),
  profile: profileFlag,
};

export interface Remote {
  url: string;
  key: string | null;
}

/** The remote service the flags, the settings or the profile name (in that order, see ./profiles.ts), or null for the local store. */
export async function remoteOf(
  flags: { url?: string | undefined; key?: string | undefined; profile?: string | undefined },
  config: Config,
): Promise<Remote | null> {
  const profile = await activeProfile(flags.profile, config);
  const url = flags.url ?? config.signalsUrl ?? profile.signals_url;
  if (!url) return null;
  return { url: checkRemoteUrl(url, '--url'), key: flags.key ?? config.signalsKey ?? profile.key ?? null };
}

/**
 * Calls the service: JSON back (or the CSV text with `text: true`, or a binary file's bytes with `bytes`
 * naming its media type); the service's error body as a TradesealError.
 */
export async function callService<T>(
  remote: Remote,
  method: 'GET' | 'POST',
  path: string,
  options: { query?: Record<string, string | number | undefined>; body?: unknown; text?: boolean; bytes?: string } = {},
): Promise<T> {
  const url = new URL(`${remote.url}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  if (remote.key) headers['x-signals-key'] = remote.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw unreachable(remote.url, err, 'check --url / SIGNALS_URL, and that the service is up');
  }
  if (res.ok && options.bytes !== undefined) return (await bytesAnswer(res, remote.url, '--url', options.bytes)) as T;
  if (res.ok) return (options.text ? await textAnswer(res, remote.url, '--url', 'text/csv') : await jsonAnswer(res, remote.url, '--url')) as T;
  throw await errorAnswer(res, remote.url, `${method} ${url.pathname}`, '--url', { unauthorized: 'pass --key (or SIGNALS_KEY)' });
}

/** An operator call (`/v1/admin/…`, an owner key): the answer with its ISO timestamps as dates, as the store gives them. */
export async function askService<T>(
  remote: Remote,
  method: 'GET' | 'POST',
  path: string,
  options: { query?: Record<string, string | number | undefined>; body?: unknown } = {},
): Promise<T> {
  return reviveTimes<T>(await callService<unknown>(remote, method, path, options));
}
