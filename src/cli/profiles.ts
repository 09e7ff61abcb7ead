/**
 * Named profiles: the remote engine and signal service a command asks instead of the local store, with the
 * token and key to send, kept in `TRADESEAL_PROFILES_FILE` (`tradeseal config set|show|list|remove`).
 *
 * The file is JSON, `{"profiles": {"prod": {"url", "token", "signals_url", "key"}}}`, written atomically,
 * readable by its owner only (0600, in a 0700 directory), since it holds secrets. Each value is checked with
 * the parser of the setting it stands for (ENGINE_URL, ENGINE_TOKEN, SIGNALS_URL, SIGNALS_KEY), on the way in
 * and on the way out: a hand-edited file with a bad value names the file, the profile and the rule.
 *
 * Which remote a command asks, for each value: its flag, else the environment (ENGINE_URL, ENGINE_TOKEN,
 * SIGNALS_URL, SIGNALS_KEY), else the profile named by `--profile` or TRADESEAL_PROFILE.
 */
import { chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../core/atomic-file.js';
import { fileError } from '../core/file-errors.js';
import { PROFILE_NAME, SETTINGS, type Config } from '../core/config.js';
import { TradesealError } from '../core/errors.js';

/** A profile's values and the setting each stands for. */
export const PROFILE_FIELDS = {
  url: 'engineUrl',
  token: 'engineToken',
  signals_url: 'signalsUrl',
  key: 'signalsKey',
} as const satisfies Record<string, keyof typeof SETTINGS>;

export type ProfileField = keyof typeof PROFILE_FIELDS;
export type Profile = Partial<Record<ProfileField, string>>;
const SECRET_FIELDS: readonly ProfileField[] = ['token', 'key'];

/** The value checked as its setting checks it; a `usage_error` naming `where` and the expected form otherwise. */
export function checkProfileValue(field: ProfileField, raw: string, where: string): string {
  const s = SETTINGS[PROFILE_FIELDS[field]];
  try {
    return s.parse(raw) as string;
  } catch {
    throw new TradesealError('usage_error', `${where}: ${field} is not ${s.form}`, { hint: `the same rule as ${s.env}` });
  }
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new TradesealError('usage_error', `"${name}" is not a profile name: 1-40 of a-z, 0-9, _ and -`);
  return name;
}

/** What to do about a profiles file that is not what `tradeseal config set` writes. */
const REWRITE = 'fix it (it is JSON: {"profiles": {"name": {"url": …, "token": …}}}), or remove it and set the profiles again with `tradeseal config set`';

/** Every profile of the file; none when it does not exist. */
export async function readProfiles(file: string): Promise<Record<string, Profile>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw fileError(e, {
      field: 'TRADESEAL_PROFILES_FILE',
      file,
      action: 'read',
      code: 'config_invalid',
      hint: 'point TRADESEAL_PROFILES_FILE at a file this user can read and write, in a directory (not under a file)',
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new TradesealError('config_invalid', `the profiles file ${file} is not JSON: ${(e as Error).message}`, { hint: REWRITE });
  }
  const profiles = (doc as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw new TradesealError('config_invalid', `the profiles file ${file} has no "profiles" object`, { hint: REWRITE });
  }
  const out: Record<string, Profile> = {};
  for (const [name, value] of Object.entries(profiles)) {
    const where = `${file}, profile "${name}"`;
    if (!PROFILE_NAME.test(name)) throw new TradesealError('config_invalid', `${where}: not a profile name (1-40 of a-z, 0-9, _ and -)`, { hint: REWRITE });
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new TradesealError('config_invalid', `${where}: not an object`, { hint: REWRITE });
    const profile: Profile = {};
    for (const [field, raw] of Object.entries(value)) {
      if (!(field in PROFILE_FIELDS))
        throw new TradesealError('config_invalid', `${where}: unknown member "${field}" (known: ${Object.keys(PROFILE_FIELDS).join(', ')})`, { hint: REWRITE });
      if (typeof raw !== 'string') throw new TradesealError('config_invalid', `${where}: ${field} is not a string`, { hint: REWRITE });
      try {
        profile[field as ProfileField] = checkProfileValue(field as ProfileField, raw, where);
      } catch (e) {
        throw new TradesealError('config_invalid', (e as Error).message, { hint: REWRITE });
      }
    }
    out[name] = profile;
  }
  return out;
}

/** Replaces the file's profiles, owner-only. */
export async function writeProfiles(file: string, profiles: Record<string, Profile>): Promise<void> {
  const sorted = Object.fromEntries(Object.entries(profiles).sort(([a], [b]) => a.localeCompare(b)));
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomically(file, async (append) => append(`${JSON.stringify({ profiles: sorted }, null, 2)}\n`));
    await chmod(file, 0o600);
  } catch (e) {
    throw fileError(e, {
      field: 'TRADESEAL_PROFILES_FILE',
      file,
      action: 'write',
      code: 'config_invalid',
      hint: 'point TRADESEAL_PROFILES_FILE at a path in a directory this user can write to',
    });
  }
}

/** A profile for printing: secrets shown by their first 8 characters only. */
export function maskedProfile(profile: Profile): Profile {
  const out: Profile = { ...profile };
  for (const f of SECRET_FIELDS) if (out[f]) out[f] = `${out[f]!.slice(0, 8)}…`;
  return out;
}

/**
 * The profile a command uses: the one `--profile` names, else TRADESEAL_PROFILE's, else none. A name that the
 * file does not hold is a usage error listing the names it does.
 */
export async function activeProfile(flag: string | undefined, config: Pick<Config, 'profile' | 'profilesFile'>): Promise<Profile> {
  const name = flag ?? config.profile;
  if (!name) return {};
  const profiles = await readProfiles(config.profilesFile);
  const found = profiles[name];
  if (!found) {
    const known = Object.keys(profiles);
    throw new TradesealError('usage_error', `no profile "${name}" in ${config.profilesFile}`, {
      hint: known.length ? `the profiles are ${known.join(', ')}` : `make it: tradeseal config set --profile ${name} --url … --token …`,
    });
  }
  return found;
}
