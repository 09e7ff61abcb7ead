import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import {
  checkProfileName,
  checkProfileValue,
  maskedProfile,
  PROFILE_FIELDS,
  readProfiles,
  writeProfiles,
  type Profile,
  type ProfileField,
} from '../../src/cli/profiles.js';
import { TradesealError } from '../../src/core/errors.js';

export default class ConfigSet extends TradesealCommand {
  static override summary = 'Create or change a named profile: the remote engine and signal service commands ask, with their token and key';
  static override description =
    "Each value given replaces the profile's; values not given stay. The file (TRADESEAL_PROFILES_FILE) is written atomically and readable by its owner only. Use a profile with --profile NAME on any command that can ask a remote server, or TRADESEAL_PROFILE=NAME. --unset removes values.";
  static override examples = [
    '<%= config.bin %> config set --profile prod --url https://engine.example:8080 --token tse_… --signals-url https://signals.example --key rsk_…',
    '<%= config.bin %> config set --profile prod --unset key',
  ];
  static override flags = {
    profile: Flags.string({ summary: "The profile's name (1-40 of a-z, 0-9, _ and -)", required: true, helpValue: 'NAME' }),
    url: Flags.string({ summary: "The compliance engine's base URL", helpValue: 'URL' }),
    token: Flags.string({ summary: 'The engine token to send to it', helpValue: 'tse_…' }),
    'signals-url': Flags.string({ summary: "The regime signal service's base URL", helpValue: 'URL' }),
    key: Flags.string({ summary: 'The signal service API key to send to it', helpValue: 'rsk_…' }),
    unset: Flags.string({ summary: 'Remove this value from the profile', options: Object.keys(PROFILE_FIELDS), multiple: true }),
  };

  async run(): Promise<{ profile: string; file: string; values: Profile }> {
    const { flags } = await this.parse(ConfigSet);
    const name = checkProfileName(flags.profile);
    const given: Profile = {};
    const byFlag: Record<ProfileField, string | undefined> = { url: flags.url, token: flags.token, signals_url: flags['signals-url'], key: flags.key };
    for (const [field, raw] of Object.entries(byFlag) as Array<[ProfileField, string | undefined]>) {
      if (raw !== undefined) given[field] = checkProfileValue(field, raw, `--${field.replace('_', '-')}`);
    }
    const unset = (flags.unset ?? []) as ProfileField[];
    if (Object.keys(given).length === 0 && unset.length === 0) {
      throw new TradesealError('usage_error', 'nothing to set', { hint: 'pass at least one of --url, --token, --signals-url, --key or --unset' });
    }
    const file = this.settings.profilesFile;
    const profiles = await readProfiles(file);
    const next: Profile = { ...profiles[name], ...given };
    for (const field of unset) delete next[field];
    await writeProfiles(file, { ...profiles, [name]: next });
    const shown = maskedProfile(next);
    this.log(`profile ${name} in ${file}`);
    for (const field of Object.keys(PROFILE_FIELDS) as ProfileField[]) this.log(`  ${field.padEnd(11)} ${shown[field] ?? '-'}`);
    return { profile: name, file, values: shown };
  }
}
