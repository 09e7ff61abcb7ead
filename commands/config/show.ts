import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { maskedProfile, PROFILE_FIELDS, readProfiles, type Profile, type ProfileField } from '../../src/cli/profiles.js';
import { notFound } from '../../src/core/errors.js';

export default class ConfigShow extends TradesealCommand {
  static override summary = 'Show the named profiles (tokens and keys by their first 8 characters), or one of them';
  static override description =
    'Which profile is in use without --profile: TRADESEAL_PROFILE. A command takes each value from its flag first, then from the environment (ENGINE_URL, ENGINE_TOKEN, SIGNALS_URL, SIGNALS_KEY), then from the profile.';
  static override examples = ['<%= config.bin %> config show', '<%= config.bin %> config show --profile prod --json'];
  static override flags = { profile: Flags.string({ summary: 'Only this profile', helpValue: 'NAME' }), ...reportFlags };

  async run(): Promise<{ file: string; active: string | null; profiles: Record<string, Profile> }> {
    const { flags } = await this.parse(ConfigShow);
    const file = this.settings.profilesFile;
    const all = await readProfiles(file);
    if (flags.profile !== undefined && !all[flags.profile]) throw notFound(`no profile "${flags.profile}" in ${file}`);
    const chosen = flags.profile === undefined ? all : { [flags.profile]: all[flags.profile]! };
    const profiles = Object.fromEntries(Object.entries(chosen).map(([n, p]) => [n, maskedProfile(p)]));
    const active = this.settings.profile;
    if (Object.keys(profiles).length === 0) this.log(`no profiles in ${file} (make one: tradeseal config set --profile NAME --url … --token …)`);
    else {
      const fields = Object.keys(PROFILE_FIELDS) as ProfileField[];
      // The secrets are shown masked: at a narrow width they give way before the addresses are cut.
      const headers = ['profile', ...fields.map((f) => (f === 'token' || f === 'key' ? { name: f, priority: 'give-way' as const } : f))];
      this.log(
        renderTable(
          headers,
          Object.entries(profiles).map(([n, p]) => [n === active ? `${n} (TRADESEAL_PROFILE)` : n, ...fields.map((f) => p[f])]),
          reportStyle(flags),
        ),
      );
      this.log(`\n${file}`);
    }
    return { file, active, profiles };
  }
}
