import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { readProfiles, writeProfiles } from '../../src/cli/profiles.js';
import { notFound } from '../../src/core/errors.js';

export default class ConfigRemove extends TradesealCommand {
  static override summary = 'Remove a named profile (asks on a terminal; elsewhere --yes)';
  static override examples = ['<%= config.bin %> config remove --profile staging --yes'];
  static override flags = {
    profile: Flags.string({ summary: 'The profile to remove', required: true, helpValue: 'NAME' }),
    yes: Flags.boolean({ summary: 'Remove it without asking' }),
  };

  async run(): Promise<{ removed: string; file: string }> {
    const { flags } = await this.parse(ConfigRemove);
    const file = this.settings.profilesFile;
    const profiles = await readProfiles(file);
    if (!profiles[flags.profile]) throw notFound(`no profile "${flags.profile}" in ${file}`);
    await this.confirmDestructive(`Remove the profile ${flags.profile} (its URLs, token and key) from ${file}?`, flags.yes);
    const { [flags.profile]: _removed, ...rest } = profiles;
    await writeProfiles(file, rest);
    this.log(`removed the profile ${flags.profile} from ${file}`);
    return { removed: flags.profile, file };
  }
}
