/**
 * `tradeseal engine …` commands as clients of a remote compliance engine: with `--url` they ask the engine
 * over HTTP with `--token` as the bearer token, instead of reading the local store. An error the engine
 * answers keeps its code (and so its exit code): a 404 `not_yet_logged` there is exit 3 here. An engine that
 * cannot be reached is `service_unavailable` (exit 6).
 */
import { Flags } from '@oclif/core';
import type { Config } from '../core/config.js';
import { TradesealError } from '../core/errors.js';
import { profileFlag } from './profile-flag.js';
import { checkRemoteUrl, errorAnswer, jsonAnswer, unreachable } from './remote-errors.js';
import { activeProfile } from './profiles.js';

export const engineRemoteFlags = {
  url: Flags.string({
    summary:
      "Ask this compliance engine (its base URL, e.g. https://engine.example:8080) instead of the local store (default: ENGINE_URL, else the profile's url)",
    helpValue: 'URL',
  }),
  token: Flags.string({
    summary: "The engine token sent to --url (any role; an auditor token will do; default: ENGINE_TOKEN, else the profile's token)",
    helpValue: 'tse_…',
  }),
  profile: profileFlag,
};

export interface EngineRemote {
  url: string;
  token: string;
}

/**
 * The remote engine the flags, the settings or the profile name (in that order, see ./profiles.ts), or null
 * for the local store; a URL without a token is a usage error.
 */
export async function engineRemoteOf(
  flags: { url?: string | undefined; token?: string | undefined; profile?: string | undefined },
  config: Config,
): Promise<EngineRemote | null> {
  const profile = await activeProfile(flags.profile, config);
  const url = flags.url ?? config.engineUrl ?? profile.url;
  if (!url) {
    if (flags.token)
      throw new TradesealError('usage_error', '--token was given but no engine to send it to', {
        hint: 'pass --url, set ENGINE_URL, or use a profile with a url',
      });
    return null;
  }
  const token = flags.token ?? config.engineToken ?? profile.token;
  if (!token)
    throw new TradesealError('usage_error', `${url} needs a token: the engine answers only requests that carry one`, {
      hint: 'pass --token tse_… (an auditor token is enough), set ENGINE_TOKEN, or keep it in a profile',
    });
  return { url: checkRemoteUrl(url, '--url'), token };
}

export type EngineQuery = Record<string, string | number | boolean | readonly string[] | undefined>;

/** GET `path` of the engine: its JSON, or its error body as a TradesealError. */
export const getFromEngine = <T>(remote: EngineRemote, path: string, query: EngineQuery = {}): Promise<T> => askEngine<T>(remote, 'GET', path, { query });

/**
 * One request to the engine's HTTP API: its JSON answer, or its error body as a TradesealError with the
 * engine's code (so the exit code is the one the local command would give). A body is sent as JSON; a
 * repeated query parameter is given as an array. Its instants become Dates (`reviveTimes`) unless `revive` is
 * false (a document printed as served, such as a trace).
 */
export async function askEngine<T>(
  remote: EngineRemote,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  { query = {}, body, revive = true }: { query?: EngineQuery; body?: unknown; revive?: boolean } = {},
): Promise<T> {
  const url = new URL(`${remote.url}${path}`);
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
  }
  const headers: Record<string, string> = { authorization: `Bearer ${remote.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw unreachable(remote.url, err, 'check --url / ENGINE_URL, and that the engine is up');
  }
  if (res.ok) {
    const json: unknown = res.status === 204 ? null : await jsonAnswer(res, remote.url, '--url');
    return (revive ? reviveTimes<T>(json) : json) as T;
  }
  throw await errorAnswer(res, remote.url, `${method} ${url.pathname}`, '--url', { unauthorized: 'pass a valid engine token with --token' });
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const TIME_FIELD = /(_at|_time|_since)$/;

/**
 * The engine's JSON with its instants as the local store gives them: a field named `…_at`, `…_time` or
 * `…_since` holding an ISO 8601 UTC instant becomes a Date (JSON prints a Date as the same text), so one
 * command renders a local and a remote answer alike.
 */
export function reviveTimes<T>(value: unknown, key = ''): T {
  if (typeof value === 'string') return (TIME_FIELD.test(key) && ISO_INSTANT.test(value) ? new Date(value) : value) as T;
  if (Array.isArray(value)) return value.map((item) => reviveTimes(item, key)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reviveTimes(v, k)])) as T;
  }
  return value as T;
}
