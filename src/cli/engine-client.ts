/**
 * `tradeseal engine …` commands as clients of a remote compliance engine: with `--url` they ask the engine
 * over HTTP with `--token` as the bearer token, instead of reading the local store. An error the engine
 * answers keeps its code (and so its exit code): a 404 `not_yet_logged` there is exit 3 here. An engine that
 * cannot be reached is `service_unavailable` (exit 6).
 */
import { Flags } from '@oclif/core';
import type { Config } from '../config.js';
import { isErrorCode, TradesealError, type FieldError } from '../errors.js';
import { profileFlag } from './profile-flag.js';
import { activeProfile } from './profiles.js';

export const engineRemoteFlags = {
  url: Flags.string({ summary: 'Ask this compliance engine (its base URL, e.g. https://engine.example:8080) instead of the local store (default: ENGINE_URL, else the profile\'s url)', helpValue: 'URL' }),
  token: Flags.string({ summary: 'The engine token sent to --url (any role; an auditor token will do; default: ENGINE_TOKEN, else the profile\'s token)', helpValue: 'tse_…' }),
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
export async function engineRemoteOf(flags: { url?: string | undefined; token?: string | undefined; profile?: string | undefined }, config: Config): Promise<EngineRemote | null> {
  const profile = await activeProfile(flags.profile, config);
  const url = flags.url ?? config.engineUrl ?? profile.url;
  if (!url) {
    if (flags.token) throw new TradesealError('usage_error', '--token was given but no engine to send it to', { hint: 'pass --url, set ENGINE_URL, or use a profile with a url' });
    return null;
  }
  const token = flags.token ?? config.engineToken ?? profile.token;
  if (!token) throw new TradesealError('usage_error', `${url} needs a token: the engine answers only requests that carry one`, { hint: 'pass --token tse_… (an auditor token is enough), set ENGINE_TOKEN, or keep it in a profile' });
  return { url: url.replace(/\/+$/, ''), token };
}

/** GET `path` of the engine: its JSON, or its error body as a TradesealError. */
export async function getFromEngine<T>(remote: EngineRemote, path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
  const url = new URL(`${remote.url}${path}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: `Bearer ${remote.token}` }, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new TradesealError('service_unavailable', `cannot reach ${remote.url} (${(err as Error).message})`, { hint: 'check --url' });
  }
  if (res.ok) return (await res.json()) as T;
  let body: { code?: unknown; detail?: unknown; errors?: FieldError[] } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not the error body of the interface: say what came back.
  }
  const code = isErrorCode(body.code) ? body.code : res.status === 401 ? 'unauthorized' : res.status >= 500 ? 'service_unavailable' : 'bad_request';
  const detail = typeof body.detail === 'string' ? body.detail : `GET ${url.pathname} answered HTTP ${res.status}`;
  throw new TradesealError(code, `${remote.url}: ${detail}`, { ...(body.errors ? { errors: body.errors } : {}), ...(code === 'unauthorized' ? { hint: 'pass a valid engine token with --token' } : {}) });
}
